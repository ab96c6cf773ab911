"""A dense search imports numpy with OpenBLAS' idle threads told to sleep at once
(embed.import_numpy): set for the import only, never over the user's own setting."""

from __future__ import annotations

import os
import subprocess
import sys

from ..conftest import ROOT

# records the variable as the import of numpy sees it, and whether it is left set afterwards
PROBE = r"""
import os, sys
seen = []

class Probe:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            seen.append(os.environ.get("OPENBLAS_THREAD_TIMEOUT"))
            if sys.argv[1] == "changed-meanwhile":  # as another thread could, during the import
                os.environ["OPENBLAS_THREAD_TIMEOUT"] = "7"
        return None

sys.meta_path.insert(0, Probe())
from toolsearch_cli.search import embed
if sys.argv[1] == "already-imported":
    import numpy
embed.import_numpy()
import numpy
print(seen, os.environ.get("OPENBLAS_THREAD_TIMEOUT"))
"""


def _run(mode: str, **env: str) -> str:
    environ = {k: v for k, v in os.environ.items() if k != "OPENBLAS_THREAD_TIMEOUT"}
    environ.update(env, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, env=environ, check=True)
    return out.stdout.strip()


def test_numpy_is_imported_with_the_short_spin_and_the_variable_is_not_left_set():
    assert _run("fresh") == "['4'] None"


def test_the_user_s_own_setting_is_kept():
    assert _run("fresh", OPENBLAS_THREAD_TIMEOUT="20") == "['20'] 20"


def test_a_value_set_by_someone_else_during_the_import_is_left_alone():
    assert _run("changed-meanwhile") == "['4'] 7"


def test_nothing_changes_when_numpy_is_already_imported():
    assert _run("already-imported") == "[None] None"


def test_a_dense_ranker_s_embedder_imports_numpy_this_way(monkeypatch):
    from toolsearch_cli.search import embed

    calls = []
    monkeypatch.setattr(embed, "import_numpy", lambda: calls.append(True))
    monkeypatch.setattr(embed, "_load", lambda settings: object())
    monkeypatch.setattr(embed, "_embedders", {})
    settings = embed.EmbedSettings(model="some/model")
    embed.embedder_for(settings)
    embed.embedder_for(settings)
    assert calls == [True]  # once, when the model is first loaded
