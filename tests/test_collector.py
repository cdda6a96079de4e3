"""The cyclic collector waits while a burst is in memory and runs again after it."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from assistant.scheduler.collector import Collector


@pytest.fixture(autouse=True)
def _collector_enabled() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_a_burst_at_the_threshold_holds_collection_off_until_it_is_let_go():
    collector = Collector(threshold=100)
    collector.held(99)
    assert gc.isenabled() and not collector.paused
    collector.held(100)
    assert not gc.isenabled() and collector.paused
    collector.held(5_000)
    assert not gc.isenabled()
    collector.held(0)
    assert gc.isenabled() and not collector.paused


def test_someone_elses_pause_is_left_to_them():
    collector = Collector(threshold=1)
    gc.disable()
    collector.held(10)
    collector.held(0)
    collector.resume()
    assert not gc.isenabled()


def test_resume_lets_collection_run_again_whatever_is_held():
    collector = Collector(threshold=1)
    collector.held(10)
    collector.resume()
    assert gc.isenabled() and not collector.paused
