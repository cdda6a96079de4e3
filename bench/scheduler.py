"""Scheduler figures, ours and APScheduler 3.x side by side: adding, start-up, lateness.

Run: .venv/bin/python bench/scheduler.py [--quick] [--lateness]

``--lateness`` runs only the lateness table: ours beside the floors (``loop.call_at``, a
minimal SQLite claim-and-fire loop) and APScheduler 3, each from the same start: all jobs
added, then the due instant comes.

Each case runs in a fresh process so that start-up time and resident memory are its own.
APScheduler runs with its in-memory store and its SQLAlchemy store on a SQLite file, where
they can hold the workload; where one cannot, the table says so.
"""

from __future__ import annotations

import asyncio
import json
import pickle
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.clock import SystemClock  # noqa: E402
from assistant.db import open_database  # noqa: E402
from assistant.scheduler import Delivery, Notice, Scheduler  # noqa: E402
from assistant.schedules import parse_once  # noqa: E402
from assistant.schedules.oneshot import describe  # noqa: E402
from assistant.schedules.parsed import Parsed  # noqa: E402
from assistant.schedules.schedule import Once  # noqa: E402
from assistant.tasks import Firing, NewTask, Owner, TaskStore  # noqa: E402

USERS = 1000


def rss_mb() -> float:
    """Resident memory of this process in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def owner(n: int) -> Owner:
    return Owner(1 + n % USERS, 1 + n % USERS)


def at_task(n: int, when: datetime) -> NewTask:
    parsed = Parsed(Once(when, "UTC"), describe(when, "UTC"), when, "bench")
    return NewTask(owner(n), "reminder", f"reminder {n}", parsed, {"text": f"reminder {n}"})


class NullOutbox:
    """A channel that accepts everything at once."""

    async def deliver(self, notice: Notice) -> int:
        return 1


class Stopwatch:
    """An executor that records how late each run started, and signals when all ran."""

    def __init__(self, expected: int) -> None:
        self.lateness: list[float] = []
        self.fired: dict[str, int] = {}
        self.expected = expected
        self.done = asyncio.Event()

    def replayable(self, task: object) -> bool:
        return True

    async def run(self, firing: Firing) -> Delivery:
        self.fired[firing.task.id] = self.fired.get(firing.task.id, 0) + 1
        self.record(firing.scheduled_for.timestamp())
        return Delivery(1)

    def record(self, due: float) -> None:
        self.lateness.append(time.time() - due)
        if len(self.lateness) >= self.expected:
            self.done.set()


def lead_time(count: int, per_second: float = 2_000) -> timedelta:
    """How far ahead the first task is due: past the time it takes to store them all."""
    # A task already due when the scheduler starts would measure the set-up, not the firing:
    # every scheduler is measured from the same start, all added, then the instant comes.
    return timedelta(seconds=3 + count / per_second)


def check_added_in_time(first: datetime) -> None:
    """Refuse a measurement whose adding ran past the first due instant."""
    if datetime.now(UTC) >= first:
        raise SystemExit("adding took past the due instant: raise the lead time")


def lateness_figures(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "count": len(ordered),
        "p50_ms": 1000 * statistics.median(ordered),
        "p99_ms": 1000 * ordered[int(0.99 * (len(ordered) - 1))],
        "max_ms": 1000 * ordered[-1],
    }


# ---- our scheduler ------------------------------------------------------------------------


async def ours_add(count: int, batch: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        conn = await open_database(Path(tmp) / "assistant.db")
        checkpoints = asyncio.ensure_future(conn.checkpointer.run())  # as the app runs it
        store = TaskStore(conn, SystemClock(), max_live_per_user=count)
        now = datetime.now(UTC)
        started = time.perf_counter()
        if batch == 1:
            for n in range(count):
                parsed = parse_once("in 5m", "Europe/Berlin", now)
                await store.add(NewTask(owner(n), "reminder", f"r{n}", parsed, {"text": "x"}))
        else:
            when = now + timedelta(minutes=5)
            for start in range(0, count, batch):
                await store.add_many([at_task(n, when) for n in range(start, start + batch)])
        elapsed = time.perf_counter() - started
        checkpoints.cancel()
        await asyncio.gather(checkpoints, return_exceptions=True)
        await conn.close()
    return {"per_second": count / elapsed}


async def ours_fill(path: Path, count: int) -> None:
    conn = await open_database(path)
    store = TaskStore(conn, SystemClock(), max_live_per_user=count)
    base = datetime.now(UTC) + timedelta(days=1)
    for start in range(0, count, 10_000):
        chunk = range(start, min(count, start + 10_000))
        await store.add_many([at_task(n, base + timedelta(seconds=n)) for n in chunk])
    await conn.close()


async def ours_start(path: Path) -> dict[str, float]:
    before = rss_mb()
    started = time.perf_counter()
    conn = await open_database(path)  # as the app does: check the file, migrate
    scheduler = Scheduler(path, SystemClock(), {}, NullOutbox())
    await scheduler.recover()
    armed_at = await scheduler.queue.next_wake()  # what the sleeper waits for
    elapsed = time.perf_counter() - started
    assert armed_at is not None
    figures = {"seconds": elapsed, "rss_mb": rss_mb(), "rss_growth_mb": rss_mb() - before}
    await scheduler.close()
    await conn.close()
    return figures


async def ours_fire(count: int, window: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "assistant.db"
        conn = await open_database(path)
        store = TaskStore(conn, SystemClock(), max_live_per_user=count)
        first = datetime.now(UTC).replace(microsecond=0) + lead_time(count, 5_000)
        step = window / count
        for start in range(0, count, 10_000):
            chunk = range(start, min(count, start + 10_000))
            tasks = [at_task(n, first + timedelta(seconds=n * step)) for n in chunk]
            await store.add_many(tasks)
        stopwatch = Stopwatch(count)
        executors = {"reminder": stopwatch}
        wrote = conn.checkpointer.wrote
        scheduler = Scheduler(path, SystemClock(), executors, NullOutbox(), wrote=wrote)
        check_added_in_time(first)
        checkpoints = asyncio.ensure_future(conn.checkpointer.run())  # as the app runs it
        running = asyncio.ensure_future(scheduler.run())
        await asyncio.wait_for(stopwatch.done.wait(), 120 + window)
        scheduler.stop()
        await running
        checkpoints.cancel()
        await asyncio.gather(checkpoints, return_exceptions=True)
        await scheduler.close()
        await conn.close()
    twice = sum(1 for times in stopwatch.fired.values() if times > 1)
    if twice:
        raise SystemExit(f"{twice} tasks fired more than once")
    return lateness_figures(stopwatch.lateness)


# ---- APScheduler 3.x ----------------------------------------------------------------------

APS_WATCH: dict[str, Stopwatch] = {}


async def aps_job(due: float) -> None:
    APS_WATCH["now"].record(due)


def aps_scheduler(store: str, path: Path):  # type: ignore[no-untyped-def]
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

    if store == "memory":
        return AsyncIOScheduler(timezone=UTC)
    from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore

    jobstore = SQLAlchemyJobStore(url=f"sqlite:///{path}")
    return AsyncIOScheduler(timezone=UTC, jobstores={"default": jobstore})


async def aps_add(store: str, count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        scheduler = aps_scheduler(store, Path(tmp) / "jobs.db")
        scheduler.start(paused=True)
        when = datetime.now(UTC) + timedelta(minutes=5)
        started = time.perf_counter()
        for n in range(count):
            scheduler.add_job(aps_job, "date", run_date=when, args=[0.0], id=f"j{n}")
        elapsed = time.perf_counter() - started
        scheduler.shutdown(wait=False)
    return {"per_second": count / elapsed}


async def aps_fill(path: Path, count: int) -> None:
    """Write ``count`` jobs straight into the SQLAlchemy store's table, as it would store them."""
    scheduler = aps_scheduler("sqlalchemy", path)
    scheduler.start(paused=True)
    base = datetime.now(UTC) + timedelta(days=1)
    scheduler.add_job(aps_job, "date", run_date=base, args=[0.0], id="template")
    scheduler.shutdown(wait=False)
    db = sqlite3.connect(path)
    (blob,) = db.execute("SELECT job_state FROM apscheduler_jobs").fetchone()
    state = pickle.loads(blob)
    rows = []
    for n in range(count):
        run = base + timedelta(seconds=n)
        state.update(id=f"j{n}", next_run_time=run, trigger=state["trigger"])
        rows.append((f"j{n}", run.timestamp(), pickle.dumps(state, pickle.HIGHEST_PROTOCOL)))
        if len(rows) == 50_000 or n == count - 1:
            db.executemany("INSERT OR REPLACE INTO apscheduler_jobs VALUES (?, ?, ?)", rows)
            rows.clear()
    db.commit()
    db.close()


