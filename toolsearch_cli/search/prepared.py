"""An ONNX model kept ready in the cache: the same graph with its weights as external data.

onnxruntime memory-maps a model's external data instead of parsing the weights out of the
protobuf and copying them, so a session on the prepared copy is created in about a third of
the CPU time and peaks lower (all-MiniLM-L6-v2's 90 MB file: 198 MB -> 134 MB in a bare process,
214 MB -> 138 MB for a ``search`` with a new request; benchmarks/notes/fusion.md, "Issue 19 — cost").
The copy is written by onnxruntime itself (a session saved through ``optimized_model_filepath``)
with its portable graph optimisations already applied (``ORT_ENABLE_EXTENDED``: constant folding,
fusions such as ``FusedMatMul``/``BiasGelu``; no layout change tied to this CPU), so a session
made on it has little left to optimise: about half the CPU time to create (44 -> 24 ms for
all-MiniLM-L6-v2, benchmarks/notes/fusion.md, "Issue 19 — new hybrid request start-up"). Sessions
open it with the usual options (every level, so what depends on the CPU is still decided at
load); the graph that runs is the one a session on the model's own file runs, and the vectors
are the same bit for bit (``tests/embed/test_embed_prepared.py`` checks it).

It is made once, on the first text a model embeds (``toolsearch model pull`` runs the model, so a
pulled model is prepared when pulled), in ``<cache>/models/<identity>/``, where the identity is
a hash of the model's files and the onnxruntime release. Nothing is downloaded. A copy is used
only when it is exactly as written: its ``prepared.json`` records each file's size and
modification time, a SHA-256 of the graph file and of the first and last MiB of the weights;
anything else (a truncated or edited file, a missing manifest) is removed and made again. As
for the vector cache, the folder must be this user's alone (``cache.trusted_folder``). When the
cache is off (``TOOLSEARCH_NO_CACHE``), read-only or untrusted, the model's own file is used.
At most :data:`KEEP` prepared models are kept (the least recently used go first).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

#: the prepared copy's file names (the graph names the weights file relative to itself)
GRAPH = "model.onnx"
DATA = "model.onnx.data"
MANIFEST = "prepared.json"
#: A manifest names two files and their stamps: anything bigger is not ours.
MAX_MANIFEST_BYTES = 64 * 1024
FORMAT = 2  # 2: the graph is saved optimised (ORT_ENABLE_EXTENDED); 1 was the model's own graph
#: prepared models kept in the cache (about the size of each model's weights on disk)
KEEP = 4
#: initializers at least this big go to the weights file (smaller ones stay in the graph)
EXTERNAL_FROM = 1024
_MIB = 1 << 20


def _folder() -> Path | None:
    from .. import cachedir as cache

    if not cache.enabled():
        return None
    return cache.cache_dir() / "models"


def identity(model_file: Path) -> str:
    """The prepared copy's folder name: the model's files (the graph and any external data beside
    it, by size and the first and last MiB) and the onnxruntime release that writes the copy."""
    import onnxruntime

    from .file_hashes import remembered

    kind = f"prepared/{FORMAT}/onnxruntime {onnxruntime.__version__}"
    files = (model_file, *_data_files_beside(model_file))

    def compute() -> str:
        digest = hashlib.sha256(f"{kind}\n".encode())
        for path in files:
            digest.update(f"{path.name}:{path.stat().st_size}\n".encode())
            digest.update(_ends(path))
        return digest.hexdigest()[:32]

    return remembered(kind, files, compute)


def _data_files_beside(model_file: Path) -> list[Path]:
    """External data files a model may come with (the Hub's ``model.onnx_data``, ``*.data``)."""
    stem = model_file.name
    return [p for p in (model_file.with_name(stem + "_data"), model_file.with_name(stem + ".data")) if p.is_file()]


def _ends(path: Path) -> bytes:
    """A SHA-256 of a file's first and last MiB (the whole file when it is at most 2 MiB)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        digest.update(f.read(_MIB))
        if os.fstat(f.fileno()).st_size > 2 * _MIB:
            f.seek(-_MIB, os.SEEK_END)
        digest.update(f.read(_MIB))
    return digest.digest()


def _stamp(path: Path) -> dict[str, int]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _intact(folder: Path, key: str) -> bool:
    """Whether ``folder`` holds the prepared copy ``key`` exactly as it was written."""
    from .. import cachedir as cache
    from .file_hashes import remembered

    try:
        manifest = cache.read_json(folder / MANIFEST, MAX_MANIFEST_BYTES)
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("key") != key:
            return False
        files = manifest.get("files")
        if not isinstance(files, dict) or set(files) != {GRAPH, DATA}:
            return False
        for name, recorded in files.items():
            path = folder / name
            if path.is_symlink() or not path.is_file() or not isinstance(recorded, dict):
                return False
            if {k: recorded.get(k) for k in ("size", "mtime_ns")} != _stamp(path):
                return False
        graph = folder / GRAPH
        if graph.stat().st_size > 64 * _MIB:  # a graph holds no weights here: a big one is not ours
            return False
        # hashed once per unchanged file (:mod:`.file_hashes`): the stamps above are the copy's own
        graph_sha256 = remembered("sha256", [graph], lambda: hashlib.sha256(graph.read_bytes()).hexdigest())
        if graph_sha256 != files[GRAPH].get("sha256"):
            return False
        data = folder / DATA
        return remembered("ends_sha256", [data], lambda: _ends(data).hex()) == files[DATA].get("ends_sha256")
    except (OSError, ValueError):
        return False


def session_file(model_file: Path) -> Path:
    """The file to open a session on: the prepared copy of ``model_file`` (made now when missing
    or not intact), or ``model_file`` itself when the cache cannot hold one or making it failed.
    Never raises for the cache's sake: a model that cannot be read fails when its session is made."""
    from .. import cachedir as cache

    root = _folder()
    if root is None:
        return model_file
    try:
        key = identity(model_file)
    except OSError:
        return model_file
    target = root / key
    if cache.trusted_folder(False, root) is not None and _intact(target, key):
        _touch(target)
        return target / GRAPH
    if cache.trusted_folder(True, root) is None:
        return model_file
    try:
        made = _prepare(model_file, root, key)
    except Exception:  # noqa: BLE001 - e.g. a full disk or a model onnxruntime cannot read: use the original
        return model_file
    _prune(root, keep=target)
    return made


def _prepare(model_file: Path, root: Path, key: str) -> Path:
    import onnxruntime

    target = root / key
    work = Path(tempfile.mkdtemp(dir=root, prefix=".tmp-"))
    try:
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 4
        # the portable optimisations, done once here instead of in every session (the CPU-specific
        # level, ORT_ENABLE_ALL, is left to the sessions: a cache folder may move to another machine)
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = str(work / GRAPH)
        options.add_session_config_entry("session.optimized_model_external_initializers_file_name", DATA)
        options.add_session_config_entry(
            "session.optimized_model_external_initializers_min_size_in_bytes", str(EXTERNAL_FROM)
        )
        options.add_session_config_entry("session.disable_prepacking", "1")  # this session runs nothing
        onnxruntime.InferenceSession(str(model_file), options, providers=["CPUExecutionProvider"])
        data = work / DATA
        if not data.exists():  # no initializer was big enough: an empty weights file keeps one layout
            data.touch()
        graph = work / GRAPH
        manifest = {
            "format": FORMAT,
            "key": key,
            "source": str(model_file),
            "files": {
                GRAPH: {**_stamp(graph), "sha256": hashlib.sha256(graph.read_bytes()).hexdigest()},
                DATA: {**_stamp(data), "ends_sha256": _ends(data).hex()},
            },
        }
        (work / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if target.exists() or target.is_symlink():
            if _intact(target, key):  # another process made it meanwhile: theirs is used, ours dropped
                return target / GRAPH
            _remove(target)  # not intact: made again
        try:
            os.rename(work, target)
        except OSError:  # another process put its copy there first: use it when it is intact
            if _intact(target, key):
                return target / GRAPH
            raise
        return target / GRAPH
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


def _remove(path: Path) -> None:
    """Remove a folder (renamed aside first, so a reader never sees half of it) or a stray file."""
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
        return
    aside = path.with_name(f".old-{path.name}-{os.getpid()}")
    os.rename(path, aside)
    shutil.rmtree(aside, ignore_errors=True)


def _touch(folder: Path) -> None:
    try:
        os.utime(folder)  # the folder's time says when it was last used (pruning keeps the newest)
    except OSError:
        pass


def _prune(root: Path, keep: Path) -> None:
    """Keep the :data:`KEEP` most recently used prepared models (and ``keep``); leftovers of
    interrupted runs (``.tmp-*``, ``.old-*`` older than an hour) go too."""
    import time

    try:
        entries = list(root.iterdir())
    except OSError:
        return
    now = time.time()
    models = []
    for entry in entries:
        try:
            st = entry.lstat()
        except OSError:
            continue
        if entry.name.startswith((".tmp-", ".old-")):
            if now - st.st_mtime > 3600:
                shutil.rmtree(entry, ignore_errors=True)
        elif entry != keep:
            models.append((st.st_mtime, entry))
    for _, entry in sorted(models, reverse=True)[KEEP - 1 :]:
        try:
            _remove(entry)
        except OSError:
            pass


def forget(model_file: Path) -> None:
    """Remove ``model_file``'s prepared copy, if any (``toolsearch model rm``)."""
    root = _folder()
    if root is None:
        return
    try:
        target = root / identity(model_file)
        if target.exists():
            _remove(target)
    except (OSError, ImportError):
        pass
