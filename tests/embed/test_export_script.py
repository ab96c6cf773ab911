"""`python -m benchmarks export-onnx` says what its check needs before any work, instead of crashing after it."""

from __future__ import annotations

import subprocess
import sys

from ..conftest import ROOT


def test_the_export_script_without_onnxruntime_is_one_line_naming_the_install(tmp_path):
    code = (
        "import runpy, sys\n"
        "sys.modules['onnxruntime'] = None  # not installed, as in the issue's export environment\n"
        f"sys.argv = ['benchmarks', 'export-onnx', '--out', {str(tmp_path / 'out')!r}]\n"
        "runpy.run_module('benchmarks', run_name='__main__')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        'error: the check of the export needs onnxruntime: pip install -e ".[embed]" (or run with --no-check)'
    ]
    assert not (tmp_path / "out").exists()  # nothing was exported first


def _run_export(tmp_path, *args: str, missing: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    blocked = "".join(f"sys.modules[{name!r}] = None\n" for name in missing)
    code = (
        "import runpy, sys\n"
        f"{blocked}"
        f"sys.argv = ['benchmarks', 'export-onnx', '--out', {str(tmp_path / 'out')!r}, *{list(args)!r}]\n"
        "runpy.run_module('benchmarks', run_name='__main__')\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)


def test_the_export_script_in_an_environment_without_torch_is_one_line_naming_the_install(tmp_path):
    """The issue-19 audit ran it in toolsearch's own venv, as a user who skips the separate one would: a traceback."""
    for missing in ("onnx", "torch"):  # imported in this order (transformers after torch, which may be absent)
        out = _run_export(tmp_path, missing=(missing,))
        assert out.returncode == 2, out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, out.stderr
        assert lines[0].startswith(
            f"error: the export needs {missing}, in an environment of its own: pip install torch"
        )
        assert not (tmp_path / "out").exists()


def test_the_export_script_with_a_source_that_is_no_model_folder_is_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    for source in (tmp_path / "nowhere", tmp_path / "empty"):
        out = _run_export(tmp_path, "--source", str(source), "--no-check")
        assert out.returncode == 2
        assert out.stderr.strip().splitlines() == [
            f"error: --source {str(source)!r} is not a transformers model folder (no config.json in it)"
        ]
        assert not (tmp_path / "out").exists()
