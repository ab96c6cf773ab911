"""Shared pieces of the ``toolsearch serve`` tests: real upstream servers (PyPI and npm), the
gateway started as a real process, and the official ``mcp`` client talking to it."""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, npm_mcp_server

PYTHON = shlex.quote(sys.executable)


def real_sources(*names: str) -> list[str]:
    """Live sources of real servers (``time``/``fetch`` from PyPI, ``memory``/``everything`` from
    npm); skip the test when one is not installed."""
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    out = []
    for name in names:
        if name in ("time", "fetch"):
            if importlib.util.find_spec(f"mcp_server_{name}") is None:
                pytest.skip(f"mcp-server-{name} is not installed (pip install -e '.[test]')")
            out.append(f"{name}=mcp+stdio:{PYTHON} -m mcp_server_{name}")
            continue
        node, script = npm_mcp_server(name)
        if name == "memory":  # its graph file: by default beside its code, in the (shared, read-only) checkout
            memory = Path(tempfile.mkdtemp(prefix="toolsearch-memory-")) / "memory.jsonl"
            command = f"env MEMORY_FILE_PATH={shlex.quote(str(memory))} {shlex.quote(node)} {shlex.quote(str(script))}"
            out.append(f"{name}=mcp+stdio:{command}")
            continue
        out.append(f"{name}=mcp+stdio:{shlex.quote(node)} {shlex.quote(str(script))}")
    return out


def gateway_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def gateway_args(sources: list[str], *extra: str) -> list[str]:
    args = ["-m", "toolsearch_cli", "serve"]
    for source in sources:
        args += ["--catalog", source]
    return [*args, *extra]


def stdio_params(sources: list[str], *extra: str) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=gateway_args(sources, *extra), env=gateway_env())


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def json_of(result: Any) -> Any:
    return json.loads(text_of(result))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen | None, what: str, timeout: float = 90) -> None:
    """Return once something listens on loopback ``port``; fail the test, naming ``what``, when
    ``process`` (the server started for it) has ended or ``timeout`` seconds went by (the
    benchmarks' :func:`benchmarks.common.port_opened`). The timeout is only reached on failure: a
    machine busy with other test workers starts a server slowly."""
    from benchmarks.common import port_opened

    if not port_opened(port, process, timeout):
        pytest.fail(f"{what} did not start")


class HttpGateway:
    """``toolsearch serve --http`` as a real process (stopped, with its upstreams, on exit)."""

    def __init__(self, sources: list[str], *extra: str, stderr: Any = subprocess.DEVNULL) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process = subprocess.Popen(
            [sys.executable, *gateway_args(sources, "--http", f"127.0.0.1:{self.port}", *extra)],
            env=gateway_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )

    def __enter__(self) -> HttpGateway:
        try:
            wait_for_port(self.port, self.process, "toolsearch serve --http")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def pids_with(marker: str) -> list[int]:
    """Processes whose environment has ``TS_SERVE_MARK=marker`` (an upstream started by a test)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if f"TS_SERVE_MARK={marker}".encode() in environ.split(b"\0"):
            out.append(int(entry.name))
    return out


SCRIPTED = Path(__file__).resolve().parent / "servers" / "scripted_server.py"


def scripted_source(alias: str, tools: list[dict[str, Any]], folder: Path) -> str:
    """A live source (``ALIAS=mcp+stdio:...``) of ``tests/servers/scripted_server.py`` serving
    these raw MCP tool definitions (a tool's ``_result``: what its call answers)."""
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    path = folder / f"{alias}-tools.json"
    path.write_text(json.dumps(tools), encoding="utf-8")
    return f"{alias}=mcp+stdio:{PYTHON} {shlex.quote(str(SCRIPTED))} {shlex.quote(str(path))} --name {alias}"


def raw_tools_of(catalog: Any) -> list[dict[str, Any]]:
    """A catalog's tools as an MCP server lists them (name, description, input schema)."""
    return [{"name": t.name, "description": t.description, "inputSchema": t.parameters} for t in catalog.tools]


def runner_of(catalog: Any, alias: str) -> Any:
    """An upstream (as the gateway core reads one, nothing started) that lists every tool of
    ``catalog``: the server ``--catalog-via ALIAS`` says runs a catalog file's tools."""
    from types import SimpleNamespace

    return SimpleNamespace(
        source=f"{alias}=mcp+stdio:true",
        server_name=alias,
        raw_tools=raw_tools_of(catalog),
        live=SimpleNamespace(alias=alias),
        ready=True,
    )


def admin_only_ops(folder: Path) -> list[str]:
    """Sources serving one tool only ``role=admin`` may see: a catalog file's ``drop_database``
    (``requires: {role: admin}``), run by the upstream ``ops`` (give ``--catalog-via ops``)."""
    catalog = folder / "ops.yaml"
    catalog.write_text(
        "requires: {role: admin}\ntools:\n  - name: drop_database\n    description: Drop a production database.\n",
        encoding="utf-8",
    )
    runner = scripted_source("ops", [{"name": "drop_database", "inputSchema": {"type": "object"}}], folder)
    return [str(catalog), runner]
