"""What the model costs: every call counted for its person and source, prices with cached
tokens, budgets checked before the call (a race of two chats included), a scheduled task over
budget skipped, requests without the model still working, the owner's view and the chart."""

from __future__ import annotations

import asyncio
import io
import sqlite3
import struct
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from fakehttp import Reply, fake_server
from llm_fixtures import chat_reply, chat_stream
from test_console import Terminal
from test_console import setup_for as console_setup
from test_telegram import ADA, eventually, served

from assistant import app
from assistant.app import operations, serve
from assistant.app.runtime import compose
from assistant.config import parse_config
from assistant.db import open_database
from assistant.errors import ConfigError
from assistant.memory.export import gather
from assistant.metrics import REGISTRY
from assistant.schedules.parse import read_schedule
from assistant.tasks import NewTask, Owner
from assistant.usage.report import report

OWNER = 4242
PRICES = {"test-model": {"input": 2.0, "cached_input": 0.5, "output": 8.0}}


def setup_for(tmp_path, url: str, budgets: dict | None = None, **llm) -> app.Setup:
    raw = {
        "assistant": {"data_dir": str(tmp_path), "timezone": "Europe/Berlin"},
        "telegram": {"allowed_user_ids": [OWNER]},
        "llm": {"base_url": url, "api_key_env": "TEST_LLM_KEY", "model": "test-model",
                "stream": False, "prices": PRICES, **llm},
        "budgets": budgets or {},
    }  # fmt: skip
    return app.Setup(parse_config(raw), "test", tmp_path)


def rows(folder) -> list[tuple]:
    with sqlite3.connect(folder / "assistant.db") as db:
        return db.execute(
            "SELECT user_id, source, task_id, model, input_tokens, cached_tokens, output_tokens,"
            " round(cost, 8), estimated, settled FROM usage WHERE source != 'system' ORDER BY id"
        ).fetchall()


def reply_with(usage: dict | None, text: str = "Hello.") -> Reply:
    reply = chat_reply(text)
    body = dict(reply.json)
    if usage is None:
        body.pop("usage")
    else:
        body["usage"] = usage
    return Reply(json=body)


@pytest.fixture(autouse=True)
def key(monkeypatch):
    monkeypatch.setenv("TEST_LLM_KEY", "k")


async def test_a_chat_turn_is_counted_with_its_price_and_cached_tokens(tmp_path, clock):
    usage = {"prompt_tokens": 1000, "completion_tokens": 100,
             "prompt_tokens_details": {"cached_tokens": 400}}  # fmt: skip
    async with fake_server() as server:
        server.script(reply_with(usage))
        await serve.ask(setup_for(tmp_path, f"{server.url}/v1"), "hi", clock, io.StringIO())
    # 600 fresh at 2.0, 400 cached at 0.5, 100 out at 8.0 a million
    assert rows(tmp_path) == [(OWNER, "chat", "", "test-model", 1000, 400, 100, 0.0022, 0, 1)]


async def test_a_server_that_reports_no_usage_gets_our_estimate_marked(tmp_path, clock):
    async with fake_server() as server:
        server.script(reply_with(None, "A short answer."))
        await serve.ask(setup_for(tmp_path, f"{server.url}/v1"), "hi", clock, io.StringIO())
    ((*_, input_tokens, cached, output, cost, estimated, settled),) = rows(tmp_path)
    assert input_tokens > 50 and cached == 0 and 1 <= output <= 10  # the prompt, the answer
    assert (estimated, settled) == (1, 1) and cost > 0


async def ask(tmp_path, clock, url, text="hi", budgets=None, **llm) -> str:
    out = io.StringIO()
    await serve.ask(setup_for(tmp_path, url, budgets, **llm), text, clock, out)
    return out.getvalue()


BIG = {"prompt_tokens": 1_000_000, "completion_tokens": 0}  # 2.00 at 2.0 a million