async def aps_start(path: Path) -> dict[str, float]:
    before = rss_mb()
    started = time.perf_counter()
    scheduler = aps_scheduler("sqlalchemy", path)
    scheduler.start()
    await asyncio.sleep(0)  # its first wake-up: due jobs and the next run time
    elapsed = time.perf_counter() - started
    figures = {"seconds": elapsed, "rss_mb": rss_mb(), "rss_growth_mb": rss_mb() - before}
    scheduler.shutdown(wait=False)
    return figures


async def aps_fire(store: str, count: int, window: float) -> dict[str, float]:
    watch = APS_WATCH["now"] = Stopwatch(count)
    rate = 150 if store == "sqlalchemy" else 5_000  # its adds are slow: due after all are in
    with tempfile.TemporaryDirectory() as tmp:
        scheduler = aps_scheduler(store, Path(tmp) / "jobs.db")
        scheduler.start(paused=True)
        first = datetime.now(UTC).replace(microsecond=0) + lead_time(count, rate)
        step = window / count
        for n in range(count):
            due = first + timedelta(seconds=n * step)
            scheduler.add_job(
                aps_job,
                "date",
                run_date=due,
                args=[due.timestamp()],
                id=f"j{n}",
                misfire_grace_time=None,
            )
        check_added_in_time(first)
        scheduler.resume()
        await asyncio.wait_for(watch.done.wait(), 120 + window)
        scheduler.shutdown(wait=False)
    return lateness_figures(watch.lateness)


