"""Everyday requests understood without a model: sentence templates a language, matched whole,
with times read by the schedule language and places by a table of cities and countries."""

from assistant.intents.languages import matcher
from assistant.intents.matcher import MAX_TEXT, Match, Matcher
from assistant.intents.places import zone_of
from assistant.intents.understanding import understand

__all__ = ["MAX_TEXT", "Match", "Matcher", "matcher", "understand", "zone_of"]
