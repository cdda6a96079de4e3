"""Markdown as chat models write it, rendered to Telegram text and entities, and cut into
pieces Telegram accepts (UTF-16 units, entities nested as Telegram allows, nothing lost)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.channels.telegram.pieces import LIMIT, pieces, plain_pieces
from assistant.channels.telegram.render import Entity, Rendered, render, units


def shown(markdown: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The text, and each entity as (kind, the text it covers, its url or language)."""
    rendered = render(markdown)
    encoded = rendered.text.encode("utf-16-le")
    spans = [
        (e.kind, encoded[2 * e.offset : 2 * e.end].decode("utf-16-le"), e.url or e.language)
        for e in rendered.entities
    ]
    return rendered.text, spans


@pytest.mark.parametrize(
    "prose",
    [
        'call `__init__` or __init__ and if __name__ == "__main__": run',
        "the product 2*3*4 and a * b * c and x*y",
        "see https://example.org/pkg/__init__.py for _private_name and snake_case_word",
    ],
)
def test_identifiers_products_and_bare_urls_stay_as_written(prose):
    text, spans = shown(prose)
    assert text == prose.replace("`", "")
    assert [kind for kind, *_ in spans] == (["code"] if "`" in prose else [])


def test_emphasis_as_models_write_it():
    assert shown("***x*** and **bold *italic* bold** and _it_")[1] == [
        ("italic", "x", ""),
        ("bold", "x", ""),
        ("bold", "bold italic bold", ""),
        ("italic", "italic", ""),
        ("italic", "it", ""),
    ]
    assert shown("**bold `code` bold**") == (
        "bold code bold",
        [("bold", "bold code bold", ""), ("code", "code", "")],
    )
    assert shown("``a `tick` here``") == ("a `tick` here", [("code", "a `tick` here", "")])


def test_links_with_parentheses_and_emphasis_around_or_inside():
    url = "https://en.wikipedia.org/wiki/Mercury_(planet)"
    assert shown(f"[Mercury]({url}) is hot")[1] == [("text_link", "Mercury", url)]
    assert shown("**[label](https://a.example)**")[1] == [
        ("bold", "label", ""),
        ("text_link", "label", "https://a.example"),
    ]
    assert shown("[**label**](https://a.example)")[1] == [
        ("text_link", "label", "https://a.example"),
        ("bold", "label", ""),
    ]
    assert shown("[local](./file.md)") == ("local", [])  # not a link Telegram can open


def test_code_blocks_keep_their_fences_language_and_markup_inside():
    text, spans = shown("````markdown\n```python\nprint(2 ** 3)  # **not bold**\n```\n````")
    assert text == "```python\nprint(2 ** 3)  # **not bold**\n```"
    assert spans == [("pre", text, "markdown")]


def test_quotes_lists_headings_and_a_table_that_fits_a_phone():
    text, spans = shown(
        "# Plan\n\n> quoted **well**\n\n- one\n- two\n  1. sub\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    )
    assert text == "Plan\n\nquoted well\n\n• one\n• two\n   1. sub\n\na │ b\n──┼──\n1 │ 2"
    assert spans[:3] == [
        ("bold", "Plan", ""),
        ("blockquote", "quoted well", ""),
        ("bold", "well", ""),
    ]
    assert spans[3] == ("pre", "a │ b\n──┼──\n1 │ 2", "")


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("4. milk\n3. eggs\n2. bread\n1. tea", "4. milk\n3. eggs\n2. bread\n1. tea"),  # /notes
        ("7. a\n7. b\n12. c", "7. a\n7. b\n12. c"),
        ("1. a\n1. b\n1. c", "1. a\n1. b\n1. c"),
        ("3) x\n9) y", "3) x\n9) y"),
        ("- one\n\n  5. sub\n  2. sub", "• one\n   5. sub\n   2. sub"),
    ],
)
def test_a_numbered_line_keeps_the_number_written(markdown, text):
    assert shown(markdown)[0] == text


def test_a_wide_table_becomes_one_record_a_row():
    wide = "| name | description |\n|---|---|\n| tea | a long description of the tea we drink |"
    assert shown(wide)[0] == "name: tea\ndescription: a long description of the tea we drink"


