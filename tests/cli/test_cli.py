"""The CLI end to end: exit code, stdout and stderr asserted together."""

from __future__ import annotations

import pytest

from toolsearch_cli import __version__, load_catalog

from ..conftest import DEMO, TOOLSEARCH, clean_env


def test_seed_query_finds_get_weather_first_on_the_shipped_catalogs(run_cli):
    result = run_cli("search", "查询城市天气", "--catalog", str(DEMO), "--format", "json")
    assert result.code == 0, result.stderr
    hits = result.json()["hits"]
    assert hits[0]["name"] == "getWeather"
    assert hits[0]["rank"] == 1


def test_classic_ranker_reproduces_the_reference_miss(run_cli):
    result = run_cli("search", "查询城市天气", "--catalog", str(DEMO), "--ranker", "classic", "--format", "json")
    assert result.code == 0
    assert result.json()["hits"] == []


def test_default_catalog_is_the_bundled_demo_outside_a_project(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run_cli("search", "weather", "--format", "json")
    assert result.code == 0, result.stderr
    assert result.json()["hits"][0]["name"] == "getWeather"


def test_default_catalog_prefers_env_var_then_local_catalogs_folder(run_cli, tmp_path, monkeypatch, write):
    write("catalogs/local.yaml", "tools:\n  - name: localWeather\n    description: weather from the local folder\n")
    write("elsewhere.yaml", "tools:\n  - name: envWeather\n    description: weather from the env var\n")
    monkeypatch.chdir(tmp_path)
    assert run_cli("search", "weather", "-f", "json").json()["hits"][0]["name"] == "localWeather"
    monkeypatch.setenv("TOOLSEARCH_CATALOG", str(tmp_path / "elsewhere.yaml"))
    assert run_cli("search", "weather", "-f", "json").json()["hits"][0]["name"] == "envWeather"
    both = run_cli("search", "weather", "-f", "json", "-c", "catalogs", "-c", "elsewhere.yaml").json()
    assert {h["name"] for h in both["hits"]} == {"localWeather", "envWeather"}


def test_table_output_shows_rank_name_category_score_and_fields(run_cli):
    result = run_cli("search", "refund a payment", "--catalog", str(DEMO), "-n", "3")
    assert result.code == 0
    lines = [line for line in result.stdout.splitlines() if "refundPayment" in line]
    assert lines and "payments" in lines[0] and "name" in lines[0]
    assert " 1 " in lines[0]
    assert result.stderr == ""


def test_explain_shows_each_term_field_and_points(run_cli):
    result = run_cli("search", "refund payment", "--catalog", str(DEMO), "-n", "1", "--explain")
    assert result.code == 0
    assert "1. refundPayment" in result.stdout
    explained = [
        line.split() for line in result.stdout.splitlines() if line.strip().startswith(("refund ", "payment "))
    ]
    assert {row[1] for row in explained} >= {"name", "description"}


def test_json_is_stable_and_alone_on_stdout(run_cli):
    result = run_cli("search", "send an email", "--catalog", str(DEMO), "-f", "json", "-n", "2")
    assert result.code == 0
    payload = result.json()
    # keys are API: added ("unmatched", the query's words no tool contains), never renamed
    assert set(payload) == {"query", "ranker", "category", "max_results", "hits", "unmatched"}
    assert payload["max_results"] == 2 and len(payload["hits"]) == 2 and payload["unmatched"] == []
    hit = payload["hits"][0]
    assert set(hit) == {"rank", "name", "score", "category", "matched_fields", "description", "explanation"}
    assert hit["name"] == "sendEmail"
    assert sum(part["points"] for part in hit["explanation"]) == pytest.approx(hit["score"])
    assert result.stderr == ""


def test_category_filter_and_unknown_category(run_cli):
    result = run_cli("search", "status", "--catalog", str(DEMO), "--category", "Payments", "-f", "json")
    assert result.code == 0
    assert {h["category"] for h in result.json()["hits"]} == {"payments"}
    bad = run_cli("search", "status", "--catalog", str(DEMO), "--category", "payment")
    assert bad.code == 2
    assert bad.stdout == ""
    assert "no tool has category 'payment' (did you mean 'payments'?)" in bad.stderr


def test_no_match_is_honest(run_cli):
    result = run_cli("search", "quantum chromodynamics lattice", "--catalog", str(DEMO))
    assert result.code == 0
    assert result.stdout == ""
    assert "no tool matches" in result.stderr


@pytest.mark.parametrize("query", ["   ", "?!…", "a the of"])
def test_blank_punctuation_or_stop_word_query_is_an_error_with_default_ranker(run_cli, query):
    result = run_cli("search", query, "--catalog", str(DEMO))
    assert result.code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert "query" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("value", "count"), [("3", 3), (" 2 ", 2), ("2.0", 2), ("500", 50)])
