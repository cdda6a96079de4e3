"""Sentence templates, in a subset of hassil's syntax, built into one graph of words.

``(a|b)`` is one of its alternatives, ``[a]`` is optional, ``{slot}`` is a value the sentence
carries and ``<rule>`` is a named piece the language file defines once. Templates are not
expanded into every sentence they allow (a few optional words make tens of thousands): each
becomes a path through a graph whose edges are words, slots or nothing, as a regular
expression becomes an automaton.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from assistant.errors import ConfigError
from assistant.intents.words import words

EdgeKind = Literal["word", "slot", "skip"]
FREE = frozenset({"what", "item", "todo"})  # slots of any length: the words a request carries
BOUNDED = {
    "when": 12,
    "repeat": 12,
    "place": 4,
    "number": 1,
    "language": 2,
    "lead": 4,
    "event": 8,
}  # the longest each bounded slot may be, in words


@dataclass(frozen=True)
class Edge:
    """A step of the graph: a word to read, a slot to fill, or nothing."""

    kind: EdgeKind
    label: str
    target: int


@dataclass(frozen=True)
class Ending:
    """What a sentence that ends in a state means: the intent, and its language."""

    intent: str
    language: str


@dataclass
class Graph:
    """The states of every template; state 0 starts them all, in the order they were added."""

    edges: list[list[Edge]] = field(default_factory=lambda: [[]])
    endings: dict[int, Ending] = field(default_factory=dict)

    def state(self) -> int:
        """A new state without edges."""
        self.edges.append([])
        return len(self.edges) - 1

    def link(self, source: int, kind: EdgeKind, label: str, target: int) -> None:
        """An edge from ``source`` to ``target``."""
        self.edges[source].append(Edge(kind, label, target))

    def add(self, template: str, rules: Mapping[str, str], ending: Ending) -> None:
        """Add a template's sentences, ending in ``ending``; a clear error when it does not
        parse."""
        reader = _Reader(self, template, rules, ())
        start, end = reader.sequence(closing="")
        if reader.free > 1:
            raise reader.fail("a sentence may hold one free slot ({what} or {item})")
        self.link(0, "skip", "", start)
        self.endings[end] = ending


class _Reader:
    """A recursive-descent reader of one template; each part returns its (start, end) states."""

    def __init__(
        self, graph: Graph, text: str, rules: Mapping[str, str], using: tuple[str, ...]
    ) -> None:
        self.graph, self.text, self.rules, self.using = graph, text, rules, using
        self.at, self.free = 0, 0

    def fail(self, why: str) -> ConfigError:
        return ConfigError(f"the sentence template {self.text!r}: {why}")

    def sequence(self, closing: str) -> tuple[int, int]:
        start = end = self.graph.state()
        while self.at < len(self.text) and self.text[self.at] not in closing + "|":
            if self.text[self.at].isspace():
                self.at += 1
                continue
            first, last = self.part()
            self.graph.link(end, "skip", "", first)
            end = last
        return start, end

    def part(self) -> tuple[int, int]:
        char = self.text[self.at]
        if char in "([":
            return self.group(char)
        if char == "{":
            return self.slot(self.name("}"))
        if char == "<":
            return self.rule(self.name(">"))
        if char in ")]}>":
            raise self.fail(f"an unmatched {char!r}")
        start = self.at
        while self.at < len(self.text) and not (
            self.text[self.at].isspace() or self.text[self.at] in "()[]{}<>|"
        ):
            self.at += 1
        return self.literal(self.text[start : self.at])

    def literal(self, text: str) -> tuple[int, int]:
        start = end = self.graph.state()
        for word in words(text):
            following = self.graph.state()
            self.graph.link(end, "word", word.norm, following)
            end = following
        return start, end

    def slot(self, name: str) -> tuple[int, int]:
        if name not in FREE and name not in BOUNDED:
            raise self.fail(f"unknown slot {{{name}}}")
        self.free += name in FREE
        start, end = self.graph.state(), self.graph.state()
        self.graph.link(start, "slot", name, end)
        return start, end

    def group(self, opening: str) -> tuple[int, int]:
        closing = ")" if opening == "(" else "]"
        start, end = self.graph.state(), self.graph.state()
        self.at += 1
        while True:
            first, last = self.sequence(closing)
            self.graph.link(start, "skip", "", first)
            self.graph.link(last, "skip", "", end)
            if self.at >= len(self.text):
                raise self.fail(f"a {opening!r} is never closed")
            self.at += 1
            if self.text[self.at - 1] != "|":
                break
        if opening == "[":
            self.graph.link(start, "skip", "", end)  # after the words, so they are tried first
        return start, end

    def name(self, closing: str) -> str:
        end = self.text.find(closing, self.at)
        if end < 0:
            raise self.fail(f"a {self.text[self.at]!r} is never closed")
        name = self.text[self.at + 1 : end].strip()
        self.at = end + 1
        if not name.isidentifier():
            raise self.fail(f"{name!r} is not a name")
        return name

    def rule(self, name: str) -> tuple[int, int]:
        if name not in self.rules:
            raise self.fail(f"it uses <{name}>, which the language file does not define")
        if name in self.using:
            raise self.fail(f"<{name}> uses itself")
        inner = _Reader(self.graph, self.rules[name], self.rules, (*self.using, name))
        found = inner.sequence(closing="")
        self.free += inner.free
        return found
