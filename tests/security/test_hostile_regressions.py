"""One regression test per class of hostile input of issue 11 (bounds): each crashed, hung or was
accepted wrongly before; each must now be a one-line error naming the file (and line), exit 2."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.errors import CatalogError

from ..conftest import DEMO as DEMO_CATALOG
from ..conftest import ROOT, TOOLSEARCH

SCRIPT = "turns:\n  - user: weather in Paris\n    steps:\n      - say: It is sunny.\n"
ONE_TOOL = "tools:\n  - name: getWeather\n    description: Get the weather for a city.\n"


def one_line_error(result, *fragments: str) -> str:
    """The result is exit 2 with exactly one ``error:`` line holding every fragment, and no traceback."""
    assert result.code == 2, (result.code, result.stdout[-500:], result.stderr[-500:])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-2000:]
    assert "Traceback" not in result.stderr and "internal error" not in lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def nested_schema(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


# ---------------------------------------------------------------- 8. deep nesting


def test_300_level_schema_is_an_error_with_a_short_line_in_search_and_lint(run_cli, write):
    path = write("deep.json", json.dumps([{"name": "t", "inputSchema": nested_schema(300)}]))
    line = one_line_error(run_cli("search", "weather", "--catalog", str(path)), "deep.json:1", "nested deeper")
    assert len(line) < 300  # the 2.5 KB field path of a 200-level schema is cut
    lint = run_cli("lint", str(path), "--format", "json")
    assert lint.code in (1, 2) and "Traceback" not in lint.stderr
    assert "TS001" in lint.stdout


def _items_schema(levels: int) -> dict:
    """An array of arrays ... ``levels`` deep: one data level per schema level."""
    schema: dict = {"type": "string", "description": "a cell"}
    for _ in range(levels):
        schema = {"type": "array", "items": schema}
    return {"type": "object", "properties": {"grid": schema}}


@pytest.mark.parametrize("fmt", ["mcp", "openapi"])
def test_one_depth_bound_for_data_and_schemas(run_cli, write, fmt):
    """The schema walkers stopped at 64 levels while data may nest 100: a schema the data bound
    accepts (80 levels of ``items``) was refused as a schema. Now one bound holds for both, and a
    deeper schema is refused in one line naming that bound."""
    from toolsearch_cli.bounded import MAX_DEPTH

    def document(levels: int) -> str:
        schema = _items_schema(levels)
        if fmt == "mcp":
            return json.dumps([{"name": "fill", "description": "Fill a grid of cells.", "inputSchema": schema}])
        body = {"required": True, "content": {"application/json": {"schema": schema}}}
        operation = {"operationId": "fill", "summary": "Fill a grid of cells.", "requestBody": body}
        info = {"title": "t", "version": "1"}
        return json.dumps({"openapi": "3.0.3", "info": info, "paths": {"/g": {"post": operation}}})

    accepted = write("ok.json", document(80))
    result = run_cli("search", "grid of cells", "--catalog", str(accepted), "--format", "json")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["hits"][0]["name"] == "fill"
    assert run_cli("lint", str(accepted), "--format", "json").code in (0, 1)
    refused = write("deep.json", document(MAX_DEPTH + 20))
    one_line_error(run_cli("search", "x", "--catalog", str(refused)), "deep.json", f"deeper than {MAX_DEPTH}")


def test_100k_nested_json_arrays(run_cli, write):
    path = write("arrays.json", "[" * 100_000 + "]" * 100_000)
    one_line_error(run_cli("search", "x", "--catalog", str(path)), "arrays.json:1", "deeper than 100")


def test_400_level_yaml(run_cli, write):
    text = "tools:\n  - name: t\n    metadata:\n" + "".join("  " * (3 + i) + "k:\n" for i in range(400))
    path = write("deep.yaml", text)
    one_line_error(run_cli("catalog", "--catalog", str(path)), "deep.yaml:", "nested deeper")


def test_200_level_schema_error_line_is_capped(run_cli, write):
    deep = nested_schema(200)
    # a bad type at the bottom: the error names the whole path to it
    node = deep
    while node.get("properties"):
        node = node["properties"]["a"]
    node["type"] = "strang"
    path = write("deep200.json", json.dumps([{"name": "t", "inputSchema": deep}]))
    line = one_line_error(run_cli("search", "x", "--catalog", str(path)), "deep200.json")
    assert len(line) < 400


def test_deep_state_file(run_cli, write):
    state = write("state.json", '{"metadata": ' + "[" * 50_000 + "]" * 50_000 + "}")
    script = write("s.sim.yaml", SCRIPT)
    result = run_cli("simulate", str(script), "--mode", "agent", "--state", str(state))
    one_line_error(result, "state.json", "nested deeper")


# ---------------------------------------------------------------- 9. integers over 4,300 digits


def test_huge_integer_in_a_json_catalog(run_cli, write):
    path = write("big.json", '[{"name": "t", "inputSchema": {"type": "object", "maxProperties":\n' + "9" * 5000 + "}}]")
    one_line_error(run_cli("search", "x", "--catalog", str(path)), "big.json:2", "5,000 digits")


def test_huge_integer_in_a_yaml_catalog(run_cli, write):
    path = write("big.yaml", ONE_TOOL + "    metadata:\n      n: " + "9" * 5000 + "\n")
    one_line_error(run_cli("catalog", "--catalog", str(path)), "big.yaml:5", "5,000 digits")


def test_huge_integer_in_a_state_file(run_cli, write):
    state = write("state.json", '{"metadata": {"n": ' + "1" * 5000 + "}}")
    script = write("s.sim.yaml", SCRIPT)
    one_line_error(run_cli("simulate", str(script), "--mode", "agent", "--state", str(state)), "state.json:1", "digits")


def test_huge_integer_in_scripted_arguments(run_cli, write):
    catalog = write("c.yaml", ONE_TOOL + "    parameters:\n      city: string\n")
    script = write(
        "s.sim.yaml",
        "turns:\n  - user: weather\n    steps:\n      - call: {name: getWeather, arguments: {city: "
        + "7" * 5000
        + "}}\n",
    )
    one_line_error(run_cli("simulate", str(script), "--catalog", str(catalog)), "s.sim.yaml:4", "digits")


# ---------------------------------------------------------------- 10. YAML dates


def test_yaml_dates_in_metadata_and_mock_convert_to_iso_strings(run_cli, write):
    path = write("dated.yaml", ONE_TOOL + "    metadata: {since: 2024-05-01}\n    mock: {at: 2024-05-01 10:00:00}\n")
    result = run_cli("catalog", "convert", "--to", "yaml", "--catalog", str(path))
    assert result.code == 0, result.stderr
    assert "2024-05-01" in result.stdout
    openai = run_cli("catalog", "convert", "--to", "openai", "--catalog", str(path))
    assert openai.code == 0, openai.stderr
    assert json.loads(openai.stdout)["tools"][0]["x-toolsearch"]["metadata"]["since"] == "2024-05-01"


# ---------------------------------------------------------------- 12. paths over 255 bytes


@pytest.mark.parametrize("how", ["option", "env"])
def test_catalog_name_too_long(run_cli, monkeypatch, how):
    long = "x" * 300 + ".yaml"
    if how == "env":
        monkeypatch.setenv("TOOLSEARCH_CATALOG", long)
        one_line_error(run_cli("search", "weather"), "too long")
        return
    one_line_error(run_cli("search", "weather", "--catalog", long), "too long")
    one_line_error(run_cli("lint", long), "too long")


def test_state_name_too_long(run_cli, write, tmp_path):
    script = write("s.sim.yaml", SCRIPT)
    state = str(tmp_path / ("s" * 300 + ".json"))
    one_line_error(run_cli("simulate", str(script), "--mode", "agent", "--state", state), "too long")


# ---------------------------------------------------------------- 13. Python module catalogs


def test_module_tool_with_string_parameters(run_cli, write):
    path = write(
        "mod.py", "from toolsearch_cli import Tool\nTOOLS = [Tool(name='t', description='d', parameters='x')]\n"
    )
    one_line_error(run_cli("search", "x", "--catalog", str(path)), "mod.py", "'parameters'", "mapping")


def test_module_resident_not_a_list(run_cli, write):
    path = write(
        "mod2.py", "from toolsearch_cli import Tool\nTOOLS = [Tool(name='t', description='d')]\nRESIDENT = 5\n"
    )
    one_line_error(run_cli("search", "x", "--catalog", str(path)), "mod2.py", "RESIDENT")


def test_positional_only_parameters_are_refused(run_cli, write):
    path = write(
        "mod3.py",
        "from toolsearch_cli import tool\n@tool\ndef f(a: int, /, b: int) -> int:\n    '''Add.'''\n    return a + b\n",
    )
    one_line_error(run_cli("search", "x", "--catalog", str(path)), "mod3.py:3", "positional-only")


# ---------------------------------------------------------------- 14. edited baselines


@pytest.mark.parametrize(
    "ranks",
    [{"q1": {"getWeather": "1"}}, {"q1": {"getWeather": [1]}}, {"q1": ["getWeather"]}, ["q1"], {"q1": {"a": True}}],
)
def test_edited_baseline_with_wrong_types(run_cli, write, ranks):
    catalog = write("c.yaml", ONE_TOOL)
    queries = write("q.jsonl", '{"id": "q1", "query": "weather in Paris", "relevant": ["getWeather"]}\n')
    saved = write("run.json", "")
    first = run_cli("eval", "--queries", str(queries), "--catalog", str(catalog), "--save", str(saved))
    assert first.code == 0, first.stderr
    doc = json.loads(saved.read_text())
    ranker = next(iter(doc["ranks"]))
    doc["ranks"][ranker] = ranks
    saved.write_text(json.dumps(doc, indent=2))
    one_line_error(
        run_cli("eval", "--queries", str(queries), "--catalog", str(catalog), "--baseline", str(saved)), "run.json:"
    )


# ---------------------------------------------------------------- 15. schema and media type shapes


def test_schema_type_that_is_a_mapping(run_cli, write):
    path = write(
        "t.yaml", ONE_TOOL + "    parameters:\n      type: object\n      properties:\n        a: {type: {a: 1}}\n"
    )
    one_line_error(run_cli("search", "x", "--catalog", str(path)), "t.yaml:7", "'type' must be")


OPENAPI_BODY = """openapi: 3.0.0
info: {title: t, version: '1'}
paths:
  /a:
    post:
      operationId: a
      requestBody:
        content:
          application/json: myschema