async def test_the_budget_stops_a_call_before_it_is_sent_and_says_until_when(tmp_path, clock):
    async with fake_server() as server:
        server.script(reply_with(BIG), reply_with(BIG))
        url = f"{server.url}/v1"
        first = await ask(tmp_path, clock, url, budgets={"daily": 1.5})
        second = await ask(tmp_path, clock, url, "and again", budgets={"daily": 1.5})
    assert first == "Hello.\n" and len(server.requests) == 1  # the second was never sent
    assert "Today's budget for the model is spent; it starts again Sun, Mar 15, 00:00" in second
    assert [r[0] for r in rows(tmp_path)] == [OWNER]  # nothing held for the refused call


async def test_a_monthly_budget_in_tokens_and_the_owners_override(tmp_path, clock):
    budgets = {"unit": "tokens", "monthly": 5_000_000, "people": {str(OWNER): {"monthly": 500}}}
    async with fake_server() as server:
        url = f"{server.url}/v1"
        said = await ask(tmp_path, clock, url, budgets=budgets)  # the prompt alone is more
    assert "this month's budget has 500 tokens left (it starts again Wed, Apr 1, 00:00)" in said
    assert server.requests == [] and rows(tmp_path) == []  # a cap: never sent, nothing held


async def test_requests_understood_without_the_model_work_past_the_budget(tmp_path, clock):
    async with fake_server() as server:
        server.script(reply_with(BIG))
        url = f"{server.url}/v1"
        await ask(tmp_path, clock, url, budgets={"daily": 1.0})
        said = await ask(tmp_path, clock, url, "remind me in 10 minutes to stretch",
                         budgets={"daily": 1.0})  # fmt: skip
        listed = await ask(tmp_path, clock, url, "/tasks", budgets={"daily": 1.0})
    assert "stretch" in said and "budget" not in said and "stretch" in listed
    assert len(server.requests) == 1


class Recording:
    """A channel that keeps the notices it delivers (the owner's alerts, a task's notice)."""

    def __init__(self) -> None:
        self.notices: list = []

    async def deliver(self, notice) -> int:
        self.notices.append(notice)
        return len(self.notices)

    async def present(self, pending) -> int | None:
        return None

    async def close(self, pending, outcome: str) -> None:
        return None


def spend(folder, user_id: int, cost: float, day: str = "2026-03-14", **extra) -> None:
    """A settled row, as an earlier call would have left it."""
    columns = {"at": f"{day}T08:00:00+00:00", "day": day, "user_id": user_id, "source": "chat",
               "model": "test-model", "cost": cost, "input_tokens": 100, "output_tokens": 50,
               "settled": 1, **extra}  # fmt: skip
    with sqlite3.connect(folder / "assistant.db") as db:
        marks = ", ".join("?" * len(columns))
        db.execute(
            f"INSERT INTO usage ({', '.join(columns)}) VALUES ({marks})", (*columns.values(),)
        )


async def test_two_chats_racing_past_the_limit_cannot_both_spend_it(tmp_path, clock):
    channel = Recording()
    async with fake_server() as server:
        held = asyncio.Event()
        server.script(Reply(json=reply_with(BIG).json, hold=held), reply_with(BIG))
        setup = setup_for(tmp_path, f"{server.url}/v1", {"daily": 1.0})
        async with compose(setup, clock, channel, channel) as runtime:
            spend(tmp_path, OWNER, 0.985)  # what is left covers one call's worst case, not two
            private, group = await runtime.person(OWNER, OWNER), await runtime.person(OWNER, -100)
            first = asyncio.create_task(runtime.answer(private, "hi"))
            await server.arrived.wait()  # the first call is at the server, its hold kept
            second = await runtime.answer(group, "hi there")
            held.set()
            answered = await first
    assert answered.text == "Hello." and "today's budget has 0.00" in second.text
    assert len(server.requests) == 1