def test_max_results_accepts_numeric_strings_and_clamps(run_cli, value, count):
    result = run_cli("search", "a", "--catalog", str(DEMO), "--ranker", "classic", "-n", value, "-f", "json")
    assert result.code == 0
    assert result.json()["max_results"] == count
    assert len(result.json()["hits"]) == count


@pytest.mark.parametrize("value", ["0", "-3", " 0.0 "])
def test_max_results_below_one_is_an_error_not_one(run_cli, value):
    result = run_cli("search", "weather", "--catalog", str(DEMO), "-n", value)
    assert result.code == 2 and result.stdout == ""
    assert f"--max-results must be at least 1, not {value.strip()}" in result.stderr


@pytest.mark.parametrize("value", ["three", "2.5", "true"])
def test_max_results_rejects_non_numbers(run_cli, value):
    result = run_cli("search", "weather", "--catalog", str(DEMO), "-n", value)
    assert result.code == 2 and result.stdout == ""
    assert "max results must be a whole number" in result.stderr


def test_unknown_ranker_and_format(run_cli):
    result = run_cli("search", "weather", "--catalog", str(DEMO), "--ranker", "clasic")
    assert result.code == 2 and result.stdout == ""
    assert "unknown ranker 'clasic' (did you mean 'classic'?)" in result.stderr
    result = run_cli("search", "weather", "--catalog", str(DEMO), "--format", "jsn")
    assert result.code == 2 and "did you mean 'json'" in result.stderr


def test_catalog_lists_tools_with_source_lines_and_summary(run_cli):
    result = run_cli("catalog", "--catalog", str(DEMO), "-f", "json")
    assert result.code == 0
    payload = result.json()
    names = {t["name"] for t in payload["tools"]}
    assert {"getWeather", "sendEmail", "currentTime", "askUser"} <= names
    assert payload["resident"] == ["currentTime", "askUser"] or set(payload["resident"]) == {"currentTime", "askUser"}
    weather = next(t for t in payload["tools"] if t["name"] == "getWeather")
    assert weather["source"].endswith("weather.yaml:" + weather["source"].rsplit(":", 1)[1])
    assert int(weather["source"].rsplit(":", 1)[1]) > 1
    table = run_cli("catalog", "--catalog", str(DEMO))
    assert "64 tools (2 resident, 62 searchable) in 11 categories" in table.stdout


def test_version_and_help(run_cli):
    result = run_cli("--version")
    assert result.code == 0 and result.stdout.strip() == f"toolsearch {__version__}"
    bare = run_cli()
    assert bare.code == 0 and "search" in bare.stdout and "catalog" in bare.stdout


def test_usage_error_exit_code_two(run_cli):
    result = run_cli("search")
    assert result.code == 2
    assert "Missing argument" in result.stdout + result.stderr


# --- bad input: one line on stderr, exit 2, nothing on stdout, no traceback -------------------