"""


def test_openapi_media_type_that_is_not_a_mapping(run_cli, write):
    path = write("api.yaml", OPENAPI_BODY)
    one_line_error(run_cli("search", "x", "--catalog", str(path)), "api.yaml:9", "media type must be a mapping")


# ---------------------------------------------------------------- 16. alias bombs


def bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("field", ["parameters", "mock", "metadata"])
def test_alias_bomb_in_a_catalog(run_cli, write, field):
    lines = bomb().splitlines()
    if field == "parameters":  # inside a property's default value, where any data is allowed
        text = "    parameters:\n      city:\n        type: string\n        default:\n"
        text += "".join("          " + ln + "\n" for ln in lines)
    else:
        text = f"    {field}:\n" + "".join("      " + ln + "\n" for ln in lines)
    path = write("bomb.yaml", ONE_TOOL + text)
    result = run_cli("catalog", "convert", "--to", "openai", "--catalog", str(path))
    one_line_error(result, "bomb.yaml:", "once its aliases are expanded")


def test_alias_bomb_in_the_lint_configuration(run_cli, write, tmp_path):
    catalog = write("c.yaml", ONE_TOOL)
    config = write(".toolsearch.yaml", "lint:\n  x:\n" + "".join("    " + ln + "\n" for ln in bomb().splitlines()))
    result = run_cli("lint", str(catalog), "--config", str(config))
    one_line_error(result, ".toolsearch.yaml", "once its aliases are expanded")


# ---------------------------------------------------------------- 17. schemas that branch back to themselves


def openapi_posting(operation_id: str, root: str, schemas: dict) -> str:
    """An OpenAPI document with one POST operation whose JSON body is ``#/components/schemas/<root>``."""
    body = {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{root}"}}}}
    return json.dumps(
        {
            "openapi": "3.0.0",
            "info": {"title": "t", "version": "1"},
            "paths": {f"/{operation_id}": {"post": {"operationId": operation_id, "requestBody": body}}},
            "components": {"schemas": schemas},
        }
    )


def linked_node_openapi() -> str:
    node = {"$ref": "#/components/schemas/LinkedNode"}
    linked = {"type": "object", "properties": {"value": {"type": "string"}, "prev": node, "next": node}}
    return openapi_posting("putNode", "LinkedNode", {"LinkedNode": linked})


def fan_out_openapi(width: int = 8, levels: int = 11) -> str:
    schemas = {f"L{levels}": {"type": "string"}}
    for level in range(levels - 1, -1, -1):
        ref = {"$ref": f"#/components/schemas/L{level + 1}"}
        schemas[f"L{level}"] = {"type": "object", "properties": {f"p{i}": ref for i in range(width)}}
    return openapi_posting("fan", "L0", schemas)


MCP_LINKED = json.dumps(
    {
        "tools": [
            {
                "name": "putNode",
                "description": "Store a node of a doubly linked list.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"node": {"$ref": "#/$defs/LinkedNode"}},
                    "$defs": {
                        "LinkedNode": {
                            "type": "object",
                            "properties": {
                                "value": {"type": "string", "description": "The value."},
                                "prev": {"$ref": "#/$defs/LinkedNode"},
                                "next": {"$ref": "#/$defs/LinkedNode"},
                            },
                        }
                    },
                },
            }
        ]
    }
)


@pytest.mark.parametrize(
    "name, text", [("linked.json", linked_node_openapi()), ("fan.json", fan_out_openapi()), ("mcp.json", MCP_LINKED)]
)
def test_self_referencing_and_fanning_schemas_finish_quickly(run_cli, write, name, text):
    path = write(name, text)
    for args in (
        ("search", "node", "--catalog", str(path), "--format", "json"),
        ("lint", str(path), "--format", "json"),
        ("catalog", "--catalog", str(path), "--format", "json"),
        ("catalog", "convert", "--to", "mcp", "--catalog", str(path)),
    ):
        result = run_cli(*args)
        assert result.code in (0, 1), (args, result.stderr[-500:])
        json.loads(result.stdout)
        assert len(result.stdout) < 2_000_000


