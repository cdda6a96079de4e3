"""Budgets and spending said to people, in their language: the line a person gets when the
model is not called, and the owner's notice when someone reaches 80% or 100%."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from assistant.errors import BudgetError
from assistant.locales import dates, ntr, tr
from assistant.usage.ledger import Alert
from assistant.usage.report import Line, Report


def over_budget(error: BudgetError, language: str, zone: str) -> str:
    """Why the model was not asked, and when it can be again."""
    when = dates.moment(error.resets_at, zone, language)
    if error.left > 0 and error.period in ("day", "month"):
        return _too_big(error, language, when)
    if error.shared:
        return tr(
            language,
            "The budget group chats share for the model is spent; it starts "
            "again {when}. Reminders, notes and commands still work.",
            when=when,
        )
    if error.period == "day":
        return tr(
            language,
            "Today's budget for the model is spent; it starts again {when}. "
            "Reminders, notes and commands still work.",
            when=when,
        )
    if error.period == "month":
        return tr(
            language,
            "This month's budget for the model is spent; it starts again "
            "{when}. Reminders, notes and commands still work.",
            when=when,
        )
    return tr(language, "This task's monthly cap is spent; it runs again {when}.", when=when)


def _too_big(error: BudgetError, language: str, when: str) -> str:
    """A call that needs more than the budget has left: how much each, never "spent"."""
    needed = amount(error.needed, error.unit, language)
    left = amount(error.left, error.unit, language)
    said = _too_big_for(error.period, language, needed, left, when)
    if error.held <= 0:
        return said
    held = amount(error.held, error.unit, language)
    return said + " " + tr(language, "Answers in progress hold {held} until they end.", held=held)


def _too_big_for(period: str, language: str, needed: str, left: str, when: str) -> str:
    if period == "day":
        return tr(
            language,
            "This would need up to {needed} of the model; today's budget has {left} left "
            "(it starts again {when}). Reminders, notes and commands still work.",
            needed=needed,
            left=left,
            when=when,
        )
    return tr(
        language,
        "This would need up to {needed} of the model; this month's budget has {left} left "
        "(it starts again {when}). Reminders, notes and commands still work.",
        needed=needed,
        left=left,
        when=when,
    )


def alert(found: Alert, language: str, name: str = "") -> str:
    """The owner's notice: who (by name) reached how much of which limit."""
    limit = amount(found.limit, found.unit, language)
    who = name or f"#{found.user_id}"
    if found.period == "day":
        return tr(
            language,
            "💸 {user} has used {level}% of the day's budget ({limit}).",
            user=who,
            level=found.level,
            limit=limit,
        )
    return tr(
        language,
        "💸 {user} has used {level}% of the month's budget ({limit}).",
        user=who,
        level=found.level,
        limit=limit,
    )


def amount(value: float, unit: str, language: str) -> str:
    """Tokens as a count, or money in ``unit`` (its currency) to the cent; a fraction of a cent
    is shown as it is."""
    if unit == "tokens":
        count = f"{round(value):,}".replace(",", " ")
        return tr(language, "{n} tokens", n=count)
    shown = f"{value:.2f}" if value >= 0.01 or value == 0 else f"{value:.4f}"
    return f"{shown} {unit}"


def usage_text(
    found: Report,
    unit: str,
    language: str,
    tasks: Mapping[str, str],
    *,
    everyone: bool,
    names: Mapping[int, str] | None = None,
) -> str:
    """``/usage``: today, this month and 30 days, then by source (and by person, by name
    where one is known, for the owner)."""
    lines = [tr(language, "Model use:")]
    for label, span in (
        (tr(language, "Today"), found.today),
        (tr(language, "This month"), found.month),
        (tr(language, "The last 30 days"), found.recent),
    ):
        lines.append(f"{label}: {_sum(span, unit, language)}")
    if not found.recent:
        return "\n".join(lines)
    lines.append(tr(language, "By source, the last 30 days:"))
    for source, group in _grouped(found.recent, lambda line: _source(line, tasks, language)):
        lines.append(f"• {source}: {_sum(group, unit, language)}")
    if everyone:
        lines.append(tr(language, "By person, the last 30 days:"))
        called = names or {}
        by_person = _grouped(found.recent, lambda line: _person(line, called, language))
        for person, group in by_person:
            lines.append(f"• {person}: {_sum(group, unit, language)}")
    return "\n".join(lines)


def _sum(lines: Iterable[Line], unit: str, language: str) -> str:
    taken = list(lines)
    calls = sum(line.calls for line in taken)
    tokens = amount(sum(line.tokens for line in taken), "tokens", language)
    counted = ntr(language, "{n} call", "{n} calls", calls)
    if estimated := sum(line.estimated for line in taken):
        counted += ", " + ntr(language, "{n} estimated", "{n} estimated", estimated)
    if unit == "tokens":
        return f"{tokens} ({counted})"
    return f"{amount(sum(line.cost for line in taken), unit, language)}, {tokens} ({counted})"


def _source(line: Line, tasks: Mapping[str, str], language: str) -> str:
    if line.task_id:
        name = tasks.get(line.task_id, "")
        return tr(language, "task {id} “{name}”", id=line.task_id, name=name)
    if line.source == "system":
        return tr(language, "the assistant's own checks")
    if line.source == "speech":
        return tr(language, "voice notes")
    return tr(language, "chat")


def _person(line: Line, names: Mapping[int, str], language: str) -> str:
    """A person by name; by their number only when they never said one."""
    if line.source == "system":
        return tr(language, "the assistant's own checks")
    return names.get(line.user_id, "") or f"#{line.user_id}"


def _grouped(lines: tuple[Line, ...], key: Callable[[Line], str]) -> list[tuple[str, list[Line]]]:
    found: dict[str, list[Line]] = {}
    for line in lines:
        found.setdefault(key(line), []).append(line)
    return list(found.items())
