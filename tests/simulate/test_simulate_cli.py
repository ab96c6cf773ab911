"""``toolsearch simulate``: every option, exit codes (0 ok, 1 --check failures, 2 bad input), JSON and replay."""

from __future__ import annotations

import json
import re

import pytest

from toolsearch_cli.disclosure import ACTIVE_TOOL_NAMES_KEY

from ..conftest import ROOT, TOOLSEARCH

SCENARIOS = ROOT / "catalogs" / "scenarios"
ZH = SCENARIOS / "weather-email.zh.sim.yaml"
EN = SCENARIOS / "weather-email.en.sim.yaml"

CATALOG = """\
tools:
  - name: currentTime
    resident: true
    description: Return the current time
  - name: getWeather
    description: Get the weather forecast for a city
    tags: [weather]
    parameters:
      city: {type: string, required: true}
  - name: sendEmail
    description: Send an email message to an address
    tags: [email]
    parameters:
      address: {type: string, required: true}
  - name: readEmail
    description: Read an email message from the inbox
    tags: [email]
  - name: deleteUser
    description: Delete a user account
    requires: {role: admin}
groups:
  - name: admin
    system_prompt: Log admin actions.
    tools: [deleteUser]
    match: {context: {role: admin}}
"""


def script_text(steps: str, extra: str = "") -> str:
    return f"catalog: cat.yaml\n{extra}turns:\n  - user: weather then email\n    steps:\n{steps}"


SEARCH_WEATHER = "      - call: {name: toolSearch, arguments: {query: weather forecast, maxResults: 1}}\n"
CALL_WEATHER = "      - call: {name: getWeather, arguments: {city: Paris}, result: sunny}\n"
SEARCH_EMAIL = "      - call: {name: toolSearch, arguments: {query: send email, maxResults: 1}}\n"
SAY = "      - say: done\n"


@pytest.fixture
def scenario(write):
    write("cat.yaml", CATALOG)

    def make(steps: str, extra: str = "", name: str = "s.sim.yaml"):
        return str(write(name, script_text(steps, extra)))

    return make


def test_shipped_chinese_scenario_prints_snapshots_and_passes_check(run_cli):
    result = run_cli("simulate", str(ZH), "--check")
    assert result.code == 0, result.stderr
    assert result.stderr == ""
    for n in range(1, 6):
        assert f"request {n}" in result.stdout
    assert "all 18 checks passed" in result.stdout
    shares = [float(x) for x in re.findall(r"= ([\d.]+)% of the all-tools baseline", result.stdout)]
    assert len(shares) == 5 and max(shares) <= 20.0
    assert "per request at most" in result.stdout


def test_shipped_english_scenario_passes_check_under_both_policies(run_cli):
    result = run_cli("simulate", str(EN), "--check", "--policy", "latest,cumulative")
    assert result.code == 0, result.stdout + result.stderr
    assert "policies side by side" in result.stdout
    totals = result.stdout[result.stdout.index("policy totals") :]
    assert re.search(r"tool tokens\s+│\s+\d+\s+│\s+\d+", totals)
    assert re.search(r"failed checks\s+│\s+0\s+│\s+0", totals)


def test_json_transcript_shows_latest_replacing_weather_with_email(run_cli):
    data = run_cli("simulate", str(ZH), "--format", "json").json()
    assert data["format"] == "toolsearch.transcript" and data["ok"] is True
    requests = data["requests"]
    assert "getWeather" in requests[1]["disclosed"]
    assert "sendEmail" in requests[3]["disclosed"] and "getWeather" not in requests[3]["disclosed"]
    for request in requests:
        tokens = request["tokens"]
        assert tokens["tools"] <= 0.2 * tokens["baseline_tools"]
        assert tokens["request"] == tokens["tools"] + tokens["messages"]
    assert data["summary"]["max_tool_share"] <= 0.2
    assert data["summary"]["searches"] == 2 and data["summary"]["requests"] == 5
    assert data["catalog"] == [str(ROOT / "catalogs" / "demo")]
    assert data["messages"][0]["role"] == "system"


def test_check_exits_1_on_a_failed_expectation(run_cli, scenario):
    step = (
        "      - expect: {visible: [sendEmail]}\n"
        "        call: {name: getWeather, arguments: {city: Paris}, result: sunny}\n"
    )
    path = scenario(SEARCH_WEATHER + step + SAY)
    result = run_cli("simulate", path, "--check")
    assert result.code == 1
    assert "expected 'sendEmail' to be visible" in result.stdout
    assert run_cli("simulate", path).code == 0  # without --check: report only


