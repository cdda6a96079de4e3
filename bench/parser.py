"""Speed of the text tool-call reader (model markup, then JSON): a realistic 1 MB reply,
and adversarial inputs by size.

Run: .venv/bin/python bench/parser.py
Goals: a 1 MB reply holding 100 calls under 50 ms; every input linear, none over 50 ms per MB.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

from assistant.llm.textcalls import extract_tool_calls

MB = 1_000_000
CALL = json.dumps({"tool": "add_reminder", "args": {"delay": "5m", "message": "call mom"}})
PROSE = "The quick brown fox jumps over the lazy dog, {braces} and [brackets] included. "


def realistic(size: int) -> str:
    """Prose with 100 fenced and bare calls spread evenly through it."""
    chunk = size // 100
    parts = []
    for i in range(100):
        call = f"```json\n{CALL}\n```\n" if i % 2 else f"{CALL}\n"
        filler = (PROSE * (chunk // len(PROSE) + 1))[: chunk - len(call)]
        parts.append(filler + call)
    return "".join(parts)


ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "deep nesting [[[...]]]": lambda n: "[" * (n // 2) + "]" * (n // 2),
    "deep call nesting": lambda n: '{"tool": ' * (n // 9),
    "unclosed braces {{{": lambda n: "{" * n,
    "unclosed call starts": lambda n: '{"tool": "a", ' * (n // 15),
    'quote junk {"{"': lambda n: '{"' * (n // 2),
    "one unclosed string": lambda n: '{"tool": "a", "args": {"x": "' + "y" * n,
    "fences ```json": lambda n: "```json\n" * (n // 8),
    "closed fences of calls": lambda n: f"```json\n{CALL}\n```\n" * (n // (len(CALL) + 13)),
    "unclosed tags": lambda n: "<tool_call>{" * (n // 12),
    "binary junk": lambda n: (bytes(range(256)).decode("latin-1") * (n // 256 + 1))[:n],
    "unclosed model markup": lambda n: "<tool_call><function=x[TOOL_CALLS]" * (n // 34),
    "reasoning blocks": lambda n: "<think>x</think>" * (n // 16),
    "stray end markers <|end|>": lambda n: "<|end|>" * (n // 7),
    "reasoning beside a call": lambda n: "<think>x</think>" * (n // 16) + CALL,
    "end markers beside a call": lambda n: "<|end|>" * (n // 7) + CALL,
    "markers in call strings": lambda n: CALL.replace("call mom", "<think>") * (n // len(CALL)),
    "call-like lines [f(": lambda n: "[f(\n" * (n // 4),
    "Mistral calls": lambda n: '[TOOL_CALLS]get_time{"a": 1}' * (n // 28),
    "all '<'": lambda n: "<" * n,
}


def timed(text: str, repeat: int = 5) -> float:
    """Median seconds of ``repeat`` runs."""
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        extract_tool_calls(text)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    text = realistic(MB)
    found = len(extract_tool_calls(text).calls)
    seconds = timed(text)
    print(
        f"realistic 1 MB reply, {found} calls: {seconds * 1000:.1f} ms "
        f"({len(text) / seconds / MB:.0f} MB/s)  goal < 50 ms"
    )
    print()
    sizes = (MB // 4, MB // 2, MB, 2 * MB)
    header = "".join(f"{s / MB:>9.2f}MB" for s in sizes)
    print(f"{'adversarial input':<26}{header}   ms/MB at 2 MB  (goal <= 50, linear)")
    for name, make in ADVERSARIAL.items():
        times = [timed(make(size), repeat=3) for size in sizes]
        cells = "".join(f"{t * 1000:>9.1f}ms" for t in times)
        print(f"{name:<26}{cells}   {times[-1] * 1000 / 2:>6.1f}")


if __name__ == "__main__":
    main()
