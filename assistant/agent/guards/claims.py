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
from functools import cache

from assistant import locales
from assistant.locales import words


@dataclass(frozen=True)
class Action:
    """A kind of action people ask for, the words that name it, and the tools that do it."""

    name: str
    words: tuple[str, ...]
    tools: frozenset[str]
    command: str  # how to do it without the model


_ACTIONS = (  # the name its words are listed by in the packs, its tools, the command
    ("reminder", {"add_reminder", "add_recurring_task", "edit_task"}, "/remind in 10m stretch"),
    ("note", {"save_note"}, "/note <text>"),
    ("cancellation", {"cancel_task"}, "/tasks"),
    ("pause", {"pause_task"}, "/tasks"),
    ("deletion", {"delete_note", "cancel_task"}, "/notes"),
)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_LONGEST = 4000  # an answer's first part is where a claim of this turn's action stands


def actions() -> tuple[Action, ...]:
    """The actions, each with the words every language pack names it by (``guards.actions``)."""
    return _actions(locales.current())


@cache
def _actions(packs: locales.Packs) -> tuple[Action, ...]:  # once a set of packs
    return tuple(
        Action(name, words.listed(f"guards.actions.{name}"), frozenset(tools), command)
        for name, tools, command in _ACTIONS
    )


@cache
def _patterns(packs: locales.Packs) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The claim, the refusal and the polite opening, from every pack's ``guards`` words."""
    done = (
        rf"(?:{words.pattern('guards.claim_subjects')}) (?:{words.pattern('guards.claim_verbs')})"
    )
    claim = rf"\b(?:{words.pattern('guards.claims')}|{done})"
    refusal = rf"\b(?:{words.pattern('guards.refusals')})"
    polite = rf"(?:{words.pattern('guards.polite', 'guards.polite_asks')})\b"
    flags = re.IGNORECASE
    return re.compile(claim, flags), re.compile(refusal, flags), re.compile(polite, flags)


def _polite(asked: str) -> bool:
    return _patterns(locales.current())[2].match(asked) is not None


def may_claim(asked: str) -> bool:
    """Whether an answer to ``asked`` could claim an action (it asks for one): such an answer
    is checked before anyone sees it, so it is not streamed."""
    asked = asked.strip().lower()
    if asked.endswith("?") and not _polite(asked):
        return False
    return any(word in asked for action in actions() for word in action.words)


def unfounded(asked: str, answer: str, done: Iterable[str]) -> Action | None:
    """The action the user asked for and the answer claims, which no tool of the turn did."""
    asked, ran = asked.strip().lower(), set(done)
    if asked.endswith("?") and not _polite(asked):
        return None  # a question about reminders asks for nothing
    sentences = [s.strip().lower() for s in _SENTENCE.findall(answer[:_LONGEST])]
    for action in actions():
        if ran & action.tools or not any(word in asked for word in action.words):
            continue
        if any(_claims(sentence, action) for sentence in sentences):
            return action
    return None


def _claims(sentence: str, action: Action) -> bool:
    claim, refusal, _ = _patterns(locales.current())
    if sentence.endswith("?") or refusal.search(sentence):
        return False
    return any(word in sentence for word in action.words) and claim.search(sentence) is not None


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
