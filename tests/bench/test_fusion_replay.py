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
