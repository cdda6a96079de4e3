"""Parts talk in data: no module of the package reads another's English (an error's reason
and SQLite's result code are read, never their words)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "assistant"
READING_ENGLISH = [
    re.compile(r"in str\((?:exc|error|err|e|once|recurring)\)"),  # an error sorted by its words
    re.compile(r"str\((?:exc|error|err|e)\)\.(?:partition|split|startswith|endswith|find|index)"),
    # a regex over a tool's result (the model's own text is the text-call reader's to read)
    re.compile(
        r"\.(?:match|search|findall|fullmatch)\([^)\n]*\b(?:result|checked)\.(?:content|text)\b"
    ),
]


def test_no_module_reads_the_words_of_an_error_or_a_tools_result():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if any(pattern.search(line) for pattern in READING_ENGLISH):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_the_check_finds_what_it_looks_for():
    lines = [
        'if "no time of day" in str(error):',
        'if "locked" not in str(exc) and "busy" not in str(exc):',
        'if "recurring schedule" in str(once):',
        'reason = str(exc).partition(": ")[2]',
        "made = _ID.match(result.content)",
    ]
    assert all(any(p.search(line) for p in READING_ENGLISH) for line in lines)


def test_channels_render_one_response_and_never_sort_it_by_type():
    sorting = re.compile(r"isinstance\([^)]*,\s*(?:Reply|Answer)\b")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted([*(ROOT / "channels").rglob("*.py"), ROOT / "app" / "terminals.py"])
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if sorting.search(line)
    ]
    assert found == []
