"""The last 30 days of model use as a picture: a bar a day, money when the calls had a price,
else tokens; a PNG for Telegram or a file."""

from __future__ import annotations

import io
from datetime import date

import matplotlib

matplotlib.use("Agg")  # no display: the picture is drawn to bytes
from matplotlib.figure import Figure

from assistant.locales import tr

WIDTH, HEIGHT, DPI = 8.0, 3.6, 100  # 800 × 360 pixels


def chart(days: tuple[tuple[date, int, float], ...], unit: str, language: str) -> bytes:
    """A bar chart of ``days`` (each day's tokens and cost) as PNG bytes; ``unit`` is the
    currency the costs are in, or "tokens"."""
    money = unit != "tokens" and any(cost for _, _, cost in days)
    values = [cost if money else tokens for _, tokens, cost in days]
    figure = Figure(figsize=(WIDTH, HEIGHT), dpi=DPI)
    axes = figure.add_subplot()
    axes.bar(range(len(days)), values, color="#4c72b0")
    axes.set_xticks(range(0, len(days), 5), [d.strftime("%d.%m") for d, *_ in days[::5]])
    axes.set_ylabel(unit if money else tr(language, "tokens"))
    axes.set_title(tr(language, "Model use, the last {n} days", n=len(days)))
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()
