"""Sandbox figures: what one isolated run costs (two interpreter starts, the namespaces, the
mounts), for an empty program and for one that imports a little of the standard library.

Run: .venv/bin/python bench/sandbox.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.tools.sandbox import Sandbox  # noqa: E402

PROGRAMS = {
    "empty program": "pass",
    "json + datetime + print": "import json, datetime; print(json.dumps(str(datetime.date.today())))",  # noqa: E501
}
RUNS = 30


async def measure(code: str) -> tuple[float, float]:
    sandbox = Sandbox()
    reason = await sandbox.check()
    if reason is not None:
        raise SystemExit(f"no sandbox on this machine: {reason}")
    durations = []
    for _ in range(RUNS):
        started = time.perf_counter()
        await sandbox.run(code)
        durations.append(time.perf_counter() - started)
    durations.sort()
    return statistics.median(durations) * 1000, durations[int(0.95 * (RUNS - 1))] * 1000


def main() -> None:
    for label, code in PROGRAMS.items():
        p50, p95 = asyncio.run(measure(code))
        print(f"one isolated run, {label}: p50 {p50:.0f} ms, p95 {p95:.0f} ms ({RUNS} runs)")


if __name__ == "__main__":
    main()
