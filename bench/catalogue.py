"""Size of the built-in tool catalogue in each form a model reads.

Run: .venv/bin/python bench/catalogue.py
Tokens are approximated as characters / 4 (no tokenizer is shipped); small local models drown
in big schemas, so the text form is the one to keep small.
"""

from __future__ import annotations

import json

from assistant.config import Config
from assistant.tools.builtin import builtin_tools
from assistant.tools.registry import Registry


def main() -> None:
    registry = Registry(builtin_tools())
    forms = {
        "text catalogue": registry.catalogue(),
        "openai tools (JSON)": json.dumps(registry.openai_tools(), separators=(",", ":")),
        "anthropic tools (JSON)": json.dumps(registry.anthropic_tools(), separators=(",", ":")),
    }
    print(f"{len(registry)} built-in tools (defaults: {Config().tools.max_concurrency} at once)")
    for name, text in forms.items():
        print(f"{name:<24}{len(text):>7} chars  ~{len(text) // 4:>5} tokens")


if __name__ == "__main__":
    main()
