"""Fitting results into the model's budget."""

from __future__ import annotations

import pytest

from assistant.tools.summary import cut, summarize


def test_short_values_pass_unchanged() -> None:
    assert summarize("hello", 900).text == "hello"
    assert summarize({"a": 1}, 900).text == '{"a": 1}'


def test_items_in_order_with_their_urls_and_a_count_of_the_rest() -> None:
    items = [
        {"title": f"t{i}", "snippet": "x" * 40, "url": f"https://e.org/{i}"} for i in range(30)
    ]
    summary = summarize({"query": "q", "results": items}, 300)
    lines = summary.text.splitlines()
    assert lines[0] == '{"query": "q"}'
    assert lines[1].startswith('1. {"title": "t0"') and lines[1].endswith("<https://e.org/0>")
    assert lines[-1].startswith("(+") and lines[-1].endswith(" more)")
    assert summary.sources == tuple(f"https://e.org/{i}" for i in range(len(lines) - 2))
    assert len(summary.text) <= 300


def test_a_huge_first_item_is_shortened_but_keeps_its_url() -> None:
    summary = summarize([{"text": "word " * 1000, "url": "https://e.org/big"}], 200)
    assert len(summary.text) <= 200
    assert "<https://e.org/big>" in summary.text and summary.sources == ("https://e.org/big",)


@pytest.mark.parametrize(
    "text",
    [
        "e\u0301" * 500,  # e + combining acute
        "👩\u200d👩\u200d👧" * 200,  # a family emoji joined by ZWJ
        "❤\ufe0f" * 500,  # with a variation selector
    ],
)
def test_never_cut_inside_a_character(text: str) -> None:
    out = cut(text, 101)
    assert len(out) <= 101 and out.endswith("…")
    body = out[:-1]
    assert text.startswith(body)
    assert body[-1] != "\u200d" and text[len(body)] not in "\u0301\u200d\ufe0f"


def test_cut_prefers_a_word_boundary() -> None:
    out = cut("aaaa " * 40, 52)
    assert out == "aaaa " * 9 + "aaaa…"


def test_a_single_result_with_a_url_keeps_it_as_its_source():
    page = {"url": "https://example.org/a", "title": "A", "text": "body"}
    assert summarize(page, 900).sources == ("https://example.org/a",)
    assert summarize({"url": "not a link", "text": "x"}, 900).sources == ()