def test_check_exits_1_on_a_protocol_error_calling_an_undisclosed_tool(run_cli, scenario):
    path = scenario(CALL_WEATHER + SAY)
    result = run_cli("simulate", path, "--check")
    assert result.code == 1
    assert "protocol error not-visible" in result.stdout


@pytest.mark.parametrize(
    "call, kind",
    [
        ("{name: noSuchTool, arguments: {}}", "unknown-tool"),
        ("{name: getWeather, arguments: {town: Paris}}", "malformed-arguments"),
        ("{name: getWeather, arguments: '{\"city\": '}", "malformed-arguments"),
    ],
)
def test_protocol_errors_are_flagged(run_cli, scenario, call, kind):
    path = scenario(SEARCH_WEATHER + f"      - call: {call}\n" + SAY)
    result = run_cli("simulate", path, "--check", "--format", "json")
    assert result.code == 1
    kinds = [f["kind"] for r in result.json()["requests"] for f in r["findings"]]
    assert kind in kinds


def test_declared_protocol_errors_are_expected_and_pass_check(run_cli, scenario):
    step = (
        "      - expect: {protocol_errors: [not-visible]}\n        call: {name: getWeather, arguments: {city: Paris}}\n"
    )
    path = scenario(step + SAY)
    result = run_cli("simulate", path, "--check")
    assert result.code == 0, result.stdout


def test_bad_script_is_a_one_line_error_with_file_and_line(run_cli, scenario):
    path = scenario("      - call: {name: toolSearch, argumnts: {query: x}}\n")
    result = run_cli("simulate", path)
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert re.search(r"s\.sim\.yaml:5: .*unknown key 'argumnts'.*did you mean 'arguments'", lines[0])


@pytest.mark.parametrize(
    "text, needle",
    [
        ("turns: []\n", "s.sim.yaml:1: field 'turns'"),
        ("turns:\n  - user: hi\n", "s.sim.yaml:2: field 'steps'"),
        ("policy: newest\nturns:\n  - user: hi\n    steps: [{say: x}]\n", "s.sim.yaml:1: field 'policy'"),
        ("turns:\n  - user: hi\n    steps:\n      - {}\n", "s.sim.yaml:4:"),
        ("turns: [\n", "s.sim.yaml:2: malformed YAML"),
    ],
)
def test_more_bad_scripts(run_cli, write, text, needle):
    result = run_cli("simulate", str(write("s.sim.yaml", text)))
    assert result.code == 2
    assert needle in result.stderr and "Traceback" not in result.stderr


def test_policy_cumulative_and_max_active(run_cli, scenario):
    path = scenario(SEARCH_WEATHER + CALL_WEATHER + SEARCH_EMAIL + SAY)
    latest = run_cli("simulate", path, "--format", "json").json()
    assert latest["requests"][3]["disclosed"] == ["sendEmail"]
    cumulative = run_cli("simulate", path, "--policy", "cumulative", "--format", "json").json()
    assert cumulative["policy"] == "cumulative"
    assert cumulative["requests"][3]["disclosed"] == ["sendEmail", "getWeather"]  # most recent first
    capped = run_cli("simulate", path, "--policy", "cumulative", "--max-active", "1", "--format", "json").json()
    assert capped["requests"][3]["disclosed"] == ["sendEmail"]


def test_comparison_json_has_one_run_per_policy(run_cli, scenario):
    path = scenario(SEARCH_WEATHER + CALL_WEATHER + SEARCH_EMAIL + SAY)
    data = run_cli("simulate", path, "--policy", "latest,cumulative", "--format", "json").json()
    assert data["format"] == "toolsearch.comparison"
    assert [r["policy"] for r in data["runs"]] == ["latest", "cumulative"]
    assert data["runs"][0]["summary"]["tool_tokens"] < data["runs"][1]["summary"]["tool_tokens"]


def test_context_option_reveals_permitted_tools_and_matches_groups(run_cli, scenario):
    path = scenario("      - call: {name: toolSearch, arguments: {query: delete user account}}\n" + SAY)
    plain = run_cli("simulate", path, "--format", "json").json()
    assert plain["requests"][0]["reply"]["tool_calls"][0]["search"]["names"] == []
    assert "deleteUser" not in plain["requests"][1]["tools"][0]["name"]
    admin = run_cli("simulate", path, "--context", "role=admin", "--format", "json").json()
    first = admin["requests"][0]
    assert first["groups"] == ["admin"] and any(
        t["name"] == "deleteUser" and t["role"] == "group" for t in first["tools"]
    )
    assert first["system_prompt_added"] == "Log admin actions."
    assert admin["context"] == {"role": "admin"}


