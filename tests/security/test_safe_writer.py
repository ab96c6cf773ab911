"""Issue 11.6: every output flag writes through symlinks, FIFOs and devices instead of replacing them."""

from __future__ import annotations

import json
import os
import subprocess
import threading

import pytest

from toolsearch_cli.errors import UsageError
from toolsearch_cli.files import write_text_atomic

from ..conftest import DEMO, ROOT, TOOLSEARCH

SIM = ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml"


def test_a_symlink_stays_a_link_and_its_target_is_replaced_atomically(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_text_atomic(link, "new", what="the test file")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8") == "new"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]  # no temporary file left


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "later.json")
    write_text_atomic(link, "made", what="the test file")
    assert link.is_symlink() and (tmp_path / "later.json").read_text(encoding="utf-8") == "made"


def test_a_fifo_is_written_to_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    write_text_atomic(fifo, "through the pipe", what="the test file")
    reader.join(10)
    assert got == ["through the pipe"]
    assert fifo.is_fifo()


def test_a_character_device_is_written_to_not_replaced():
    """A terminal (a pty the test owns: never a shared device such as /dev/null, which the code
    before this fix replaced with a regular file when run as root)."""
    master, slave = os.openpty()
    try:
        device = os.ttyname(slave)
        write_text_atomic(device, "to the terminal\n", what="the test file")
        assert b"to the terminal" in os.read(master, 1024)
        assert not os.path.isfile(device)
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize("make", ["folder", "socket"])
def test_other_kinds_of_file_are_refused_in_one_line(tmp_path, make):
    path = tmp_path / "thing"
    if make == "folder":
        path.mkdir()
    else:
        import socket

        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    with pytest.raises(UsageError) as err:
        write_text_atomic(path, "x", what="the report", error=UsageError, field="out")
    assert "cannot write the report" in str(err.value) and "\n" not in str(err.value)
    assert path.exists()


def test_a_symlink_loop_is_a_one_line_error(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(tmp_path / "loop")
    with pytest.raises(UsageError) as err:
        write_text_atomic(loop, "x", what="the report", error=UsageError)
    assert "cannot write the report" in str(err.value)
    assert loop.is_symlink()


def test_every_output_flag_keeps_a_symlink(run_cli, tmp_path):
    targets = {}
    for name in ("convert", "lint", "save", "state"):
        real = tmp_path / f"{name}-real.txt"
        real.write_text("{}", encoding="utf-8")
        link = tmp_path / f"{name}.link"
        link.symlink_to(real)
        targets[name] = (link, real)
    assert run_cli("catalog", "convert", "-c", str(DEMO), "--to", "openai", "-o", str(targets["convert"][0])).code == 0
    assert run_cli("lint", str(DEMO), "-f", "json", "-o", str(targets["lint"][0])).code in (0, 1)
    assert run_cli("eval", "-c", str(DEMO), "--save", str(targets["save"][0])).code == 0
    targets["state"][1].unlink()  # a state file starts absent
    assert run_cli("simulate", str(SIM), "-m", "agent", "--state", str(targets["state"][0])).code in (0, 1)
    for link, real in targets.values():
        assert link.is_symlink(), link
        json.loads(real.read_text(encoding="utf-8"))  # the target got the output


def _dash_o_stdout(tmp_path, stdout):
    """``catalog convert -o STDOUT`` in a real process, where STDOUT is a link to /proc/self/fd/1:
    what /dev/stdout is (the test never names the real /dev/stdout, which the code before this fix
    replaced with a regular file when run as root)."""
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    argv = [*TOOLSEARCH, "catalog", "convert", "-c", str(DEMO), "--to", "mcp"]
    out = subprocess.run([*argv, "-o", str(link)], stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert link.is_symlink()
    return out


def test_dash_o_dev_stdout_prints_the_output_to_a_pipe(tmp_path):
    out = _dash_o_stdout(tmp_path, subprocess.PIPE)
    assert json.loads(out.stdout)["tools"]


def test_dash_o_dev_stdout_redirected_to_a_file(tmp_path):
    file = tmp_path / "out.json"
    with open(file, "w", encoding="utf-8") as handle:
        _dash_o_stdout(tmp_path, handle)
    assert json.loads(file.read_text(encoding="utf-8"))["tools"]


def test_record_keeps_a_symlink_and_writes_its_target(run_cli, tmp_path, monkeypatch):
    """--record rewrites the recording after every request: each time through the link."""
    pytest.importorskip("openai")
    from ..chat_server import ChatServer, call, say

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    real = tmp_path / "real.json"
    link = tmp_path / "rec.json"
    link.symlink_to(real)
    server = ChatServer([call("toolSearch", {"query": "weather"}), say("done")])
    try:
        result = run_cli(
            "simulate", "--live", "--base-url", server.url, "--model", "m", "--prompt", "hi",
            "-c", str(DEMO), "--record", str(link),
        )  # fmt: skip
    finally:
        server.close()
    assert result.code == 0, result.stderr
    assert link.is_symlink()
    assert len(json.loads(real.read_text(encoding="utf-8"))["requests"]) == 2
