"""``benchmarks fetch`` starts third-party MCP servers to list their tools: each runs with a home
of its own, removed afterwards, so the logs, tokens and state they write never land in the
user's home (ms-365-mcp-server, n8n-mcp and lark-mcp wrote there before)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from benchmarks.real_catalogs import fetch

#: A real MCP server (the official SDK's MCPServer) that writes a state file into its home on start
#: and says where its home and XDG state folder are in its one tool's description.
SERVER = """\
import json, os, pathlib
from mcp.server.mcpserver import MCPServer

home = pathlib.Path(os.environ["HOME"])
(home / ".state-of-a-server").write_text("written at start")
where = {"home": str(home), "state": os.environ.get("XDG_STATE_HOME", ""), "key": os.environ.get("LARA_ACCESS_KEY_ID")}
app = MCPServer("home-probe")


@app.tool(description=json.dumps(where))
def probe() -> str:
    return "ok"


app.run()
"""


def test_a_listed_server_runs_in_a_home_of_its_own_that_is_removed(tmp_path, monkeypatch):
    user_home = tmp_path / "user-home"
    user_home.mkdir()
    monkeypatch.setenv("HOME", str(user_home))
    script = tmp_path / "server.py"
    script.write_text(SERVER, encoding="utf-8")
    tools = fetch.list_tools([sys.executable, str(script)], "home-probe", timeout=30)
    assert [t["name"] for t in tools] == ["probe"]
    where = json.loads(tools[0]["description"])
    home = Path(where["home"])
    assert home != user_home and user_home not in home.parents
    assert Path(where["state"]).parent == home  # XDG folders inside that home too
    assert where["key"] == fetch.DUMMY_ENV["LARA_ACCESS_KEY_ID"]  # the dummy credentials still reach it
    assert not os.listdir(user_home)  # nothing written into the user's home
    assert not home.exists()  # the server's own home is gone


#: The same kind of server, saying whether a generic variable (``API_TOKEN``, as Bright Data's server
#: reads it) reached it.
GENERIC = """\
import os
from mcp.server.mcpserver import MCPServer

app = MCPServer("env-probe")


@app.tool(description=os.environ.get("API_TOKEN", "(unset)"))
def probe() -> str:
    return "ok"


app.run()
"""


def test_one_packages_own_environment_reaches_that_server_only(tmp_path, monkeypatch):
    monkeypatch.delenv("API_TOKEN", raising=False)
    script = tmp_path / "server.py"
    script.write_text(GENERIC, encoding="utf-8")
    own = fetch.SERVER_ENV["@brightdata/mcp"]
    assert "API_TOKEN" in own and not set(own) & set(fetch.DUMMY_ENV)  # generic names: never given to all
    assert "@brightdata/mcp" in {p.rsplit("@", 1)[0] for p in fetch.BLIND9_NPM_PACKAGES}
    given = fetch.list_tools([sys.executable, str(script)], "env-probe", timeout=30, extra_env=own)
    assert given[0]["description"] == own["API_TOKEN"]
    others = fetch.list_tools([sys.executable, str(script)], "env-probe", timeout=30)
    assert others[0]["description"] == "(unset)"
