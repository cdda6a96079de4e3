"""The local step: how fast a message is matched (p50/p99 over 1,000 everyday messages, and
the worst of a set of adversarial ones) and how right it is on a labelled set, a language at a
time: right, wrong (another action or other words), missed (left to the model), and false
actions (a trap acted on). Wrong and false must be 0.

Run: .venv/bin/python bench/local_first.py
Budget: p99 under 5 ms, the worst adversarial under 50 ms.
"""

from __future__ import annotations

import random
import re
import statistics
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from understood_set import LABELLED  # noqa: E402

from assistant.intents import matcher, understand  # noqa: E402

NOW = datetime(2026, 11, 27, 8, 0, tzinfo=UTC)
ZONE = "Europe/Berlin"
LEAST = timedelta(minutes=1)
KEY = {
    "remind": "what",
    "note": "what",
    "time_in": "place",
    "cancel_task": "item",
    "pause_task": "item",
    "resume_task": "item",
    "remind_what": "when",
    "alarm": "when",
    "delete_note": "item",
    "set_zone": "place",
    "set_language": "language",
    "remind_before": "what",
}
ADVERSARIAL = [
    "remind me " + "to " * 96,
    "remind me to " + "in 5 minutes " * 22,
    "напомни " + "через " * 48,
    "remind me in in in in in in in in in in in in in in in in in in in in in in to x " * 3,
    "every " * 50,
    "what time is it in " + "new york " * 30,
    "note that " + "a" * 280,
    "cancel the reminder to " + "call mom " * 30,
    "1 2 3 4 5 6 7 8 9 10 " * 14,
    "at 9 at 9 at 9 at 9 " * 14,
    "remind me tomorrow at " + "9 " * 130,
    "в в в в в в в в в в " * 14,
    "remind me to a b c d e f g h i j k l m n o p q r s t u v w x y z " * 4,
    "²⑤᧚" * 90,
    "напомни " + "завтра в 9 утра " * 18,  # the any-order reader: a schedule run at every split
    "please remind me " + "tomorrow at 9 call " * 14,
    "pause " * 50,
    "remnid tommorow minuts wednsday evning " * 7,  # every word a misspelling to look up
    "remind me at 5 to " + "call at 10 mom " * 18,  # a time inside the words, at every place
]


def everyday(count: int) -> list[str]:
    """``count`` messages like people's: the labelled ones, varied in times and words."""
    rng = random.Random(7)
    people = [text for text, _, _ in LABELLED]
    spans = ["5 minutes", "10 minutes", "an hour", "2 hours", "half an hour"]
    things = ["stretch", "call mom", "buy milk", "check the oven", "water the plants"]
    made = [f"remind me in {rng.choice(spans)} to {rng.choice(things)}" for _ in range(count)]
    return [people[i % len(people)] if i % 2 else made[i] for i in range(count)]


def timed(text: str) -> float:
    started = time.perf_counter()
    understand(text[:300], ZONE, NOW, LEAST)
    return (time.perf_counter() - started) * 1000


def outcome(text: str, intent: str | None, key: str | None) -> str:
    """right, wrong (another action or other words), missed (left to the model), or false
    (a trap acted on)."""
    found = understand(text, ZONE, NOW, LEAST)
    if found is None:
        return "right" if intent is None else "missed"
    if intent is None:
        return "false"
    slots = found.slots
    got = slots.get("number") or slots.get("todo") or slots.get(KEY.get(found.intent, ""))
    return "right" if found.intent == intent and (key is None or got == key) else "wrong"


def accuracy() -> tuple[dict[str, Counter[str]], list[str]]:
    """Outcomes a language (requests and traps apart), and the messages not right."""
    counts: dict[str, Counter[str]] = {}
    wrong = []
    for text, intent, key in LABELLED:
        language = "ru" if re.search("[а-яё]", text.casefold()) else "en"
        kind = "request" if intent else "trap"
        result = outcome(text, intent, key)
        counts.setdefault(f"{language} {kind}s", Counter())[result] += 1
        if result != "right":
            wrong.append(f"  {result}: {text!r} (wanted {intent}, {key})")
    return counts, wrong


def main() -> None:
    started = time.perf_counter()
    matcher()
    print(f"sentence files loaded in {(time.perf_counter() - started) * 1000:.0f} ms")
    for text in everyday(50):
        timed(text)  # warm caches (the places table, the schedule reader)
    times = sorted(timed(t) for t in everyday(1000))
    p50, p99 = statistics.median(times), times[int(len(times) * 0.99) - 1]
    print(f"1,000 everyday messages: p50 {p50:.2f} ms, p99 {p99:.2f} ms, max {times[-1]:.2f} ms")
    worst = max((timed(t), t[:40]) for t in ADVERSARIAL for _ in range(3))
    print(f"worst of {len(ADVERSARIAL)} adversarial: {worst[0]:.2f} ms ({worst[1]!r}…)")
    counts, wrong = accuracy()
    print(f"labelled set: {len(LABELLED)} messages")
    for group in sorted(counts):
        c = counts[group]
        print(
            f"  {group:<12} {sum(c.values()):>4}: right {c['right']}, wrong {c['wrong']}, "
            f"missed {c['missed']}, false actions {c['false']}"
        )
    for line in wrong:
        print(line)


if __name__ == "__main__":
    main()
