"""A restart with a chat's worth of messages queued: every one answered after the restart or
told about, none twice (issue 48).

Run: .venv/bin/python bench/restart.py [--quick]

The whole bot against a fake Bot API and a fake model on 127.0.0.1: 1,000 messages arrive in
one chat while its first turn waits on the model; the service is stopped (as SIGTERM does)
and started again, and the model then answers at once.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fake_telegram import TOKEN, FakeTelegram  # noqa: E402
from fakehttp import FakeServer, Reply, fake_server  # noqa: E402
from llm_fixtures import chat_reply  # noqa: E402

from assistant.app import Setup  # noqa: E402
from assistant.app.serve import serve_telegram  # noqa: E402
from assistant.clock import SystemClock  # noqa: E402
from assistant.config import parse_config  # noqa: E402
from assistant.logs import configure_logging  # noqa: E402

USER = 1


async def life(
    folder: Path, hold: asyncio.Event | None, send: int, expect: int
) -> tuple[Counter[str], list[str], float]:
    """One run of the service: ``send`` messages while the model holds its answers (the first
    run), or the model answering at once until ``expect`` turns asked it (the second); the
    words the model was asked, what the bot sent, and the run's time."""
    async with fake_server() as telegram_server, fake_server() as model:
        telegram = FakeTelegram(telegram_server)
        telegram_server.default = telegram.handle
        asked: Counter[str] = Counter()

        async def answer(request):  # type: ignore[no-untyped-def]
            asked[str(request.json()["messages"][-1]["content"])] += 1
            if hold is not None:
                await hold.wait()
            return Reply(json=chat_reply("ok").json)

        model.default = answer
        stop, started = asyncio.Event(), time.perf_counter()
        setup = Setup(parse_config(_raw(folder, telegram, model)), "bench", folder)
        serving = asyncio.ensure_future(serve_telegram(setup, SystemClock(), stop))
        while not telegram.sent("setMyCommands"):  # noqa: ASYNC110 (round trips)
            await asyncio.sleep(0.01)
        for n in range(send):
            telegram.message(USER, f"message {n}")
        while sum(asked.values()) < expect:  # noqa: ASYNC110 (round trips)
            await asyncio.sleep(0.01)
        if hold is not None:
            await asyncio.sleep(1.0)  # the rest are taken from the Bot API and queued
        stop.set()
        await serving
        if hold is not None:
            hold.set()  # the turn the stop cut lets go of the model
    return asked, telegram.texts(), time.perf_counter() - started


def _raw(folder: Path, telegram: FakeTelegram, model: FakeServer) -> dict[str, object]:
    return {
        "assistant": {"data_dir": str(folder), "log_level": "WARNING"},
        "telegram": {"token_env": "BENCH_TOKEN", "base_url": telegram.base_url,
                     "allowed_user_ids": [USER], "queue_per_chat": 5000},
        "llm": {"base_url": f"{model.url}/v1", "api_key_env": "BENCH_KEY", "stream": False},
        "scheduler": {"shutdown_grace_seconds": 0},
    }  # fmt: skip


def main(quick: bool) -> None:
    os.environ["BENCH_TOKEN"], os.environ["BENCH_KEY"] = TOKEN, "k"
    configure_logging("WARNING")
    messages = 200 if quick else 1000
    with tempfile.TemporaryDirectory() as tmp:
        first, _, _ = asyncio.run(life(Path(tmp), asyncio.Event(), messages, 1))
        second, said, took = asyncio.run(life(Path(tmp), None, 0, messages - 1))
    twice = sum(1 for n in (first + second).values() if n > 1)
    told = sum(t.startswith("I was restarted") for t in said)
    order = (
        "in order"
        if list(second) == [f"message {n}" for n in range(1, messages)]
        else "OUT OF ORDER"
    )
    print(
        f"{messages:,} messages, stopped with 1 in its turn and {messages - 1:,} queued: after "
        f"the restart {len(second):,} answered {order} in {took:.1f} s, {told} line told the "
        f"person of the one the stop cut, {twice} handled twice"
    )


if __name__ == "__main__":
    main("--quick" in sys.argv)