async def test_the_owner_is_told_once_at_80_and_at_100_percent(tmp_path, clock):
    channel = Recording()
    async with fake_server() as server:
        server.default = lambda request: reply_with(
            {"prompt_tokens": 100_000, "completion_tokens": 0}
        )  # 0.20 a call
        setup = setup_for(tmp_path, f"{server.url}/v1", {"daily": 1.0})
        async with compose(setup, clock, channel, channel) as runtime:
            for _ in range(6):
                await runtime.answer(await runtime.person(OWNER, OWNER, "Ada"), "hi")
    told = [n.text for n in channel.notices]
    assert told == [
        "💸 Ada has used 80% of the day's budget (1.00 USD).",
        "💸 Ada has used 100% of the day's budget (1.00 USD).",
    ]
    assert len(server.requests) == 5  # the sixth was refused before it was sent


async def test_a_scheduled_agent_task_over_budget_is_skipped_with_a_notice_not_retried(
    tmp_path, clock
):
    channel = Recording()
    async with fake_server() as server:
        server.default = lambda request: reply_with(BIG)
        setup = setup_for(tmp_path, f"{server.url}/v1", {"daily": 1.0})
        async with compose(setup, clock, channel, channel) as runtime:
            spend(tmp_path, OWNER, 1.0)
            owner = await runtime.person(OWNER, OWNER)
            made = await runtime.agent.reply(owner, "x")  # over budget: the model is not asked
            assert made.ending == "budget"
            await add_agent_task(runtime, owner, "every 1h", "news digest", "any news?")
            clock.advance(timedelta(hours=1, minutes=1))
            await runtime.scheduler.fire_due()
            runs = await runs_of(tmp_path)
    assert server.requests == []
    assert [n.text for n in channel.notices][-1].startswith("⏸ news digest: Today's budget")
    assert runs == [("ok", 1)]  # done, once: not failed, not retried


async def add_agent_task(
    runtime, person, when: str, description: str, prompt: str, cap: float = 0.0
):
    parsed = read_schedule(when, person.timezone, runtime.clock.now())
    data = {"prompt": prompt, "tools": [], "monthly_cap": cap}
    owner = Owner(person.user_id, person.chat_id)
    return await runtime.tasks.add(NewTask(owner, "agent_task", description, parsed, data))


async def runs_of(folder) -> list[tuple]:
    with sqlite3.connect(folder / "assistant.db") as db:
        return db.execute("SELECT status, attempt FROM task_runs ORDER BY id").fetchall()


FAMILY = 777


async def test_the_owner_sees_everyone_and_a_person_only_themselves(tmp_path, clock):
    channel = Recording()
    setup = app.Setup(
        parse_config({"assistant": {"data_dir": str(tmp_path), "timezone": "Europe/Berlin"},
                      "telegram": {"allowed_user_ids": [OWNER, FAMILY]},
                      "llm": {"prices": PRICES, "model": "test-model"}}),
        "test", tmp_path,
    )  # fmt: skip
    async with compose(setup, clock, channel, channel) as runtime:
        spend(tmp_path, OWNER, 0.5)
        await runtime.people.set_name(FAMILY, "Mira")
        spend(tmp_path, FAMILY, 0.25, "2026-03-01", task_id="k3x9", source="task", run="r1")
        spend(tmp_path, FAMILY, 0.25, "2026-02-20")
        mine = await runtime.answer(await runtime.person(OWNER, OWNER), "/usage")
        theirs = await runtime.answer(await runtime.person(FAMILY, FAMILY), "how much have I spent")
    assert "Today: 0.50 USD" in mine.text and "• Mira: 0.50 USD" in mine.text  # by name
    assert "• #4242: 0.50 USD" in mine.text  # a number only for one who never said a name
    assert "Today: 0.00 USD" in theirs.text and "This month: 0.25 USD" in theirs.text
    assert "The last 30 days: 0.50 USD" in theirs.text and "4242" not in theirs.text
    assert "• task k3x9" in theirs.text and "• chat: 0.25 USD" in theirs.text