def test_fan_out_keeps_big_targets_once_in_defs(write):
    path = write("fan.json", fan_out_openapi())
    (tool,) = load_catalog([str(path)]).tools
    text = json.dumps(tool.parameters)
    assert len(text) < 200_000
    assert "$defs" in tool.parameters
    assert tool.parameter_count() < 5000  # 8^11 when unfolded


# ---------------------------------------------------------------- 20. huge inputs


def test_endless_device_is_capped(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    from toolsearch_cli.bounded import read_bytes

    with pytest.raises(CatalogError, match="larger than"):
        read_bytes("/dev/zero", limit=1024)


@pytest.mark.parametrize("what", ["script", "replay", "queries"])
def test_dev_zero_as_input(run_cli, write, what):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    catalog = write("c.yaml", ONE_TOOL)
    if what == "script":
        args = ("simulate", "/dev/zero", "--catalog", str(catalog))
    elif what == "replay":
        args = ("simulate", "--replay", "/dev/zero", "--catalog", str(catalog))
    else:
        args = ("eval", "--queries", "/dev/zero", "--catalog", str(catalog))
    one_line_error(run_cli(*args), "/dev/zero", "larger than 64 MB")


# ---------------------------------------------------------------- 25. NaN, Infinity, 1e999


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_in_json_are_refused(run_cli, write, value):
    path = write("nan.json", '[{"name": "t",\n "inputSchema": {"type": "object", "maximum": ' + value + "}}]")
    one_line_error(run_cli("catalog", "convert", "--to", "mcp", "--catalog", str(path)), "nan.json:2")


@pytest.mark.parametrize("value", [".nan", ".inf", "-.Inf"])
def test_non_finite_numbers_in_yaml_are_refused(run_cli, write, value):
    path = write("nan.yaml", ONE_TOOL + f"    metadata: {{limit: {value}}}\n")
    one_line_error(run_cli("catalog", "convert", "--to", "mcp", "--catalog", str(path)), "nan.yaml:4", "JSON number")


def test_nan_in_a_replay_log(run_cli, write):
    catalog = write("c.yaml", ONE_TOOL)
    log = write("log.jsonl", '{"role": "user", "content": "hi"}\n{"role": "assistant", "content": NaN}\n')
    one_line_error(run_cli("simulate", "--replay", str(log), "--catalog", str(catalog)), "log.jsonl:2", "NaN")


# ---------------------------------------------------------------- 27. unreadable subfolders


def test_unreadable_subfolder_is_an_error_even_for_root(run_cli, write, tmp_path, monkeypatch):
    write("cat/a.yaml", ONE_TOOL)
    write("cat/locked/b.yaml", ONE_TOOL.replace("getWeather", "other"))
    real_scandir = os.scandir

    def scandir(path=".", *args):  # what a folder without read permission does (root reads anything)
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path, *args)

    monkeypatch.setattr(os, "scandir", scandir)
    one_line_error(run_cli("search", "x", "--catalog", str(tmp_path / "cat")), "locked", "cannot read this folder")


PR_CAPBSET_DROP = 24  # linux/prctl.h
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2  # linux/capability.h: what lets root read any folder


