"""Warm registry reads (issue 35 item 4) against a real throwaway PostgreSQL (tests/pg_cluster.py):
a namespace version is kept in the catalog cache with its built indexes, keyed by its content
digest, so a warm search builds nothing and ranks as a fresh load does."""

from __future__ import annotations

from toolsearch_cli import indexes
from toolsearch_cli.catalog import cache, load_catalog_result
from toolsearch_cli.model import Catalog
from toolsearch_cli.registry import store
from toolsearch_cli.registry.testing import sample
from toolsearch_cli.search import search
from toolsearch_cli.search_report import SearchSettings, run_search


def ns(url: str, namespace: str) -> str:
    return f"{url}?namespace={namespace}"


def numbered(n: int, word: str = "alpha") -> Catalog:
    # 2,500 tools: the NumPy store, as a large namespace has
    return Catalog(tools=[sample(f"tool{i:04d}", f"{word} task number {i} of the {word} family") for i in range(n)])


def _ranked(catalog: Catalog, queries: list[str]) -> list[list[tuple[str, float]]]:
    return [[(h.name, h.score) for h in search(catalog, q, max_results=10)] for q in queries]


QUERIES = ["alpha task number 1200", "family of number 77", "task 5 alpha"]


def test_a_warm_registry_search_builds_nothing_and_ranks_as_a_fresh_load(pg_url):
    """The first search of a namespace version stores it with its indexes (the default index, the
    name look-up, the suggestions' vocabulary) under its content digest; every later search of the
    same version reads them back (it rebuilt the index on every call: 10.7-13.3 s at 100,000
    tools against 0.66-1.14 s from the same catalog as a file)."""
    pushed = numbered(2500)
    store.push(pg_url, pushed, "warm")
    source = ns(pg_url, "warm")
    first = run_search(SearchSettings(query="alpha task number 12", catalog=[source]))
    assert first.hits
    builds = dict(indexes.BUILDS)
    second = run_search(SearchSettings(query="alpha task for my boss", catalog=[source]))
    assert [w.word for w in second.unmatched] == ["boss"]
    assert indexes.BUILDS == builds  # the index, name look-up and vocabulary all came from the cache
    warm = load_catalog_result([source], cache=True)
    assert warm.cache_stored is not None and {"default", "names", "vocabulary"} <= warm.cache_stored
    fresh = Catalog(tools=list(pushed.tools))
    assert _ranked(warm.catalog, QUERIES) == _ranked(fresh, QUERIES)
    assert indexes.BUILDS.get("default") == builds.get("default", 0) + 1  # the fresh catalog's, not the warm one's


def test_a_push_changes_the_key_and_the_content_read_is_what_is_stored(pg_url):
    store.push(pg_url, numbered(30), "moving")
    source = ns(pg_url, "moving")
    one = load_catalog_result([source], cache=True)
    store.push(pg_url, numbered(30, "omega"), "moving")
    two = load_catalog_result([source], cache=True)
    assert two.cache_key != one.cache_key
    assert two.catalog.tools[0].description.startswith("omega")


def test_a_push_between_the_digest_and_the_read_is_stored_under_the_content_read(pg_url, monkeypatch):
    """The key is asked for first (the namespace's digest), the rows read after: a push in between
    must not leave the newer content under the older digest's key (a later rollback to the older
    content would then read the newer one)."""
    store.push(pg_url, numbered(30), "race")
    source = ns(pg_url, "race")
    old = store.namespace_digest(source)
    store.push(pg_url, numbered(30, "omega"), "race")
    new = store.namespace_digest(source)
    assert old != new
    # (a context of its own: monkeypatch.undo() would also undo conftest's HOME and cache folder,
    # and the second load below would use the real user's cache, or none for a user without a home)
    with monkeypatch.context() as patch:
        patch.setattr(store, "namespace_digest", lambda _source: old)  # as if asked just before the push
        loaded = load_catalog_result([source], cache=True)
    assert loaded.catalog.tools[0].description.startswith("omega")
    display = store.parse_registry_source(source).display
    key_of = {
        digest: cache.key_for([source], {source: []}, {source: f"registry\n{display}\n{digest}"})
        for digest in (old, new)
    }
    assert loaded.cache_key == key_of[new]
    assert cache.load(key_of[old]) is None
    again = load_catalog_result([source], cache=True)
    assert again.cache_key == key_of[new] and again.cache_stored is not None  # a hit
    assert again.catalog.tools[0].description.startswith("omega")


