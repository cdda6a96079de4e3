"""What the service counts, for ``/metrics`` (Prometheus text format, by prometheus-client).

Counted where it happens: updates handled, turns, tool calls and failures by tool, tasks due
and fired and how late, deliveries that failed, model latency. One registry of our own, so
nothing else in the process (or a second assistant in a test) mixes in.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

REGISTRY = CollectorRegistry(auto_describe=True)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

UPDATES = Counter(
    "assistant_updates", "Telegram updates handled, by kind", ["kind"], registry=REGISTRY
)
TURNS = Counter(
    "assistant_turns", "Conversation turns, by how they ended", ["ending"], registry=REGISTRY
)
TOOL_CALLS = Counter(
    "assistant_tool_calls",
    "Tool calls, by tool and outcome",
    ["tool", "outcome"],
    registry=REGISTRY,
)
TASKS_DUE = Counter("assistant_tasks_due", "Scheduled runs claimed as due", registry=REGISTRY)
TASKS_FIRED = Counter(
    "assistant_tasks_fired",
    "Scheduled runs finished, by kind and outcome",
    ["kind", "outcome"],
    registry=REGISTRY,
)
LATENESS = Histogram(
    "assistant_task_lateness_seconds",
    "How late a scheduled run started after it fell due",
    buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 15, 60, 300, 3600),
    registry=REGISTRY,
)
DELIVERIES_FAILED = Counter(
    "assistant_deliveries_failed",
    "Messages to users that could not be delivered",
    registry=REGISTRY,
)
LLM_SECONDS = Histogram(
    "assistant_llm_seconds",
    "Model calls, by outcome",
    ["outcome"],
    buckets=(0.25, 0.5, 1, 2, 5, 10, 20, 40, 60, 120, 300),
    registry=REGISTRY,
)

LLM_TOKENS = Counter(
    "assistant_llm_tokens",
    "Model tokens, by model, source (chat, task, speech) and kind (input, cached, output)",
    ["model", "source", "kind"],
    registry=REGISTRY,
)
LLM_COST = Counter(
    "assistant_llm_cost",
    "What the model cost, in the config's currency, by model and source",
    ["model", "source"],
    registry=REGISTRY,
)


def exposition() -> bytes:
    """Every metric in the text format scrapers read."""
    return generate_latest(REGISTRY)


STAYS = timedelta(minutes=10)  # how long a failure lasts before the owner is told


class Streak:
    """Since when something has been failing, without a success in between."""

    def __init__(self) -> None:
        self.since: datetime | None = None
        self.last_error = ""

    def ok(self) -> None:
        """It worked: the streak ends."""
        self.since = None

    def failed(self, now: datetime, error: str) -> None:
        """It failed: the streak starts, or goes on."""
        self.since = self.since or now
        self.last_error = error

    def problem(self, now: datetime, what: str) -> str | None:
        """What to tell when the streak has lasted long enough."""
        if self.since is None or now - self.since < STAYS:
            return None
        minutes = int((now - self.since).total_seconds() // 60)
        return f"{what} for {minutes} minutes ({self.last_error})."