def _drop_file_permission_override() -> None:
    """In a child before it runs the CLI: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the
    bounding set, so the program it becomes obeys file permissions as root (as any user does)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def _cli_bound_by_permissions(run_cli):
    """Run the CLI where a folder without read permission cannot be read: in-process for a normal
    user; as root, in a child without root's power to override file permissions (skips if the
    machine does not allow dropping it, e.g. a container without CAP_SETPCAP)."""
    if os.geteuid() != 0:
        return run_cli
    import subprocess

    from ..conftest import Result, clean_env

    try:  # can this machine drop it? the child's effective set then lacks both capabilities
        probe = subprocess.run(
            [sys.executable, "-c", "print([l for l in open('/proc/self/status') if l.startswith('CapEff')][0])"],
            capture_output=True, text=True, preexec_fn=_drop_file_permission_override, check=True,
        )  # fmt: skip
    except (subprocess.SubprocessError, OSError) as exc:
        pytest.skip(f"cannot drop root's file-permission override here: {exc}")
    assert not int(probe.stdout.split()[1], 16) & (1 << CAP_DAC_OVERRIDE | 1 << CAP_DAC_READ_SEARCH)

    def run(*args: str) -> Result:
        done = subprocess.run(
            [*TOOLSEARCH, *args],
            capture_output=True, text=True, env=clean_env(COLUMNS="200"), preexec_fn=_drop_file_permission_override,
        )  # fmt: skip
        return Result(done.returncode, done.stdout, done.stderr)

    return run


@pytest.mark.skipif(
    sys.platform == "win32" or (os.geteuid() == 0 and not sys.platform.startswith("linux")),
    reason="needs POSIX permissions (and, as root, Linux capabilities)",
)
def test_unreadable_subfolder_is_an_error(run_cli, write, tmp_path):
    """A real folder without read permission (as root too: see _cli_bound_by_permissions)."""
    write("cat/a.yaml", ONE_TOOL)
    locked = tmp_path / "cat" / "locked"
    locked.mkdir()
    (locked / "b.yaml").write_text(ONE_TOOL.replace("getWeather", "other"))
    cli = _cli_bound_by_permissions(run_cli)
    locked.chmod(0)
    try:
        one_line_error(cli("lint", str(tmp_path / "cat")), "locked", "cannot read this folder")
        one_line_error(cli("search", "x", "--catalog", str(tmp_path / "cat")), "locked", "cannot read")
    finally:
        locked.chmod(stat.S_IRWXU)


# ---------------------------------------------------------------- smaller


def test_yaml_control_character_is_one_line_with_its_line(run_cli, write):
    path = write("ctl.yaml", ONE_TOOL + '    category: "a\x07b"\n')
    one_line_error(run_cli("search", "x", "--catalog", str(path)), "ctl.yaml:4", "control characters")


def test_yaml_merge_key_with_an_override(write):
    path = write(
        "merge.yaml",
        "base: &t {description: Shared description of a tool., category: c}\n"
        "tools:\n  - <<: *t\n    name: one\n  - <<: *t\n    name: two\n    category: d\n",
    )
    from toolsearch_cli.catalog.yaml_loader import parse_yaml

    doc = parse_yaml(path.read_text(), str(path))
    assert doc["tools"][1] == {"description": "Shared description of a tool.", "category": "d", "name": "two"}


def test_yaml_keys_1_and_true_are_different_keys():
    from toolsearch_cli.catalog.yaml_loader import parse_yaml

    assert parse_yaml("{1: a, true: b}", "f") == {1: "a", "true": "b"}
    with pytest.raises(CatalogError, match="duplicate key 'x'"):
        parse_yaml("x: 1\nx: 2\n", "f")


def test_fifo_named_directly(run_cli, tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    one_line_error(run_cli("search", "x", "--catalog", str(fifo)), "pipe.yaml", "named pipe")


def test_symlink_loop_named_directly(run_cli, tmp_path):
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    one_line_error(run_cli("search", "x", "--catalog", str(loop)), "loop.yaml", "symbolic link loop")


# ---------------------------------------------------------------- 11. live servers


@pytest.fixture
def chat_server():
    from tests.chat_server import ChatServer

    srv = ChatServer()
    yield srv
    srv.close()


def live_run(run_cli, monkeypatch, server, *args):
    from tests.chat_server import live_runner

    return live_runner(run_cli, monkeypatch, server, "sk-test-not-a-real-key")("--prompt", "hi", *args)


@pytest.mark.parametrize(
    "body, content_type",
    [
        (b"\xff\xfe\x00garbage\x80", "application/json"),
        (b'{"choices": [{"message": {"content": "\xff\xfe"}}]}', "application/json; charset=utf-8"),
        ("not json at all", "application/json"),
        ("[" * 100_000 + "]" * 100_000, "application/json"),
    ],
)
def test_live_server_with_a_bad_200_body(run_cli, monkeypatch, chat_server, body, content_type):
    from tests.chat_server import Raw

    chat_server.add(Raw(200, body, content_type))
    one_line_error(live_run(run_cli, monkeypatch, chat_server, "--catalog", str(DEMO_CATALOG)), "model server")


def _completion_text(**extra: str) -> str:
    """A Chat Completions body as JSON text, with ``extra`` members spliced in verbatim."""
    members = "".join(f', "{key}": {raw}' for key, raw in extra.items())
    return (
        '{"id": "c", "object": "chat.completion", "created": 1, "model": "m"' + members + ', "choices": '
        '[{"index": 0, "message": {"role": "assistant", "content": "hello"}, "finish_reason": "stop"}]}'
    )


@pytest.mark.parametrize(
    "body, fragment",
    [
        (_completion_text(usage='{"prompt_tokens": NaN, "completion_tokens": 1, "total_tokens": 1}'), "NaN"),
        (_completion_text(system_fingerprint="Infinity"), "Infinity"),
        (_completion_text(service_tier="-Infinity"), "Infinity"),
        (_completion_text(usage='{"prompt_tokens": 1e999}'), "too large"),
        (_completion_text(model='"other"'), "duplicate key 'model'"),
    ],
)
def test_a_live_200_reply_breaking_strict_json_is_refused(run_cli, monkeypatch, chat_server, body, fragment):
    """Model output is hostile: a 200 with NaN/Infinity, a number that overflows or a key twice is
    not read leniently (the SDK's parser would accept it) but refused in one line."""
    from tests.chat_server import Raw

    chat_server.add(Raw(200, body))
    line = one_line_error(live_run(run_cli, monkeypatch, chat_server, "--catalog", str(DEMO_CATALOG)), fragment)
    assert "model server" in line and "JSON" in line


def test_a_strict_json_200_reply_is_still_accepted(run_cli, monkeypatch, chat_server):
    from tests.chat_server import Raw

    chat_server.add(Raw(200, _completion_text(usage='{"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}')))
    result = live_run(run_cli, monkeypatch, chat_server, "--catalog", str(DEMO_CATALOG), "--format", "json")
    assert result.code == 0, result.stderr
    assert result.json()["requests"][0]["reply"]["content"] == "hello"


@pytest.mark.parametrize("value", ["nan", "NaN", "-inf", "soon"])
def test_live_retry_after_that_is_not_a_number_of_seconds(run_cli, monkeypatch, chat_server, value):
    from tests.chat_server import Status, say

    chat_server.add(Status(429, {}, {"Retry-After": value}), say("hello there"))
    result = live_run(run_cli, monkeypatch, chat_server, "--catalog", str(DEMO_CATALOG))
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------- 26. endless MCP listings


def test_an_endless_tools_list_is_an_error_with_the_count(run_cli, monkeypatch):
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    import shlex

    from toolsearch_cli.catalog import mcp_transport

    monkeypatch.setattr(mcp_transport, "MAX_PAGES", 4)  # the real bound is 10,000 pages: the same code path
    server = ROOT / "tests" / "servers" / "paged_server.py"
    source = f"mcp+stdio:{shlex.quote(sys.executable)} {shlex.quote(str(server))} 30"
    one_line_error(run_cli("catalog", "-c", source), "more pages after 4 pages (12 tools so far)")


def test_a_group_whose_tools_are_all_hidden_adds_no_system_prompt(run_cli, write):
    catalog = write(
        "admin.yaml",
        "tools:\n  - name: resetPassword\n    description: Reset a user's password.\n    requires: {role: admin}\n"
        "groups:\n  - name: admin\n    system_prompt: SECRET ADMIN PROCEDURES\n    tools: [resetPassword]\n"
        "    match: always\n",
    )
    script = write("s.sim.yaml", SCRIPT)
    viewer = run_cli("simulate", str(script), "--catalog", str(catalog), "--context", "role=viewer", "--format", "json")
    assert viewer.code == 0, viewer.stderr
    assert "SECRET ADMIN PROCEDURES" not in viewer.stdout
    admin = run_cli("simulate", str(script), "--catalog", str(catalog), "--context", "role=admin", "--format", "json")
    assert admin.code == 0 and "SECRET ADMIN PROCEDURES" in admin.stdout


@pytest.mark.parametrize("key, value", [("policy", "bogus"), ("ranker", "nope")])
def test_a_bad_setting_in_a_recording_names_the_recording(run_cli, write, key, value):
    recording = write(
        "rec.json",
        json.dumps({"format": "toolsearch.transcript", key: value, "messages": [{"role": "user", "content": "hi"}]}),
    )
    one_line_error(run_cli("simulate", "--replay", str(recording), "--catalog", str(DEMO_CATALOG)), "rec.json", value)


@pytest.mark.parametrize(
    "rules, fragment",
    [
        ("    TS203:\n      max-bytes: -5\n", ".toolsearch.yaml:4: rule TS203"),
        ("    TS601: {top-k: 0}\n", ".toolsearch.yaml:3: rule TS601"),
        ("    TS999: {severity: error}\n", ".toolsearch.yaml:3: unknown rule"),
    ],
)
def test_config_errors_name_their_line_and_refuse_sizes_below_one(run_cli, write, rules, fragment):
    catalog = write("c.yaml", ONE_TOOL)
    config = write(".toolsearch.yaml", "lint:\n  rules:\n" + rules)
    one_line_error(run_cli("lint", str(catalog), "--config", str(config)), fragment)


@pytest.mark.parametrize("key", ["openapi", "swagger"])
def test_an_openapi_version_of_100000_characters_is_quoted_short(run_cli, write, key):
    # found by the hostile-input tests: the whole value was quoted, a 100 KB error "line"
    catalog = write("spec.json", json.dumps({key: "x" * 100_000, "info": {}, "paths": {}}))
    line = one_line_error(run_cli("catalog", "--catalog", str(catalog), "--format", "json"), "spec.json", "found")
    assert len(line) < 400


@pytest.mark.parametrize("kind", ["o", "strin", "int"])
def test_a_parameters_schema_of_an_unknown_non_object_type_is_a_one_line_error(run_cli, write, kind):
    # found by the hostile-input tests: an unknown type the lenient mapping dropped was then read
    # back from the schema for the message (KeyError: 'type', an internal error)
    catalog = write(
        "c.yaml", f"tools:\n  - name: getWeather\n    description: Weather.\n    parameters:\n      type: {kind}\n"
    )
    line = one_line_error(run_cli("catalog", "--catalog", str(catalog)), "c.yaml:4", "parameters.type", repr(kind))
    assert "internal error" not in line


def test_a_catastrophic_schema_pattern_cannot_stall_an_argument_check():
    """A catalog's (or an upstream server's) ``pattern`` meets a model's value: Python's ``re``
    takes seconds on ``^(a|a)*$`` against 25 characters and minutes on a few more. Patterns run
    with a time limit; a value that cannot be checked in time is refused, never waited on."""
    import time

    from toolsearch_cli.arguments import check_arguments
    from toolsearch_cli.model import Tool

    evil = "^(a|a)*$"
    tool = Tool(
        name="t",
        description="d",
        parameters={
            "type": "object",
            "properties": {"code": {"type": "string", "pattern": evil}},
            "patternProperties": {evil: {"type": "string"}},
            "additionalProperties": False,
        },
    )
    started = time.monotonic()
    value, problem = check_arguments(tool, json.dumps({"code": "a" * 60 + "!", "a" * 60 + "!": "x"}))
    assert time.monotonic() - started < 10  # unbounded, this is hours
    assert value is None and problem is not None
    assert "could not be checked against the pattern" in problem
    assert "unexpected" not in problem or "a" * 60 in problem
    # ordinary patterns still decide as before
    plain = Tool(
        name="p",
        description="d",
        parameters={"type": "object", "properties": {"z": {"type": "string", "pattern": "^[0-9]{5}$"}}},
    )
    assert check_arguments(plain, '{"z": "12345"}') == ({"z": "12345"}, None)
    assert check_arguments(plain, '{"z": "1234"}')[1] == "argument 'z': '1234' does not match '^[0-9]{5}$'"


def test_a_subschema_of_another_draft_keeps_the_pattern_time_limit():
    """A subschema whose ``$schema`` names another draft was checked by jsonschema's own class
    for that draft (``evolve`` picks it): its ``pattern`` ran on ``re``, unbounded (17 s on 27
    characters), and an outside ``$ref`` in it failed the whole check. It gets the time-limited
    class of its draft now, with that draft's rules (draft-04's boolean ``exclusiveMaximum``)."""
    import time

    from toolsearch_cli.arguments import check_arguments
    from toolsearch_cli.model import Tool

    draft7, draft4 = "http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-04/schema#"
    tool = Tool(
        name="t",
        description="d",
        parameters={
            "type": "object",
            "properties": {
                "code": {"$schema": draft7, "type": "string", "pattern": "^(a|a)*$"},
                "box": {"$schema": draft7, "properties": {"ext": {"$ref": "https://x.invalid/s"}}, "required": ["id"]},
                "n": {"$schema": draft4, "type": "integer", "maximum": 3, "exclusiveMaximum": True},
            },
        },
    )
    started = time.monotonic()
    value, problem = check_arguments(tool, json.dumps({"code": "a" * 26 + "!", "box": {"ext": 1}, "n": 3}))
    assert time.monotonic() - started < 5  # unbounded: 8-17 s here, doubling with each character
    assert value is None and problem == (
        "missing required argument 'id' in 'box'; "  # the outside $ref accepts anything, the rest is checked
        "argument 'code': could not be checked against the pattern '^(a|a)*$' in time; "
        "argument 'n': 3 is greater than or equal to the maximum of 3"
    )


# ---------------------------------------------------------------- issue 20: invisible and bidi characters

# a name with a zero-width space, a description with each kind of invisible character
INVISIBLE = (
    "tools:\n  - name: getWeather\n    description: Get the weather for a city.\n"
    '  - name: "getWe\\u200bather"\n    category: "x\\u200by"\n'
    '    description: "Get the weather\\u00ad for a city\\u2060 now\\ufeff \\U000E0041 \\u202Eabc."\n'
)
HIDDEN = ("\u200b", "\u00ad", "\u2060", "\ufeff", "\U000e0041", "\u202e")


def _no_hidden(text: str) -> None:
    from toolsearch_cli.printable import CONTROL

    assert CONTROL.search(text) is None, repr(text)
    for char in HIDDEN:
        assert char not in text


def test_invisible_characters_are_escaped_in_every_table(run_cli, write):
    """They were printed raw in `search` and `catalog`: ``getWeather`` and ``getWe\\u200bather``
    looked identical. Every renderer escapes them now (lint, error lines, simulate too)."""
    catalog = write("inv.yaml", INVISIBLE)
    search = run_cli("search", "weather", "--catalog", str(catalog))
    assert search.code == 0, search.stderr
    assert "getWe\\u200bather" in search.stdout and "x\\u200by" in search.stdout
    assert "\\xad" in search.stdout and "\\ufeff" in search.stdout and "\\U000e0041" in search.stdout
    listing = run_cli("catalog", "--catalog", str(catalog))
    assert listing.code == 0 and "getWe\\u200bather" in listing.stdout
    lint = run_cli("lint", str(catalog))
    assert "getWe\\u200bather" in lint.stdout
    script = write("s.sim.yaml", 'turns:\n  - user: weather\n    steps:\n      - say: "It is\\u2060 sunny."\n')
    simulate = run_cli("simulate", str(script), "--catalog", str(catalog))
    assert simulate.code == 0 and "It is\\u2060 sunny." in simulate.stdout
    error = run_cli("search", "weather", "--catalog", str(catalog), "--category", "x\u200bz")
    one_line_error(error, "'x\\u200bz'", "'x\\u200by'")
    for result in (search, listing, lint, simulate, error):
        _no_hidden(result.stdout + result.stderr)


def test_json_output_keeps_invisible_characters_as_json_escapes(run_cli, write):
    catalog = write("inv.yaml", INVISIBLE)
    for args in (("search", "weather"), ("catalog",)):
        result = run_cli(*args, "--catalog", str(catalog), "--format", "json")
        assert result.code == 0, result.stderr
        _no_hidden(result.stdout)
        assert "getWe\\u200bather" in result.stdout and "\\udb40\\udc41" in result.stdout  # U+E0041 as JSON spells it
        assert "getWe\u200bather" in json.dumps(result.json(), ensure_ascii=False)  # the value itself is kept
    lint = run_cli("lint", str(catalog), "--format", "json")
    _no_hidden(lint.stdout)
    assert any(d["tool"] == "getWe\u200bather" for d in lint.json())


def test_serve_dry_run_escapes_invisible_characters_too(run_cli, write):
    """`serve --dry-run` (a command written beside the escaping work) prints tool names as well."""
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    from tests.serve_helpers import raw_tools_of, scripted_source
    from toolsearch_cli.catalog import load_catalog

    catalog = write("in\u200bv.yaml", INVISIBLE)  # the source's own name is printed
    # a catalog file's tools are served only through a server that runs them (issue 34 item 1)
    runner = scripted_source("run", raw_tools_of(load_catalog(str(catalog))), catalog.parent)
    for extra in ((), ("--format", "json")):
        result = run_cli(
            "serve", "--dry-run", "--catalog", str(catalog), "--catalog", runner, "--catalog-via", "run",
            "--resident", "getWe\u200bather", *extra,
        )  # fmt: skip
        assert result.code == 0, result.stderr
        assert "getWe_ather" in result.stdout  # an MCP name: sanitised
        out = result.stdout + result.stderr
        assert "v.yaml" not in out or "in\\u200bv.yaml" in out  # where the file's name is printed: escaped
        _no_hidden(result.stdout + result.stderr)


def test_joiners_and_selectors_are_kept_inside_words_of_other_scripts():
    from toolsearch_cli.printable import shown

    assert shown("getWe\u200dather") == "getWe\\u200dather"  # next to ASCII: escaped
    assert shown("\u200d") == "\\u200d" and shown("a\ufe0f") == "a\\ufe0f"
    assert shown("\U0001f469\u200d\U0001f4bb") == "\U0001f469\u200d\U0001f4bb"  # an emoji sequence
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # a word with a zero-width non-joiner
    assert shown(persian) == persian
    assert shown("\u2764\ufe0f") == "\u2764\ufe0f"
    assert shown("\u200b\u200d\u200b") == "\\u200b\\u200d\\u200b"  # not kept between escapes
    assert shown("\u2764\ufe0f\u200d\U0001f525") == "\u2764\ufe0f\u200d\U0001f525"  # heart on fire
    assert shown("\u0915\u094d\u200d\u0937") == "\u0915\u094d\u200d\u0937"  # a Devanagari half form
    assert shown("\u5929\u200d\u6c14") == "\u5929\\u200d\u6c14"  # between Han characters: no purpose
    assert shown("\u5929\ufe00") == "\u5929\\ufe00"  # a standardized selector: escaped
    assert shown("\u845b\U000e0100") == "\u845b\U000e0100"  # an ideographic variation sequence


# ---------------------------------------------------------------- issue 20: a baseline's depth


@pytest.mark.parametrize("depth, shown", [('"ten"', "a string"), ('"10"', "a string"), ("[1]", "a list"), ("0", "0")])
def test_a_baseline_depth_that_is_not_a_whole_number(run_cli, write, depth, shown):
    """A text depth ended in ``internal error: ValueError``; now one line naming file:line and field."""
    catalog = write("c.yaml", ONE_TOOL)
    queries = write("q.jsonl", '{"id": "q1", "query": "weather in Paris", "relevant": ["getWeather"]}\n')
    saved = write("run.json", "")
    assert run_cli("eval", "--queries", str(queries), "--catalog", str(catalog), "--save", str(saved)).code == 0
    doc = json.loads(saved.read_text())
    saved.write_text(json.dumps(doc, indent=1).replace('"depth": 10', f'"depth": {depth}'))
    line = saved.read_text().splitlines().index(f' "depth": {depth},') + 1
    for extra in ((), ("--diff-k", "3")):
        result = run_cli("eval", "--queries", str(queries), "--catalog", str(catalog), "--baseline", str(saved), *extra)
        one_line_error(result, f"run.json:{line}", "depth", shown)


# ---------------------------------------------------------------- issue 20: output names that name no file


def _output_commands(write) -> dict[str, tuple[str, ...]]:
    """Each option naming a file to write, in a command line that would otherwise succeed."""
    catalog = write("c.yaml", ONE_TOOL)
    script = write("s.sim.yaml", SCRIPT)
    queries = write("q.jsonl", '{"id": "q1", "query": "weather in Paris", "relevant": ["getWeather"]}\n')
    return {
        "--state": ("simulate", str(script), "--catalog", str(catalog), "--mode", "agent", "--state"),
        "--output-file": ("lint", str(catalog), "--output-file"),
        "--save": ("eval", "--queries", str(queries), "--catalog", str(catalog), "--save"),
        "--out": ("catalog", "convert", "--to", "mcp", "--catalog", str(catalog), "--out"),
        "--record": ("simulate", "--live", "--prompt", "hi", "--catalog", str(catalog), "--record"),
    }


@pytest.mark.parametrize("option", ["--state", "--output-file", "--save", "--out", "--record"])
def test_an_empty_output_name_is_refused(run_cli, write, tmp_path, option):
    """``simulate --state ''`` exited 0 and saved nothing; every output option refuses it now."""
    one_line_error(run_cli(*_output_commands(write)[option], ""), f"'{option}'", "file name is empty")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["c.yaml", "s.sim.yaml", "q.jsonl"])


