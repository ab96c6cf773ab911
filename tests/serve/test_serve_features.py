"""serve/features.py without processes: merged names and URIs, routes back, printable text,
searching resources and prompts, and the ``include`` argument of toolSearch (serve/protocol.py)."""

from __future__ import annotations

from types import SimpleNamespace

from toolsearch_cli.serve.features import FeatureRoute, Features, UpstreamFeatures, clean


def _features(name: str, *, subscribe: bool = True) -> UpstreamFeatures:
    return UpstreamFeatures(
        resources=[
            {"uri": "note://readme", "name": "readme", "description": f"readme of {name}"},
            {"uri": f"{name}://only", "name": "only", "description": "Quarterly \x1b[31mbudget\u200b report"},
        ],
        templates=[
            {"uriTemplate": "note://pages/{n}", "name": "page"},
            {"uriTemplate": f"{name}://t/{{x}}", "name": "t"},
        ],
        prompts=[
            {"name": "summarize", "description": "Summarize a text"},
            {"name": f"{name}_greet", "description": "Say hello", "arguments": [{"name": "who"}]},
        ],
        has_resources=True,
        has_prompts=True,
        can_subscribe=subscribe,
    )


def _merged() -> Features:
    features = Features()
    changed = features.rebuild([("src-a", "a", _features("a")), ("src-b", "b", _features("b", subscribe=False))])
    assert changed == {"resources", "prompts"}
    return features


def test_only_colliding_names_and_uris_are_prefixed_in_upstream_order():
    features = _merged()
    assert [r.data["uri"] for r in features.resources] == ["a+note://readme", "a://only", "b+note://readme", "b://only"]
    assert [t.data["uriTemplate"] for t in features.templates] == [
        "a+note://pages/{n}",
        "a://t/{x}",
        "b+note://pages/{n}",
        "b://t/{x}",
    ]
    assert [p.data["name"] for p in features.prompts] == ["a__summarize", "a_greet", "b__summarize", "b_greet"]
    assert features.can_subscribe == {"src-a"}
    # the same upstreams again: nothing changed
    assert features.rebuild([("src-a", "a", _features("a")), ("src-b", "b", _features("b", subscribe=False))]) == set()


def test_routes_back_to_the_upstream_and_its_own_name():
    features = _merged()
    assert features.prompt_route("b__summarize") == FeatureRoute("src-b", "summarize")
    assert features.prompt_route("a_greet") == FeatureRoute("src-a", "a_greet")
    assert features.prompt_route("summarize") is None  # two upstreams have it: only the prefixed names
    assert features.resource_route("b+note://readme") == FeatureRoute("src-b", "note://readme")
    assert features.resource_route("a+note://pages/3") == FeatureRoute("src-a", "note://pages/3")  # by the alias
    assert features.resource_route("b://t/9") == FeatureRoute("src-b", "b://t/9")  # by the template
    assert features.resource_route("note://readme") is None  # ambiguous
    assert features.resource_route("svn+ssh://x") is None  # a '+' scheme that is no alias
    one = Features()
    one.rebuild([("src-a", "a", _features("a"))])
    assert one.resource_route("anything://x") == FeatureRoute("src-a", "anything://x")  # the only server


def test_text_made_printable_and_result_uris_in_the_clients_terms():
    features = _merged()
    only = [r for r in features.resources if r.data["uri"] == "a://only"][0]
    assert only.data["description"] == "Quarterly \\x1b[31mbudget\\u200b report"
    result = {"contents": [{"uri": "note://readme", "text": "hi\x1b]0;t\x07 \U000e0041", "mimeType": "text/plain"}]}
    mapped = features.map_result("src-b", result, asked="b+note://readme")
    assert mapped["contents"][0]["uri"] == "b+note://readme"
    assert mapped["contents"][0]["text"] == "hi\\x1b]0;t\\x07 \\U000e0041"
    sub = features.map_result("src-a", {"contents": [{"uri": "note://pages/3", "text": "x"}]}, asked="a+note://pages/3")
    assert sub["contents"][0]["uri"] == "a+note://pages/3"
    blob = {"contents": [{"uri": "a://only", "blob": "AAEC\x1b"}]}
    assert clean(blob) == blob  # binary contents as they are
    deep: dict = {}
    node = deep
    for _ in range(200):
        node["x"] = {}
        node = node["x"]
    clean(deep)  # bounded: no RecursionError


