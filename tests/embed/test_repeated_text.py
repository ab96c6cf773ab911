"""Text a catalog repeats across many of its tools (an OAuth-scope line, "always confirm with the
user", the same parameter description on every tool) tells none of them apart, so it is left out
of the texts embedded for them (:func:`~toolsearch_cli.search.embed.repeated_text`, issue 32,
round 9). These tests check the rule, the index that uses it, and hostile catalogs (every
description the same, huge descriptions of one repeated line, empty descriptions)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from toolsearch_cli.search import embed as embed_mod
from toolsearch_cli.search.embed import own_description, repeated_text, title_text, tool_text

from ..conftest import make

BOILERPLATE = "Required OAuth Scope: sell.fulfillment. Always confirm with the user before calling."


def _catalog(n: int = 40, shared: int = 30) -> list:
    """``n`` tools with their own first sentence; ``shared`` of them end with the same boilerplate."""
    tools = []
    for i in range(n):
        tail = f" {BOILERPLATE}" if i < shared else ""
        params = {"page": {"type": "integer", "description": "Page number"}} if i % 2 else {}
        params[f"thing{i}"] = {"type": "string", "description": f"Which thing number {i} to use"}
        tools.append(make(f"tool_{i}", f"Does thing number {i} to the order.{tail}", params=params))
    return tools


def test_a_sentence_many_tools_share_is_left_out_and_the_tools_own_words_kept():
    tools = _catalog()
    repeated = repeated_text(tools)
    assert "Required OAuth Scope: sell.fulfillment." in repeated  # 30 of 40 tools
    assert "Page number" in repeated  # a parameter description 20 of 40 tools carry
    assert not any("thing number" in unit for unit in repeated)  # each tool's own words
    text = tool_text(tools[1], repeated=repeated)
    assert "OAuth" not in text and "confirm" not in text and "Page number" not in text
    assert "Does thing number 1 to the order." in text and "page" in text  # the parameter's name stays
    assert "OAuth" in tool_text(tools[1])  # without the catalog's pass: as before
    assert tool_text(tools[30], repeated=repeated) == tool_text(tools[30]).replace(": Page number", "")


def test_a_sentence_a_family_of_tools_shares_is_kept():
    # 40 % of the catalog: text a family of tools shares tells it from the rest (Square's address
    # fields, Netlify's note on its environment-variable tools)
    tools = _catalog(n=100, shared=40)
    assert embed_mod.REPEATED_SHARE > 0.4
    assert "Required OAuth Scope: sell.fulfillment." not in repeated_text(tools)


def test_a_small_catalog_needs_the_least_number_of_tools():
    tools = _catalog(n=4, shared=2)  # half the catalog and every other tool's "Page number", but two tools only
    assert embed_mod.REPEATED_MIN_TOOLS > 2
    assert repeated_text(tools) == frozenset()


def test_every_tool_saying_the_same_keeps_its_description():
    # hostile: every description identical; all of it is "repeated", none of it may go
    tools = [make(f"t{i}", "Do the thing. Always confirm with the user.") for i in range(50)]
    repeated = repeated_text(tools)
    assert "Do the thing." in repeated and "Always confirm with the user." in repeated
    for tool in tools[:3]:
        assert tool_text(tool, repeated=repeated) == tool_text(tool)
        assert "Do the thing" in tool_text(tool, repeated=repeated)
    assert own_description("Do the thing. Always confirm with the user.", repeated).startswith("Do the thing")


def test_empty_descriptions_and_an_empty_catalog():
    tools = [make(f"get_item_{i}", "") for i in range(20)]
    repeated = repeated_text(tools)
    assert repeated == frozenset()
    assert tool_text(tools[0], repeated=repeated) == tool_text(tools[0]) != ""
    assert title_text(tools[0], repeated=repeated) is None
    assert repeated_text([]) == frozenset()
    assert own_description("", frozenset({"x"})) == ""


def test_a_huge_catalog_of_repeated_lines_is_counted_in_bounded_time():
    # hostile: 50,000 tools of one 200,000-character description, one line over and over, and a few
    # that start with their own sentence; only a sample of the tools and the first characters of
    # each description are counted
    line = "Always confirm with the user.\n"
    huge = line * (200_000 // len(line))
    tools = [make(f"t{i}", huge) for i in range(50_000)]
    own = [make(f"own{i}", f"Tool {i} does its own job.\n{huge}") for i in range(10)]
    start = time.perf_counter()
    repeated = repeated_text(tools + own)
    assert time.perf_counter() - start < 10  # ~0.5 s here
    # the line, and the piece of it where the scan stops (the same in every copy)
    assert "Always confirm with the user." in repeated and len(repeated) <= 2
    text = tool_text(own[3], repeated=repeated)
    assert text.startswith("own3. Tool 3 does its own job.") and len(text) < 60  # the line gone, however often
    assert tool_text(tools[7], repeated=repeated) == tool_text(tools[7])  # nothing but the line: kept


def test_the_index_embeds_the_texts_without_the_repeated_sentences(monkeypatch, tmp_path):
    pytest.importorskip("numpy")
    from toolsearch_cli.search.vectors import VectorIndex

    from .conftest import Axes

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    tools = _catalog()

    class Any(Axes):
        def embed(self, texts):
            self.vectors = {t: [1.0, float(len(t) % 7), 1.0] for t in texts}
            return super().embed(texts)

    model = Any({})
    index = VectorIndex(tools, model.model_id)
    index.ensure(model)
    assert model.texts and not any("OAuth" in t for t in model.texts)
    assert any("Does thing number 0 to the order." in t for t in model.texts)
    # a tool added later is made with the same catalog's rule
    index.add(make("late", f"Cancels the late order. {BOILERPLATE}"))
    before = len(model.texts)
    index.ensure(model)
    assert model.texts[before:] == ["late. Cancels the late order."]


SNAPSHOTS = Path(__file__).resolve().parents[2] / "benchmarks" / "real_catalogs" / "snapshots-blind7"


@pytest.mark.parametrize(
    ("snapshot", "request_", "relevant"),
    [
        # 178 of ms365's 188 tools carry the same two response options, 108 the same confirm gate
        ("mcp-ms365.json", "accept Tuesday's design review invite", "accept-calendar-event"),
        # every one of ArgoCD's 16 tools carries the same base-URL and token parameters
        ("mcp-argocd.json", "point search-indexer at the main branch instead of the release tag", "update_application"),
    ],
)
def test_a_real_server_without_its_repeated_parameter_text_finds_the_tool(
    monkeypatch, tmp_path, snapshot, request_, relevant
):
    # a real MCP server (blind set 7) and the small real model the tests run: the repeated
    # parameter descriptions make every tool's vector alike; without them the tool comes up
    pytest.importorskip("numpy")
    pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")
    from toolsearch_cli import load_catalog
    from toolsearch_cli.search import SearchRequest, get_ranker
    from toolsearch_cli.search.embed_settings import EmbedSettings

    from .conftest import STATIC

    assert repeated_text(load_catalog([str(SNAPSHOTS / snapshot)]).searchable())  # it repeats something

    def rank(share: float) -> int:
        catalog = load_catalog([str(SNAPSHOTS / snapshot)])  # its own index, made with this share
        monkeypatch.setattr(embed_mod, "REPEATED_SHARE", share)
        monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path / f"cache-{share}"))
        ranker = get_ranker("embedding", EmbedSettings(model=str(STATIC)))
        names = [h.tool.name for h in ranker.search(catalog, SearchRequest(query=request_, max_results=20))]
        return names.index(relevant) + 1 if relevant in names else 99

    with_change = rank(embed_mod.REPEATED_SHARE)
    without = rank(2.0)  # no text is in more than all the tools: nothing left out, as before
    assert with_change <= 4 < without, (with_change, without)


def test_a_tool_long_as_written_keeps_its_short_second_vector():
    # bunq: every operation carries the same long header parameters; the tool's text as written is
    # long, so it has a second vector of its name and own description, with the headers left out too
    said = "The client's own {0} id, sent back in the response so that it can be matched. " * 4
    headers = {
        f"X-{what}-Id": {"type": "string", "description": said.format(what).strip()} for what in ("Request", "Trace")
    }
    tools = [make(f"op_{i}", f"Reads thing {i}.", params=dict(headers)) for i in range(10)]
    repeated = repeated_text(tools)
    assert len(repeated) == 2 and len(tool_text(tools[0])) >= embed_mod.LONG_TEXT_CHARS
    assert len(tool_text(tools[0], repeated=repeated)) < embed_mod.LONG_TEXT_CHARS
    assert title_text(tools[0], repeated=repeated) == title_text(tools[0]) == "op_0. Reads thing 0."
