"""Markdown to Telegram HTML, and splitting long answers without breaking code blocks."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from assistant.telegram.render import LIMIT, split_html, to_html, to_plain


def test_markdown_becomes_telegram_html_and_the_rest_is_escaped():
    text = "# Plan\n**bold** and *it* and `x < y` and [docs](https://ex.org/a?b=1&c=2) & <tag>"
    assert to_html(text) == (
        "<b>Plan</b>\n<b>bold</b> and <i>it</i> and <code>x &lt; y</code> and "
        '<a href="https://ex.org/a?b=1&amp;c=2">docs</a> &amp; &lt;tag&gt;'
    )


def test_code_blocks_keep_their_language_and_are_not_formatted_inside():
    text = "Run:\n```python\nprint(2 ** 3 * 4)  # **not bold**\n```\ndone"
    assert to_html(text) == (
        'Run:\n<pre><code class="language-python">print(2 ** 3 * 4)  # **not bold**</code></pre>\ndone'
    )


def test_snake_case_and_arithmetic_are_not_italic():
    assert to_html("call my_long_name with 2*3*4") == "call my_long_name with 2*3*4"


def test_a_ten_thousand_character_answer_with_code_is_split_correctly():
    code = "\n".join(f"line_{n} = {n} * 2" for n in range(500))
    text = "Intro paragraph.\n\n" + "word " * 300 + "\n\n```python\n" + code + "\n```\n\nThe end."
    html_text = to_html(text)
    assert len(text) > 10_000
    pieces = split_html(html_text)
    assert len(pieces) >= 3 and all(len(p) <= LIMIT for p in pieces)
    for piece in pieces:
        assert piece.count("<pre>") == piece.count("</pre>")
        assert piece.count("<code") == piece.count("</code>")
    joined = "".join(re.sub(r"<[^>]+>", "", p) for p in pieces)
    assert "line_0 = 0 * 2" in joined and "line_499 = 499 * 2" in joined and "The end." in joined


PARTS = st.sampled_from([*"ab *_`[]()\n<>&#", "```", "http://x.y", "word "])


@given(st.lists(PARTS, max_size=4000))
def test_any_text_splits_into_pieces_under_the_limit(parts):
    text = "".join(parts)
    pieces = split_html(to_html(text))
    assert all(len(p) <= LIMIT for p in pieces)
    assert all(len(p) <= LIMIT for p in to_plain(text))