def test_a_hidden_character_in_a_uri_is_served_visible_and_mapped_back():
    features = Features()
    hostile = UpstreamFeatures(resources=[{"uri": "note://re\u200bad", "name": "r"}], has_resources=True)
    features.rebuild([("src", "a", hostile)])
    assert [r.data["uri"] for r in features.resources] == ["note://re\\u200bad"]
    assert features.resource_route("note://re\\u200bad") == FeatureRoute("src", "note://re\u200bad")


def test_advertised_only_when_an_upstream_lists_some():
    empty = UpstreamFeatures(has_resources=True, has_prompts=True)  # the SDK's MCPServer with nothing
    features = Features()
    features.rebuild([("src", "a", empty)])
    assert not features.has_resources and not features.has_prompts


def test_search_by_kind():
    features = _merged()
    found = features.search("quarterly budget report", ["resources"], 2)
    assert list(found) == ["resources"] and found["resources"][0]["uri"] in ("a://only", "b://only")
    found = features.search("say hello", ["prompts", "resources"], 1)
    assert found["prompts"][0]["name"] in ("a_greet", "b_greet") and len(found["prompts"]) == 1


def _hub(features: Features):
    from toolsearch_cli.serve.protocol import ProtocolHub

    hub = ProtocolHub.__new__(ProtocolHub)
    hub.features = features
    hub.gateway = SimpleNamespace(settings=SimpleNamespace(default_max_results=5), search_tool_name="toolSearch")
    return hub


def test_include_argument_parsed_and_refused_when_wrong():
    hub = _hub(_merged())
    rest, kinds, problem = hub.split_include({"query": "x", "include": ["prompts", "prompts"]})
    assert (rest, kinds, problem) == ({"query": "x"}, ["prompts"], None)
    assert (
        hub.split_include({"query": "x", "include": ["files"]})[2]
        == "'include' takes 'resources', 'prompts', not 'files'"
    )
    assert "must be a list" in hub.split_include({"query": "x", "include": [1]})[2]
    assert hub.split_include({"query": "x"}) == ({"query": "x"}, [], None)
    nothing = _hub(Features())  # no resources or prompts anywhere: left for the engine to refuse
    assert nothing.split_include({"query": "x", "include": ["prompts"]}) == (
        {"query": "x", "include": ["prompts"]},
        [],
        None,
    )


def test_cache_hints():
    from toolsearch_cli.serve.protocol import LIST_TTL_MS, list_cache_hint

    assert list_cache_hint(per_request=False, per_session=False) == (LIST_TTL_MS, "public")
    assert list_cache_hint(per_request=True, per_session=False) == (0, "private")
    assert list_cache_hint(per_request=False, per_session=True) == (0, "private")


def test_pages_of_a_long_list_and_a_bad_cursor_refused():
    import pytest
    from mcp.shared.exceptions import MCPError

    from toolsearch_cli.serve.protocol import page

    items = list(range(1203))
    seen: list[int] = []
    cursor = None
    pages = 0
    while True:
        got, cursor = page(items, SimpleNamespace(cursor=cursor), size=500)
        seen += got
        pages += 1
        if cursor is None:
            break
    assert seen == items and pages == 3
    assert page(items, None, size=500)[1] == "500"
    for bad in ("-1", "abc", "9" * 40, ""):
        with pytest.raises(MCPError, match="invalid cursor"):
            page(items, SimpleNamespace(cursor=bad))


def test_completion_values_made_printable():
    raw = {"completion": {"values": ["Eng\x1b[2Jineering", "Sales\u202e"], "total": 2}}
    shown_values = ["Eng\\x1b[2Jineering", "Sales\\u202e"]
    assert clean(raw, keys=("values",)) == {"completion": {"values": shown_values, "total": 2}}


def test_a_prefixed_prompt_name_another_upstream_has_stays_distinct():
    a = UpstreamFeatures(prompts=[{"name": "x"}, {"name": "b__x"}, {"name": "b__x"}], has_prompts=True)
    b = UpstreamFeatures(prompts=[{"name": "x"}], has_prompts=True)
    features = Features()
    features.rebuild([("src-a", "a", a), ("src-b", "b", b)])
    names = [p.data["name"] for p in features.prompts]
    assert names == ["a__x", "b__x", "b__x_2"]  # a's own b__x (once), then b's x
    assert features.prompt_route("b__x") == FeatureRoute("src-a", "b__x")
    assert features.prompt_route("b__x_2") == FeatureRoute("src-b", "x")
