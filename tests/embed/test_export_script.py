"""benchmarks/export_onnx.py says what its check needs before any work, instead of crashing after it."""

from __future__ import annotations

import subprocess
import sys

from ..conftest import ROOT


def test_the_export_script_without_onnxruntime_is_one_line_naming_the_install(tmp_path):
    code = (
        "import runpy, sys\n"
        "sys.modules['onnxruntime'] = None  # not installed, as in the issue's export environment\n"
        f"sys.argv = ['export_onnx.py', '--out', {str(tmp_path / 'out')!r}]\n"
        f"runpy.run_path({str(ROOT / 'benchmarks' / 'export_onnx.py')!r}, run_name='__main__')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        'error: the check of the export needs onnxruntime: pip install -e ".[embed]" (or run with --no-check)'
    ]
    assert not (tmp_path / "out").exists()  # nothing was exported first
