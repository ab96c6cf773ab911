"""A lone UTF-16 surrogate escape (``"\\ud800"``) is valid JSON but not text: every JSON reader
refuses it with file:line instead of crashing when the value is printed or written back."""

from __future__ import annotations

import json

from ..conftest import ROOT

DEMO = str(ROOT / "catalogs" / "demo")
SCRIPT = "turns:\n  - user: weather in Paris\n    steps: [{say: ok}]\n"


def test_a_state_file_with_a_lone_surrogate_is_refused(run_cli, write, tmp_path):
    write("s.sim.yaml", SCRIPT)
    state = write(
        "state.json",
        '{"format": "toolsearch.run-state",\n "metadata": {"agentsflex.toolsearch.activeToolNames": [],\n'
        '  "other": "\\ud800"}}',
    )
    for output in ("json", "table"):
        result = run_cli(
            "simulate", str(tmp_path / "s.sim.yaml"), "--catalog", DEMO, "--mode", "agent", "--state", str(state),
            "--format", output,
        )  # fmt: skip
        assert result.code == 2, result.stderr
        assert result.stderr.strip() == f"error: {state}:3: '\\ud800' is half of a UTF-16 surrogate pair, not text"


def test_a_replay_log_with_a_lone_surrogate_is_refused_and_a_pair_is_fine(run_cli, write):
    bad = write("bad.json", '[{"role": "user", "content": "hi \\udfff"}]')
    result = run_cli("simulate", "--replay", str(bad), "--catalog", DEMO, "--format", "json")
    assert result.code == 2 and "'\\udfff' is half of a UTF-16 surrogate pair" in result.stderr
    good = write("good.json", '[{"role": "user", "content": "weather \\ud83d\\ude00"}]')
    result = run_cli("simulate", "--replay", str(good), "--catalog", DEMO, "--format", "json")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["messages"][0]["content"] == "weather 😀"