def test_the_cache_key_does_not_depend_on_the_password(pg_url, monkeypatch):
    """A registry source is keyed by where it is as messages show it (no credentials) and its
    digest, never by the URL as typed (a password hashed into a file name can be guessed back):
    the namespace read with the password in the URL and from PGPASSWORD is one entry."""
    from tests import pg_cluster as pg

    store.push(pg_url, numbered(5), "k")
    with_password = load_catalog_result([ns(pg_url, "k")], cache=True)
    monkeypatch.setenv("PGPASSWORD", pg.PASSWORD)
    bare = load_catalog_result([ns(pg_url.replace(f":{pg.PASSWORD}@", "@"), "k")], cache=True)
    assert bare.cache_key == with_password.cache_key is not None
    assert bare.cache_stored is not None  # read back from the entry the first load wrote


def _names(ts, query: str) -> list[str]:
    import json

    request = ts.request([{"role": "user", "content": "hi"}])
    content = json.loads(ts.handle("toolSearch", {"query": query, "maxResults": 5}, request).content or "[]")
    return content if isinstance(content, list) else content.get("names", [])


def test_a_node_started_again_on_the_same_version_builds_nothing(pg_url):
    """A node keeps the built index of a namespace version (and the name look-up, the vocabulary
    and its engine's baseline) in the cache entry keyed by the version's digest: a second node on
    the same version builds and counts nothing, answers as the first, and still follows pushes."""
    from toolsearch_cli.registry.sync import LiveToolSearch

    store.push(pg_url, numbered(2500), "node")
    source = ns(pg_url, "node")
    first = LiveToolSearch(source, start=False)
    expected = _names(first, "alpha task number 1200"), first.engine.baseline_tool_tokens
    builds = dict(indexes.BUILDS)
    second = LiveToolSearch(source, poll_interval=0.1)
    try:
        assert (_names(second, "alpha task number 1200"), second.engine.baseline_tool_tokens) == expected
        assert _names(second, "alpha task for my boss")  # the vocabulary's suggestions: from the entry too
        assert indexes.BUILDS == builds
        tools = list(numbered(2500).tools)
        tools[7] = tools[7].copy_with(description="recalibrated harbour tide gauge")
        plan = store.push(pg_url, Catalog(tools=tools), "node")
        assert second.wait_for(plan.version or 0, 30)
        assert _names(second, "recalibrated harbour tide gauge")[0] == "tool0007"
        assert second.applied == 1 and second.rebuilt == 0
    finally:
        second.close()


def test_an_alias_read_through_a_node_s_entry_is_indexed_with_its_category(pg_url, monkeypatch):
    """A source with an alias gives its tools without a category the alias as category, after they
    are read: where they come from a node's cache entry (with its indexes, built without those
    categories), the loaded catalog must not search with them (a guard: the snapshot's catalog is
    gone by then, so the loaded one builds its own index; this passes before and after)."""
    from toolsearch_cli.registry.sync import LiveToolSearch

    store.push(pg_url, numbered(2500), "aliased")
    LiveToolSearch(f"team={ns(pg_url, 'aliased')}", start=False)  # writes the entry with its indexes

    def unreachable(_source):
        raise store.RegistryError("the digest query failed this time")

    monkeypatch.setattr(store, "namespace_digest", unreachable)  # the loader cannot key it: the snapshot cache reads it
    loaded = load_catalog_result([f"team={ns(pg_url, 'aliased')}"], cache=True)
    assert loaded.cache_key is None
    assert loaded.catalog.tools[0].category == "team"
    found = search(loaded.catalog, "alpha task number 1200", category="team", max_results=3)
    assert [h.name for h in found][:1] == ["tool1200"]
