"""Answers that say an action was done when the turn did not do it.

"Done: I will remind you at 5" after no call is worse than no answer: the person trusts a
reminder that does not exist. An answer claims an action when one of its sentences names the
action (the user having asked for it) and says it is done or will be, not as a question or a
refusal. Words are matched by plain substring and one alternation: linear in the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Action:
    """A kind of action people ask for, the words that name it, and the tools that do it."""

    name: str
    words: tuple[str, ...]
    tools: frozenset[str]
    command: str  # how to do it without the model


ACTIONS = (
    Action(
        "reminder",
        ("remind", "напомн", "напоминан"),
        frozenset({"add_reminder", "add_recurring_task", "edit_task"}),
        "/remind in 10m stretch",
    ),
    Action("note", ("note", "заметк", "запомн", "запиш"), frozenset({"save_note"}), "/note <text>"),
    Action("cancellation", ("cancel", "отмен"), frozenset({"cancel_task"}), "/tasks"),
    Action("pause", ("pause", "приостанов", "пауз"), frozenset({"pause_task"}), "/tasks"),
    Action("deletion", ("delete", "удали"), frozenset({"delete_note", "cancel_task"}), "/notes"),
)
_CLAIM = re.compile(
    r"\b(?:done|i'll|i will|i've|i have|i'm setting|"
    r"(?:is|are|has been|was) "
    r"(?:set|scheduled|created|saved|added|noted|cancell?ed|paused|deleted)|"
    r"i (?:set|scheduled|created|saved|added|noted|cancell?ed|paused|deleted)|"
    r"готово|сделано|напомню|поставил|установил|создал|сохранил|записал|запомнил|отменил|"
    r"удалил|приостановил)",
    re.IGNORECASE,
)
_REFUSAL = re.compile(
    r"\b(?:can't|cannot|can not|unable|not able|won't|don't|do not|не могу|не умею|не получ)",
    re.IGNORECASE,
)
_POLITE = re.compile(r"(?:can|could|would|will) you\b|please\b|мож(?:ешь|ете)|пожалуйста")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_LONGEST = 4000  # an answer's first part is where a claim of this turn's action stands


def may_claim(asked: str) -> bool:
    """Whether an answer to ``asked`` could claim an action (it asks for one): such an answer
    is checked before anyone sees it, so it is not streamed."""
    asked = asked.strip().lower()
    if asked.endswith("?") and not _POLITE.match(asked):
        return False
    return any(word in asked for action in ACTIONS for word in action.words)


def unfounded(asked: str, answer: str, done: Iterable[str]) -> Action | None:
    """The action the user asked for and the answer claims, which no tool of the turn did."""
    asked, ran = asked.strip().lower(), set(done)
    if asked.endswith("?") and not _POLITE.match(asked):
        return None  # a question about reminders asks for nothing
    sentences = [s.strip().lower() for s in _SENTENCE.findall(answer[:_LONGEST])]
    for action in ACTIONS:
        if ran & action.tools or not any(word in asked for word in action.words):
            continue
        if any(_claims(sentence, action) for sentence in sentences):
            return action
    return None


def _claims(sentence: str, action: Action) -> bool:
    if sentence.endswith("?") or _REFUSAL.search(sentence):
        return False
    return any(word in sentence for word in action.words) and _CLAIM.search(sentence) is not None


def correction(action: Action) -> str:
    """What the model is told when its answer claims an action no tool did."""
    return (
        f"(check by the assistant) Your answer says the {action.name} was done, but no tool was "
        "called in this turn, so nothing happened. Call the tool now, or tell the user plainly "
        "that it was not done."
    )


def honest(action: Action) -> str:
    """The answer that replaces a claim the model kept making without a call."""
    return (
        f"I have not done that: the model said the {action.name} was done, but it did not call "
        f"a tool, so nothing was changed. Try saying it again, or use {action.command}."
    )