def test_agent_mode_saves_and_restores_state_through_a_file(run_cli, scenario, tmp_path):
    state = tmp_path / "run.json"
    first = scenario(SEARCH_WEATHER + SAY, name="first.sim.yaml")
    result = run_cli("simulate", first, "--mode", "agent", "--state", str(state), "--format", "json")
    assert result.code == 0, result.stderr
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert saved["metadata"][ACTIVE_TOOL_NAMES_KEY] == ["getWeather"]
    second = scenario(
        "      - expect: {hits: [getWeather]}\n"
        "        call: {name: getWeather, arguments: {city: Oslo}, result: rain}\n" + SAY,
        name="second.sim.yaml",
    )
    restored = run_cli("simulate", second, "--mode", "agent", "--state", str(state), "--check")
    assert restored.code == 0, restored.stdout
    assert "restored run state" in restored.stdout and "active getWeather" in restored.stdout
    # chat mode has no run state: the same script fails there, since nothing was searched
    assert run_cli("simulate", second, "--check").code == 1


def test_state_needs_agent_mode_and_one_policy(run_cli, scenario, tmp_path):
    path = scenario(SAY)
    result = run_cli("simulate", path, "--state", str(tmp_path / "s.json"))
    assert result.code == 2 and "--mode agent" in result.stderr
    result = run_cli(
        "simulate", path, "--mode", "agent", "--state", str(tmp_path / "s.json"), "--policy", "latest,cumulative"
    )
    assert result.code == 2


def test_corrupt_state_file_is_a_one_line_error(run_cli, scenario, write):
    bad = write("state.json", "{not json")
    result = run_cli("simulate", scenario(SAY), "--mode", "agent", "--state", str(bad))
    assert result.code == 2 and "state.json:1" in result.stderr


def test_unknown_policy_mode_and_bad_context_are_usage_errors(run_cli, scenario):
    path = scenario(SAY)
    assert "did you mean 'latest'" in run_cli("simulate", path, "--policy", "lates").stderr
    assert run_cli("simulate", path, "--mode", "batch").code == 2
    assert "key=value" in run_cli("simulate", path, "--context", "admin").stderr
    assert run_cli("simulate", path, "--max-active", "0").code == 2
    assert run_cli("simulate").code == 2
    assert run_cli("simulate", path, "--format", "xml").code == 2


def test_catalog_option_overrides_the_script_catalog(run_cli, scenario, write):
    other = write("other.yaml", "tools:\n  - name: getWeather\n    description: Weather for a city\n")
    path = scenario(SEARCH_WEATHER + SAY)
    data = run_cli("simulate", path, "--catalog", str(other), "--format", "json").json()
    assert data["catalog"] == [str(other)]
    assert [t["name"] for t in data["requests"][0]["tools"]] == ["toolSearch"]


def test_ranker_and_counter_options(run_cli, scenario):
    path = scenario(SEARCH_WEATHER + SAY)
    data = run_cli("simulate", path, "--ranker", "classic", "--counter", "chars4", "--format", "json").json()
    assert data["ranker"] == "classic" and data["counter"] == "chars4"
    assert data["requests"][0]["reply"]["tool_calls"][0]["search"]["names"] == ["getWeather"]
    assert run_cli("simulate", path, "--counter", "nope").code == 2


def test_execute_runs_python_catalog_functions(run_cli, write):
    module = ROOT / "catalogs" / "python" / "ops_tools.py"
    text = (
        f"catalog: {module}\nturns:\n  - user: restart billing\n    steps:\n"
        "      - call: {name: toolSearch, arguments: {query: restart a service, maxResults: 1}}\n"
        "      - call: {name: restartService, arguments: {service: billing}}\n"
        "      - say: done\n"
    )
    path = str(write("ops.sim.yaml", text))
    # a script's code catalog runs only when the command line names it too
    assert run_cli("simulate", path, "--execute").code == 2
    executed = run_cli("simulate", path, "--catalog", str(module), "--execute", "--format", "json").json()
    call = executed["requests"][1]["reply"]["tool_calls"][0]
    assert call["result_source"] == "function" and call["result"] == "restarted billing in staging"
    canned = run_cli("simulate", path, "--catalog", str(module), "--format", "json").json()
    call = canned["requests"][1]["reply"]["tool_calls"][0]
    assert call["result_source"] == "none" and call["result"] == "null"
    assert any("--execute" in w for w in canned["requests"][1]["warnings"])


