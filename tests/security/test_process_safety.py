"""Issue 11 items 21-24 and 28: signals, user code that prints, loops or exits, and --debug's exit code."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ..conftest import DEMO, ROOT, TOOLSEARCH


def _wait_for(path: Path, process: subprocess.Popen, seconds: float = 60) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.read_text(encoding="utf-8"):
            return path.read_text(encoding="utf-8")
        if process.poll() is not None:
            pytest.fail(f"toolsearch ended early: {process.communicate()}")
        time.sleep(0.05)
    process.kill()
    pytest.fail("timed out")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            return "zombie" not in status.read()
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("servers", [1, 2])
@pytest.mark.parametrize(
    ("sig", "code", "word"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")]
)
def test_a_signal_stops_the_live_mcp_servers_it_started(tmp_path, sig, code, word, servers):
    """21: real stdio MCP servers (they never answer tools/list) are stopped when toolsearch is, also
    when several are read at once (in worker threads, which signals do not reach)."""
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    pidfiles = [tmp_path / f"server{i}.pid" for i in range(servers)]
    catalogs = []
    for i, pidfile in enumerate(pidfiles):
        argv = (sys.executable, str(ROOT / "tests" / "servers" / "stalling_server.py"), str(pidfile))
        catalogs += ["-c", f"s{i}=mcp+stdio:" + " ".join(shlex.quote(p) for p in argv)]
    process = subprocess.Popen(
        [*TOOLSEARCH, "search", "weather", *catalogs],
        env=dict(os.environ, TOOLSEARCH_MCP_TIMEOUT="120"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    pids: list[int] = []
    try:
        pids = [int(_wait_for(pidfile, process)) for pidfile in pidfiles]
        process.send_signal(sig)
        _, err = process.communicate(timeout=60)  # not the 120 s the servers would be waited for
        deadline = time.monotonic() + 30  # SIGTERM, SIGKILL 1 s later: carried out late on a loaded machine
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        still = [pid for pid in pids if _alive(pid)]
    finally:  # never leave a process behind, whatever failed
        if process.poll() is None:
            process.kill()
            process.communicate()
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert not still, "an MCP server outlived toolsearch"
    assert process.returncode == code
    assert err == f"error: {word}\n"


def test_ctrl_c_while_a_module_loops_at_import_is_interrupted_not_an_import_error(tmp_path):
    """22: exit 130 "interrupted", not "cannot import: KeyboardInterrupt" (exit 2)."""
    started = tmp_path / "started"
    module = tmp_path / "loops.py"
    module.write_text(f"open({str(started)!r}, 'w').write('yes')\nwhile True:\n    pass\n", encoding="utf-8")
    process = subprocess.Popen(
        [*TOOLSEARCH, "search", "x", "-c", str(module)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        _wait_for(started, process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert (process.returncode, err) == (130, "error: interrupted\n")


NOISY_MODULE = '''
import os, sys
from toolsearch_cli import tool

print("importing the noisy module")
os.write(1, b"raw bytes on descriptor 1\\n")


@tool(category="ops")
def restartService(service: str) -> str:
    """Restart a service by name."""
    print("restarting", service)
    os.write(1, b"the tool wrote to descriptor 1\\n")
    return f"restarted {service}"


@tool(category="ops")
def quitProcess(code: int = 0) -> str:
    """Quit the process (a tool that must not end toolsearch)."""
    sys.exit(code)
'''

SCRIPT = """catalog: {module}
turns:
  - user: restart billing
    steps:
      - call: {{name: toolSearch, arguments: {{query: restart a service quit process, maxResults: 5}}}}
      - call: {{name: {tool}, arguments: {args}}}
        expect: {{visible: [{tool}]}}
      - say: done
