"""Bot figures: messages per second through the whole bot, and memory with 1,000 active chats.

Run: .venv/bin/python bench/bot.py [--quick]

Everything is real but the far ends: python-telegram-bot polls a fake Bot API on 127.0.0.1,
the openai client asks a fake model that answers at once, and the SQLite file is real. So
the figures are the bot's own cost: the gate, the handlers, the agent, storage and rendering.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fake_telegram import TOKEN, FakeTelegram  # noqa: E402
from fakehttp import Reply, fake_server  # noqa: E402

from assistant.app import Setup  # noqa: E402
from assistant.app.serve import serve_telegram  # noqa: E402
from assistant.clock import SystemClock  # noqa: E402
from assistant.config import parse_config  # noqa: E402
from assistant.logs import configure_logging  # noqa: E402

ANSWER = {
    "id": "c",
    "object": "chat.completion",
    "created": 1,
    "model": "m",
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": "Noted, thanks!"}}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1},
}  # fmt: skip


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def measure(chats: int, per_chat: int, text: str, limited: bool) -> dict[str, float]:
    os.environ["BENCH_TOKEN"], os.environ["BENCH_KEY"] = TOKEN, "k"
    async with fake_server() as telegram_server, fake_server() as model:
        telegram = FakeTelegram(telegram_server)
        telegram_server.default = telegram.handle
        model.default = lambda request: Reply(json=ANSWER)
        with tempfile.TemporaryDirectory() as tmp:
            raw = {
                "assistant": {"data_dir": tmp, "log_level": "WARNING"},
                "telegram": {"token_env": "BENCH_TOKEN", "base_url": telegram.base_url,
                             "allowed_user_ids": list(range(1, chats + 1)), "rate_limit": limited},
                "llm": {"base_url": f"{model.url}/v1", "api_key_env": "BENCH_KEY", "stream": False},
            }  # fmt: skip
            stop = asyncio.Event()
            serving = asyncio.ensure_future(
                serve_telegram(Setup(parse_config(raw), "bench", Path(tmp)), SystemClock(), stop)
            )
            while not telegram.sent("setMyCommands"):  # noqa: ASYNC110 (round trips)
                await asyncio.sleep(0.01)
            before = rss_mb()
            expected = chats * per_chat
            started = time.perf_counter()
            for round_ in range(per_chat):
                for user in range(1, chats + 1):
                    telegram.message(user, f"{text} {round_}")
            while len(telegram.sent()) < expected:  # noqa: ASYNC110 (round trips)
                await asyncio.sleep(0.01)
            elapsed = time.perf_counter() - started
            after = rss_mb()
            stop.set()
            await serving
    return {"per_second": expected / elapsed, "rss_mb": after, "growth_mb": after - before}


def main(quick: bool) -> None:
    configure_logging("WARNING")
    chats = 200 if quick else 1000
    cases = (
        ("plain words (agent and model)", "note that I like tea", False),
        ("slash commands (no model)", "/help", False),
        ("plain words, with Telegram's rate limits kept", "note that I like tea", True),
    )
    for label, text, limited in cases:
        figures = asyncio.run(measure(chats, 2, text, limited))
        print(
            f"{chats:,} chats × 2 messages, {label}: {figures['per_second']:,.0f} messages/s; "
            f"resident memory {figures['rss_mb']:.0f} MB "
            f"(+{figures['growth_mb']:.0f} MB for {chats:,} active chats)"
        )


if __name__ == "__main__":
    main("--quick" in sys.argv)
