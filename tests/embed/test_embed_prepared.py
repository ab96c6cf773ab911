"""The cache's prepared copy of an ONNX model (weights as memory-mapped external data): made once,
used when intact, made again when truncated or edited, never used when the cache is off or not
the user's alone, and giving the same vectors as the model's own file."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx", reason="writing the test's ONNX graph needs the onnx package (test extra)")

from toolsearch_cli.search import prepared  # noqa: E402
from toolsearch_cli.search.embed import load_local  # noqa: E402

from ..tiny_models import one_hot_model  # noqa: E402

# enough words that the token table (vocab x vocab float32) goes to the weights file
WORDS = [f"word{i}" for i in range(40)] + ["send", "mail", "file", "list", "alice", "acme"]
TEXTS = ["send mail to alice", "list file", "acme word3 word7 word7", "nothing known here"]


@pytest.fixture
def model(tmp_path):
    folder = tmp_path / "model"
    one_hot_model(folder, WORDS)
    return folder


@pytest.fixture
def opened(monkeypatch):
    """The files sessions were opened on, and how many prepared copies were written."""
    seen: dict[str, list] = {"files": [], "made": []}
    real_file, real_prepare = prepared.session_file, prepared._prepare

    def spy_file(model_file):
        path = real_file(model_file)
        seen["files"].append(path)
        return path

    def spy_prepare(model_file, root, key):
        seen["made"].append(key)
        return real_prepare(model_file, root, key)

    monkeypatch.setattr(prepared, "session_file", spy_file)
    monkeypatch.setattr(prepared, "_prepare", spy_prepare)
    return seen


def _vectors(folder):
    return load_local(str(folder)).embed(TEXTS)


def _own_vectors(folder, monkeypatch):
    with monkeypatch.context() as m:
        m.setenv("TOOLSEARCH_NO_CACHE", "1")
        return _vectors(folder)


def _copy(cache):
    (folder,) = [p for p in (cache / "models").iterdir() if not p.name.startswith(".")]
    return folder


def test_the_first_use_makes_the_copy_once_and_it_gives_the_model_s_own_vectors(model, cache, opened, monkeypatch):
    import numpy as np

    own = _own_vectors(model, monkeypatch)
    assert opened["files"] == [model / "onnx" / "model.onnx"]  # cache off: the model's own file
    assert not (cache / "models").exists()

    first = _vectors(model)
    copy = _copy(cache)
    assert sorted(p.name for p in copy.iterdir()) == [prepared.GRAPH, prepared.DATA, prepared.MANIFEST]
    assert opened["files"][-1] == copy / prepared.GRAPH
    assert os.path.getsize(copy / prepared.DATA) >= len(WORDS) ** 2 * 4  # the weights left the graph
    assert os.path.getsize(copy / prepared.GRAPH) < len(WORDS) ** 2 * 4
    assert np.array_equal(first, own)

    data_inode = os.stat(copy / prepared.DATA).st_ino
    again = _vectors(model)
    assert opened["made"] == [copy.name]  # made once: the second load used it as it was
    assert opened["files"][-1] == copy / prepared.GRAPH
    assert os.stat(copy / prepared.DATA).st_ino == data_inode
    assert np.array_equal(again, own)


def _damage_truncate(copy):
    path = copy / prepared.DATA
    path.write_bytes(path.read_bytes()[:100])


def _damage_edit_graph_keeping_size_and_time(copy):
    path = copy / prepared.GRAPH
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _damage_edit_weights_keeping_size_and_time(copy):
    path = copy / prepared.DATA
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[: len(data) // 2] = bytes(len(data) // 2)  # half the table zeroed: other vectors
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _damage_manifest(copy):
    (copy / prepared.MANIFEST).write_text("{not json", encoding="utf-8")


def _damage_manifest_nested_too_deep(copy):
    (copy / prepared.MANIFEST).write_text("[" * 50_000, encoding="utf-8")  # under the size bound


def _damage_manifest_padded_over_the_bound(copy):
    # the real manifest, still valid JSON, with 1 MB more: refused unread, not parsed
    path = copy / prepared.MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["padding"] = "x" * (1 << 20)
    path.write_text(json.dumps(manifest), encoding="utf-8")


def _damage_manifest_replaced_by_a_link(copy):
    path = copy / prepared.MANIFEST
    moved = copy.parent / "elsewhere.json"
    os.replace(path, moved)
    path.symlink_to(moved)


def _damage_no_manifest(copy):
    (copy / prepared.MANIFEST).unlink()


def _damage_weights_replaced_by_a_link(copy):
    path = copy / prepared.DATA
    moved = copy.parent / "elsewhere.data"
    os.replace(path, moved)
    path.symlink_to(moved)


@pytest.mark.parametrize(
    "damage",
    [
        _damage_truncate,
        _damage_edit_graph_keeping_size_and_time,
        _damage_edit_weights_keeping_size_and_time,
        _damage_manifest,
        _damage_manifest_nested_too_deep,
        _damage_manifest_padded_over_the_bound,
        _damage_manifest_replaced_by_a_link,
        _damage_no_manifest,
        _damage_weights_replaced_by_a_link,
    ],
)
@pytest.mark.parametrize("memo", [False, True], ids=["hashed", "hashes-remembered"])
def test_a_damaged_copy_is_not_used_but_made_again(model, cache, opened, monkeypatch, damage, memo):
    """Also when the copy's hashes were remembered (search/file_hashes.py) before the damage."""
    import numpy as np

    from toolsearch_cli.search import file_hashes

    if memo:
        monkeypatch.setattr(file_hashes, "SETTLE_NS", 0)  # the copy just written counts as settled
    file_hashes.forget()
    own = _own_vectors(model, monkeypatch)
    _vectors(model)
    copy = _copy(cache)
    assert prepared._intact(copy, copy.name)
    assert (cache / file_hashes.NAME).exists() is memo
    damage(copy)
    file_hashes.forget()
    assert not prepared._intact(copy, copy.name)

    vectors = _vectors(model)
    assert np.array_equal(vectors, own)
    assert opened["made"] == [copy.name, copy.name]  # made again
    assert prepared._intact(copy, copy.name)
    assert opened["files"][-1] == copy / prepared.GRAPH