"""


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run([*TOOLSEARCH, *argv], capture_output=True, text=True, timeout=120)


def test_what_a_module_prints_at_import_goes_to_stderr_not_into_json_or_converted_output(tmp_path):
    """23: a real process, so descriptor-level writes are caught too."""
    module = tmp_path / "noisy.py"
    module.write_text(NOISY_MODULE, encoding="utf-8")
    for argv in (
        ["search", "restart", "-c", str(module), "--format", "json"],
        ["catalog", "convert", "-c", str(module), "--to", "openai"],
        ["lint", str(module), "--format", "sarif"],
    ):
        out = _run(argv)
        assert out.returncode in (0, 1), out.stderr
        json.loads(out.stdout)  # nothing but the output
        assert "importing the noisy module" in out.stderr and "raw bytes on descriptor 1" in out.stderr


def test_what_an_executed_tool_prints_goes_to_stderr(tmp_path):
    module = tmp_path / "noisy.py"
    module.write_text(NOISY_MODULE, encoding="utf-8")
    script = tmp_path / "run.sim.yaml"
    script.write_text(SCRIPT.format(module=module, tool="restartService", args="{service: billing}"), encoding="utf-8")
    out = _run(["simulate", str(script), "--catalog", str(module), "--execute", "--check", "--format", "json"])
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["requests"][1]["reply"]["tool_calls"][0]["result"] == "restarted billing"
    assert "restarting billing" in out.stderr and "the tool wrote to descriptor 1" in out.stderr


@pytest.mark.parametrize("code", [0, 3])
def test_a_tool_raising_system_exit_never_ends_toolsearch(tmp_path, code):
    """24: SystemExit(0) from a tool under --execute --check made toolsearch exit 0 with no output."""
    module = tmp_path / "noisy.py"
    module.write_text(NOISY_MODULE, encoding="utf-8")
    script = tmp_path / "run.sim.yaml"
    script.write_text(SCRIPT.format(module=module, tool="quitProcess", args=f"{{code: {code}}}"), encoding="utf-8")
    out = _run(["simulate", str(script), "--catalog", str(module), "--execute", "--check", "--format", "json"])
    data = json.loads(out.stdout)
    call = data["requests"][1]["reply"]["tool_calls"][0]
    assert call["result_source"] == "function" and "SystemExit" in call["result"]
    assert any("quitProcess raised SystemExit" in w for w in data["requests"][1]["warnings"])
    table = _run(["simulate", str(script), "--catalog", str(module), "--execute"])
    assert table.returncode == 0 and "quitProcess" in table.stdout


def test_debug_internal_errors_exit_2_with_the_traceback(run_cli, monkeypatch):
    """28: with --debug an internal error printed its traceback and exited 1 (the check-failed code)."""
    from toolsearch_cli.cli import search_cmd

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(search_cmd, "run_search", broken)
    plain = run_cli("search", "weather", "-c", str(DEMO))
    assert plain.code == 2 and plain.stderr.count("\n") == 1 and "internal error: RuntimeError: a bug" in plain.stderr
    debug = run_cli("--debug", "search", "weather", "-c", str(DEMO))
    assert debug.code == 2
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.rstrip().splitlines()[-1] == "error: internal error: RuntimeError: a bug"


def _recording_naming(tmp_path, run_cli, catalog: str) -> Path:
    """A real recording (a scripted run's transcript) whose catalog is then edited to ``catalog``."""
    data = run_cli("simulate", str(ROOT / "catalogs/scenarios/weather-email.en.sim.yaml"), "--format", "json").json()
    data["catalog"] = [catalog]
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["py", "module", "stdio"])
def test_replaying_a_recording_never_runs_the_code_it_names(run_cli, tmp_path, monkeypatch, kind):
    """3: a recording naming a .py file, a module or an mcp+stdio server does not import/start it."""
    marker = tmp_path / "ran"
    code = f"open({str(marker)!r}, 'w').write('ran')\n"
    (tmp_path / "evil_tools.py").write_text(code, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    catalog = {
        "py": str(tmp_path / "evil_tools.py"),
        "module": "evil_tools",
        "stdio": f"mcp+stdio:{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'evil_tools.py'))}",
    }[kind]
    recording = _recording_naming(tmp_path, run_cli, catalog)
    result = run_cli("simulate", "--replay", str(recording))
    assert result.code == 2 and result.stderr.count("\n") == 1
    assert "the recording names the catalog" in result.stderr and "never runs code" in result.stderr
    assert "add --catalog" in result.stderr
    assert not marker.exists()
    # naming it on the command line is the user's consent
    named = run_cli("simulate", "--replay", str(recording), "--catalog", catalog)
    assert marker.exists() and "never runs code" not in named.stderr


SCRIPT_TURNS = "turns:\n  - user: hi\n    steps: [{say: hello}]\n"


@pytest.mark.parametrize("kind", ["py", "module", "stdio"])
@pytest.mark.parametrize("live", [False, True])
def test_a_script_never_runs_the_code_its_catalog_names(run_cli, tmp_path, monkeypatch, kind, live):
    """A script is data like a recording: its .py, module or mcp+stdio catalog is refused (file:line,
    field) unless --catalog names it, also before a live run sends anything."""
    marker = tmp_path / "ran"
    (tmp_path / "evil_tools.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "evil_tools", raising=False)
    catalog = {
        "py": "evil_tools.py",
        "module": "evil_tools",
        "stdio": f"mcp+stdio:{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'evil_tools.py'))}",
    }[kind]
    # the second catalog entry is the one refused: the error names its line
    script = tmp_path / "evil.sim.yaml"
    script.write_text(f"name: evil\ncatalog:\n  - {DEMO}\n  - {json.dumps(catalog)}\n{SCRIPT_TURNS}", encoding="utf-8")
    extra = ["--live", "--model", "m", "--base-url", "http://127.0.0.1:9"] if live else []
    result = run_cli("simulate", str(script), *extra)
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert f"{script}:4: field 'catalog': the script names the catalog" in result.stderr
    assert "never runs code" in result.stderr and "add --catalog" in result.stderr
    assert not marker.exists()
    if not live:  # naming it on the command line is the user's consent
        named = run_cli("simulate", str(script), "--catalog", catalog)
        assert marker.exists() and "never runs code" not in named.stderr


def test_a_script_naming_data_catalogs_runs_with_them(run_cli, tmp_path):
    (tmp_path / "cat.yaml").write_text("tools:\n  - {name: getTide, description: Tide times.}\n", encoding="utf-8")
    script = tmp_path / "data.sim.yaml"
    script.write_text(f"catalog: [cat.yaml, {DEMO}]\n{SCRIPT_TURNS}", encoding="utf-8")
    result = run_cli("simulate", str(script), "--format", "json")
    assert result.code == 0, result.stderr


def test_a_recording_naming_data_catalogs_replays_with_them(run_cli, tmp_path):
    recording = _recording_naming(tmp_path, run_cli, str(DEMO))
    result = run_cli("simulate", "--replay", str(recording), "--format", "json")
    assert result.code == 0, result.stderr
    assert result.json()["catalog"] == [str(DEMO)]