async def test_the_chart_is_a_real_png_of_the_30_days(tmp_path, clock):
    channel = Recording()
    async with (
        fake_server() as server,
        compose(setup_for(tmp_path, f"{server.url}/v1"), clock, channel, channel) as runtime,
    ):
        for day in ("2026-02-13", "2026-02-14", "2026-03-01", "2026-03-14"):
            spend(tmp_path, OWNER, 0.1, day)
        said = await runtime.answer(await runtime.person(OWNER, OWNER), "/usage")
    (picture,) = said.images
    assert picture.data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", picture.data[16:24])
    assert (width, height) == (800, 360)
    found = await report_of(tmp_path, clock)
    assert len(found.days) == 30 and found.days[0][0].isoformat() == "2026-02-13"
    assert [d.isoformat() for d, _, cost in found.days if cost] == [
        "2026-02-13", "2026-02-14", "2026-03-01", "2026-03-14"
    ]  # fmt: skip


async def report_of(folder, clock):
    db = await open_database(folder / "assistant.db")
    try:
        return await report(db, clock.now(), "Europe/Berlin", None)
    finally:
        await db.close()


async def test_the_command_line_prints_the_table_and_writes_the_chart(tmp_path, clock, capsys):
    async with fake_server() as server:
        setup = setup_for(tmp_path, f"{server.url}/v1")
        async with compose(setup, clock, Recording(), Recording()):
            today = datetime.now(ZoneInfo("Europe/Berlin")).date()  # the command's own clock
            spend(tmp_path, OWNER, 0.5, today.isoformat())
        out = io.StringIO()
        await operations.usage(setup, tmp_path / "chart.png", out)
        with pytest.raises(ConfigError, match="exists; name a new file"):
            await operations.usage(setup, tmp_path / "chart.png", io.StringIO())
    assert "• #4242: 0.50 USD" in out.getvalue()
    assert (tmp_path / "chart.png").read_bytes()[:4] == b"\x89PNG"


async def test_tasks_show_an_agent_tasks_cost_a_run_and_a_month(tmp_path, clock):
    channel = Recording()
    async with fake_server() as server:
        server.default = lambda request: reply_with(BIG)  # 2.00 a call
        async with compose(
            setup_for(tmp_path, f"{server.url}/v1"), clock, channel, channel
        ) as runtime:
            owner = await runtime.person(OWNER, OWNER)
            await add_agent_task(runtime, owner, "every day at 9", "news digest", "any news?")
            clock.advance(timedelta(days=1))
            await runtime.scheduler.fire_due()
            listed = await runtime.answer(owner, "/tasks")
    assert "news digest" in listed.text
    assert "(2.00 USD a run, about 60.00 USD a month)" in listed.text


async def test_a_streamed_answer_counts_its_final_usage_and_the_metrics_count_it(tmp_path, clock):
    before = (
        REGISTRY.get_sample_value(
            "assistant_llm_tokens_total",
            {"model": "test-model", "source": "chat", "kind": "output"},
        )
        or 0
    )
    async with fake_server() as server:
        stream = chat_stream(("Hel", "lo."))
        events = [*stream.events[:-1]]
        events.append(
            {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 1,
                "model": "m",
                "choices": [],
                "usage": {"prompt_tokens": 30, "completion_tokens": 3},
            }
        )
        events.append(stream.events[-1])
        server.script(Reply(events=events))
        await ask(tmp_path, clock, f"{server.url}/v1", stream=True)
    ((*_, input_tokens, _, output, _, estimated, settled),) = rows(tmp_path)
    assert (input_tokens, output, estimated, settled) == (30, 3, 0, 1)
    after = REGISTRY.get_sample_value(
        "assistant_llm_tokens_total", {"model": "test-model", "source": "chat", "kind": "output"}
    )
    assert after == before + 3


