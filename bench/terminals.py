"""The terminals' socket under a flood: 2,000 idle connections to a running service, and
whether Telegram is still answered within a second throughout.

Run: .venv/bin/python bench/terminals.py [--connections N] [--hold SECONDS]

The service runs as its own process (`assistant run`) with 1,024 file descriptors, a common
default, against a fake Bot API on 127.0.0.1 (tests/fake_telegram.py). This process opens the
connections, never saying a word on them, while it writes to the bot every 100 ms and times
each answer; it holds them past the service's hello timeout, then checks that a terminal still
joins. It prints its figures; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import io
import os
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fake_telegram import TOKEN, FakeTelegram  # noqa: E402
from fakehttp import fake_server  # noqa: E402

from assistant.app import joining  # noqa: E402
from assistant.app.wire import HELLO_SECONDS, TERMINALS, socket_path  # noqa: E402

OWNER = 42
SERVICE_FILES = 1024  # the service's descriptors, as a default limit gives it
PROBE_EVERY = 0.1
ANSWERED_WITHIN = 1.0


@dataclass
class Figures:
    """What the flood did to the service, and how fast Telegram was answered meanwhile."""

    latencies: list[float] = field(default_factory=list)
    unanswered: int = 0
    endings: dict[str, int] = field(default_factory=dict)
    most_files: int = 0


def service_limit() -> None:
    """In the service's process, before it starts: the descriptors it would have by default."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(SERVICE_FILES, hard), hard))


