"""``--report`` names a file: a folder or a place that cannot be written is a one-line error,
exit 2, and the file is written through a temporary file renamed over it."""

from __future__ import annotations

import os

import pytest

from ..conftest import DEMO, ROOT

EN = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"
COMMANDS = {"eval": ["eval", "-c", str(DEMO)], "simulate": ["simulate", str(EN)]}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_folder_is_refused_before_anything_runs(run_cli, tmp_path, command):
    result = run_cli(*COMMANDS[command], "--report", str(tmp_path))
    assert result.code == 2
    assert result.stdout == ""  # refused as the option was read: nothing ran
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--report" in lines[0] and "it is a folder" in lines[0], result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_place_that_cannot_be_written_is_one_line_exit_2(run_cli, tmp_path, command):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    target = blocker / "report.html"
    result = run_cli(*COMMANDS[command], "--report", str(target))
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {target}") and "cannot write the report" in lines[0]
    assert list(tmp_path.iterdir()) == [blocker]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only folder")
def test_a_read_only_folder_is_one_line_exit_2(run_cli, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        result = run_cli(*COMMANDS["eval"], "--report", str(folder / "r.html"))
    finally:
        folder.chmod(0o755)
    assert result.code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and "cannot write the report" in result.stderr


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_existing_report_is_replaced_whole_keeping_its_mode(run_cli, tmp_path, command):
    target = tmp_path / "out" / "report.html"
    target.parent.mkdir()
    target.write_text("the previous report")
    target.chmod(0o640)
    result = run_cli(*COMMANDS[command], "--report", str(target))
    assert result.code == 0, result.stderr
    text = target.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n")
    assert target.stat().st_mode & 0o777 == 0o640
    assert list(target.parent.iterdir()) == [target]  # no temporary file left behind


def test_missing_folders_are_made(run_cli, tmp_path):
    target = tmp_path / "a" / "b" / "report.html"
    assert run_cli(*COMMANDS["simulate"], "--report", str(target)).code == 0
    assert target.is_file()