# ---- floors: the same firing with no durability, and with the least durability ----------


async def floor_call_at(count: int, window: float) -> dict[str, float]:
    """Every job a ``loop.call_at`` callback: what firing from memory costs."""
    watch = Stopwatch(count)
    loop = asyncio.get_running_loop()
    first = time.time() + 2
    for n in range(count):
        due = first + n * window / count
        loop.call_at(loop.time() + (due - time.time()), watch.record, due)
    await asyncio.wait_for(watch.done.wait(), 120 + window)
    return lateness_figures(watch.lateness)


FLOOR_SCHEMA = """
CREATE TABLE jobs (id INTEGER PRIMARY KEY, due REAL NOT NULL, claimed INTEGER NOT NULL);
CREATE INDEX jobs_due ON jobs (due) WHERE claimed = 0;
"""


async def floor_sqlite(count: int, window: float) -> dict[str, float]:
    """A minimal SQLite scheduler: sleep to the earliest due row, claim due rows in batches of
    1,000 (one UPDATE ... RETURNING, committed), call each job; no runs, audit or retries."""
    watch = Stopwatch(count)
    with tempfile.TemporaryDirectory() as tmp:
        db = sqlite3.connect(Path(tmp) / "jobs.db", isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.executescript(FLOOR_SCHEMA)
        first = time.time() + lead_time(count, 20_000).total_seconds()
        rows = [(first + n * window / count, 0) for n in range(count)]
        db.executemany("INSERT INTO jobs (due, claimed) VALUES (?, ?)", rows)
        while not watch.done.is_set():
            (due,) = db.execute("SELECT MIN(due) FROM jobs WHERE claimed = 0").fetchone()
            await asyncio.sleep(max(0.0, due - time.time()))
            db.execute("BEGIN IMMEDIATE")
            claimed = db.execute(
                "UPDATE jobs SET claimed = 1 WHERE id IN (SELECT id FROM jobs WHERE claimed = 0 "
                "AND due <= ? ORDER BY due LIMIT 1000) RETURNING due",
                (time.time(),),
            ).fetchall()
            db.execute("COMMIT")
            for (claimed_due,) in claimed:
                watch.record(claimed_due)
        db.close()
    return lateness_figures(watch.lateness)


async def floor_add(count: int) -> dict[str, float]:
    """Raw autocommit SQLite: one small row per statement, WAL, no checks and no index."""
    with tempfile.TemporaryDirectory() as tmp:
        db = sqlite3.connect(Path(tmp) / "rows.db", isolation_level=None)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("CREATE TABLE rows (id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
        started = time.perf_counter()
        for n in range(count):
            db.execute("INSERT INTO rows (text) VALUES (?)", (f"reminder {n}",))
        elapsed = time.perf_counter() - started
        db.close()
    return {"per_second": count / elapsed}


# ---- driver -------------------------------------------------------------------------------


async def case(name: str, args: list[str]) -> dict[str, float]:
    cases: dict[str, Callable[[], object]] = {
        "ours_add": lambda: ours_add(int(args[0]), int(args[1])),
        "ours_start": lambda: ours_start(Path(args[0])),
        "ours_fire": lambda: ours_fire(int(args[0]), float(args[1])),
        "aps_add": lambda: aps_add(args[0], int(args[1])),
        "aps_start": lambda: aps_start(Path(args[0])),
        "aps_fire": lambda: aps_fire(args[0], int(args[1]), float(args[2])),
        "floor_call_at": lambda: floor_call_at(int(args[0]), float(args[1])),
        "floor_sqlite": lambda: floor_sqlite(int(args[0]), float(args[1])),
        "floor_add": lambda: floor_add(int(args[0])),
    }
    return await cases[name]()  # type: ignore[no-any-return,misc]


def measure(name: str, *args: object) -> dict[str, float]:
    """Run one case in a fresh process and return its figures."""
    command = [sys.executable, __file__, "--case", name, *map(str, args)]
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=3600)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def row(
    label: str,
    ours: dict[str, float],
    theirs: dict[str, dict[str, float]],
    key: str,
    better: str = "higher",
) -> None:
    if key not in ours:
        print(f"{label:<44} ours failed: {ours.get('error', 'no figure')}")
        return
    cells = [f"{label:<44}", f"{ours[key]:>12,.1f}"]
    for figures in theirs.values():
        value = figures.get(key)
        if value is None:
            cells.append(f"{'n/a':>12}  {'':>7}")
            continue
        ratio = (ours[key] / value) if better == "higher" else (value / ours[key])
        cells.append(f"{value:>12,.1f}  x{ratio:>6.1f}")
    print(" ".join(cells))


def main(quick: bool) -> None:
    adds = 20_000 if quick else 100_000
    stored = 100_000 if quick else 1_000_000
    print("columns: ours | APScheduler memory store (ratio) | APScheduler SQLAlchemy store (ratio)")
    print("ratio: how many times better ours is (above 1 = ours better)\n")

    one = measure("ours_add", adds, 1)
    batched = measure("ours_add", adds, 1000)
    aps_sql_n = min(adds, 10_000)
    aps = {
        "memory": measure("aps_add", "memory", adds),
        "sqlalchemy": measure("aps_add", "sqlalchemy", aps_sql_n),
    }
    row(f"add {adds:,} one by one, tasks/s", one, aps, "per_second")
    raw = measure("floor_add", adds)
    print(
        f"  (raw autocommit SQLite, one row a statement: {raw.get('per_second', 0):,.0f}/s; "
        f"ours is {one.get('per_second', 0) / raw.get('per_second', 1):.0%} of it)"
    )
    row(
        f"add {adds:,} in batches of 1,000, tasks/s",
        batched,
        {"memory": {}, "sqlalchemy": {}},
        "per_second",
    )
    print(f"  (APScheduler has no batch add; its SQLAlchemy rate is over {aps_sql_n:,} jobs)\n")

    with tempfile.TemporaryDirectory() as tmp:
        small, large = Path(tmp) / "small.db", Path(tmp) / "large.db"
        asyncio.run(ours_fill(small, 1_000))
        asyncio.run(ours_fill(large, stored))
        aps_small, aps_large = Path(tmp) / "aps_small.db", Path(tmp) / "aps_large.db"
        asyncio.run(aps_fill(aps_small, 1_000))
        asyncio.run(aps_fill(aps_large, stored))
        for label, ours_path, aps_path in (
            ("1,000", small, aps_small),
            (f"{stored:,}", large, aps_large),
        ):
            ours_up = measure("ours_start", ours_path)
            theirs = {"memory": {}, "sqlalchemy": measure("aps_start", aps_path)}
            row(f"start-up with {label} stored, ms", _ms(ours_up), _ms_all(theirs), "ms", "lower")
            row("  resident memory after start, MB", ours_up, theirs, "rss_mb", "lower")
    print("  (the in-memory store keeps nothing across a restart: no start-up figure)\n")

    lateness(quick)


def lateness(quick: bool) -> None:
    """p99 lateness of ours beside the floors and APScheduler, all from the same start."""
    big = 20_000 if quick else 100_000
    print("lateness p99, ms (the time each job starts after its due instant); ratio: theirs/ours")
    names = ("ours", "loop.call_at", "SQLite floor", "APS3 memory", "APS3 SQLAlchemy")
    print(f"{'case':<28}" + "".join(f"{name:>20}" for name in names))
    for label, count, window in (
        ("10,000 due at once", 10_000, 0.0),
        (f"{big:,} due at once", big, 0.0),
        (f"{big:,} spread over 60 s", big, 60.0),
    ):
        figures = [
            measure("ours_fire", count, window),
            measure("floor_call_at", count, window),
            measure("floor_sqlite", count, window),
            measure("aps_fire", "memory", count, window),
            # Its SQLite store adds ~500 jobs/s and fires ~1,000/s: the 10,000 case only.
            measure("aps_fire", "sqlalchemy", count, window) if count <= 10_000 else {},
        ]
        print(f"{label:<28}" + "".join(_cell(f, figures[0]) for f in figures))
        ours = figures[0]
        if "p50_ms" in ours:
            print(f"{'':<28}ours: p50 {ours['p50_ms']:,.1f} ms, max {ours['max_ms']:,.1f} ms")


def _cell(figures: dict[str, float], ours: dict[str, float]) -> str:
    if "p99_ms" not in figures:
        return f"{figures.get('error', 'n/a')[:18]:>20}"
    p99 = figures["p99_ms"]
    if figures is ours or "p99_ms" not in ours:
        return f"{p99:>20,.1f}"
    return f"{p99:>11,.1f} (x{p99 / ours['p99_ms']:>5.2f})"


def _ms(figures: dict[str, float]) -> dict[str, float]:
    return {**figures, "ms": 1000 * figures["seconds"]} if "seconds" in figures else figures


def _ms_all(all_figures: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    return {name: _ms(figures) for name, figures in all_figures.items()}


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--case":
        print(json.dumps(asyncio.run(case(sys.argv[2], sys.argv[3:]))))
    elif "--lateness" in sys.argv:
        lateness(quick="--quick" in sys.argv)
    else:
        main(quick="--quick" in sys.argv)
