"""Agent figures: its own overhead per step, and many chats talking at once.

Run: .venv/bin/python bench/agent.py [--quick]

The model is scripted in process and answers at once, so what is measured is the agent:
building the prompt and request, history from SQLite cut to the budget, validating and
auditing the tool call, running it, and storing the turn. (The HTTP adapters are not in the
loop; their cost is the SDK's and the network's.)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from assistant.agent import Agent, AgentSettings, Person, Turns  # noqa: E402
from assistant.clock import SystemClock  # noqa: E402
from assistant.db import Database, open_database  # noqa: E402
from assistant.llm.types import (  # noqa: E402
    Completion,
    Request,
    StreamEvent,
    ToolCall,
    UserMessage,
)
from assistant.memory.audit import AuditLog  # noqa: E402
from assistant.memory.conversation import Conversations  # noqa: E402
from assistant.tools import Executor, Registry  # noqa: E402
from assistant.tools.builtin import builtin_tools  # noqa: E402

ANSWER = (
    "It is 14:05 in Berlin on Sunday. Your dentist appointment is tomorrow at 9:30, and I "
    "have set a reminder for 8:45 so that you have time to get there. Anything else?"
)
QUESTION = "what time is it now, and when was the dentist again? ({n})"


class ScriptedModel:
    """Calls get_current_time for each new user message, then answers: two steps per turn."""

    name = "scripted"

    async def complete(self, request: Request) -> Completion:
        if isinstance(request.messages[-1], UserMessage):
            return Completion(calls=(ToolCall("c1", "get_current_time", {}),))
        return Completion(ANSWER)

    def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError

    async def close(self) -> None:
        return None


async def build(path: Path) -> tuple[Agent, Turns, Database]:
    conn = await open_database(path)
    clock = SystemClock()
    executor = Executor(Registry(builtin_tools()), AuditLog(conn, clock))
    agent = Agent(
        ScriptedModel(),
        executor,
        Conversations(conn, clock),
        clock,
        settings=AgentSettings(stream=False),
    )
    return agent, Turns(agent), conn


async def per_step(turns_count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        agent, _, conn = await build(Path(tmp) / "a.db")
        person = Person(1, 1, "Europe/Berlin", "Ada")
        durations = []
        for n in range(turns_count):
            started = time.perf_counter()
            answer = await agent.reply(person, QUESTION.format(n=n))
            durations.append((time.perf_counter() - started) / answer.steps)
        await conn.close()
    ordered = sorted(durations)
    return {
        "median_ms": 1000 * statistics.median(ordered),
        "p99_ms": 1000 * ordered[int(0.99 * (len(ordered) - 1))],
    }


async def many_chats(chats: int, messages: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        _, turns, conn = await build(Path(tmp) / "a.db")

        async def chat(n: int) -> None:
            person = Person(1000 + n, 1000 + n, "UTC")
            for m in range(messages):
                await turns.reply(person, QUESTION.format(n=m))

        started = time.perf_counter()
        async with asyncio.TaskGroup() as group:
            for n in range(chats):
                group.create_task(chat(n))
        elapsed = time.perf_counter() - started
        await conn.close()
    return {"messages_per_s": chats * messages / elapsed, "seconds": elapsed}


def main(quick: bool) -> None:
    turns_count = 200 if quick else 2000
    steps = asyncio.run(per_step(turns_count))
    print(
        f"agent overhead per step ({turns_count} turns of 2 steps, history growing to the "
        f"{AgentSettings().history_tokens:,}-token budget): "
        f"median {steps['median_ms']:.2f} ms, p99 {steps['p99_ms']:.2f} ms (goal < 2 ms)"
    )
    messages = 5 if quick else 20
    crowd = asyncio.run(many_chats(100, messages))
    print(
        f"100 chats at once, {messages} messages each: "
        f"{crowd['messages_per_s']:,.0f} messages/s ({crowd['seconds']:.1f} s)"
    )


if __name__ == "__main__":
    main("--quick" in sys.argv)
