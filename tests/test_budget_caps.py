"""A budget is a cap: a call is held at its worst case (what it sends, tools included, and the
most it may answer), its answer lowered to fit what is left, refused truthfully when even that
does not fit; however many chats run at once, the day ends at or under its budget."""

from __future__ import annotations

import asyncio
import json
import sqlite3

from fakehttp import Reply, fake_server
from llm_fixtures import chat_reply
from test_usage import OWNER, Recording, setup_for

from assistant.app.runtime import compose
from assistant.errors import RunError
from assistant.llm.tokens import OverCounter
from assistant.llm.types import Request, ToolSpec, UserMessage
from assistant.usage.metered import _input


def spent(folder) -> int:
    with sqlite3.connect(folder / "assistant.db") as db:
        row = db.execute(
            "SELECT SUM(input_tokens + output_tokens) FROM usage WHERE source != 'system'"
        ).fetchone()
    return int(row[0] or 0)


def honest(request) -> Reply:
    """A server that answers with every token it was allowed and counts the prompt as a real
    tokenizer would (about four characters a token)."""
    body = request.json()
    reply = dict(chat_reply("An answer.").json)
    sent = len(json.dumps(body["messages"])) + len(json.dumps(body.get("tools", [])))
    reply["usage"] = {"prompt_tokens": sent // 4, "completion_tokens": body["max_tokens"]}
    return Reply(json=reply)


async def test_parallel_chats_never_spend_past_the_days_budget(tmp_path, clock):
    budget = 40_000
    async with fake_server() as server:
        server.default = honest
        setup = setup_for(tmp_path, f"{server.url}/v1", {"unit": "tokens", "daily": budget})
        channel = Recording()
        async with compose(setup, clock, channel, channel) as runtime:
            people = [await runtime.person(OWNER, -n) for n in range(1, 21)]  # 20 group chats
            answers = await asyncio.gather(*(runtime.answer(p, "tell me a story") for p in people))
    refused = [a.text for a in answers if "budget" in a.text]
    assert spent(tmp_path) <= budget
    assert 0 < len(server.requests) < 20 and len(refused) == 20 - len(server.requests)
    assert all("left" in text and "is spent" not in text for text in refused)  # truthful


async def test_an_answer_is_lowered_to_what_is_left_not_refused(tmp_path, clock):
    async with fake_server() as server:
        server.default = honest
        setup = setup_for(tmp_path, f"{server.url}/v1", {"unit": "tokens", "daily": 100_000})
        channel = Recording()
        async with compose(setup, clock, channel, channel) as runtime:
            person = await runtime.person(OWNER, OWNER)
            whole = await runtime.answer(person, "hi")
            first = server.requests[0].json()["max_tokens"]
            left = 100_000 - spent(tmp_path)
            with sqlite3.connect(tmp_path / "assistant.db") as db:  # most of the day is used
                db.execute(
                    "UPDATE usage SET input_tokens = input_tokens + ? WHERE source != 'system'",
                    (left - 2_600,),
                )
            lowered = await runtime.answer(person, "hi again")
    assert whole.text == lowered.text == "An answer."
    assert first == 1024 and 256 <= server.requests[1].json()["max_tokens"] < 1024
    assert spent(tmp_path) <= 100_000


def test_a_calls_worst_case_counts_every_tools_name_description_and_schema():
    tool = ToolSpec("api_call", "Call an HTTP API " * 50, {"type": "object", "properties": {}})
    bare = Request("system", [UserMessage("hi")])
    with_tool = Request("system", [UserMessage("hi")], tools=[tool])
    counter = OverCounter()
    described = len("api_call" + tool.description + json.dumps(tool.parameters))
    assert _input(with_tool, counter) - _input(bare, counter) >= described // 3


async def test_an_alert_the_owner_cannot_be_sent_is_kept_and_said_when_they_write(tmp_path, clock):
    class Unreachable(Recording):
        async def deliver(self, notice) -> int:
            raise RunError("chat not found")  # the owner never wrote to the bot

    async with fake_server() as server:
        server.default = lambda request: Reply(
            json={**chat_reply("Hi.").json, "usage": {"prompt_tokens": 450_000}}
        )  # 0.90 a call at 2.0 a million
        setup = setup_for(tmp_path, f"{server.url}/v1", {"daily": 1.0})
        channel = Unreachable()
        async with compose(setup, clock, channel, channel) as runtime:
            member = await runtime.person(9, 9, "Bob")
            theirs = await runtime.answer(member, "hi")  # Bob reaches 90% of his day
            later = await runtime.answer(await runtime.person(OWNER, OWNER, "Ada"), "/tasks")
            again = await runtime.answer(await runtime.person(OWNER, OWNER), "/tasks")
    assert later.text.startswith("💸 Bob has used 80% of the day's budget (1.00 USD).")
    assert "💸" not in again.text and "💸" not in theirs.text  # said once, to the owner only


async def test_estimated_counts_are_marked_in_usage(tmp_path, clock):
    async with fake_server() as server:
        server.default = lambda request: Reply(json={**chat_reply("Hi.").json, "usage": None})
        setup = setup_for(tmp_path, f"{server.url}/v1")
        channel = Recording()
        async with compose(setup, clock, channel, channel) as runtime:
            person = await runtime.person(OWNER, OWNER)
            await runtime.answer(person, "hi")
            shown = await runtime.answer(person, "/usage")
    assert "(1 call, 1 estimated)" in shown.text


def test_a_refusal_says_what_answers_in_progress_hold():
    from datetime import UTC, datetime

    from assistant.errors import BudgetError
    from assistant.usage.telling import over_budget

    ends = datetime(2026, 11, 28, 23, 0, tzinfo=UTC)
    error = BudgetError("", "day", ends, needed=2400, left=900, unit="tokens", held=5000)
    said = over_budget(error, "en", "Europe/Berlin")
    assert said.startswith("This would need up to 2 400 tokens of the model; today's budget has")
    assert "900 tokens left" in said and "Answers in progress hold 5 000 tokens" in said


async def test_a_call_that_timed_out_stays_counted_one_never_sent_is_given_back(tmp_path, clock):
    from assistant.clock import FakeClock
    from assistant.db import open_database
    from assistant.errors import LLMUnavailableError, ModelSlowError
    from assistant.llm.types import Payer
    from assistant.pricing import BudgetSettings
    from assistant.usage.ledger import Ledger
    from assistant.usage.metered import MeteredModel

    class Failing:
        name = "failing"

        def __init__(self, failure: Exception) -> None:
            self.failure = failure

        async def complete(self, request):
            raise self.failure

        async def close(self) -> None:
            return None

    async def told(alert) -> None:
        return None

    db = await open_database(tmp_path / "assistant.db")
    ledger = Ledger(db, FakeClock(clock.now()), BudgetSettings(unit="tokens", daily=1e6), {})
    request = Request("system", [UserMessage("hi")], payer=Payer(1, "UTC"))
    for failure in (ModelSlowError("no answer in time"), LLMUnavailableError("refused")):
        model = MeteredModel(Failing(failure), ledger, "m", reply_tokens=100, on_alert=told)
        try:
            await model.complete(request)
        except type(failure):
            pass
    async with db.read() as session:
        rows = await session.fetchall("SELECT output_tokens, estimated, settled FROM usage")
    await db.close()
    assert [tuple(r) for r in rows] == [(100, 1, 1)]  # the timeout's, at its worst case