async def test_the_export_holds_the_usage_and_old_rows_go_after_keep_days(tmp_path, clock):
    async with fake_server() as server:
        server.script(reply_with(BIG))
        setup = setup_for(tmp_path, f"{server.url}/v1", {"keep_days": 31})
        async with compose(setup, clock, Recording(), Recording()) as runtime:
            spend(tmp_path, OWNER, 0.3, "2026-02-01")  # 41 days old
            spend(tmp_path, OWNER, 0.2, "2026-02-20")
            await runtime.answer(await runtime.person(OWNER, OWNER), "hi")
            data = await gather(runtime.db, OWNER, clock.now().isoformat())
    assert [row["day"] for row in data["model_usage"]] == ["2026-02-20", "2026-03-14"]
    assert data["model_usage"][1]["cost"] == 2.0 and data["model_usage"][1]["calls"] == 1


async def test_a_voice_notes_minutes_are_counted_and_held_to_the_budget(
    tmp_path, clock, monkeypatch
):
    llm = {"model": "test-model", "prices": {"whisper-small": {"audio_minute": 0.5}}}
    spoken = "/remind in 10m stretch"
    async with fake_server() as whisper:
        whisper.default = lambda request: Reply(json={"text": spoken})
        speech = {"base_url": f"{whisper.url}/v1", "model": "whisper-small"}
        budgets = {"daily": 0.9}
        async with served(
            tmp_path, clock, monkeypatch, speech=speech, budgets=budgets, **llm
        ) as running:
            running.telegram.voice(ADA, b"OggS voice", seconds=90)  # 0.75 at 0.5 a minute
            await eventually(lambda: any("stretch" in t for t in running.telegram.texts()))
            running.telegram.voice(ADA, b"OggS voice", seconds=60)  # 0.50: more than is left
            await eventually(lambda: any("budget" in t for t in running.telegram.texts()))
    assert len(whisper.requests) == 1  # the second note was not sent to be transcribed
    with sqlite3.connect(tmp_path / "assistant.db") as db:
        counted = db.execute("SELECT source, model, audio_seconds, cost FROM usage").fetchall()
    assert counted == [("speech", "whisper-small", 90.0, 0.75)]
    said = [t for t in running.telegram.texts() if "budget" in t]
    assert said == [
        "This would need up to 0.50 USD of the model; today's budget has 0.15 USD left (it "
        "starts again Sun, Mar 15, 00:00). Reminders, notes and commands still work."
    ]


async def test_a_russian_person_gets_the_budget_line_and_usage_in_russian(
    tmp_path, clock, monkeypatch
):
    async with served(tmp_path, clock, monkeypatch, budgets={"daily": 0.5}, model="test-model",
                      prices=PRICES) as running:  # fmt: skip
        running.model.script(reply_with(BIG))
        running.telegram.message(ADA, "/lang ru")
        running.telegram.message(ADA, "привет")
        await eventually(lambda: "Hello." in running.telegram.texts())
        running.telegram.message(ADA, "как дела?")
        await eventually(lambda: any("Дневной бюджет" in t for t in running.telegram.texts()))
        running.telegram.message(ADA, "сколько я потратил")
        await eventually(lambda: len(running.telegram.sent("sendPhoto")) == 1)
    texts = running.telegram.texts()
    assert any(t.startswith("Расход модели:\nСегодня: 2.00 USD") for t in texts)
    (photo,) = running.telegram.sent("sendPhoto")
    assert photo["photo"][:4] == b"\x89PNG" and "Расход модели" in photo["caption"]


@pytest.mark.parametrize(
    ("budgets", "said"),
    [
        ({"daily": -1}, "budgets.daily"),
        ({"people": {"ada": {"daily": 1.0}}}, "is not a user id"),
        ({"unit": "euros"}, "budgets.unit"),
        ({"keep_days": 3}, "budgets.keep_days"),
        ({"groups": {"weekly": 1.0}}, "budgets.groups.weekly"),
    ],
)
def test_a_bad_budget_in_the_config_is_one_clear_line(tmp_path, budgets, said):
    with pytest.raises(ConfigError, match=said):
        parse_config({"budgets": budgets})