def own_limit(connections: int) -> int:
    """Room in this process for every connection; how many it can hold."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = min(hard, max(soft, connections + 200))
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return min(connections, wanted - 200)


def config(folder: Path, telegram: FakeTelegram) -> Path:
    path = folder / "config.toml"
    path.write_text(
        f'[assistant]\ndata_dir = "{folder}"\nlog_level = "WARNING"\n'
        f'[telegram]\ntoken_env = "BENCH_TOKEN"\nbase_url = "{telegram.base_url}"\n'
        f"allowed_user_ids = [{OWNER}]\n"
    )
    return path


async def start(folder: Path, telegram: FakeTelegram) -> asyncio.subprocess.Process:
    """The service, in a process of its own, once it polls and listens."""
    env = {**os.environ, "BENCH_TOKEN": TOKEN}
    with (folder / "service.log").open("wb") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "assistant", "--config", str(config(folder, telegram)), "run",
            stdout=log, stderr=log, env=env, preexec_fn=service_limit,
        )  # fmt: skip
    listening = socket_path(folder / "assistant.db")
    async with asyncio.timeout(60):
        while not (telegram.sent("setMyCommands") and listening.exists()):  # noqa: ASYNC110 (start-up)
            await asyncio.sleep(0.05)
    return process


async def probe(telegram: FakeTelegram, figures: Figures, stop: asyncio.Event) -> None:
    """Write to the bot every 100 ms and time its answer, one message at a time."""
    while not stop.is_set():
        before = len(telegram.sent())
        started = time.perf_counter()
        telegram.message(OWNER, "/notes")
        try:
            async with asyncio.timeout(5):
                while len(telegram.sent()) == before:  # noqa: ASYNC110 (the bot's round trip)
                    await asyncio.sleep(0.002)
            figures.latencies.append(time.perf_counter() - started)
        except TimeoutError:
            figures.unanswered += 1
        await asyncio.sleep(PROBE_EVERY)


async def files(pid: int, figures: Figures, stop: asyncio.Event) -> None:
    """The most descriptors the service held."""
    while not stop.is_set():
        try:
            figures.most_files = max(figures.most_files, len(os.listdir(f"/proc/{pid}/fd")))
        except OSError:
            return
        await asyncio.sleep(0.05)


async def idle(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, figures: Figures, hold: float
) -> None:
    """One connection that says nothing: how the service ended it (or that it held)."""
    try:
        ending = await _ending(reader, hold)
    finally:
        writer.close()
    figures.endings[ending] = figures.endings.get(ending, 0) + 1


async def _ending(reader: asyncio.StreamReader, hold: float) -> str:
    try:
        async with asyncio.timeout(hold):
            said = await reader.read()
    except TimeoutError:
        return "still open at the end"
    except OSError as exc:  # EINVAL: asyncio took a full listen backlog's EAGAIN for a connect
        if exc.errno in (errno.EINVAL, errno.ENOTCONN):
            return "never connected (the service's listen backlog of 100 was full)"
        return f"failed ({exc.strerror})"
    if b'"full"' in said:
        return 'told "full" and closed'
    return "let in, closed for saying nothing" if said else "closed without a word"


async def flood(path: Path, connections: int, figures: Figures, hold: float) -> float:
    """Open the connections one after another, as fast as they go, and hold them; returns
    the seconds taken to open them all."""
    started = opened = time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for _ in range(connections):
            try:
                reader, writer = await asyncio.open_unix_connection(path)
            except OSError as exc:
                ending = f"could not connect ({exc.strerror})"
                figures.endings[ending] = figures.endings.get(ending, 0) + 1
                continue
            group.create_task(idle(reader, writer, figures, hold))
        opened = time.perf_counter()
    return opened - started


async def measure(connections: int, hold: float) -> None:
    connections = own_limit(connections)
    figures = Figures()
    async with fake_server() as telegram_server:
        telegram = FakeTelegram(telegram_server)
        telegram_server.default = telegram.handle
        with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
            folder = Path(tmp)
            process = await start(folder, telegram)
            stop = asyncio.Event()
            async with asyncio.TaskGroup() as group:
                group.create_task(probe(telegram, figures, stop))
                group.create_task(files(process.pid, figures, stop))
                await asyncio.sleep(1.0)  # answers before the flood
                before = len(figures.latencies)
                opened = await flood(
                    socket_path(folder / "assistant.db"), connections, figures, hold
                )
                answered = await _joins(folder)
                stop.set()
            process.terminate()
            await process.wait()
            log = (folder / "service.log").read_text(errors="replace")
    report(figures, (connections, opened, before), answered, log)


async def _joins(folder: Path) -> str:
    """Whether a terminal joins once the flood is over (its connections closed)."""
    try:
        path = socket_path(folder / "assistant.db")
        return await joining.ask(path, "/notes", io.StringIO())
    except Exception as exc:
        return f"failed: {exc}"


def report(figures: Figures, flood: tuple[int, float, int], joined: str, log: str) -> None:
    """The figures, printed; ``flood`` is the connections, the seconds to open them, and the
    answers before it."""
    connections, opened, before = flood
    late = [s for s in figures.latencies if s > ANSWERED_WITHIN]
    ordered = sorted(figures.latencies)
    print(
        f"{connections:,} idle connections opened in {opened:.1f} s (cap {TERMINALS}, hello "
        f"timeout {HELLO_SECONDS:.0f} s; the service has {SERVICE_FILES} descriptors)"
    )
    for ending, count in sorted(figures.endings.items(), key=lambda item: -item[1]):
        print(f"  {count:>6,}  {ending}")
    print(f"the service's descriptors at most: {figures.most_files}")
    print(
        f"Telegram answered {len(ordered)} messages ({before} before the flood): median "
        f"{statistics.median(ordered) * 1000:.0f} ms, 95th percentile "
        f"{ordered[int(len(ordered) * 0.95)] * 1000:.0f} ms, slowest {ordered[-1] * 1000:.0f} ms; "
        f"{len(late)} over {ANSWERED_WITHIN:.0f} s, {figures.unanswered} unanswered"
    )
    print(f"a terminal joins after the flood: {joined}")
    troubles = [w for w in ("Unhandled exception", "Too many open files", "Traceback") if w in log]
    print(f"the service's log: {', '.join(troubles) or 'no errors'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--hold", type=float, default=HELLO_SECONDS + 3)
    args = parser.parse_args()
    asyncio.run(measure(args.connections, args.hold))


if __name__ == "__main__":
    main()
