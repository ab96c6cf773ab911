"""`toolsearch catalog` given bad input (duplicate JSON keys, overlapping sources, group options):
one-line errors, exit 2; and `catalog convert --out` writes an ordinary file atomically."""

from __future__ import annotations

import os

from ..conftest import DEMO, file_mode


def test_duplicate_keys_in_a_json_catalog_are_errors_as_in_yaml(run_cli, write):
    # json.loads kept the last value: a tool silently renamed, or a whole tool list dropped
    renamed = write("renamed.json", '{"tools": [\n {"name": "a",\n  "description": "x", "name": "b"}]}')
    result = run_cli("catalog", "-c", str(renamed))
    assert result.code == 2
    assert result.stderr == (
        f"error: {renamed}:3: duplicate key 'name' (first at line 2); "
        "JSON readers would silently keep only the last one\n"
    )
    dropped = write("dropped.json", '{"tools": [{"name": "a", "description": "x"}], "tools": []}')
    assert "duplicate key 'tools'" in run_cli("search", "a", "-c", str(dropped)).stderr
    fine = write("fine.json", '{"tools": [{"name": "a", "description": "alpha tool"}]}')
    assert run_cli("catalog", "-c", str(fine)).code == 0


def test_a_json_tool_whose_name_is_not_a_string_is_one_line_not_an_internal_error(run_cli, write):
    # found by tests/security/test_hostile_inputs.py (catalog-mcp): a JSON document has no key lines,
    # and the error for a non-string name looked its line up there: KeyError, "internal error"
    for fmt, text in (
        ("mcp", '{"tools": [{"name": -1, "description": "x", "_meta": {"x-toolsearch": {"category": "w"}}}]}'),
        ("own", '{"tools": [{"name": ["a"], "description": "x"}]}'),
    ):
        bad = write(f"{fmt}.json", text)
        result = run_cli("search", "weather", "-c", str(bad), "-f", "json")
        assert result.code == 2, (fmt, result.stderr)
        assert result.stderr.startswith(f"error: {bad}") and result.stderr.count("\n") == 1, result.stderr
        assert "'name' must be a string" in result.stderr and "internal error" not in result.stderr


def test_convert_out_is_written_atomically_with_ordinary_permissions(run_cli, tmp_path):
    out = tmp_path / "demo.openai.json"
    out.write_text("old", encoding="utf-8")
    os.chmod(out, 0o640)
    assert run_cli("catalog", "convert", "--to", "openai", "-c", str(DEMO), "-o", str(out)).code == 0
    assert out.read_text(encoding="utf-8").startswith("{") and file_mode(out) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.openai.json"]


def test_catalog_group_options_are_checked_before_a_subcommand(run_cli):
    result = run_cli("catalog", "-f", "nope", "convert", "--to", "yaml", "-c", str(DEMO))
    assert result.code == 2 and result.stderr == "error: unknown format 'nope'; choose from table, json\n"
    assert result.stdout == ""


def test_a_catalog_source_given_twice_loads_once_and_overlapping_sources_say_so(run_cli):
    assert run_cli("catalog", "-c", str(DEMO), "-c", str(DEMO)).code == 0  # was a clash with itself
    overlap = run_cli("catalog", "-c", str(DEMO), "-c", str(DEMO / "weather.yaml"))
    assert overlap.code == 2
    assert overlap.stderr.startswith(f"error: {DEMO / 'weather.yaml'}:16: tool 'getWeather', field 'name': ")
    assert "this file is loaded twice (do two catalog sources reach it?)" in overlap.stderr


def test_a_json_file_with_a_name_twice_is_not_said_to_be_loaded_twice(run_cli, tmp_path):
    """JSON gives no line numbers: two tools of one JSON file with the same name used to be
    reported as "this file is loaded twice", which it was not."""
    catalog = tmp_path / "dup.json"
    catalog.write_text('{"tools": [{"name": "dup", "description": "a"}, {"name": "dup", "description": "b"}]}')
    result = run_cli("catalog", "-c", str(catalog))
    assert result.code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {catalog}: tool 'dup', field 'name': duplicate tool name in this file, or the file is loaded "
        "twice (do two catalog sources reach it?); tool names must be unique\n"
    )
