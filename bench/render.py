"""Telegram rendering figures: Markdown to text with entities, then cut into pieces, for
answers of growing size and for inputs built to be slow (runs of one delimiter). Time should
grow in proportion to size (linear), never with its square.

Run: .venv/bin/python bench/render.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.channels.telegram.pieces import pieces  # noqa: E402
from assistant.channels.telegram.render import render  # noqa: E402

ANSWER = (
    "## Plan for __init__\n\nHere is **bold**, *italic*, `code`, [a link](https://ex.org/a_(b)) "
    "and 2*3*4 with 🎉 emoji.\n\n> a quote\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    "```python\nprint('hi')\n```\n\n这是**重要**的。\n\n"
)
HOSTILE = {
    "asterisks": "*a ",
    "underscores": "_a ",
    "brackets": "[a](",
    "backticks": "`a ",
    "quotes": "> ",
}


def timed(text: str) -> float:
    started = time.perf_counter()
    pieces(render(text))
    return time.perf_counter() - started


def main() -> None:
    for size in (10_000, 100_000, 1_000_000):
        text = (ANSWER * (size // len(ANSWER) + 1))[:size]
        seconds = timed(text)
        print(f"everyday answer, {size:>9,} chars: {1000 * seconds:8.1f} ms "
              f"({seconds / size * 1e9:.0f} ns/char)")  # fmt: skip
    for name, unit in HOSTILE.items():
        small, large = unit * (20_000 // len(unit)), unit * (200_000 // len(unit))
        a, b = timed(small), timed(large)
        print(f"{name:>12}: 20k chars {1000 * a:7.1f} ms, 200k chars {1000 * b:8.1f} ms "
              f"(x{b / a:.1f} for x10 the size)")  # fmt: skip


if __name__ == "__main__":
    main()
