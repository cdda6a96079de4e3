"""History within a token budget: whole exchanges only, the newest always kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from assistant.agent.dialog.history import costed, fit
from assistant.llm.tokens import ApproxCounter
from assistant.llm.types import AssistantMessage, ToolCall, ToolMessage, UserMessage

COUNTER = ApproxCounter()


def exchange(n: int, calls: int = 1) -> list:
    ids = [f"c{n}-{i}" for i in range(calls)]
    return [
        UserMessage(f"question {n} " + "x" * 40),
        AssistantMessage("", tuple(ToolCall(i, "get_time", {}) for i in ids)),
        *(ToolMessage(i, "get_time", "10:00 " + "y" * 40) for i in ids),
        AssistantMessage(f"answer {n}"),
    ]


def test_the_budget_keeps_the_newest_whole_exchanges():
    messages = [m for n in range(10) for m in exchange(n)]
    kept = fit(costed(messages, COUNTER), 120)
    assert kept[0] == UserMessage("question 8 " + "x" * 40) or isinstance(
        kept[0], (UserMessage, AssistantMessage)
    )
    assert kept[-1] == AssistantMessage("answer 9")
    assert sum(t for _, t in costed(kept, COUNTER)) <= 120


def test_the_newest_message_goes_in_even_over_the_budget():
    assert fit(costed([UserMessage("z" * 4000)], COUNTER), 10) == [UserMessage("z" * 4000)]


def test_a_result_whose_call_was_cut_off_is_dropped_and_a_call_without_results_too():
    orphan = ToolMessage("gone", "get_time", "10:00")
    unanswered = AssistantMessage("", (ToolCall("c9", "get_time", {}),))
    kept = fit(costed([orphan, UserMessage("hi"), unanswered, UserMessage("again")], COUNTER), 1000)
    assert kept == [UserMessage("hi"), UserMessage("again")]


def test_non_latin_text_costs_one_token_a_character():
    assert COUNTER.count("привет мир") == 10 and COUNTER.count("你好") == 2
    assert COUNTER.count("hello world!") == 3


@given(
    st.lists(st.integers(min_value=1, max_value=3), min_size=1, max_size=12), st.integers(10, 400)
)
def test_no_cut_ever_splits_a_call_from_its_result(calls_per_exchange, budget):
    messages = [m for n, k in enumerate(calls_per_exchange) for m in exchange(n, k)]
    kept = fit(costed(messages, COUNTER), budget)
    called = {c.id for m in kept if isinstance(m, AssistantMessage) for c in m.calls}
    answered = {m.call_id for m in kept if isinstance(m, ToolMessage)}
    assert called == answered
    assert not isinstance(kept[0], ToolMessage)
    assert kept[-1] == messages[-1]