@pytest.mark.parametrize("option", ["--state", "--output-file", "--save", "--out", "--record"])
def test_an_output_name_ending_in_a_separator_is_refused(run_cli, write, tmp_path, option):
    """``-o new.json/`` wrote a file ``new.json``: a name ending in '/' names a folder."""
    target = str(tmp_path / "new.json") + os.sep
    one_line_error(run_cli(*_output_commands(write)[option], target), "new.json/", f"'{option}'", "names a folder")
    assert not (tmp_path / "new.json").exists()


@pytest.mark.parametrize("option", ["--state", "--output-file", "--save", "--out", "--record"])
def test_an_output_name_that_is_a_folder_is_refused_before_the_run(run_cli, write, tmp_path, option):
    """It was refused only when the command saved its work, after the run."""
    (tmp_path / "here").mkdir()
    one_line_error(run_cli(*_output_commands(write)[option], str(tmp_path / "here")), f"'{option}'", "it is a folder")


def test_the_library_refuses_them_too(tmp_path):
    from toolsearch_cli.errors import ToolsearchError
    from toolsearch_cli.files import write_text_atomic

    for name in ("", str(tmp_path / "x.json") + "/"):
        with pytest.raises(ToolsearchError, match="empty|names a folder"):
            write_text_atomic(name, "{}", what="the run state")
    assert not (tmp_path / "x.json").exists()