def test_replay_of_a_transcript_reproduces_the_snapshots(run_cli, tmp_path):
    data = run_cli("simulate", str(ZH), "--format", "json").json()
    path = tmp_path / "transcript.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    replayed = run_cli(
        "simulate", "--replay", str(path), "--catalog", str(ROOT / "catalogs" / "demo"), "--format", "json"
    ).json()
    assert replayed["kind"] == "replay"
    assert [r["disclosed"] for r in replayed["requests"]] == [r["disclosed"] for r in data["requests"]]
    assert [r["tokens"]["tools"] for r in replayed["requests"]] == [r["tokens"]["tools"] for r in data["requests"]]


def test_replay_of_openai_messages_json_and_jsonl_flags_undisclosed_calls(run_cli, write):
    messages = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "getWeather", "arguments": '{"city": "Oslo"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "rain"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "b", "type": "function", "function": {"name": "toolSearch", "arguments": '{"query": "weather"}'}}
            ],
        },
        {"role": "tool", "tool_call_id": "b", "content": '["getWeather"]'},
    ]
    write("cat.yaml", CATALOG)
    as_json = write("conv.json", json.dumps(messages))
    as_jsonl = write("conv.jsonl", "\n".join(json.dumps(m) for m in messages))
    as_requests = write(
        "requests.jsonl", json.dumps({"messages": messages[:3]}) + "\n" + json.dumps({"messages": messages})
    )
    for path in (as_json, as_jsonl, as_requests):
        result = run_cli(
            "simulate", "--replay", str(path), "--catalog", str(path.parent / "cat.yaml"), "--check", "--format", "json"
        )
        assert result.code == 1, path  # getWeather was called before it was disclosed
        requests = result.json()["requests"]
        assert len(requests) == 3  # two answered requests and the pending one
        assert requests[0]["findings"][0]["kind"] == "not-visible"
        assert requests[2]["disclosed"] == ["getWeather"]
        assert result.json()["summary"]["searches"] == 1
    table = run_cli("simulate", "--replay", str(as_json), "--catalog", str(as_json.parent / "cat.yaml"))
    assert table.code == 0 and "pending" in table.stdout


def test_replay_flags_malformed_tool_calls_a_real_api_would_reject(run_cli, write):
    messages = [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "", "tool_calls": "x"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]},
    ]
    write("cat.yaml", CATALOG)
    path = write("conv.json", json.dumps(messages))
    result = run_cli(
        "simulate", "--replay", str(path), "--catalog", str(path.parent / "cat.yaml"), "--check", "-f", "json"
    )
    assert result.code == 1
    findings = [f for r in result.json()["requests"] for f in r["findings"]]
    assert [f["kind"] for f in findings] == ["malformed-tool-call", "malformed-tool-call"]
    assert "'tool_calls' must be a list" in findings[0]["message"] and '"x"' in findings[0]["message"]


def test_bad_replay_files_are_one_line_errors(run_cli, write, scenario):
    for name, text, needle in [
        ("a.jsonl", '{"role": "user", "content": "x"}\n{oops\n', "a.jsonl:2:"),
        ("b.json", '{"foo": 1}', "b.json:1:"),
        ("c.json", '[{"role": "robot"}]', "role 'robot'"),
        ("d.json", "", "empty"),
    ]:
        result = run_cli("simulate", "--replay", str(write(name, text)))
        assert result.code == 2 and needle in result.stderr, (name, result.stderr)
    assert run_cli("simulate", scenario(SAY), "--replay", str(write("e.json", "[]"))).code == 2


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.sim.yaml")), ids=lambda p: p.name)
def test_every_shipped_scenario_passes_check_under_its_policy(run_cli, path):
    result = run_cli("simulate", str(path), "--check")
    assert result.code == 0, result.stdout + result.stderr
    assert "checks passed" in result.stdout


def test_admin_scenario_fails_check_without_the_admin_role(run_cli):
    result = run_cli("simulate", str(SCENARIOS / "admin-groups.en.sim.yaml"), "--context", "role=viewer", "--check")
    assert result.code == 1
    assert "protocol error not-visible" in result.stdout and "permitted" in result.stdout


