"""Schedule reading figures: worst-case time per character of adversarial text, and the time
to read everyday phrases.

Run: .venv/bin/python bench/schedule.py
"""

from __future__ import annotations

import contextlib
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.errors import ScheduleError  # noqa: E402
from assistant.schedules.parse import read_schedule  # noqa: E402
from assistant.schedules.parsed import MAX_TEXT  # noqa: E402

NOW = datetime(2026, 3, 14, 9, 26, 53, tzinfo=UTC)
HOSTILE = {
    "letters then a digit": lambda n: "a" * (n - 1) + "0",
    "digits": lambda n: "1" * n,
    "articles": lambda n: ("an " * n)[:n],
    "numbers and units": lambda n: ("5 m " * n)[:n],
    "every and digits": lambda n: ("every " + "9" * n)[:n],
    "colons": lambda n: ("1:" * n)[:n],
    "a 1": lambda n: ("a 1 " * n)[:n],
}
EVERYDAY = ["in 5m", "tomorrow 9am", "every monday 10am", "weekdays 6pm", "*/15 * * * *"]


def seconds(text: str) -> float:
    started = time.perf_counter()
    with contextlib.suppress(ScheduleError):
        read_schedule(text, "Europe/Berlin", NOW)
    return time.perf_counter() - started


def main() -> None:
    worst = 0.0
    for label, make in HOSTILE.items():
        # per input, the best of 5 (timing noise out); then the worst input and size
        per_char = max(min(seconds(make(n)) for _ in range(5)) / n for n in (50, 100, MAX_TEXT))
        worst = max(worst, per_char)
        print(f"{label:<22} worst {per_char * 1e6:7.2f} µs per character")
    print(f"worst case over all hostile inputs: {worst * 1e6:.2f} µs per character (linear)")
    everyday = [seconds(text) for text in EVERYDAY for _ in range(20)]
    print(f"everyday phrases: {sum(everyday) / len(everyday) * 1e6:.0f} µs per reading on average")


if __name__ == "__main__":
    main()