# ---------------------------------------------------------------- issue 20: a key over plain http


KEY = "sk-test-not-a-real-key-0123456789"


def test_an_api_key_over_plain_http_to_another_host_is_warned(run_cli, monkeypatch):
    """It was sent without a word. Now one warning line naming the host (never the key), before
    the request; ``.invalid`` never resolves, so the run then ends in its usual one-line error."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    base = ("simulate", "--live", "--model", "m", "--prompt", "hi", "--retries", "0", "--catalog", str(DEMO_CATALOG))
    result = run_cli(*base, "--base-url", "http://user:pw@models.invalid:8080/v1?token=abc")
    assert result.code == 2
    warning, error = result.stderr.strip().splitlines()
    assert warning.startswith("warning: the API key ($OPENAI_API_KEY) will travel to models.invalid over plain http://")
    assert error.startswith("error: ") and "models.invalid" in error
    assert KEY not in result.stderr + result.stdout and "pw" not in warning and "abc" not in warning
    monkeypatch.delenv("OPENAI_API_KEY")  # no key, nothing sent: no warning
    assert "warning" not in run_cli(*base, "--base-url", "http://models.invalid/v1").stderr


def test_no_warning_for_https_or_this_machine(run_cli, monkeypatch):
    from tests.chat_server import ChatServer, say

    server = ChatServer()
    try:
        server.add(say("hello"))
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        result = run_cli(
            "simulate", "--live", "--model", "m", "--prompt", "hi", "--catalog", str(DEMO_CATALOG),
            "--base-url", server.url, "--format", "json",
        )  # fmt: skip
        assert result.code == 0 and result.stderr == "", result.stderr
    finally:
        server.close()
    from toolsearch_cli.redaction import plain_http_host

    local = [
        "http://localhost:1/v1",
        "http://127.0.0.9/",
        "http://[::1]:80/",
        "http://x.localhost/",
        "https://a.example/",
    ]
    assert [plain_http_host(url) for url in local] == [None] * len(local)
    assert plain_http_host("HTTP://10.0.0.2:11434/v1") == "10.0.0.2"
    assert plain_http_host("http://localhost.evil.example/") == "localhost.evil.example"


def test_an_embedding_key_over_plain_http_is_warned(run_cli, monkeypatch, write):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    catalog = write("c.yaml", ONE_TOOL)
    result = run_cli(
        "search",
        "weather",
        "--catalog",
        str(catalog),
        "--embed-model",
        "m",
        "--embed-base-url",
        "http://emb.invalid/v1",
    )
    assert result.code == 0, result.stderr  # the default ranker does not embed: nothing is sent
    assert result.stderr.startswith("warning: the embedding API key ($OPENAI_API_KEY) will travel to emb.invalid")
    assert KEY not in result.stderr


def test_mcp_headers_over_plain_http_are_warned(run_cli, monkeypatch):
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    monkeypatch.setenv("TOOLSEARCH_MCP_HEADERS", "Authorization: Bearer " + KEY)
    monkeypatch.setenv("TOOLSEARCH_MCP_TIMEOUT", "5")
    result = run_cli("catalog", "--catalog", "mcp+http://mcp.invalid/mcp")
    assert result.code == 2
    assert "warning: $TOOLSEARCH_MCP_HEADERS for mcp+http://mcp.invalid/mcp will travel to mcp.invalid" in result.stderr
    assert KEY not in result.stderr


# ---------------------------------------------------------------- issue 20: symbolic links out of a catalog folder


def _tool(name: str) -> str:
    return f"tools:\n  - name: {name}\n    description: The tool {name}, for the folder tests.\n"


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="needs symbolic links")
def test_a_catalog_folder_never_leaves_the_folder_named(run_cli, write, tmp_path, monkeypatch):
    """``os.walk(followlinks=True)`` followed links out of the checkout, and a link to an ancestor
    pulled the ancestor's files in. Now such links are skipped, each with one warning line."""
    write("outside/secret.yaml", _tool("secretTool"))
    write("repo/top.yaml", _tool("parentTool"))
    write("repo/catalogs/team/a.yaml", _tool("repoTool"))
    write("repo/catalogs/shared/b.yaml", _tool("sharedTool"))
    catalogs = tmp_path / "repo" / "catalogs"
    (catalogs / "ext").symlink_to(tmp_path / "outside")  # a folder outside
    (catalogs / "linked.yaml").symlink_to(tmp_path / "outside" / "secret.yaml")  # a file outside
    (catalogs / "team" / "up").symlink_to(Path("..") / "..")  # the checkout itself, above the folder named
    (catalogs / "team" / "loop").symlink_to(catalogs)  # the folder named: a loop inside it
    (catalogs / "team" / "also").symlink_to(catalogs / "shared")  # inside, elsewhere: followed
    monkeypatch.chdir(tmp_path / "repo")
    for args in (("catalog", "--format", "json"), ("lint", "--format", "json")):
        result = run_cli(*args)
        assert result.code == 0, result.stderr
        warnings = result.stderr.strip().splitlines()
        assert sorted(w.split(":")[1].strip() for w in warnings) == [
            "catalogs/ext", "catalogs/linked.yaml", "catalogs/team/loop", "catalogs/team/up"
        ], warnings  # fmt: skip
        assert all("skipped: a symbolic link to" in w for w in warnings)
        assert "secretTool" not in result.stdout and "parentTool" not in result.stdout
    listing = run_cli("catalog", "--format", "json")
    assert sorted(t["name"] for t in listing.json()["tools"]) == ["repoTool", "sharedTool"]
    # named on the command line, a link is the user's choice: followed
    named = run_cli("catalog", "--catalog", "catalogs/ext", "--format", "json")
    assert named.code == 0 and [t["name"] for t in named.json()["tools"]] == ["secretTool"]


