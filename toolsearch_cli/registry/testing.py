"""A test suite any :class:`~toolsearch_cli.registry.provider.ToolProvider` can run (pytest).

Subclass :class:`ProviderContract` in a test module and say how to make an empty provider::

    from toolsearch_cli.registry.testing import ProviderContract

    class TestMyProvider(ProviderContract):
        def make_provider(self):
            return MyProvider(...)          # empty, or cleared by the suite before each test

The suite checks what the interface promises: ``save``/``get``/``all`` round trips, replacing by
name, ``remove`` and ``clear``, ``search`` (ranking, ``limit``, ``category``, removed and changed
tools), refusing the search tool's reserved name, and concurrent use from several threads.
Only pytest is needed (it is imported when this module is).
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ..errors import ToolsearchError
from ..model import Tool


def sample(name: str, description: str, category: str | None = None, **params: str) -> Tool:
    """A small tool: ``params`` maps parameter names to their descriptions."""
    return Tool(
        name=name,
        description=description,
        category=category,
        parameters={
            "type": "object",
            "properties": {p: {"type": "string", "description": d} for p, d in params.items()},
            "required": list(params),
        },
    )


WEATHER = sample("getWeather", "Get the current weather forecast for a city", "weather", city="City name")
FLIGHT = sample("bookFlight", "Book a flight ticket between two airports", "travel", origin="From", to="To")
REFUND = sample("refundOrder", "Refund a customer's order and return the payment", "orders", order_id="Order id")


class ProviderContract:
    """The contract tests; subclasses define :meth:`make_provider` (see the module docstring)."""

    def make_provider(self) -> Any:
        raise NotImplementedError("define make_provider() to return the provider under test")

    @pytest.fixture
    def provider(self) -> Any:
        made = self.make_provider()
        made.clear()
        yield made
        made.clear()
        close = getattr(made, "close", None)
        if callable(close):
            close()

    def test_save_then_get_and_all(self, provider: Any) -> None:
        provider.save(WEATHER)
        provider.save(FLIGHT)
        got = provider.get("getWeather")
        assert got is not None
        assert (got.name, got.description, got.parameters, got.category) == (
            WEATHER.name,
            WEATHER.description,
            WEATHER.parameters,
            WEATHER.category,
        )
        assert sorted(t.name for t in provider.all()) == ["bookFlight", "getWeather"]
        assert provider.get("noSuchTool") is None

    def test_save_replaces_by_name(self, provider: Any) -> None:
        provider.save(WEATHER)
        provider.save(WEATHER.copy_with(description="Tide tables for a harbour"))
        assert [t.name for t in provider.all()] == ["getWeather"]
        assert provider.get("getWeather").description == "Tide tables for a harbour"
        assert provider.search("tide harbour", limit=5) == ["getWeather"]
        assert "getWeather" not in provider.search("forecast", limit=5)

    def test_remove_and_clear(self, provider: Any) -> None:
        for tool in (WEATHER, FLIGHT, REFUND):
            provider.save(tool)
        assert provider.remove("bookFlight") is True
        assert provider.remove("bookFlight") is False
        assert provider.get("bookFlight") is None
        assert "bookFlight" not in provider.search("flight ticket airports", limit=5)
        assert sorted(t.name for t in provider.all()) == ["getWeather", "refundOrder"]
        provider.clear()
        assert provider.all() == []
        assert provider.search("weather", limit=5) == []

    def test_search_ranks_limits_and_filters(self, provider: Any) -> None:
        for tool in (WEATHER, FLIGHT, REFUND):
            provider.save(tool)
        assert provider.search("weather forecast for Paris", limit=3)[0] == "getWeather"
        assert provider.search("refund my order payment", limit=1) == ["refundOrder"]
        assert len(provider.search("tool", limit=1)) <= 1
        assert provider.search("weather forecast", category="travel", limit=5) in ([], ["bookFlight"])
        assert provider.search("book a flight", category="travel", limit=5) == ["bookFlight"]

    def test_reserved_name_is_refused(self, provider: Any) -> None:
        with pytest.raises(ToolsearchError):
            provider.save(sample("toolSearch", "shadows the search tool"))
        assert provider.get("toolSearch") is None

    def test_concurrent_saves_searches_and_removes(self, provider: Any) -> None:
        errors: list[BaseException] = []
        count = 6

        def worker(i: int) -> None:
            try:
                for j in range(5):
                    provider.save(sample(f"tool{i}x{j}", f"Worker {i} tool {j} handles invoices"))
                    provider.search("invoices", limit=3)
                provider.remove(f"tool{i}x0")
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not errors, errors
        names = sorted(t.name for t in provider.all())
        assert names == sorted(f"tool{i}x{j}" for i in range(count) for j in range(1, 5))
        assert len(provider.search("invoices", limit=100)) == len(names)


__all__ = ["FLIGHT", "REFUND", "WEATHER", "ProviderContract", "sample"]
