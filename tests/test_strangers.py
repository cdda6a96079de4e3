"""Strangers: a bounded memory of who was turned away, and a log line at most once a minute."""

from __future__ import annotations

import logging

from assistant.channels.telegram.strangers import Strangers


def test_strangers_are_remembered_boundedly_and_logged_sparingly(caplog):
    strangers = Strangers(limit=100, every=3600)
    with caplog.at_level(logging.WARNING, logger="assistant.channels.telegram.strangers"):
        for who in range(10_000):
            strangers.ignored(who)
            strangers.ignored(who)  # a repeat is not news
    assert len(strangers._seen) == 100 and list(strangers._seen)[-1] == 9_999
    assert len(caplog.records) == 1 and "1 new user(s), the latest 0" in caplog.text