@pytest.mark.skipif(not hasattr(os, "symlink") or sys.platform == "win32", reason="needs symbolic links")
def test_a_link_to_a_file_inside_the_folder_loads_that_file_once(run_cli, write, tmp_path):
    """A link inside the folder to one of its own files (``latest.yaml -> v2.yaml``) is followed, as
    documented; it used to load that file twice, and the catalog failed with "this file is loaded
    twice" (a link to a folder inside was already walked once)."""
    write("catalogs/v2.yaml", _tool("repoTool"))
    catalogs = tmp_path / "catalogs"
    (catalogs / "latest.yaml").symlink_to("v2.yaml")
    for args in (("catalog", "--format", "json"), ("search", "tool folder", "--format", "json")):
        result = run_cli(*args, "--catalog", str(catalogs))
        assert result.code == 0 and result.stderr == "", result.stderr
        tools = result.json()["tools"] if args[0] == "catalog" else result.json()["hits"]
        assert [t["name"] for t in tools] == ["repoTool"]


# ---------------------------------------------------------------- issue 20: helpers of stdio MCP servers


def _pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            return "zombie" not in status.read()
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["normal exit", "error exit", "SIGTERM", "SIGINT", "SIGHUP"])
def test_a_stdio_servers_helper_process_is_stopped_on_every_exit(tmp_path, how):
    """A real stdio MCP server that starts a helper and exits when its stdin closes: the helper
    outlived toolsearch on a normal exit. Now the server's process group is stopped however
    toolsearch ends (the helper is a sleeper in the group, holding none of toolsearch's pipes)."""
    pytest.importorskip("mcp", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")
    import shlex
    import signal
    import subprocess
    import time

    pidfile = tmp_path / "helper.pid"
    server = [sys.executable, str(ROOT / "tests" / "servers" / "forking_server.py"), str(pidfile)]
    if how.startswith("SIG"):
        server.append("--stall")
    args = [*TOOLSEARCH, "search", "forecast", "-c", "mcp+stdio:" + shlex.join(server)]
    if how == "error exit":
        args += ["--category", "nonexistent"]  # loads the server, then fails: exit 2
    process = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, TOOLSEARCH_MCP_TIMEOUT="60"),
        # SIGHUP (the terminal closed) as a shell's command gets it, even when pytest runs under nohup
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )
    helper = None
    try:
        if how.startswith("SIG"):
            deadline = time.monotonic() + 60
            while not (pidfile.exists() and pidfile.read_text()) and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)  # the client's tools/list is on its way
            process.send_signal(getattr(signal, how))
        out, err = process.communicate(timeout=60)
        helper = int(pidfile.read_text())
        expected = {"normal exit": 0, "error exit": 2, "SIGTERM": 143, "SIGINT": 130, "SIGHUP": 129}[how]
        assert process.returncode == expected, err
        if how == "normal exit":
            assert "getForecast" in out
        assert not _pid_alive(helper), f"the server's helper {helper} outlived toolsearch ({how})"
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        if helper is not None and _pid_alive(helper):
            os.kill(helper, signal.SIGKILL)


# ---------------------------------------------------------------- issue 20: model replies and recordings too big


def _big_reply(size: int) -> str:
    from tests.chat_server import completion

    return json.dumps(completion({"role": "assistant", "content": "x" * size}, "stop", None))


