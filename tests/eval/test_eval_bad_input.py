"""`toolsearch eval` given bad input (a blank query, a catalog in the wrong format): one-line errors,
exit 2; and the file `--save` writes is an ordinary file."""

from __future__ import annotations

from ..conftest import DEMO, file_mode, umask_mode


def test_eval_save_writes_a_file_with_ordinary_permissions(run_cli, tmp_path):
    save = tmp_path / "run.json"
    assert run_cli("eval", "-c", str(DEMO), "-f", "json", "--save", str(save)).code == 0
    assert file_mode(save) == umask_mode()  # not the temporary file's owner-only 0600


def test_eval_takes_catalog_format_like_search(run_cli, tmp_path):
    exported = tmp_path / "demo.anthropic.json"
    assert run_cli("catalog", "convert", "--to", "anthropic", "-c", str(DEMO), "-o", str(exported)).code == 0
    forced = run_cli("eval", "-c", str(exported), "--catalog-format", "anthropic", "-f", "json")
    assert forced.code == 0, forced.stderr
    detected = run_cli("eval", "-c", str(exported), "-f", "json")
    assert forced.json()["rankers"]["default"]["queries"] == detected.json()["rankers"]["default"]["queries"] > 0
    wrong = run_cli("eval", "-c", str(exported), "--catalog-format", "mcp")
    assert wrong.code == 2 and "an MCP tool needs 'inputSchema'" in wrong.stderr
    assert wrong.stderr.count("\n") == 1


def test_a_blank_eval_query_is_called_blank(run_cli, write):
    queries = write("q.yaml", '- {id: a, query: "  ", relevant: [getWeather]}\n')
    result = run_cli("eval", "-c", str(DEMO), "-q", str(queries))
    assert result.code == 2
    assert result.stderr == (
        f"error: {queries}:1: field 'query': query 'a': 'query' must be a non-empty string, not a blank string\n"
    )


def test_evaluate_does_not_import_pyyaml_until_a_yaml_queries_file_is_read():
    import subprocess
    import sys

    code = "import sys, toolsearch_cli.evaluate; print('yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"  # `toolsearch eval` on a cached catalog with its examples never needs YAML