def test_a_copy_that_does_not_load_falls_back_to_the_model_s_own_file(model, cache, opened, monkeypatch):
    """An intact-looking copy onnxruntime refuses (a manifest made to match a broken graph) costs
    nothing but the fallback: the model's own file, and the copy is removed."""
    import hashlib

    import numpy as np

    own = _own_vectors(model, monkeypatch)
    _vectors(model)
    copy = _copy(cache)
    graph = copy / prepared.GRAPH
    graph.write_bytes(b"not an onnx graph")
    manifest = json.loads((copy / prepared.MANIFEST).read_text(encoding="utf-8"))
    manifest["files"][prepared.GRAPH] = {
        **prepared._stamp(graph),
        "sha256": hashlib.sha256(graph.read_bytes()).hexdigest(),
    }
    (copy / prepared.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    assert prepared._intact(copy, copy.name)

    assert np.array_equal(_vectors(model), own)
    assert not copy.exists()


def test_a_cache_others_can_write_to_is_not_used(model, cache, opened, monkeypatch, capsys):
    import numpy as np

    own = _own_vectors(model, monkeypatch)
    cache.mkdir(mode=0o700)
    os.chmod(cache, 0o777)
    vectors = _vectors(model)
    assert np.array_equal(vectors, own)
    assert opened["files"][-1] == model / "onnx" / "model.onnx"
    assert not (cache / "models").exists()
    assert "other users can write" in capsys.readouterr().err


def test_a_read_only_cache_runs_the_model_s_own_file(model, cache, opened, monkeypatch):
    import numpy as np

    if os.geteuid() == 0:
        pytest.skip("root writes to read-only folders")
    own = _own_vectors(model, monkeypatch)
    (cache / "models").mkdir(parents=True, mode=0o700)
    os.chmod(cache / "models", 0o500)
    try:
        assert np.array_equal(_vectors(model), own)
    finally:
        os.chmod(cache / "models", 0o700)
    assert opened["files"][-1] == model / "onnx" / "model.onnx"


def test_a_changed_model_gets_its_own_copy_and_old_copies_are_pruned(model, cache, opened, monkeypatch, tmp_path):
    import numpy as np

    from ..tiny_models import write_onnx

    _vectors(model)
    first = _copy(cache)
    # the same folder, other weights: a new identity, so a new copy and other vectors
    table = np.eye(len(WORDS) + 1, dtype=np.float32)[::-1].copy()
    write_onnx(model / "onnx" / "model.onnx", table)
    own = _own_vectors(model, monkeypatch)
    assert np.array_equal(_vectors(model), own)
    names = sorted(p.name for p in (cache / "models").iterdir())
    assert first.name in names and len(names) == 2

    stale = []
    for i in range(prepared.KEEP + 2):  # older copies of other models, least recently used first
        folder = cache / "models" / f"{i:032x}"
        folder.mkdir()
        os.utime(folder, (1000 + i, 1000 + i))
        stale.append(folder.name)
    (cache / "models" / ".tmp-left-by-a-crash").mkdir()
    os.utime(cache / "models" / ".tmp-left-by-a-crash", (1000, 1000))
    write_onnx(model / "onnx" / "model.onnx", table * 2)
    _vectors(model)
    left = sorted(p.name for p in (cache / "models").iterdir())
    assert len(left) == prepared.KEEP
    assert ".tmp-left-by-a-crash" not in left
    assert stale[0] not in left and stale[-1] in left  # the most recently used are kept


def test_the_model_cache_is_not_touched_when_the_cache_is_off(model, cache, opened, monkeypatch):
    monkeypatch.setenv("TOOLSEARCH_NO_CACHE", "1")
    _vectors(model)
    assert not cache.exists()
    assert opened["made"] == []


def test_a_few_texts_get_a_light_session_and_many_texts_the_full_one(model, cache, monkeypatch):
    """A search's new request (one text) gets a session that skips repacking the weights; a batch
    bigger than ``light_session_at`` gets the full session, made then; the vectors agree."""
    import numpy as np

    made: list[bool] = []
    embedder = load_local(str(model))
    real_load = embedder._load

    def spy_load(light=False):
        made.append(light)
        real_load(light)

    monkeypatch.setattr(embedder, "_load", spy_load)
    few = embedder.embed(TEXTS[:1])
    assert made == [True]
    embedder.embed(TEXTS[:1])
    assert made == [True]  # kept for more small calls
    many = embedder.embed(TEXTS * 3)
    assert len(TEXTS) * 3 > embedder.light_session_at and made == [True, False]
    embedder.embed(TEXTS[:1])
    assert made == [True, False]  # the full session serves small calls too
    assert np.allclose(few, many[:1], atol=1e-6)

    other = load_local(str(model))
    monkeypatch.setattr(other, "_load", lambda light=False: (made.append(light), type(other)._load(other, light)))
    other.embed(TEXTS * 3)
    assert made[-1] is False  # a first call with many texts makes the full session at once


def test_a_copy_made_meanwhile_by_another_process_is_kept(model, cache, monkeypatch):
    """Two first uses at once: the one that finishes second keeps the first one's intact copy
    (a process may have it open) and drops its own."""
    _vectors(model)
    copy = _copy(cache)
    inode = os.stat(copy / prepared.DATA).st_ino
    made = prepared._prepare(model / "onnx" / "model.onnx", cache / "models", copy.name)
    assert made == copy / prepared.GRAPH
    assert os.stat(copy / prepared.DATA).st_ino == inode
    assert [p.name for p in (cache / "models").iterdir()] == [copy.name]  # its own work folder is gone


def _fusable_model(folder):
    """A model folder whose graph onnxruntime's extended optimisations rewrite: token rows ->
    MatMul -> Add -> GELU written out with Erf (fused into one ``BiasGelu``) -> MatMul with a
    transposed constant weight (folded), as a transformer's feed-forward layer is."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from ..tiny_models import write_tokenizer

    vocab = write_tokenizer(folder, WORDS)
    rng = np.random.default_rng(19)
    dim = 48
    weights = {
        "table": rng.standard_normal((len(vocab), dim)),
        "w1": rng.standard_normal((dim, dim)) / 7,
        "b1": rng.standard_normal(dim) / 7,
        "w2": rng.standard_normal((dim, dim)) / 7,
        "half": np.array(0.5),
        "one": np.array(1.0),
        "root2": np.array(2**0.5),
    }
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["rows"], axis=0),
        helper.make_node("MatMul", ["rows", "w1"], ["h"]),
        helper.make_node("Add", ["h", "b1"], ["hb"]),
        helper.make_node("Div", ["hb", "root2"], ["scaled"]),
        helper.make_node("Erf", ["scaled"], ["erf"]),
        helper.make_node("Add", ["erf", "one"], ["erf1"]),
        helper.make_node("Mul", ["hb", "erf1"], ["gelu2"]),
        helper.make_node("Mul", ["gelu2", "half"], ["gelu"]),
        helper.make_node("Transpose", ["w2"], ["w2t"], perm=[1, 0]),
        helper.make_node("MatMul", ["gelu", "w2t"], ["last_hidden_state"]),
    ]
    graph = helper.make_graph(
        nodes,
        "fusable-encoder",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", dim])],
        [numpy_helper.from_array(np.asarray(v, dtype=np.float32), k) for k, v in weights.items()],
    )
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx_model.ir_version = 8
    onnx.checker.check_model(onnx_model)
    (folder / "onnx").mkdir(parents=True, exist_ok=True)
    onnx.save(onnx_model, str(folder / "onnx" / "model.onnx"))


def test_the_copy_is_saved_optimised_and_gives_the_model_s_own_vectors_bit_for_bit(tmp_path, cache, monkeypatch):
    """The prepared copy holds onnxruntime's portable optimisations (so a session made on it has
    less to do); light and full sessions on it give exactly the vectors of the model's own file."""
    import numpy as np
    import onnx

    model = tmp_path / "fusable"
    _fusable_model(model)
    texts = [*TEXTS, *(f"word{i} send alice" for i in range(12))]
    own_light = [_own_vectors_of(model, monkeypatch, [t]) for t in texts[:3]]
    own_full = _own_vectors_of(model, monkeypatch, texts)

    light = [load_local(str(model)).embed([t]) for t in texts[:3]]  # the first makes the copy
    graph = onnx.load(str(_copy(cache) / prepared.GRAPH), load_external_data=False).graph
    kinds = {node.op_type for node in graph.node}
    assert "BiasGelu" in kinds and not kinds & {"Erf", "Transpose"}  # optimised once, when saved
    full = load_local(str(model)).embed(texts)
    for mine, own in zip(light, own_light, strict=True):
        assert np.array_equal(mine, own)
    assert np.array_equal(full, own_full)


def _own_vectors_of(folder, monkeypatch, texts):
    with monkeypatch.context() as m:
        m.setenv("TOOLSEARCH_NO_CACHE", "1")
        return load_local(str(folder)).embed(texts)