@pytest.mark.parametrize("how", ["content-length", "chunked", "gzip"])
def test_a_reply_over_the_bound_is_refused_as_it_arrives(run_cli, monkeypatch, chat_server, tmp_path, how):
    """A 40 MB reply was accepted (and a 150 MB one took 1.1 GB). Now a reply over
    --max-reply-size (default 4 MB) ends the run in one line, whether its Content-Length says so,
    it arrives chunked, or it is a small gzip body that inflates past the bound; the recording
    keeps what came before and replays."""
    import gzip

    from tests.chat_server import Raw

    body = _big_reply(300_000)
    if how == "gzip":
        chat_server.add(Raw(200, gzip.compress(body.encode()), headers={"Content-Encoding": "gzip"}))
    else:
        chat_server.add(Raw(200, body, chunked=how == "chunked"))
    record = tmp_path / "rec.json"
    result = live_run(
        run_cli, monkeypatch, chat_server, "--catalog", str(DEMO_CATALOG), "--max-reply-size", "100KB",
        "--record", str(record),
    )  # fmt: skip
    line = one_line_error(result, "more than the 100 KB a reply may be (--max-reply-size)")
    assert ("a reply of 300,2" in line) == (how == "content-length")  # the size declared, when declared
    replay = run_cli("simulate", "--replay", str(record), "--catalog", str(DEMO_CATALOG), "--format", "json")
    assert replay.code == 0, replay.stderr


def test_a_reply_under_the_bound_is_read(run_cli, monkeypatch, chat_server):
    from tests.chat_server import Raw

    chat_server.add(Raw(200, _big_reply(90_000), chunked=True))
    result = live_run(
        run_cli, monkeypatch, chat_server, "--catalog", str(DEMO_CATALOG), "--max-reply-size", "100KB",
        "--format", "json",
    )  # fmt: skip
    assert result.code == 0, result.stderr
    assert len(result.json()["requests"][0]["reply"]["content"]) == 90_000


@pytest.mark.parametrize("size", ["0", "4 TB", "-1MB", "lots"])
def test_a_max_reply_size_that_is_not_a_size(run_cli, monkeypatch, chat_server, size):
    one_line_error(
        live_run(run_cli, monkeypatch, chat_server, "--catalog", str(DEMO_CATALOG), "--max-reply-size", size),
        "--max-reply-size takes a size",
    )


def test_a_recording_never_grows_past_what_replay_reads(run_cli, monkeypatch, chat_server, write, tmp_path):
    """A 40 MB reply made an 80 MB recording that --replay refused (over 64 MB). The writer now
    stops the run before passing the bound the reader has (here lowered to 200 KB: the same code
    path), and the file keeps the last recording that fit, which replays."""
    from tests.chat_server import Raw
    from toolsearch_cli import bounded

    monkeypatch.setattr(bounded, "MAX_INPUT_BYTES", 200_000)
    for _ in range(6):
        chat_server.add(Raw(200, _big_reply(40_000)))
    turns = "".join(f"  - user: question {i}\n    steps: [{{say: a}}]\n" for i in range(6))
    script = write("s.sim.yaml", "turns:\n" + turns)
    record = tmp_path / "rec.json"
    result = live_runner_run(run_cli, monkeypatch, chat_server, str(script), "--record", str(record))
    assert result.code == 2, result.stderr
    assert "more than the 200,000 bytes --replay reads" in result.stderr
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith("error: the recording would be") and "keeps the first" in error, error
    assert record.stat().st_size <= 200_000
    replay = run_cli("simulate", "--replay", str(record), "--catalog", str(DEMO_CATALOG), "--format", "json")
    assert replay.code == 0, replay.stderr
    kept = int(error.split("keeps the first ")[1].split()[0])
    assert 1 <= kept < 6 and len(replay.json()["requests"]) == kept


def live_runner_run(run_cli, monkeypatch, server, script, *args):
    from tests.chat_server import live_runner

    return live_runner(run_cli, monkeypatch, server, "sk-test-not-a-real-key")(
        script, "--catalog", str(DEMO_CATALOG), *args
    )


BIG_TOOL = '''from toolsearch_cli import tool


@tool(category="files")
def readHugeFile(path: str) -> str:
    """Read a whole file and return its text."""
    return "y" * 3_000_000
'''
BIG_SCRIPT = (
    "turns:\n  - user: read the file\n    steps:\n"
    "      - call: {name: toolSearch, arguments: {query: read file}}\n"
    "      - call: {name: readHugeFile, arguments: {path: a}}\n      - say: done\n"
)


def test_a_tool_result_over_the_bound_is_an_error_result(run_cli, write):
    """Tool results had no bound either (a function's 3 MB went to the model and the recording):
    over --max-result-size (default 1 MB) the model gets an error result and the request a warning."""
    module = write("bigtool.py", BIG_TOOL)
    script = write("big.sim.yaml", BIG_SCRIPT)
    result = run_cli("simulate", str(script), "-c", str(module), "--execute", "-f", "json")
    assert result.code == 0, result.stderr
    request = result.json()["requests"][1]
    (call,) = [c for c in request["reply"]["tool_calls"] if c["name"] == "readHugeFile"]
    assert json.loads(call["result"]) == {
        "error": "the result was not sent: readHugeFile returned 3,000,000 bytes, more than the 1 MB a tool "
        "result may be (--max-result-size)"
    }
    assert any("--max-result-size" in w for w in request["warnings"])
    raised = run_cli("simulate", str(script), "-c", str(module), "--execute", "--max-result-size", "4MB", "-f", "json")
    (call,) = [c for c in raised.json()["requests"][1]["reply"]["tool_calls"] if c["name"] == "readHugeFile"]
    assert len(call["result"]) == 3_000_000


def test_a_hub_token_over_plain_http_is_warned(run_cli, monkeypatch):
    """The sibling in `model pull`: $HF_TOKEN to an HF_ENDPOINT mirror over plain http."""
    pytest.importorskip("huggingface_hub", reason="the hub extra is not installed")
    monkeypatch.setenv("HF_TOKEN", "hf_" + KEY)
    monkeypatch.setenv("HF_ENDPOINT", "http://mirror.invalid")
    result = run_cli("model", "pull", "some/model")
    assert result.code == 2
    warning = result.stderr.splitlines()[0]
    assert warning.startswith("warning: $HF_TOKEN will travel to mirror.invalid over plain http://"), warning
    assert KEY not in result.stderr


def test_an_embeddings_endpoint_reply_over_its_bound_is_one_line(run_cli, monkeypatch):
    """The sibling of the model reply: an embeddings endpoint's body had no bound either (the bound
    is 64 MB, lowered here to 100 KB: the same code path)."""
    pytest.importorskip("openai")
    from toolsearch_cli.search import embed

    from ..embed_server import EmbeddingServer

    monkeypatch.setattr(embed, "MAX_ENDPOINT_REPLY_BYTES", 100 * 1024)

    class Nothing:
        def embed(self, texts):
            return []

    with EmbeddingServer(Nothing()) as server:
        server.fail_with = (200, {"object": "list", "data": [], "padding": "x" * 300_000})
        result = run_cli(
            "search", "weather", "-c", str(DEMO_CATALOG), "--ranker", "embedding",
            "--embed-base-url", server.base_url, "--embed-model", "m",
        )  # fmt: skip
    one_line_error(result, "sent a reply of more than 100 KB")
