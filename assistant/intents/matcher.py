"""Matching a message against the sentence graph of every language.

A sentence matches only when all of the message is read by it: every word a literal of the
sentence or inside a slot. A bounded slot (a time, a place) tries each length it allows,
longest first; the one free slot a sentence may have (the words of a reminder or a note) tries
only the lengths that leave the rest of its sentence enough words and no more than it can hold.
Each word is read as the packs spell it first ("tmrw", "remnid", "завтро"), while a slot's
value stays the person's own text. A state that cannot finish from a word is remembered and
never tried from there again, so the work is bounded by states times words: linear in the
message, which is at most ``MAX_TEXT`` characters.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cache

from assistant.intents.templates import BOUNDED, Edge, Ending, Graph
from assistant.intents.words import Word, glued, words

MAX_TEXT = 300
Check = Callable[[str], bool]
Slots = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Match:
    """What a message was understood as: the intent, its language and its slots' texts."""

    intent: str
    language: str
    slots: Mapping[str, str]


class Matcher:
    """Every language's sentences in one graph, tried in the files' order; each word of a
    message read first as ``spell`` reads it (short forms, misspellings)."""

    def __init__(self, graph: Graph, spell: Callable[[str], str] = str) -> None:
        self._graph = graph
        self._spell = spell
        self._least, self._most = _lengths(graph)
        self._steps = [_Steps.of(graph, state) for state in range(len(graph.edges))]

    def match(self, text: str, checks: Mapping[str, Check]) -> Match | None:
        """The first sentence that reads all of ``text`` with every slot passing its check."""
        if len(text) > MAX_TEXT:
            return None
        found = self.words(text)
        return _Walk(self, text, found, checks).run() if found else None

    def words(self, text: str) -> list[Word]:
        """The words of ``text`` as the sentences spell them."""
        return [replace(w, norm=self._spell(w.norm)) for w in words(text)]


class _Walk:
    """One message through the graph: the states that cannot finish, and the slot checks done."""

    def __init__(
        self, matcher: Matcher, text: str, found: list[Word], checks: Mapping[str, Check]
    ) -> None:
        self.steps, self.least, self.most = matcher._steps, matcher._least, matcher._most
        self.text, self.found, self.checks = text, found, checks
        self.dead: set[tuple[int, int]] = set()
        # Words the text glues together ("12:15am" is "12" and "15am"): no slot ends between.
        self.glued = glued(text, found)
        self.checked: dict[tuple[str, int, int], bool] = {}

    def run(self) -> Match | None:
        return self.walk(0, 0, ())

    def walk(self, state: int, at: int, slots: Slots) -> Match | None:
        if (state, at) in self.dead:
            return None
        steps = self.steps[state]
        if steps.ending is not None and at == len(self.found):
            return Match(steps.ending.intent, steps.ending.language, dict(slots))
        for edge in steps.after(self.found[at].norm if at < len(self.found) else None):
            if found := self.step(edge, at, slots):
                return found
        self.dead.add((state, at))
        return None

    def step(self, edge: Edge, at: int, slots: Slots) -> Match | None:
        if edge.kind == "word":
            return self.walk(edge.target, at + 1, slots)
        for end in self.ends(edge, at):
            if self.passes(edge.label, at, end):
                value = self.value(at, end)
                if found := self.walk(edge.target, end, (*slots, (edge.label, value))):
                    return found
        return None

    def ends(self, edge: Edge, at: int) -> list[int]:
        total = len(self.found)
        latest = total - self.least[edge.target]
        if edge.label in BOUNDED:
            found = range(min(at + BOUNDED[edge.label], latest), at, -1)
        else:
            most = self.most[edge.target]
            earliest = at + 1 if math.isinf(most) else max(at + 1, total - int(most))
            found = range(earliest, latest + 1)
        return [end for end in found if end >= total or not self.glued[end - 1]]

    def passes(self, name: str, start: int, end: int) -> bool:
        key = (name, start, end)
        if key not in self.checked:
            check = self.checks.get(name)
            self.checked[key] = check is None or check(self.value(start, end))
        return self.checked[key]

    def value(self, start: int, end: int) -> str:
        return self.text[self.found[start].start : self.found[end - 1].end]


@dataclass(frozen=True)
class _Steps:
    """What can be read from a state once its skips are taken: words by word, slots, and
    whether a sentence may end there; each edge with its rank, the files' order."""

    words: Mapping[str, tuple[tuple[int, Edge], ...]]
    slots: tuple[tuple[int, Edge], ...]
    ending: Ending | None

    @classmethod
    def of(cls, graph: Graph, state: int) -> _Steps:
        """The steps of ``state`` and of every state its skips reach, in order."""
        words: dict[str, list[tuple[int, Edge]]] = {}
        slots: list[tuple[int, Edge]] = []
        ending = None
        for rank, (reached, edge) in enumerate(_closure(graph, state)):
            if edge is None:
                ending = ending or graph.endings.get(reached)
            elif edge.kind == "word":
                words.setdefault(edge.label, []).append((rank, edge))
            else:
                slots.append((rank, edge))
        return cls({w: tuple(e) for w, e in words.items()}, tuple(slots), ending)

    def after(self, word: str | None) -> list[Edge]:
        """The edges that may read on from here when ``word`` comes next, in rank order."""
        matching = self.words.get(word, ()) if word is not None else ()
        if not matching or not self.slots:
            return [edge for _, edge in (matching or self.slots)]
        return [edge for _, edge in sorted((*matching, *self.slots), key=lambda r: r[0])]


def _closure(graph: Graph, state: int) -> list[tuple[int, Edge | None]]:
    """The states ``state`` reaches by skips (depth first, in edge order), each followed by
    its edges that read something; a state's own entry comes with None."""
    out: list[tuple[int, Edge | None]] = []
    seen: set[int] = set()
    stack = [state]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        out.append((current, None))
        skips = []
        for edge in graph.edges[current]:
            if edge.kind == "skip":
                skips.append(edge.target)
            else:
                out.append((current, edge))
        stack.extend(reversed(skips))
    return out


def _lengths(graph: Graph) -> tuple[list[int], list[float]]:
    """The fewest and most words each state needs before a sentence ends."""

    @cache
    def least(state: int) -> int:
        own = 0 if state in graph.endings else math.inf
        steps = (_size(e, fewest=True) + least(e.target) for e in graph.edges[state])
        return int(min(own, *steps)) if graph.edges[state] else int(own)

    @cache
    def most(state: int) -> float:
        return max((_size(e, fewest=False) + most(e.target) for e in graph.edges[state]), default=0)

    count = len(graph.edges)
    return [least(s) for s in range(count)], [most(s) for s in range(count)]


def _size(edge: Edge, *, fewest: bool) -> float:
    if edge.kind == "skip":
        return 0
    if edge.kind == "word" or fewest:
        return 1
    return BOUNDED.get(edge.label, math.inf)