def test_script_resident_names_are_always_sent_and_never_searched(run_cli, scenario):
    path = scenario(SEARCH_WEATHER + SAY, extra="resident: [getWeather]\n")
    data = run_cli("simulate", path, "--format", "json").json()
    first = data["requests"][0]
    assert [(t["name"], t["role"]) for t in first["tools"]][:2] == [
        ("currentTime", "resident"),
        ("getWeather", "resident"),
    ]
    assert "getWeather" not in first["reply"]["tool_calls"][0]["search"]["names"]
    bad = scenario(SAY, extra="resident: [getWether]\n", name="bad.sim.yaml")
    result = run_cli("simulate", bad)
    assert result.code == 2 and "did you mean 'getWeather'" in result.stderr


def test_cumulative_agent_state_drops_stale_names_before_counting_max_active(run_cli, scenario, write):
    state = write("state.json", json.dumps({"metadata": {ACTIVE_TOOL_NAMES_KEY: ["goneTool", "readEmail"]}}))
    path = scenario(SEARCH_WEATHER + SAY)
    data = run_cli(
        "simulate",
        path,
        "--mode",
        "agent",
        "--state",
        str(state),
        "--policy",
        "cumulative",
        "--max-active",
        "2",
        "--format",
        "json",
    ).json()
    assert data["restored_active"] == ["goneTool", "readEmail"]
    assert data["requests"][0]["disclosed"] == ["readEmail"]
    assert data["requests"][1]["disclosed"] == ["getWeather", "readEmail"]  # most recent first
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert saved["metadata"][ACTIVE_TOOL_NAMES_KEY] == ["getWeather", "readEmail"]


def test_real_process_runs_the_acceptance_scenario(tmp_path):
    import subprocess

    env = {"COLUMNS": "200", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [*TOOLSEARCH, "simulate", str(ZH), "--check"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "per request at most" in done.stdout and done.stderr == ""


def test_replay_of_a_single_message_jsonl(run_cli, write):
    path = write("one.jsonl", json.dumps({"role": "user", "content": "weather?"}) + "\n")
    data = run_cli("simulate", "--replay", str(path), "--format", "json").json()
    assert len(data["requests"]) == 1 and data["requests"][0]["warnings"]


@pytest.mark.parametrize("mode", ["chat", "agent"])
def test_cumulative_keeps_the_tool_just_called_over_an_uncalled_better_hit(run_cli, scenario, mode):
    """--max-active evicts the least recently used: the called second hit outlives the uncalled first one."""
    steps = (
        "      - call: {name: toolSearch, arguments: {query: email, maxResults: 2}}\n"
        "      - call: {name: sendEmail, arguments: {address: a@example.com}, result: sent}\n" + SEARCH_WEATHER + SAY
    )
    path = scenario(steps)
    args = ("simulate", path, "--policy", "cumulative", "--max-active", "2", "--mode", mode, "-f", "json")
    disclosed = [r["disclosed"] for r in run_cli(*args).json()["requests"]]
    assert disclosed[1] == ["readEmail", "sendEmail"]  # readEmail ranks first
    assert disclosed[3] == ["getWeather", "sendEmail"]  # sendEmail was called: readEmail goes
    uncalled = scenario(
        "      - call: {name: toolSearch, arguments: {query: email, maxResults: 2}}\n" + SEARCH_WEATHER + SAY
    )
    disclosed = [r["disclosed"] for r in run_cli("simulate", uncalled, *args[2:]).json()["requests"]]
    assert disclosed[2] == ["getWeather", "readEmail"]  # nothing called: the lower-ranked hit goes


def test_the_prompt_cache_effect_of_a_policy_is_reported(run_cli):
    """The tools array is the first part of every request: a search that changes it breaks the cache there."""
    result = run_cli("simulate", str(EN), "--format", "json", "--policy", "latest")
    assert result.code == 0 and result.stderr == "", result.stderr
    cache = result.json()["summary"]["prompt_cache"]
    requests = result.json()["requests"]
    pairs = zip(requests, requests[1:], strict=False)
    changed = [r["index"] for prev, r in pairs if prev["tools"] != r["tools"]]
    assert [b["request"] for b in cache["broke_at"]] == changed and cache["breaks"] == len(changed) == 2
    assert cache["requests_reusing_tools"] == len(requests) - 1 - len(changed)
    for brk in cache["broke_at"]:
        assert 0 < brk["kept_bytes"] < brk["bytes"]  # the resident tools and toolSearch are still shared
    table = run_cli("simulate", str(EN), "--policy", "latest")
    assert table.code == 0
    assert f"prompt cache: {cache['requests_reusing_tools']} of {len(requests) - 1} requests" in table.stdout
