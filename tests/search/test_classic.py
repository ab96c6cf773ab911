"""The classic ranker reproduces every verified fixture of seed-behaviour.md §2.4 exactly."""

from __future__ import annotations

import pytest

from toolsearch_cli import Catalog, search
from toolsearch_cli.search.text import classic_normalize, classic_tokenize

from ..conftest import make


def p(description, **children):
    prop = {"type": "string", "description": description}
    if children:
        prop = {"type": "object", "description": description, "properties": children}
    return prop


WEATHER = make(
    "weatherLookup", "Fetch a forecast", "weather", ["integration", "weather"], {"city": p("Value for city")}
)
TRAVEL = make(
    "travelPlanner",
    "Plan travel using weather forecasts",
    "travel",
    ["integration", "travel"],
    {"destination": p("Value for destination")},
)
CALENDAR = make(
    "calendar", "Create an event", "office", ["integration", "office"], {"timezone": p("Value for timezone")}
)
BASE = [WEATHER, TRAVEL, CALENDAR]
GET_WEATHER = make("getWeather", "查询指定城市的实时天气和未来预报", params={"city": p("城市名称")})


def scores(tools, query, **kw):
    hits = search(Catalog(tools=tools), query, ranker="classic", max_results=50, **kw)
    return [(h.name, h.score) for h in hits]


@pytest.mark.parametrize(
    ("tools", "query", "expected"),
    [
        (BASE, "weather", [("weatherLookup", 130.0), ("travelPlanner", 56.0)]),
        (BASE, "timezone", [("calendar", 34.0)]),
        ([WEATHER], "integration", [("weatherLookup", 35.0)]),
        ([WEATHER], "weather weather", [("weatherLookup", 80.0)]),
        (BASE, "forecast", [("travelPlanner", 56.0), ("weatherLookup", 56.0)]),
        ([make("sendSlack", "Send a message")], "send message", [("sendSlack", 57.0)]),
        ([make("weatherLookup", "Look up weather and forecasts")], "weather forecast", [("weatherLookup", 57.0)]),
        ([GET_WEATHER], "getWeather", [("getWeather", 190.0)]),
        ([GET_WEATHER], "get weather", [("getWeather", 190.0)]),
        ([GET_WEATHER], "weather", [("getWeather", 95.0)]),
        ([make("sendEmail", "Email delivery")], "email", [("sendEmail", 131.0)]),
        (
            [
                make(
                    "createOrder",
                    "Create order",
                    params={"address": p("Shipping address", city=p("City name"), cityCode=p("City postal code"))},
                )
            ],
            "city",
            [("createOrder", 48.0)],
        ),
        ([make("x", "", tags=["rain", "rainfall", "rainy"])], "rain", [("x", 65.0)]),
        ([make("weatherLookup", "Look up the weather")], "a", [("weatherLookup", 118.0)]),
        ([make("a", "b")], "b c d", [("a", 12.666666666666668)]),
        ([make("weatherLookup", "Look up the weather")], "send e-mail", [("weatherLookup", 24.666666666666668)]),
        ([make("weatherLookup", "Weather forecast")], "weather lookup tool", [("weatherLookup", 69.33333333333333)]),
        ([make("getTarget", "Return the target")], "get", [("getTarget", 131.0)]),
        ([GET_WEATHER], "查询城市天气", []),
        ([GET_WEATHER], "天气", [("getWeather", 56.0)]),
        ([GET_WEATHER], "城市", [("getWeather", 60.0)]),
    ],
)
def test_reference_fixture_scores(tools, query, expected):
    assert scores(tools, query) == expected


def test_matched_fields_in_first_hit_order():
    hits = search(Catalog(tools=BASE), "weather", ranker="classic")
    assert hits[0].matched_fields == ["name", "category", "tags"]
    assert hits[1].matched_fields == ["description"]
    assert search(Catalog(tools=BASE), "timezone", ranker="classic")[0].matched_fields == ["parameters"]


def test_explanation_points_add_up_to_the_score():
    for query in ("weather", "weather lookup tool", "city"):
        for hit in search(Catalog(tools=BASE), query, ranker="classic"):
            assert sum(c.points for c in hit.contributions) == pytest.approx(hit.score)


def test_blank_or_punctuation_query_returns_every_tool_with_score_zero_sorted_by_name():
    assert scores(BASE, "   ") == [("calendar", 0.0), ("travelPlanner", 0.0), ("weatherLookup", 0.0)]
    assert scores(BASE, "?!") == [("calendar", 0.0), ("travelPlanner", 0.0), ("weatherLookup", 0.0)]


def test_category_filter_is_normalised_equality_and_excludes_uncategorised():
    tools = [
        make("a1", "weather thing", "WeatherApi"),
        make("a2", "weather thing", "weather-api"),
        make("a3", "weather thing", "weather_api"),
        make("a4", "weather thing", "weather"),
        make("a5", "weather thing"),
    ]
    assert [n for n, _ in scores(tools, "weather", category="weather api")] == ["a1", "a2", "a3"]
    assert sorted(n for n, _ in scores(tools, "weather", category="  ")) == ["a1", "a2", "a3", "a4", "a5"]


def test_sort_ties_by_utf16_code_units_not_code_points():
    # U+FF21 (BMP, high) sorts after U+1F600 (astral, surrogate D83D) in UTF-16, before it in code points.
    tools = [make("\uff21x", "same"), make("\U0001f600x", "same")]
    assert [n for n, _ in scores(tools, "same")] == ["\U0001f600x", "\uff21x"]


def test_max_results_cut():
    assert len(search(Catalog(tools=BASE), "integration", ranker="classic", max_results=2)) == 2


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("getWeather", "get weather"),
        ("getHTTPResponse", "get httpresponse"),
        ("HTTP2Server", "http2 server"),
        ("iPhoneX", "i phone x"),
        ("send_e-mail", "send e mail"),
        ("Straße", "straße"),
        ("查询，城市", "查询 城市"),
    ],
)
def test_classic_normalize(text, normalized):
    assert classic_normalize(text) == normalized


def test_classic_tokenize_dedupes_in_order():
    assert classic_tokenize("weather Weather forecast") == ["weather", "forecast"]
    assert classic_tokenize("?!") == []
