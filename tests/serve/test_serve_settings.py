"""The library entry of ``toolsearch serve``: :class:`ServeSettings` (every option check, once, in
the command's order), :func:`dry_run` returning a typed report, and :func:`serve`'s refusal
without the MCP SDK; called directly, without the CLI."""

from __future__ import annotations

import sys

import pytest

from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.errors import SearchError, UsageError
from toolsearch_cli.serve import ServeSettings
from toolsearch_cli.serve.dry_run import DryRun, dry_run
from toolsearch_cli.serve.gateway import Gateway, Settings
from toolsearch_cli.serve.run import serve

from ..conftest import ROOT
from ..serve_helpers import raw_tools_of, runner_of, scripted_source

DEMO = str(ROOT / "catalogs" / "demo")


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"disclose": "sometimes"}, UsageError, "unknown disclosure 'sometimes'"),
        ({"max_active": 0}, UsageError, "--max-active must be at least 1, not 0"),
        ({"timeout": 0}, UsageError, "--timeout must be positive, not 0"),
        ({"policy": "latests"}, UsageError, "unknown policy 'latests' (did you mean 'latest'?)"),
        ({"ranker": "bm99"}, SearchError, "unknown ranker 'bm99'"),
        ({"http": "localhost:http"}, UsageError, "--http takes HOST:PORT"),
        # the gateway's own checks come first, then the names, then the address (the command's order)
        ({"disclose": "x", "policy": "y", "http": "z:z"}, UsageError, "unknown disclosure 'x'"),
        ({"policy": "y", "http": "z:z"}, UsageError, "unknown policy 'y'"),
    ],
)
def test_settings_refuse_bad_options(options, error, message):
    with pytest.raises(error) as caught:
        ServeSettings(sources=[DEMO], **options)
    assert message in str(caught.value) and caught.value.exit_code == 2


@pytest.mark.parametrize(
    ("http", "address"),
    [(None, None), ("127.0.0.1:8765", ("127.0.0.1", 8765)), (":9000", ("127.0.0.1", 9000)), ("[::1]:80", ("::1", 80))],
)
def test_settings_parse_the_address(http, address):
    assert ServeSettings(sources=[DEMO], http=http).address == address


def test_a_dry_run_does_not_read_the_address():
    settings = ServeSettings(sources=[DEMO], http="not an address", dry_run=True)
    assert settings.address is None and settings.dry_run


def test_the_settings_are_the_gateways_settings():
    settings = ServeSettings(
        sources=[DEMO], disclose="list-changed", max_active=2, resident=["getWeather"], catalog_via="demo"
    )
    assert isinstance(settings, Settings)
    gateway = Gateway(settings, static=load_catalog([DEMO]), upstreams=[runner_of(load_catalog([DEMO]), "demo")])
    gateway.check_resident()  # a resident name the catalog does not have would raise here
    assert "getWeather" in gateway.routes
    with pytest.raises(UsageError, match="nope"):
        Gateway(ServeSettings(sources=[DEMO], resident=["nope"]), static=load_catalog([DEMO])).check_resident()


def test_dry_run_returns_a_typed_report(tmp_path):
    runner = scripted_source("demo", raw_tools_of(load_catalog([DEMO])), tmp_path)
    report = dry_run(ServeSettings(sources=[DEMO, runner], catalog_via="demo", dry_run=True))
    assert isinstance(report, DryRun)
    resident = load_catalog([DEMO]).resident
    assert [t["name"] for t in report.listed] == [*resident, "toolSearch", "callTool"]
    assert 0 < report.listed_tokens < report.all_tokens and report.all_tools == 58  # of 64: six need a role
    assert 0 < report.saving_percent < 100
    document = report.to_dict()
    assert document["tokens"]["listed"] == report.listed_tokens
    assert document["tokens"]["saving_percent"] == round(report.saving_percent, 2)
    assert document["disclose"] == "call-through" and document["failed"] == []
    assert len(document["searchable"]) == 58
    sources = document["sources"]  # the files' tools, run by the upstream named
    assert [(s["tools"], s["callable"]) for s in sources] == [(58, True)]


def test_a_dry_run_sees_what_the_context_may_see(tmp_path):
    runner = scripted_source("demo", raw_tools_of(load_catalog([DEMO])), tmp_path)
    member = dry_run(ServeSettings(sources=[DEMO, runner], catalog_via="demo", context={"role": "member"}))
    admin = dry_run(ServeSettings(sources=[DEMO, runner], catalog_via="demo", context={"role": "admin"}))
    assert member.all_tools < admin.all_tools
    assert set(member.names) < set(admin.names)


def test_serve_without_the_mcp_sdk_says_which_extra_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)  # the import fails as if the SDK were absent
    with pytest.raises(UsageError, match=r"toolsearch serve needs the MCP SDK: pip install 'toolsearch-cli\[mcp\]'"):
        serve(ServeSettings(sources=[DEMO]))
