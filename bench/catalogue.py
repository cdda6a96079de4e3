"""Size of the tool catalogue in each form a model reads, with and without 60 outside tools,
and how well find_tools finds the tool a request needs.

Run: .venv/bin/python bench/catalogue.py
Tokens are approximated as characters / 4 (no tokenizer is shipped); small local models drown
in big schemas, so what each request carries is the figure to keep small.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from outside_tools import REQUESTS, TOOLS  # noqa: E402

from assistant.config import Config  # noqa: E402
from assistant.mcp import RemoteTool, exposed_name  # noqa: E402
from assistant.servers import ServerSettings  # noqa: E402
from assistant.tools.builtin import builtin_tools  # noqa: E402
from assistant.tools.finder import Finder  # noqa: E402
from assistant.tools.outside import outside_tool  # noqa: E402
from assistant.tools.registry import Registry  # noqa: E402
from assistant.tools.tool import Tool  # noqa: E402

SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}


class Servers:
    """The sixty tools as servers that are up would give them."""

    def __init__(self) -> None:
        settings = ServerSettings(command=("x",))
        self._tools: dict[str, Tool] = {}
        for server, name, text in TOOLS:
            remote = RemoteTool(server, name, exposed_name(server, name), text, SCHEMA, False)
            made = outside_tool(remote, settings, hub=None)  # type: ignore[arg-type]
            self._tools[made.name] = made

    def tools(self) -> Mapping[str, Tool]:
        return self._tools


def size(specs: list) -> int:  # type: ignore[type-arg]
    from assistant.llm.catalogue import openai_tool

    return len(json.dumps([openai_tool(s) for s in specs], separators=(",", ":"))) // 4


def main() -> None:
    budget = Config().llm.catalogue_tokens
    alone = Registry(builtin_tools(), catalogue_tokens=budget)
    forms = {
        "text catalogue": alone.catalogue(),
        "openai tools (JSON)": json.dumps(alone.openai_tools(), separators=(",", ":")),
        "anthropic tools (JSON)": json.dumps(alone.anthropic_tools(), separators=(",", ":")),
    }
    print(f"{len(alone)} built-in tools (defaults: {Config().tools.max_concurrency} at once)")
    for name, text in forms.items():
        print(f"{name:<24}{len(text):>7} chars  ~{len(text) // 4:>5} tokens")
    servers = Servers()
    full = Registry(builtin_tools(), sources=[servers], catalogue_tokens=budget)
    offered = full.offered()
    outside = sum(1 for s in offered if "__" in s.name)
    print(f"\nwith {len(TOOLS)} outside tools (llm.catalogue_tokens = {budget}):")
    print(f"  every tool, OpenAI JSON   ~{size(full.specs()):>5} tokens  ({len(full)} tools)")
    finder_offered = "offered" if "find_tools" in [s.name for s in offered] else "not offered"
    print(
        f"  one request carries       ~{size(offered):>5} tokens  ({len(offered)} tools: "
        f"{outside} outside, find_tools {finder_offered})"
    )
    finder = Finder(t for t in full if t.name != "find_tools")
    hits = 0
    for text, wanted in REQUESTS:
        found = [f.tool.name for f in finder.search(text, 3)]
        hits += wanted in found
        if wanted not in found and "-v" in sys.argv:
            print(f"  miss: {text!r} -> {found} (wanted {wanted})")
    share = hits / len(REQUESTS)
    print(f"\nfind_tools top-3 hit rate: {hits}/{len(REQUESTS)} = {share:.0%} (goal: at least 80%)")


if __name__ == "__main__":
    main()
