"""Fitting a call into what is left of a budget: whole, or with its answer lowered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from assistant.usage.counted import Counted

Measure = Callable[[Counted], float]  # what a call takes of a budget: tokens, or money


def fit(worst: Counted, room: float | None, least_output: int, measure: Measure) -> Counted | None:
    """``worst`` when it fits ``room`` (None: no limit), else with the largest answer that
    does, if that is at least ``least_output`` tokens; None when nothing useful fits."""
    if room is None or measure(worst) <= room:
        return worst
    asked = measure(replace(worst, output_tokens=0))
    per_token = measure(replace(worst, output_tokens=1)) - asked
    if per_token <= 0:  # the answer costs nothing (a model with no price): the input decides
        return worst if asked <= room else None
    output = min(int((room - asked) / per_token), worst.output_tokens)
    return replace(worst, output_tokens=output) if output >= max(least_output, 1) else None
