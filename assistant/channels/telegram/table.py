"""A Markdown table as monospaced text that fits a phone's width."""

from __future__ import annotations

from collections.abc import Sequence

PHONE_COLUMNS = 36  # what a phone shows of a monospaced line without wrapping


def table_text(rows: Sequence[Sequence[str]]) -> str:
    """Aligned columns when they fit a phone, else each row as "header: value" lines."""
    filled = [[cell.strip() for cell in row] for row in rows if row]
    if not filled:
        return ""
    columns = max(len(row) for row in filled)
    cells = [[*row, *[""] * (columns - len(row))] for row in filled]
    widths = [max(len(row[c]) for row in cells) for c in range(columns)]
    if sum(widths) + 3 * (columns - 1) <= PHONE_COLUMNS:
        return _aligned(cells, widths)
    return _stacked(cells)


def _aligned(rows: list[list[str]], widths: list[int]) -> str:
    lines = [
        " │ ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in rows
    ]
    rule = "─┼─".join("─" * width for width in widths)
    return "\n".join([lines[0].rstrip(), rule, *(line.rstrip() for line in lines[1:])])


def _stacked(rows: list[list[str]]) -> str:
    header, body = rows[0], rows[1:] or [rows[0]]
    records = [
        "\n".join(
            f"{name}: {value}" if name else value for name, value in zip(header, row, strict=True)
        )
        for row in body
    ]
    return "\n\n".join(records)
