"""The provider interface (issue 23): the reusable contract suite run by the in-memory provider and
by the PostgreSQL registry (a real throwaway cluster, tests/pg_cluster.py)."""

from __future__ import annotations

import pytest

from toolsearch_cli.registry.provider import InMemoryToolProvider, PostgresToolProvider, ToolProvider
from toolsearch_cli.registry.testing import FLIGHT, WEATHER, ProviderContract


class TestInMemoryProvider(ProviderContract):
    def make_provider(self):
        return InMemoryToolProvider()


class TestPostgresProvider(ProviderContract):
    @pytest.fixture(autouse=True)
    def _registry(self, pg_url):
        self.url = pg_url

    def make_provider(self):
        return PostgresToolProvider(self.url, "contract")


def test_both_providers_implement_the_protocol(pg_url):
    assert isinstance(InMemoryToolProvider(), ToolProvider)
    with PostgresToolProvider(pg_url, "p") as provider:
        assert isinstance(provider, ToolProvider)


def test_two_postgres_providers_share_one_namespace(pg_url):
    """What one node saves or removes, another sees on its next call (its index follows in place)."""
    with PostgresToolProvider(pg_url, "shared") as a, PostgresToolProvider(pg_url, "shared") as b:
        a.save(WEATHER)
        assert b.search("weather forecast", limit=3) == ["getWeather"]
        b.save(FLIGHT)
        assert a.search("flight ticket", limit=3)[0] == "bookFlight"
        assert a.remove("getWeather") is True
        assert b.get("getWeather") is None
        assert [t.name for t in b.all()] == ["bookFlight"]
        with PostgresToolProvider(pg_url, "other") as c:  # namespaces do not mix
            assert c.all() == []


def test_a_provider_feeds_a_catalog_manager(pg_url):
    """The design document's use: a provider behind the manager; names it cannot resolve are dropped."""
    from toolsearch_cli.disclosure.manager import CatalogManager

    with PostgresToolProvider(pg_url, "m") as provider:
        provider.save(WEATHER)
        provider.save(FLIGHT)
        manager = CatalogManager([WEATHER], provider=provider)  # only getWeather is executable here
        assert manager.search("weather flight ticket forecast", max_results=5) == ["getWeather"]


def test_absent_postgres_skips_locally_and_fails_in_ci(monkeypatch):
    from tests import pg_cluster as pg

    monkeypatch.setattr(pg, "bin_dir", lambda: None)
    reason = pg.unavailable()
    assert reason is not None and "not installed" in reason
    monkeypatch.delenv(pg.REQUIRE_VAR, raising=False)
    with pytest.raises(pytest.skip.Exception):
        pg.skip_or_fail(reason, None)
    with pytest.raises(pytest.fail.Exception, match="PostgreSQL is required in CI"):
        pg.skip_or_fail(reason, "true")  # $CI as the tests were started with
    monkeypatch.setenv(pg.REQUIRE_VAR, "1")  # what .ci/run sets for both of its runs
    with pytest.raises(pytest.fail.Exception):
        pg.skip_or_fail(reason, None)


def test_catalog_remove_tools_is_one_pass_and_all_or_nothing():
    """What live sync uses: several tools out at once, indexes updated in place, resident names too."""
    from toolsearch_cli.errors import CatalogError
    from toolsearch_cli.model import Catalog
    from toolsearch_cli.registry.testing import REFUND, sample
    from toolsearch_cli.search import get_ranker
    from toolsearch_cli.search.base import SearchRequest

    catalog = Catalog(tools=[WEATHER, FLIGHT, REFUND, sample("clock", "what time is it")], resident=["clock"])
    ranker = get_ranker("default")
    ask = lambda q: [h.name for h in ranker.search(catalog, SearchRequest(query=q, max_results=5, explain=False))]  # noqa: E731
    assert ask("flight ticket") == ["bookFlight"]  # the index is built
    with pytest.raises(CatalogError, match="no tool named 'nope'"):
        catalog.remove_tools(["bookFlight", "nope"])
    assert catalog.names == ["getWeather", "bookFlight", "refundOrder", "clock"]
    catalog.remove_tools(["bookFlight", "clock", "bookFlight"])
    assert catalog.names == ["getWeather", "refundOrder"] and catalog.resident == []
    assert "bookFlight" not in catalog and ask("flight ticket airports") == []
    assert ask("refund order payment") == ["refundOrder"]
    fresh = Catalog(tools=[WEATHER, REFUND])
    for query in ("weather forecast", "refund payment", "city"):
        assert ask(query) == [
            h.name for h in ranker.search(fresh, SearchRequest(query=query, max_results=5, explain=False))
        ]
