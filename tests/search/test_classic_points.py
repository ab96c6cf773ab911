"""The classic ranker's fast total (points) is the total its explained score gives, tool by tool.

The ranker scores every tool with ``points()`` and explains only the hits it returns with
``score()``; were the two to drift, the order and the explanation would disagree."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolsearch_cli import load_catalog, search
from toolsearch_cli.search import classic
from toolsearch_cli.search.text import classic_normalize, classic_tokenize

DEMO = Path(__file__).resolve().parents[2] / "catalogs"

QUERIES = [
    "查询城市天气",
    "send a message to the team channel",
    "a",  # one-letter noise: a token inside nearly every field
    "weather weather WEATHER",
    "getWeather",
    "calendar event next monday 10:00",
    "x y z",
    "文件 file 上传",
]


@pytest.fixture(scope="module")
def demo():
    return load_catalog(str(DEMO))


@pytest.mark.parametrize("query", QUERIES)
def test_points_equal_the_explained_score_on_every_tool(demo, query):
    prepared = [classic._prepare(t) for t in demo.searchable()]
    normalized, tokens = classic_normalize(query), classic_tokenize(query)
    assert prepared
    for p in prepared:
        explained = classic.score(p, normalized, tokens)
        assert classic.points(p, normalized, tokens) == explained.score, p.tool.name
        assert explained.score == sum(c.points for c in explained.contributions) or not explained.contributions


@pytest.mark.parametrize("query", QUERIES)
def test_the_ranking_is_the_order_of_the_explained_scores(demo, query):
    hits = search(demo, query, ranker="classic", max_results=50)
    prepared = [classic._prepare(t) for t in demo.searchable()]
    normalized, tokens = classic_normalize(query), classic_tokenize(query)
    full = [classic.score(p, normalized, tokens) for p in prepared]
    expected = sorted((h for h in full if h.score > 0), key=lambda h: (-h.score, classic._utf16_key(h.tool.name)))
    assert [(h.name, h.score) for h in hits] == [(h.tool.name, h.score) for h in expected[:50]]
    assert all(h.contributions for h in hits)
