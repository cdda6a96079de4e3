"""Budgets that cap (issue 48): 100 chats at once against a day's budget worth 10 calls; the day
must end at or under its budget, and every refused call must say truthfully what is left.

Run: .venv/bin/python bench/caps.py

A model that answers with every token it was allowed and counts the prompt as a real tokenizer
would (four characters a token), behind the metering the assistant uses, over a real SQLite
file; each call sends a system prompt, a question and the tools' schemas, as a turn does.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.clock import SystemClock  # noqa: E402
from assistant.db import open_database  # noqa: E402
from assistant.errors import BudgetError  # noqa: E402
from assistant.llm.model import single  # noqa: E402
from assistant.llm.types import (  # noqa: E402
    Completion,
    Payer,
    Request,
    StreamEvent,
    ToolSpec,
    Usage,
    UserMessage,
)
from assistant.pricing import BudgetSettings  # noqa: E402
from assistant.usage.ledger import Alert, Ledger  # noqa: E402
from assistant.usage.metered import MeteredModel  # noqa: E402

CHATS, REPLY = 100, 1024
SYSTEM = "You are a helpful assistant. " * 60
TOOLS = [
    ToolSpec(f"tool_{n}", "Does one thing well. " * 10, {"type": "object", "properties": {}})
    for n in range(12)
]


class Honest:
    """A model that takes its time, uses all the answer it may, and counts its prompt."""

    name = "honest"

    async def complete(self, request: Request) -> Completion:
        await asyncio.sleep(0.01)  # the calls overlap, as parallel chats' do
        sent = len(request.system) + len(json.dumps([t.parameters for t in request.tools]))
        sent += sum(len(t.name + t.description) for t in request.tools)
        sent += sum(len(m.sent_text()) for m in request.messages if isinstance(m, UserMessage))
        return Completion("ok", usage=Usage(sent // 4, 0, request.max_tokens or REPLY))

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        return single(Completion("ok"))

    async def close(self) -> None:
        return None


async def told(alert: Alert) -> None:
    return None


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = await open_database(Path(tmp) / "bench.db")
        worst = len(SYSTEM) // 3 + 1500 + REPLY  # about a call's worst case, in tokens
        budget = 10 * worst
        ledger = Ledger(db, SystemClock(), BudgetSettings(unit="tokens", daily=budget), {})
        model = MeteredModel(Honest(), ledger, "m", reply_tokens=REPLY, on_alert=told)
        payer = Payer(1, "UTC", group=True)

        async def chat(n: int) -> str:
            request = Request(SYSTEM, [UserMessage(f"question {n}")], TOOLS, payer=payer)
            try:
                await model.complete(request)
            except BudgetError as exc:
                return "truthful" if exc.left < exc.needed else "untruthful"
            return "made"

        outcomes = await asyncio.gather(*(chat(n) for n in range(CHATS)))
        async with db.read() as session:
            row = await session.fetchone("SELECT SUM(input_tokens + output_tokens) FROM usage")
        await db.close()
    spent = int(row[0]) if row else 0
    print(
        f"{CHATS} chats at once, a day's budget of {budget:,} tokens (about 10 calls): "
        f"{outcomes.count('made')} calls made, {spent:,} tokens spent "
        f"({spent / budget:.0%} of the budget), {outcomes.count('truthful')} refused saying "
        f"what is left, {outcomes.count('untruthful')} refused untruthfully"
    )


if __name__ == "__main__":
    asyncio.run(main())