def test_a_bad_price_in_the_config_is_one_clear_line():
    with pytest.raises(ConfigError, match="llm.prices"):
        parse_config({"llm": {"prices": {"m": {"input": "cheap"}}}})


async def test_a_task_carries_its_own_monthly_cap_and_its_runs_are_counted_as_its_own(
    tmp_path, clock
):
    channel = Recording()
    async with fake_server() as server:
        server.default = lambda request: reply_with(BIG)  # 2.00 a run
        async with compose(
            setup_for(tmp_path, f"{server.url}/v1"), clock, channel, channel
        ) as runtime:
            owner = await runtime.person(OWNER, OWNER)
            task = await add_agent_task(runtime, owner, "every 1h", "digest", "news?", cap=3.0)
            for _ in range(3):
                clock.advance(timedelta(hours=1, minutes=1))
                await runtime.scheduler.fire_due()
    assert len(server.requests) == 2  # 2.00, then 4.00: past the cap of 3.00, the third waits
    assert [r[:3] for r in rows(tmp_path)] == [(OWNER, "task", task.id)] * 2
    assert channel.notices[-1].text.startswith("⏸ digest: This task's monthly cap is spent")
    assert await runs_of(tmp_path) == [("ok", 1)] * 3


async def test_asked_in_russian_by_someone_with_no_language_yet_it_answers_in_russian(
    tmp_path, clock
):
    async with (
        fake_server() as server,
        compose(
            setup_for(tmp_path, f"{server.url}/v1"), clock, Recording(), Recording()
        ) as runtime,
    ):
        said = await runtime.answer(await runtime.person(OWNER, OWNER), "сколько я потратил")
    assert said.text.startswith("Расход модели:\nСегодня: 0.00 USD")
    assert said.images[0].caption == "Расход модели за последние 30 дней"


async def test_in_the_terminal_the_chart_is_saved_where_it_says(tmp_path, clock, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    terminal = Terminal(exports=tmp_path / "exports")
    terminal.type("/usage", "/quit")
    await serve.chat(console_setup(tmp_path), clock, terminal.console)
    (saved,) = [line.split("saved ", 1)[1] for line in terminal.text().splitlines()
                if "saved " in line]  # fmt: skip
    picture = await asyncio.to_thread(Path(saved).read_bytes)
    assert saved.endswith("picture-1.png") and picture[:4] == b"\x89PNG"


async def test_the_budget_group_chats_share_stops_a_call_in_a_group_only(tmp_path, clock):
    budgets = {"groups": {"daily": 1.0}}
    async with fake_server() as server:
        server.default = lambda request: reply_with(chat_reply("Hello.").json["usage"])
        setup = setup_for(tmp_path, f"{server.url}/v1", budgets)
        async with compose(setup, clock, Recording(), Recording()) as runtime:
            spend(tmp_path, FAMILY, 1.0, grouped=1)  # someone else, in a group chat
            in_group = await runtime.answer(await runtime.person(OWNER, -100), "hi all")
            alone = await runtime.answer(await runtime.person(OWNER, OWNER), "hi")
    assert in_group.text.startswith("The budget group chats share for the model is spent")
    assert alone.text == "Hello." and len(server.requests) == 1


async def test_usage_is_in_help_and_in_the_telegram_menu(tmp_path, clock, monkeypatch):
    async with served(tmp_path, clock, monkeypatch) as running:
        telegram = running.telegram
        menu = next(c for c in telegram.calls if c.method == "setMyCommands").params["commands"]
        telegram.message(ADA, "/help")
        await eventually(lambda: any("/usage — " in t for t in telegram.texts()))
    [usage] = [c for c in menu if c["command"] == "usage"]
    assert usage["description"] == "what the model cost: today, this month and 30 days"