BAD_INPUTS = {
    "malformed": (
        {"bad.yaml": 'tools:\n  - name: a\n    description: "x\n  - name: b\n'},
        ["bad.yaml"],
        "bad.yaml:5: malformed YAML: found unexpected end of stream while scanning a quoted scalar (started at line 3)",
    ),
    "unknown-field": (
        {"bad.yaml": "tools:\n  - name: a\n    descripton: hi\n"},
        ["bad.yaml"],
        "bad.yaml:3: tool 'a', field 'descripton': unknown field (did you mean 'description'?)",
    ),
    "missing-name": (
        {"bad.yaml": "tools:\n  - name: ok\n  - description: no name\n"},
        ["bad.yaml"],
        "bad.yaml:3: field 'name': a tool needs a non-empty 'name'",
    ),
    "duplicate-across-files": (
        {"one.yaml": "tools:\n  - name: dup\n", "two.yaml": "- name: other\n- name: dup\n"},
        ["one.yaml", "two.yaml"],
        "two.yaml:2: tool 'dup', field 'name': duplicate tool name (first defined at one.yaml:2)",
    ),
    "invalid-schema": (
        {"bad.yaml": "tools:\n  - name: s\n    parameters:\n      city: {type: 5}\n"},
        ["bad.yaml"],
        "bad.yaml:4: tool 's', field 'parameters.city': unknown JSON Schema type 5",
    ),
    "schema-required-not-a-list": (
        {"bad.yaml": "tools:\n  - name: s\n    parameters:\n      type: object\n      required: city\n"},
        ["bad.yaml"],
        "bad.yaml:5: tool 's', field 'parameters': 'required' must be a list of property names",
    ),
    "reserved-name": (
        {"bad.yaml": "tools:\n  - name: toolSearch\n"},
        ["bad.yaml"],
        "bad.yaml:2: tool 'toolSearch', field 'name': the name 'toolSearch' is reserved",
    ),
    "duplicate-yaml-key": (
        {"bad.yaml": "tools:\n  - name: a\n    description: one\n    description: two\n"},
        ["bad.yaml"],
        "bad.yaml:4: duplicate key 'description' (first at line 3)",
    ),
    "python-import-error": (
        {"tools.py": "import os\nx = 1\nraise RuntimeError('boom')\n"},
        ["tools.py"],
        "tools.py:3: cannot import: RuntimeError: boom",
    ),
    "python-syntax-error": (
        {"tools.py": "def f(:\n    pass\n"},
        ["tools.py"],
        "tools.py:1: cannot import: SyntaxError",
    ),
    "missing-file": ({}, ["nope.yaml"], "nope.yaml: no such file"),
    "unknown-module": ({}, ["no_such_pkg.tools"], "no_such_pkg.tools: no module named 'no_such_pkg'"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_is_one_line_exit_two(run_cli, tmp_path, monkeypatch, write, case):
    files, sources, expected = BAD_INPUTS[case]
    for name, text in files.items():
        write(name, text)
    monkeypatch.chdir(tmp_path)
    args = ["search", "weather"]
    for source in sources:
        args += ["--catalog", source]
    result = run_cli(*args)
    assert result.code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert expected in result.stderr.replace("\n", " ") or expected in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_debug_shows_a_traceback(run_cli, tmp_path, monkeypatch, write):
    write("bad.yaml", "tools:\n  - name: a\n    descripton: hi\n")
    monkeypatch.chdir(tmp_path)
    result = run_cli("--debug", "search", "weather", "--catalog", "bad.yaml")
    assert result.code == 2
    assert "Traceback" in result.stderr
    assert result.stderr.rstrip().splitlines()[-1].startswith("error: bad.yaml:3:")


def test_console_script_and_python_dash_m_in_real_processes(tmp_path):
    import shutil
    import subprocess
    import sys

    env = clean_env(PATH="/usr/bin:/bin", PYTHONIOENCODING="utf-8", COLUMNS="120")
    module = subprocess.run(
        [*TOOLSEARCH, "search", "查询城市天气", "-c", str(DEMO), "-f", "json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,
        env=env,
    )
    assert module.returncode == 0, module.stderr
    assert '"name": "getWeather"' in module.stdout
    script = shutil.which("toolsearch", path=str(__import__("pathlib").Path(sys.executable).parent))
    if script:
        table = subprocess.run(
            [script, "search", "weather"], capture_output=True, text=True, encoding="utf-8", cwd=tmp_path, env=env
        )
        assert table.returncode == 0, table.stderr
        assert "getWeather" in table.stdout and "ranker default" in table.stdout


def test_search_context_hides_tools_the_context_may_not_see_and_still_fills_the_slots(run_cli):
    everyone = run_cli("search", "delete a user account", "--catalog", str(DEMO), "-n", "3", "-f", "json").json()
    admin_tools = {t.name for t in load_catalog([str(DEMO)]).tools if t.requires}
    assert {h["name"] for h in everyone["hits"]} & admin_tools  # without --context every tool is searched
    member = run_cli(
        "search", "delete a user account", "--catalog", str(DEMO), "-n", "3", "--context", "role=member", "-f", "json"
    ).json()
    assert member["context"] == {"role": "member"} and len(member["hits"]) == 3
    assert not {h["name"] for h in member["hits"]} & admin_tools
    admin = run_cli(
        "search", "delete a user account", "--catalog", str(DEMO), "-n", "3", "--context", "role=admin", "-f", "json"
    ).json()
    assert [h["name"] for h in admin["hits"]] == [h["name"] for h in everyone["hits"]]
    assert [h["score"] for h in admin["hits"]] == [h["score"] for h in everyone["hits"]]  # the same scores
    table = run_cli("search", "delete a user account", "--catalog", str(DEMO), "--context", "role=member")
    assert "context role=member" in table.stdout and not set(table.stdout.split()) & admin_tools
    bad = run_cli("search", "x", "--catalog", str(DEMO), "--context", "role")
    assert bad.code == 2 and "--context takes key=value, not 'role'" in bad.stderr
