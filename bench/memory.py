"""Memory search figures: latency over 100,000 notes, or 1,000,000 (goal: p99 under 20 ms).

Run: .venv/bin/python bench/memory.py [--quick | --million]

Notes are saved in batches of 10,000 (``Notes.add_many``: the same rows ``add`` writes), so
that a million can be stored in minutes; the searches are the tool's own, one at a time.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.clock import SystemClock  # noqa: E402
from assistant.db import open_database  # noqa: E402
from assistant.memory.notes import Notes  # noqa: E402

WORDS = [
    "milk",
    "bread",
    "dentist",
    "plumber",
    "wifi",
    "password",
    "meeting",
    "tokyo",
    "berlin",
    "garden",
    "invoice",
    "tax",
    "doctor",
    "birthday",
    "gift",
    "train",
    "ticket",
    "flight",
    "hotel",
    "recipe",
    "pasta",
    "coffee",
    "bike",
    "repair",
    "insurance",
    "bank",
    "school",
    "teacher",
    "homework",
    "football",
    "concert",
    "museum",
    "book",
    "movie",
    "series",
    "laptop",
    "phone",
    "charger",
]
CJK = "东京会议明天下午三点去北京上海医生牙科生日礼物火车票"
USERS = 10
BATCH = 10_000


class Vocabulary:
    """Words drawn by a Zipf law, as in real writing, from a vocabulary of ``size``."""

    def __init__(self, size: int, rng: random.Random) -> None:
        self.words = WORDS + [f"w{n}" for n in range(max(0, size - len(WORDS)))]
        rng.shuffle(self.words)
        weights = [1 / (rank + 1) ** 1.1 for rank in range(len(self.words))]
        self.cumulative = list(itertools.accumulate(weights))

    def pick(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cumulative, k=k)


def note_text(rng: random.Random, vocabulary: Vocabulary) -> str:
    words = vocabulary.pick(rng, rng.randint(6, 30))
    if rng.random() < 0.1:
        words.append("".join(rng.choices(CJK, k=4)))
    return " ".join(words)


async def measure(count: int, queries: int, size: int) -> dict[str, float]:
    rng = random.Random(7)
    vocabulary = Vocabulary(size, rng)
    with tempfile.TemporaryDirectory() as tmp:
        conn = await open_database(Path(tmp) / "a.db")
        notes = Notes(conn, SystemClock())
        started = time.perf_counter()
        for start in range(0, count, BATCH):
            for user in range(1, USERS + 1):
                batch = [
                    (note_text(rng, vocabulary), vocabulary.pick(rng, 1))
                    for _ in range(min(BATCH, count - start) // USERS)
                ]
                await notes.add_many(user, batch)
        filled = time.perf_counter() - started
        latencies = []
        for _ in range(queries):
            query = " ".join(vocabulary.pick(rng, rng.randint(1, 3)))
            if rng.random() < 0.1:
                query = rng.choice(["东京", "医生", "生日"])
            t = time.perf_counter()
            await notes.search(1 + rng.randrange(USERS), query, 5)
            latencies.append(time.perf_counter() - t)
        await conn.close()
    ordered = sorted(latencies)
    return {
        "fill_per_s": count / filled,
        "p50_ms": 1000 * statistics.median(ordered),
        "p99_ms": 1000 * ordered[int(0.99 * (len(ordered) - 1))],
        "max_ms": 1000 * ordered[-1],
    }


def main(quick: bool, million: bool) -> None:
    count = 10_000 if quick else 1_000_000 if million else 100_000
    for label, size in (("everyday words (5,000, Zipf)", 5000), ("worst case (38 words)", 38)):
        figures = asyncio.run(measure(count, 500 if quick else 2000, size))
        print(
            f"search over {count:,} notes, {label}, {USERS} users, top 5 by BM25 with snippets: "
            f"p50 {figures['p50_ms']:.2f} ms, p99 {figures['p99_ms']:.2f} ms, "
            f"max {figures['max_ms']:.2f} ms (goal: p99 < 20 ms); "
            f"notes saved at {figures['fill_per_s']:,.0f}/s"
        )


if __name__ == "__main__":
    main("--quick" in sys.argv, "--million" in sys.argv)
