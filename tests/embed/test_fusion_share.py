"""``hybrid`` decides per request how much to trust each side (issue 32, item 3): the base weight
(``--embed-weight``, 0.5 unless told) moves towards the semantic side when the best lexical hits
rest on parameters alone and their own words miss the request's. Hand-made vectors (``Axes``) fix
what each text means, so these tests check the arithmetic and the decision, not a model's taste;
the CLI tests run the shipped static model end to end."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from toolsearch_cli import Catalog, EmbedSettings
from toolsearch_cli.search import SearchRequest, get_ranker, hybrid
from toolsearch_cli.search import embed as embed_mod
from toolsearch_cli.search.base import Contribution
from toolsearch_cli.search.embed import tool_text

from ..conftest import DEMO, make
from .test_embed import Axes

pytest.importorskip("numpy")

#: ``keeper``'s words are all in one parameter: a request about folders and their contents matches
#: it lexically on that parameter alone; ``browse``'s own words say what the request means, in
#: other words (no term in common, and none the default ranker's related words lead to), and the
#: model knows it.
KEEPER = make(
    "hold_policy",
    "zz retention",
    params={"folder_contents": {"type": "string", "description": "the folder whose contents are held"}},
)
BROWSE = make("peruse_crate", "tally what a crate has")
#: ``named``: the request's words are its name and description (lexical evidence the model also sees)
NAMED = make("delete_file", "delete a file")
OTHER = make("zz_other", "zz")
TOOLS = [KEEPER, BROWSE, NAMED, OTHER]
VECTORS = {
    # cosine 0.5 to the request: round 5's gentler share (0.71 here) lets the meaning win below 2/3
    tool_text(KEEPER): [0.5, 0.866, 0, 0],
    tool_text(BROWSE): [1, 0, 0, 0],
    tool_text(NAMED): [0, 0, 1, 0],
    tool_text(OTHER): [0, 0, 0, 1],
}
PARAM_REQUEST = "show the folder contents"
NAMED_REQUEST = "delete file"


@pytest.fixture(autouse=True)
def _no_model(monkeypatch, tmp_path):
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(tmp_path))
    yield


def _axes(monkeypatch):
    axes = Axes({**VECTORS, PARAM_REQUEST: [1, 0, 0, 0], NAMED_REQUEST: [0.2, 0, 1, 0]})
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    return axes


def _sides(ranker, catalog, query):
    """The lexical hits and the semantic side of a request, as ``hybrid`` fuses them."""
    lexical = ranker.lexical.search(catalog, SearchRequest(query=query, max_results=50))
    embedder = ranker.embedder()
    index = hybrid.vector_index(catalog, embedder)
    return lexical, ranker._semantic(index, embedder, hybrid.query_views(query), 50, None)


def _logit(p):
    return math.log(p / (1 - p))


def test_the_share_moves_the_base_in_log_odds_by_the_weighed_evidence():
    cases = (
        (0.0, 0, 0.0, 0.0, None),
        (1.0, 0, 0.0, 0.5, None),
        (0.0, 3, 0.0, 1.0, "read"),
        (0.0, 0, 1.0, 0.2, None),
        (0.4, 5, 0.3, 0.0, "create"),
        (1.0, 20, 1.0, 1.0, "delete"),
    )
    for base in (0.2, 0.5, 0.7):
        for parameters, covered, confirmed, margin, action in cases:
            evidence = hybrid.LexicalEvidence(parameters, covered, confirmed, margin, action)
            share = hybrid.fusion_share(base, evidence)
            shift = (
                hybrid.SHIFT_START
                + hybrid.SHIFT_PARAMETERS * parameters
                - hybrid.SHIFT_CONFIRMED * confirmed
                - hybrid.SHIFT_PER_TERM * min(covered, hybrid.MAX_TERMS)
                - hybrid.SHIFT_MARGIN * margin
                - (hybrid.SHIFT_ACTION if action else 0.0)
            )
            assert _logit(share.semantic) - _logit(base) == pytest.approx(shift)
            assert share.base == base and 0 < share.semantic < 1
    # more of the request in the hits' names and descriptions: never a larger semantic share
    shares = [hybrid.fusion_share(0.5, hybrid.LexicalEvidence(0.2, n, 0.5)).semantic for n in range(12)]
    assert shares == sorted(shares, reverse=True) and shares[0] > 0.5 > shares[-1]
    assert shares[hybrid.MAX_TERMS] == shares[-1]  # counted up to MAX_TERMS
    # more of their points from parameters: never a smaller one (weighed 0 since round 6b); the meaning
    # agreeing: never a larger one
    by_params = [hybrid.fusion_share(0.5, hybrid.LexicalEvidence(p, 2, 0.5)).semantic for p in (0, 0.5, 1)]
    assert by_params == sorted(by_params) and by_params[0] <= by_params[-1]
    agreed = [hybrid.fusion_share(0.5, hybrid.LexicalEvidence(0.5, 2, c)).semantic for c in (0, 0.5, 1)]
    assert agreed == sorted(agreed, reverse=True) and agreed[0] >= agreed[-1]  # weighed 0 since round 4
    # a clear lexical winner: a smaller semantic share than hits close together (round 4)
    by_margin = [hybrid.fusion_share(0.5, hybrid.LexicalEvidence(0.5, 2, 0.5, m)).semantic for m in (0, 0.5, 1)]
    assert by_margin == sorted(by_margin, reverse=True) and by_margin[0] > by_margin[-1]
    # the best lexical hit does the action the request asks for: a smaller semantic share (round 6b)
    acting = hybrid.fusion_share(0.5, hybrid.LexicalEvidence(0.5, 2, 0.5, 0.2, "create")).semantic
    assert acting < hybrid.fusion_share(0.5, hybrid.LexicalEvidence(0.5, 2, 0.5, 0.2)).semantic
    # one side alone, as asked, or no evidence given: the base as it is
    for base in (0.0, 1.0):
        assert hybrid.fusion_share(base, hybrid.NO_EVIDENCE).semantic == base
    assert hybrid.fusion_share(0.3, None).semantic == 0.3


def test_evidence_is_the_parameters_share_of_the_points_and_the_terms_names_or_descriptions_hold():
    rows = [
        [Contribution("folder", "parameters", 3.0), Contribution("content", "parameters", 1.0)],
        [Contribution("folder", "name", 2.0), Contribution("content", "parameters", 2.0)],
    ]
    evidence = hybrid.lexical_evidence(rows, confirmed=0.25)
    assert evidence.parameters == pytest.approx((1.0 + 0.5) / 2)
    assert evidence.covered == 1  # the second hit's name holds one term
    assert evidence.confirmed == 0.25
    # a term in both name and description counts once; the hits together cover a request for two tools
    both = [[Contribution("folder", "name", 1.0), Contribution("folder", "description", 1.0)]]
    assert hybrid.lexical_evidence(both).covered == 1
    apart = [[Contribution("folder", "name", 1.0)], [Contribution("email", "description", 1.0)]]
    assert hybrid.lexical_evidence(apart).covered == 2
    # nothing matched lexically: no evidence at all
    assert hybrid.lexical_evidence([]) == hybrid.NO_EVIDENCE


def test_the_lexical_margin_is_the_best_scores_lead_over_the_second_as_a_share_of_the_best():
    assert hybrid.lexical_margin([4.0, 3.0, 1.0]) == pytest.approx(0.25)
    assert hybrid.lexical_margin([3.0, 4.0]) == pytest.approx(0.25)  # in any order (a named tool put first)
    assert hybrid.lexical_margin([2.0, 2.0]) == 0.0
    assert hybrid.lexical_margin([5.0]) == 0.0  # no second to lead
    assert hybrid.lexical_margin([]) == 0.0 and hybrid.lexical_margin([0.0, 0.0]) == 0.0
    rows = [[Contribution("folder", "name", 1.0)]]
    assert hybrid.lexical_evidence(rows, margin=0.4).margin == 0.4
    assert hybrid.lexical_evidence(rows, margin=7.0).margin == 1.0  # bounded


def test_lexical_hits_that_all_scored_nothing_add_nothing_to_the_fused_scores(monkeypatch):
    # the parameter cap leaves hits matched on parameters alone at 0 points; they were each given
    # the whole lexical share (a span of 0 read as "all equal"), so explanations did not add up
    # with a second tool matched on a parameter alone, the cap leaves both at 0 points
    stow = make("zz_stow", "zz", params={"folder_name": {"type": "string", "description": "the folder to stow"}})
    axes = Axes({**VECTORS, tool_text(stow): [0, 0, 0, 1], PARAM_REQUEST: [1, 0, 0, 0]})
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    catalog = Catalog(tools=[*TOOLS, stow])
    ranker = hybrid.HybridRanker()
    lexical, _ = _sides(ranker, catalog, PARAM_REQUEST)
    assert len(lexical) == 2 and all(h.score <= hybrid.NO_POINTS for h in lexical)
    hits = ranker.search(catalog, SearchRequest(query=PARAM_REQUEST, max_results=4, explain=True))
    share = ranker.request_share(catalog, PARAM_REQUEST, *_sides(ranker, catalog, PARAM_REQUEST)).semantic
    keeper = next(h for h in hits if h.tool.name == "hold_policy")
    assert keeper.score == pytest.approx(share * 0.5, abs=1e-3)  # its semantic part alone (cosine 0.5)
    for hit in hits:
        assert sum(c.points for c in hit.contributions) == pytest.approx(hit.score)


def test_a_request_matched_on_parameters_alone_gets_a_larger_semantic_share_and_its_meaning_wins(monkeypatch):
    _axes(monkeypatch)
    catalog = Catalog(tools=TOOLS)
    adaptive, fixed = hybrid.HybridRanker(), hybrid.HybridRanker(adaptive=False)
    lexical, semantic = _sides(adaptive, catalog, PARAM_REQUEST)
    assert lexical[0].tool.name == "hold_policy" and lexical[0].matched_fields == ["parameters"]
    share = adaptive.request_share(catalog, PARAM_REQUEST, lexical, semantic)
    assert share.evidence is not None and share.evidence.parameters == 1.0 and share.evidence.covered == 0
    assert share.evidence.confirmed == pytest.approx(0.5, abs=1e-3)  # its cosine 0.5, the best 1, the floor 0
    # base 0.5: no request term in a name or description, every point from parameters (0.71 since round 5)
    assert share.semantic == hybrid.fusion_share(0.5, share.evidence).semantic > 0.7
    named_lexical, named_semantic = _sides(adaptive, catalog, NAMED_REQUEST)
    named = adaptive.request_share(catalog, NAMED_REQUEST, named_lexical, named_semantic)
    # its name and description hold both words, and the meaning puts it first too
    assert named.evidence is not None and named.evidence.covered == 2 and named.evidence.confirmed == 1.0
    assert named.semantic < share.semantic
    request = SearchRequest(query=PARAM_REQUEST, max_results=3, explain=False)
    # fixed at 0.5 the parameter match wins; adapted, the tool that means it does
    assert [h.tool.name for h in fixed.search(catalog, request)][:1] == ["hold_policy"]
    assert [h.tool.name for h in adaptive.search(catalog, request)][:1] == ["peruse_crate"]


def test_explain_shows_the_share_and_why_and_ranks_as_a_plain_search(monkeypatch):
    _axes(monkeypatch)
    catalog = Catalog(tools=TOOLS)
    ranker = hybrid.HybridRanker()
    plain = ranker.search(catalog, SearchRequest(query=PARAM_REQUEST, max_results=3, explain=False))
    explained = ranker.search(catalog, SearchRequest(query=PARAM_REQUEST, max_results=3, explain=True))
    assert [(h.tool.name, h.score) for h in plain] == [(h.tool.name, pytest.approx(h.score)) for h in explained]
    lexical, semantic_side = _sides(ranker, catalog, PARAM_REQUEST)
    share = ranker.request_share(catalog, PARAM_REQUEST, lexical, semantic_side).semantic
    assert share > 0.7
    for hit in explained:
        semantic = [c for c in hit.contributions if c.field == "semantic"]
        assert len(semantic) == 1
        assert f"semantic share {share:.2f}, lexical {1 - share:.2f}" in semantic[0].detail
        assert "0 of the request's terms in their names or descriptions" in semantic[0].detail
        assert "base 0.5" in semantic[0].detail and "lead of the first 0%" in semantic[0].detail
        assert sum(c.points for c in hit.contributions) == pytest.approx(hit.score)


def test_an_explicit_weight_is_the_base_the_share_moves_from_and_0_or_1_is_one_side_alone(monkeypatch):
    _axes(monkeypatch)
    catalog = Catalog(tools=TOOLS)
    lexical, semantic = _sides(hybrid.HybridRanker(), catalog, PARAM_REQUEST)
    shares = {}
    for weight in (0.0, 0.2, 0.5, 0.8, 1.0):
        ranker = get_ranker("hybrid", EmbedSettings(model="unused", weight=weight))
        shares[weight] = ranker.request_share(catalog, PARAM_REQUEST, lexical, semantic)
    assert shares[0.0].semantic == 0.0 and shares[1.0].semantic == 1.0
    assert shares[0.2].semantic < shares[0.5].semantic < shares[0.8].semantic < 1.0
    evidence = shares[0.5].evidence
    assert evidence is not None
    for weight in (0.2, 0.8):
        assert shares[weight].semantic == pytest.approx(hybrid.fusion_share(weight, evidence).semantic)
    # the same weight given explicitly or left unset: the same share (0.5 is the default base)
    unset = hybrid.HybridRanker().request_share(catalog, PARAM_REQUEST, lexical, semantic)
    assert unset.semantic == shares[0.5].semantic
    # adaptation off: the weight fixed for every request
    fixed = hybrid.HybridRanker(weight=0.2, adaptive=False)
    assert fixed.request_share(catalog, PARAM_REQUEST, lexical, semantic).semantic == 0.2


def test_the_cli_shows_the_share_in_the_table_and_in_json(run_cli):
    pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")
    from .conftest import STATIC

    args = ("search", "will it rain in Paris tomorrow", "--catalog", str(DEMO), "--ranker", "hybrid")
    table = run_cli(*args, "--embed-model", str(STATIC), "--explain", "--max-results", "3")
    assert table.code == 0, table.stderr
    assert table.stdout.count("semantic share") >= 1 and "lexical 0." in table.stdout
    result = run_cli(*args, "--embed-model", str(STATIC), "--explain", "--format", "json", "--max-results", "3")
    assert result.code == 0, result.stderr
    hits = result.json()["hits"]
    assert hits
    details = [row["detail"] for hit in hits for row in hit["explanation"] if row["field"] == "semantic"]
    assert details and all("semantic share" in d and "base 0.5" in d for d in details)
    weighted = run_cli(*args, "--embed-model", str(STATIC), "--embed-weight", "0.3", "--explain", "--format", "json")
    assert weighted.code == 0, weighted.stderr
    details = [
        row["detail"] for hit in weighted.json()["hits"] for row in hit["explanation"] if row["field"] == "semantic"
    ]
    assert details and all("base 0.3" in d for d in details)


def test_a_cjk_request_the_lexical_side_cannot_read_is_fused_with_an_english_only_model(monkeypatch):
    # a Chinese request to an English catalog: no tool holds its words, so the lexical side alone
    # found nothing at all; the model (English-only) still ranks it. A CJK request whose words the
    # catalog does hold (a Chinese catalog) still ranks lexically alone.
    forecast = make("get_forecast", "weather forecast for a city")
    mail = make("send_mail", "send an email")
    chinese = make("查询天气", "查询城市天气预报")
    query, held = "明天会下雨吗", "查询城市天气"
    axes = Axes(
        {
            tool_text(forecast): [1, 0, 0, 0],
            tool_text(mail): [0, 1, 0, 0],
            tool_text(chinese): [0, 0, 1, 0],
            query: [0.9, 0.1, 0, 0],
            held: [0, 0.2, 1, 0],
        }
    )
    monkeypatch.setattr(embed_mod, "default_embedder", lambda: axes)
    ranker = hybrid.HybridRanker()
    english = Catalog(tools=[forecast, mail])
    assert get_ranker("default").search(english, SearchRequest(query=query, max_results=5)) == []
    hits = ranker.search(english, SearchRequest(query=query, max_results=2, explain=True))
    assert [h.tool.name for h in hits][:1] == ["get_forecast"]  # before: no hit at all
    assert all("semantic share" in h.contributions[-1].detail for h in hits)
    both = Catalog(tools=[forecast, mail, chinese])
    lexical = get_ranker("default").search(both, SearchRequest(query=held, max_results=3))
    assert lexical and lexical[0].tool.name == "查询天气"
    kept = ranker.search(both, SearchRequest(query=held, max_results=3, explain=True))
    assert [h.tool.name for h in kept] == [h.tool.name for h in lexical]
    assert any("CJK" in c.detail for c in kept[0].contributions)


def test_explain_names_only_the_inputs_that_move_the_share(monkeypatch):
    evidence = hybrid.LexicalEvidence(parameters=0.25, covered=3, confirmed=0.6, margin=0.4, action="update")
    line = hybrid.fusion_share(0.5, evidence).describe()
    assert "3 of the request's terms" in line and "lead of the first 40%" in line
    assert "the first does what the request asks (update)" in line
    # weigh nothing (the parameters' part since round 6b): not offered as reasons
    assert hybrid.SHIFT_CONFIRMED == 0 and "semantic part" not in line
    assert hybrid.SHIFT_PARAMETERS == 0 and "from parameters" not in line
    monkeypatch.setattr(hybrid, "SHIFT_CONFIRMED", 0.5)
    monkeypatch.setattr(hybrid, "SHIFT_PARAMETERS", 0.25)
    line = hybrid.fusion_share(0.5, evidence).describe()
    assert "semantic part of the first 0.60" in line and "25% of their points from parameters" in line
    no_action = hybrid.LexicalEvidence(parameters=0.25, covered=3, confirmed=0.6, margin=0.4)
    assert "what the request asks" not in hybrid.fusion_share(0.5, no_action).describe()


def test_the_evidence_says_when_the_best_lexical_hit_does_the_action_the_request_asks_for():
    # round 6b: default's action agreement (toolsearch_cli/search/actions.py) read by the share
    catalog = Catalog(
        tools=[
            make("create_lead", "a lead in the CRM"),
            make("list_leads", "the leads in the CRM"),
            make("lead_report", "a report of the leads in the CRM"),
        ]
    )
    lexical_ranker = get_ranker("default")

    def evidence(query):
        lexical = lexical_ranker.search(catalog, SearchRequest(query=query, max_results=50))
        return lexical[0].tool.name, hybrid.request_evidence(catalog, query, lexical, None)

    first, created = evidence("create a lead for Hannah Berg")
    assert first == "create_lead" and created.action == "create"
    first, shown = evidence("show me the leads in the CRM")
    assert first == "list_leads" and shown.action == "read"
    # no action asked for, or the best hit's action is not known: no agreement to weigh
    assert evidence("leads in the CRM")[1].action is None
    first, reported = evidence("show the lead report")
    assert first == "lead_report" and reported.action is None
    # agreed, the lexical side gets more of the request
    assert hybrid.fusion_share(0.5, created).semantic < hybrid.fusion_share(0.5, replace(created, action=None)).semantic
