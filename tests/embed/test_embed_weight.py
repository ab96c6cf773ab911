"""``hybrid``'s semantic share as an embedding setting: ``EmbedSettings(weight=...)``,
``--embed-weight`` and ``$TOOLSEARCH_EMBED_WEIGHT`` (a weaker model earns less of the score).

Real rankings with the shipped static model on the demo catalog; bad values are one error naming
the field, exit 2 at the command line.
"""

from __future__ import annotations

import math

import pytest

from toolsearch_cli import EmbedSettings, ToolSearch, load_catalog, search
from toolsearch_cli.search import embed_settings, get_ranker

from ..conftest import DEMO
from .conftest import STATIC
from .test_embed_settings import _search_tool_hits

pytest.importorskip("numpy")
pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")

#: words in common with several weather tools, and a meaning the model reads
QUERY = "will it rain in Paris tomorrow"


@pytest.fixture(autouse=True)
def _no_default(monkeypatch):
    for name in (embed_settings.MODEL_VAR, embed_settings.BASE_URL_VAR, embed_settings.WEIGHT_VAR):
        monkeypatch.delenv(name, raising=False)
    yield


def _names(hits):
    return [h.tool.name for h in hits]


def _scores(catalog, query, weight, max_results=5):
    settings = EmbedSettings(model=str(STATIC), weight=weight)
    hits = search(catalog, query, ranker="hybrid", embed=settings, context={}, max_results=max_results)
    return {h.tool.name: h.score for h in hits}


def test_the_weight_is_the_semantic_share_of_every_score():
    catalog = load_catalog([str(DEMO)])
    lexical = {h.tool.name: h for h in search(catalog, QUERY, ranker="default", max_results=50, context={})}
    # 50 deep: the tools both sides score (the first five of each side alone have none in common)
    semantic_only, lexical_only, half = (_scores(catalog, QUERY, w, 50) for w in (1.0, 0.0, 0.5))
    assert semantic_only and lexical_only
    # weight 0: the lexical side alone, in default's order
    assert list(lexical_only) == list(lexical)[: len(lexical_only)]
    # weight 0.5: the base of this request's share s (issue 32: decided per request), and every score
    # (1 - s) * lexical + s * semantic, each part the same 0..1 value as at weights 0 and 1
    hybrid = get_ranker("hybrid", EmbedSettings(model=str(STATIC), weight=0.5))
    hits = search(catalog, QUERY, ranker="hybrid", embed=EmbedSettings(model=str(STATIC)), context={})
    shares = {c.detail.split("semantic share ")[1][:4] for h in hits for c in h.contributions if c.field == "semantic"}
    assert len(shares) == 1 and "(base 0.5" in hits[0].contributions[-1].detail
    from toolsearch_cli.search import hybrid as hybrid_mod

    lexical_50 = list(lexical.values())
    index = hybrid_mod.vector_index(catalog, hybrid.embedder())
    semantic = hybrid._semantic(index, hybrid.embedder(), hybrid_mod.query_views(QUERY), 50, None)
    share = hybrid.request_share(catalog, QUERY, lexical_50, semantic).semantic
    assert shares == {f"{share:.2f}"}
    compared = set(semantic_only) & set(lexical_only) & set(half)
    assert compared
    for name in compared:
        assert half[name] == pytest.approx((1 - share) * lexical_only[name] + share * semantic_only[name], abs=1e-6)
    assert _scores(catalog, QUERY, None, 50) == half  # unset: a base of 0.5


def test_two_instances_with_different_weights_rank_their_own_way():
    query = "remember that Alice works at Acme"
    heavy = ToolSearch(str(DEMO), ranker="hybrid", embed=EmbedSettings(model=str(STATIC), weight=0.9))
    light = ToolSearch(str(DEMO), ranker="hybrid", embed=EmbedSettings(model=str(STATIC), weight=0.1))
    catalog = load_catalog([str(DEMO)])
    expected = {
        w: _names(
            search(
                catalog,
                query,
                ranker="hybrid",
                embed=EmbedSettings(model=str(STATIC), weight=w),
                max_results=5,
                context={},
            )
        )
        for w in (0.9, 0.1)
    }
    assert expected[0.9] != expected[0.1]
    for _ in range(2):  # interleaved: neither sees the other's weight
        assert _search_tool_hits(heavy, query) == expected[0.9]
        assert _search_tool_hits(light, query) == expected[0.1]