def test_emphasis_next_to_cjk_text():
    assert shown("这是**重要**的")[1] == [("bold", "重要", "")]
    assert shown("**「重要」**です")[1] == [("bold", "「重要」", "")]
    assert shown("これは*とても*大事")[1] == [("italic", "とても", "")]
    assert shown("a **「b」**c")[0] == "a **「b」**c"  # no CJK letter beside it: CommonMark


def test_offsets_count_utf16_units_as_telegram_does():
    rendered = render("😀 **😀 bold**")
    assert rendered.entities == (Entity("bold", 3, 7),)
    assert units(rendered.text) == 10 and len(rendered.text) == 8


def test_nesting_telegram_refuses_is_left_out():
    assert shown("[`code`](https://a.example)")[1] == [("text_link", "code", "https://a.example")]
    assert [k for k, *_ in shown("> > inner\n> outer")[1]] == ["blockquote"]
    assert [k for k, *_ in shown("> quoted\n> ```\n> code\n> ```")[1]] == ["pre"]


def test_an_emoji_answer_is_cut_by_utf16_units_so_no_piece_is_refused():
    answer = "🎉 Great news! " * 600  # 9,000 characters, 10,800 UTF-16 units
    cut = pieces(render(answer))
    assert all(units(p.text) <= LIMIT for p in cut) and len(cut) == 3
    assert "".join(p.text for p in cut).replace(" ", "") == answer.replace(" ", "")


def test_a_code_block_that_fits_is_moved_whole_to_the_next_piece():
    code = "\n".join(f"line_{n} = {n}" for n in range(150))
    rendered = render("word " * 700 + "\n\n```python\n" + code + "\n```\n\nThe end.")
    cut = pieces(rendered)
    blocks = [e for p in cut for e in p.entities if e.kind == "pre"]
    assert len(blocks) == 1 and blocks[0].offset == 0 and blocks[0].language == "python"


def test_a_code_block_longer_than_a_message_goes_on_in_the_next():
    code = "\n".join(f"line_{n} = {n} * 2" for n in range(600))
    cut = pieces(render("```python\n" + code + "\n```"))
    assert len(cut) >= 3
    assert all(p.entities[0].kind == "pre" and p.entities[0].language == "python" for p in cut)
    assert all(p.entities[0].length == units(p.text) for p in cut)


def test_plain_pieces_cut_by_utf16_units():
    assert all(units(p) <= 100 for p in plain_pieces("😀" * 500, 100))
    assert "".join(plain_pieces("😀" * 500, 100)) == "😀" * 500


# ---- any string: pieces Telegram's rules accept ---------------------------------------------

# fmt: off
PARTS = st.sampled_from(
    [*"ab *_`[]()~>#|-\n!:", "**", "```", "``", "~~", "> ", "- ", "1. ", "https://x.y/_a_",
     "](https://e.x)", "😀", "é", "中", "\n\n", "|---|", "    "]
)
# fmt: on


def check(piece: Rendered, limit: int) -> None:
    size = units(piece.text)
    assert 0 < size <= limit and piece.text.strip()
    spans = sorted(piece.entities, key=lambda e: (e.offset, -e.length))
    for index, entity in enumerate(spans):
        assert entity.length > 0 and entity.offset >= 0 and entity.end <= size
        for inner in spans[index + 1 :]:
            if inner.offset >= entity.end:
                break
            assert inner.end <= entity.end, "entities overlap without nesting"
            assert entity.kind not in ("code", "pre"), "something inside code"
            assert (entity.kind, inner.kind) != ("blockquote", "blockquote")


@settings(max_examples=300, deadline=None)
@given(st.lists(PARTS, max_size=600), st.sampled_from([LIMIT, 64, 16]))
def test_any_text_renders_into_pieces_telegram_accepts(parts, limit):
    markdown = "".join(parts)
    rendered = render(markdown)
    cut = pieces(rendered, limit)
    for piece in cut:
        check(piece, limit)
    assert re.sub(r"\s", "", "".join(p.text for p in cut)) == re.sub(r"\s", "", rendered.text)
