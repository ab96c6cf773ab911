"""``fusion-replay`` (benchmarks/fusion_replay.py) replays ``hybrid``'s fusion from a dump of both
sides: the shipped rule replayed must rank as the ranker itself does, for requests in other
languages too (embedded with their English gloss; a CJK request fused or not on its own words),
else every share tuned on the replay is tuned on a ranker that does not ship (round 7b,
benchmarks/notes/fusion.md)."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest

from toolsearch_cli import load_catalog

from ..conftest import DATA, DEMO

pytest.importorskip("numpy")
pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")

STATIC = DATA / "minilm-static"
#: English, other languages with a gloss, and CJK requests (none says a tool's exact name)
REQUESTS = [
    ("send a note to a colleague on slack", {"sendSlackMessage"}),
    ("what will the weather be tomorrow in Paris", {"getForecast"}),
    ("envoie un message à l'équipe sur slack", {"sendSlackMessage"}),
    ("wie wird das Wetter morgen in Berlin", {"getForecast"}),
    ("borra el archivo notas.txt", {"deleteFile"}),
    ("查询城市天气", {"getWeather"}),
    ("删除这个文件", {"deleteFile"}),
    ("给同事发一条消息", {"sendSlackMessage"}),
]


def test_the_shipped_rule_replayed_ranks_as_hybrid(tmp_path, monkeypatch):
    from benchmarks import fusion_replay
    from toolsearch_cli.search.base import SearchRequest
    from toolsearch_cli.search.embed_settings import EmbedSettings
    from toolsearch_cli.search.hybrid import HybridRanker

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path / "cache"))
    catalog = load_catalog([str(DEMO)])
    monkeypatch.setattr(fusion_replay, "_entries", lambda args: [("project/mcp", "demo", catalog, REQUESTS)])
    out = tmp_path / "dump.pkl"
    args = SimpleNamespace(embed_model=str(STATIC), semantic="views", semantic_floor=50, sims=False, dump=str(out))
    fusion_replay.dump(args)
    with open(out, "rb") as f:
        rows = pickle.load(f)
    assert [r["query"] for r in rows] == [q for q, _ in REQUESTS]
    ranker = HybridRanker(embed=EmbedSettings(model=str(STATIC)))
    for row in rows:
        hits = ranker.search(catalog, SearchRequest(query=row["query"], max_results=fusion_replay.DEPTH))
        replayed = fusion_replay.fuse(row, fusion_replay.shipped_rule(row))
        # the replay keeps hits with points, as its lexical-alone path does (a CJK request ranked lexically
        # alone returns the lexical ranker's list, level hits without points too)
        assert replayed == [h.tool.name for h in hits if h.score > 0], row["query"]


def _row(group, catalog, lexical, semantic, relevant, embedding, **kw):
    """A dumped request as ``fusion_replay.dump`` writes it (only what the replay reads)."""
    parts = dict(semantic)
    return {
        "group": group,
        "catalog": catalog,
        "query": kw.get("query", "q"),
        "cjk": kw.get("cjk", False),
        "cjk_covered": kw.get("cjk_covered", 0),
        "relevant": set(relevant),
        "lexical": lexical,
        "semantic": semantic,
        "parts": parts,
        "evidence": (0.0, kw.get("covered", 3), 0.0),
        "action": (None, []),
        "embedding": embedding,
    }


def test_conflicts_count_which_first_was_right_and_which_one_the_fused_list_kept():
    """Round 9: where the lexical side's first and the semantic side's first differ, which was right
    and which the shipped share put first; the oracle is the per-request better of the two rankers."""
    from benchmarks import fusion_replay

    rows = [
        # both sides agree and are right
        _row("blind8/mcp", "a", [("x", 9.0), ("y", 1.0)], [("x", 1.0), ("y", 0.2)], {"x"}, ["x", "y"]),
        # the lexical first is right by a wide lead; the semantic side barely prefers another
        _row("blind8/mcp", "a", [("x", 9.0), ("y", 1.0)], [("y", 1.0), ("x", 0.95)], {"x"}, ["y", "x"]),
        # the semantic first is right by a wide lead; the lexical side barely prefers another
        _row("blind8/mcp", "b", [("x", 5.0), ("y", 4.9)], [("y", 1.0), ("x", 0.1)], {"y"}, ["y"]),
        # neither first is right; embedding finds it third, default not at all
        _row("blind8/mcp", "b", [("x", 5.0), ("y", 1.0)], [("y", 1.0), ("x", 0.1)], {"z"}, ["y", "x", "z"]),
        # dev rows are not counted
        _row("dev", "bfcl", [("x", 5.0)], [("y", 1.0)], {"y"}, ["y"]),
    ]
    c = fusion_replay.conflicts(rows)
    assert set(c) == {"blind8/mcp"}
    g = c["blind8/mcp"]
    assert (g["agree, right"], g["agree, wrong"], g["neither right"]) == (1, 0, 1)
    assert (g["lexical first right"], g["picked lexical"]) == (1, 1)
    assert (g["semantic first right"], g["picked semantic"]) == (1, 1)
    # catalog a: both requests found first by one ranker (1, 1); b: 1 and 1/3
    assert g["oracle"] == pytest.approx((1.0 + (1.0 + 1 / 3) / 2) / 2)
    # a share that always gives the semantic side everything picks the semantic first
    g1 = fusion_replay.conflicts(rows, share=lambda row: 0.99)["blind8/mcp"]
    assert (g1["picked lexical"], g1["picked semantic"]) == (0, 1)
    assert "| blind8/mcp | 1 | 0 | 1 (1) | 1 (1) | 1 |" in "\n".join(fusion_replay.conflict_table(rows))


def test_conflicts_bear_rows_with_nothing_on_a_side():
    """Hostile dumps: no lexical hit, no semantic side, hits at no points, no relevant tool found."""
    from benchmarks import fusion_replay

    rows = [
        _row("blind8/mcp", "a", [], [("x", 1.0)], {"x"}, ["x"]),
        _row("blind8/mcp", "a", [("x", 0.0)], [], {"x"}, []),
        _row("blind8/mcp", "a", [("x", 3.0)], [], set(), []),
        _row("blind8/mcp", "a", [("x", 3.0)], [("y", 1.0)], {"q"}, [], cjk=True, cjk_covered=5),
    ]
    g = fusion_replay.conflicts(rows)["blind8/mcp"]
    assert g["agree, right"] + g["agree, wrong"] + g["neither right"] == 4
    assert g["oracle"] == pytest.approx(0.25)