def test_the_model_is_loaded_once_whatever_the_weight():
    one = get_ranker("hybrid", EmbedSettings(model=str(STATIC), weight=0.3)).embedder()
    two = get_ranker("hybrid", EmbedSettings(model=str(STATIC), weight=0.7)).embedder()
    assert one is two is get_ranker("embedding", EmbedSettings(model=str(STATIC))).embedder()


def test_a_ranker_built_with_its_own_weight_keeps_it():
    from toolsearch_cli.search.hybrid import HybridRanker

    ranker = HybridRanker(weight=0.2, embed=EmbedSettings(model=str(STATIC), weight=0.8))
    assert ranker.fusion_weight() == 0.2
    assert HybridRanker(embed=EmbedSettings(model=str(STATIC), weight=0.8)).fusion_weight() == 0.8
    assert HybridRanker(embed=EmbedSettings(model=str(STATIC))).fusion_weight() == 0.5
    with pytest.raises(ValueError, match="weight must be a number from 0 to 1"):
        HybridRanker(weight=2)


@pytest.mark.parametrize("value", [-0.1, 1.5, "abc", math.nan, math.inf, True, [0.3], "0.4x"])
def test_a_bad_weight_is_one_error_naming_the_field(value):
    from toolsearch_cli.errors import EmbedError

    with pytest.raises(EmbedError) as caught:
        EmbedSettings(model="m", weight=value)
    assert caught.value.field == "embed.weight" and "\n" not in str(caught.value)


def test_a_weight_given_as_text_is_read_as_a_number():
    assert EmbedSettings(model="m", weight="0.4").weight == 0.4
    assert EmbedSettings(model="m", weight=" ").weight is None
    assert EmbedSettings(model="m", weight=1).fusion_weight == 1.0


def test_the_environment_names_the_default_weight(monkeypatch):
    from toolsearch_cli.errors import EmbedError

    monkeypatch.setenv(embed_settings.WEIGHT_VAR, "0.3")
    assert embed_settings.default_settings().weight == 0.3
    monkeypatch.setenv(embed_settings.WEIGHT_VAR, "heavy")
    with pytest.raises(EmbedError) as caught:
        embed_settings.default_settings()
    assert caught.value.field == embed_settings.WEIGHT_VAR


def test_the_command_line_weight_reaches_the_ranking_and_the_explanation(run_cli):
    base = ("search", QUERY, "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC), "-f", "json")
    light = run_cli(*base, "--embed-weight", "0.1", "--explain")
    heavy = run_cli(*base, "--embed-weight", "0.9")
    plain = run_cli(*base, "--explain")
    assert light.code == heavy.code == plain.code == 0, light.stderr + heavy.stderr + plain.stderr
    catalog = load_catalog([str(DEMO)])
    for result, weight in ((light, 0.1), (heavy, 0.9)):
        assert [h["name"] for h in result.json()["hits"]] == list(_scores(catalog, QUERY, weight))
    details = [c["detail"] for h in light.json()["hits"] for c in h["explanation"] if c["field"] == "semantic"]
    assert details and all("(base 0.1" in d for d in details)  # the request's share moved from the weight given
    plain_details = [c["detail"] for h in plain.json()["hits"] for c in h["explanation"] if c["field"] == "semantic"]
    assert plain_details and not any("weight" in d for d in plain_details)  # the default is not shown
    assert light.json()["embed_model"].endswith(", weight 0.1")  # what was measured names its weight
    assert "weight" not in plain.json()["embed_model"]


@pytest.mark.parametrize("value", ["1.5", "-1", "abc", "nan"])
def test_a_bad_command_line_weight_exits_2_in_one_line(run_cli, value):
    result = run_cli(
        "search", "weather", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC), "--embed-weight", value
    )
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "--embed-weight must be a number from 0 to 1" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_weight_in_the_environment_exits_2(run_cli, monkeypatch):
    monkeypatch.setenv(embed_settings.WEIGHT_VAR, "2")
    result = run_cli("search", "weather", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC))
    assert result.code == 2 and "must be a number from 0 to 1" in result.stderr and "Traceback" not in result.stderr
