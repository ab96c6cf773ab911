"""`python -m benchmarks quantize-int8`: an int8 copy of an ONNX model folder that toolsearch loads as its own model."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import ROOT

WORDS = ["weather", "city", "send", "email", "a", "the", "text", "get"]


def test_the_int8_copy_loads_embeds_alike_and_has_its_own_cache_identity(tmp_path):
    np = pytest.importorskip("numpy")
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx", reason="writing the test's ONNX graph and quantising need the onnx package")
    from toolsearch_cli.search.embed import load_local

    from ..tiny_models import one_hot_model

    source, out = tmp_path / "float", tmp_path / "int8"
    one_hot_model(source, WORDS, onnx_path="model.onnx")
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "quantize-int8", "--source", str(source), "--out", str(out),
         "--texts", str(ROOT / "catalogs" / "demo"), "--rounds", "1"],
        capture_output=True, text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "texts per CPU-second" in done.stdout and "cosine int8 vs float per text: mean" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in source.iterdir())  # config files copied
    assert (out / "model.onnx").read_bytes() != (source / "model.onnx").read_bytes()
    base, small = load_local(str(source)), load_local(str(out))
    assert base.config == small.config  # used as the float model is: same pooling, prompts
    assert base.model_id != small.model_id  # vectors of the two are never mixed in the cache
    texts = ["get the weather of a city", "send a text email"]
    a, b = np.asarray(base.embed(texts)), np.asarray(small.embed(texts))
    assert ((a * b).sum(axis=1) > 0.99).all()
