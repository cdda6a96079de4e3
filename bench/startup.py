"""Start-up figures: `assistant --version`, and `assistant run` until its first getUpdates
reaches a fake Bot API on 127.0.0.1 (goals: under 100 ms and under 400 ms), each the median
of several fresh processes, beside the interpreter's own start.

Run: .venv/bin/python bench/startup.py [--runs N] [--python PATH]

``--python`` runs the assistant with another interpreter: that of a plain ``pip install .``
is what users start; the development install also has the test tools, and some libraries
import more when those are present (httpx its command line with rich, python-telegram-bot
its job queue with APScheduler).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_telegram import TOKEN, FakeTelegram  # noqa: E402
from fakehttp import fake_server  # noqa: E402

PYTHON = sys.argv[sys.argv.index("--python") + 1] if "--python" in sys.argv else sys.executable
ASSISTANT = [PYTHON, "-m", "assistant"]


# The floor: python-telegram-bot's own echo bot, polling the same fake Bot API.
ECHO_BOT = """
import sys
from telegram.ext import ApplicationBuilder, MessageHandler, filters

async def echo(update, context):
    await update.message.reply_text(update.message.text)

app = ApplicationBuilder().token(sys.argv[1]).base_url(sys.argv[2]).build()
app.add_handler(MessageHandler(filters.TEXT, echo))
app.run_polling()
"""


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - started


async def first_poll(folder: Path, model: bool | None) -> float:
    """Seconds from starting ``assistant run`` (or, for ``model=None``, the echo bot) until
    its first getUpdates arrives."""
    async with fake_server() as server:
        telegram = FakeTelegram(server)
        polled = asyncio.Event()

        async def handle(request):
            if request.path.endswith("/getUpdates"):
                polled.set()
            return await telegram.handle(request)

        server.default = handle
        config = folder / "config.toml"
        config.write_text(
            f'[assistant]\ndata_dir = "{folder}"\n'
            f'[telegram]\nbase_url = "{telegram.base_url}"\nallowed_user_ids = [1]\n'
        )
        env = {**os.environ, "ASSISTANT_TELEGRAM_TOKEN": TOKEN}
        env.pop("OPENAI_API_KEY", None)
        if model:  # a model configured (not asked: the first poll comes before any message)
            env["OPENAI_API_KEY"] = "sk-not-used-before-the-first-message"
        command = [*ASSISTANT, "--config", str(config), "run"]
        if model is None:
            command = [PYTHON, "-c", ECHO_BOT, TOKEN, telegram.base_url]
        started = time.perf_counter()
        process = await asyncio.create_subprocess_exec(
            *command, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
        )
        await asyncio.wait_for(polled.wait(), 30)
        elapsed = time.perf_counter() - started
        process.terminate()
        await process.wait()
        return elapsed


def main() -> None:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 7
    bare = statistics.median(timed([PYTHON, "-c", "pass"]) for _ in range(runs))
    version = statistics.median(timed([*ASSISTANT, "--version"]) for _ in range(runs))
    print(f"python -c pass:            {1000 * bare:6.0f} ms")
    print(f"assistant --version:       {1000 * version:6.0f} ms (goal < 100 ms)")
    for model in (None, False, True):
        polls = []
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as folder:
                polls.append(asyncio.run(first_poll(Path(folder), model)))
        median, best = 1000 * statistics.median(polls), 1000 * min(polls)
        if model is None:
            print(f"floor: python-telegram-bot echo bot, first poll: {median:6.0f} ms median")
            continue
        label = "with a model set" if model else "no model set"
        print(f"assistant run, first poll, {label}: {median:6.0f} ms median, {best:.0f} ms best "
              "(goal < 400 ms; a fresh data folder each run)")  # fmt: skip


if __name__ == "__main__":
    main()
