"""A catalog's tool-vector index is kept beside its catalog cache entry, in a file of its own
(search/vectors.py, ``index_path``), not inside the entry: a ``default`` search of a catalog a
``hybrid`` search used before reads none of it and imports no embedding code; a second dense
search finds its tools' vectors through it without making the texts or embedding anything; a
damaged, planted or oversized file is a miss (made again), never an error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ..conftest import DEMO, ROOT
from .conftest import STATIC

pytest.importorskip("numpy")
pytest.importorskip("model2vec", reason="the static test model needs the embed extra (model2vec)")

#: runs the CLI in a fresh process and prints, as JSON: the exit code, the embedding modules it
#: imported, the vector-index files it opened and the embedding cost it reported
WRAPPER = r"""
import json, os, sys
opened = []

def hook(event, args):
    if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.fsdecode(args[0])
        if ".vectors-" in os.path.basename(path):
            opened.append(path)

sys.addaudithook(hook)
from toolsearch_cli.cli.app import main
from toolsearch_cli.search import embed_settings
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = ("toolsearch_cli.search.embed", "toolsearch_cli.search.vectors")
imported = sorted(m for m in sys.modules if m.split(".")[0] == "numpy" or m in heavy)
cost = embed_settings.embed_cost()
print(json.dumps({"code": code, "imported": imported, "opened": opened,
                  "embedded": cost.texts, "cached": cost.cached}))
"""


def _run(cache, *argv: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSEARCH_EMBED")}
    env.update(TOOLSEARCH_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env.pop("TOOLSEARCH_NO_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-c", WRAPPER, *argv], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


HYBRID = ("search", "weather in a city", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(STATIC))
DEFAULT = ("search", "weather in a city", "-c", str(DEMO))


def test_a_default_search_after_a_hybrid_one_reads_no_vectors_and_imports_no_embedding_code(tmp_path):
    cache = tmp_path / "cache"
    first = _run(cache, *HYBRID)
    assert first["code"] == 0 and first["embedded"] > 0  # the catalog's tools embedded
    assert list(cache.glob("*.vectors-*.keys"))  # the index kept beside the catalog's entry
    after = _run(cache, *DEFAULT)
    assert after["code"] == 0
    assert after["imported"] == []  # no numpy, no .embed, no .vectors
    assert after["opened"] == []  # and the vector-index file not even opened
    again = _run(cache, *HYBRID)  # the dense search still finds it: nothing embedded again
    assert again["code"] == 0 and again["embedded"] == 0 and again["cached"] > 0
    assert again["opened"]
    # np.unique imports it: ~30 ms of a warm search (numpy 1.x imports it with numpy itself: nothing to save)
    assert "numpy.ma" not in again["imported"] or _numpy_imports_ma()


def _numpy_imports_ma() -> bool:
    code = "import sys, numpy; print('numpy.ma' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    return done.stdout.strip() == "True"


# -- in-process: what a dense search makes again, file by file --------------------------------


def _hybrid(run_cli, catalog=DEMO, model=STATIC, query="weather in a city"):
    result = run_cli("search", query, "-c", str(catalog), "-r", "hybrid", "--embed-model", str(model), "-f", "json")
    assert result.code == 0, result.stderr
    assert result.stderr == "" and "Traceback" not in result.stderr
    return [hit["name"] for hit in result.json()["hits"]]


def _index_files(cache):
    return sorted(cache.glob("*.vectors-*.keys"))


def _record(raw: bytes):
    """An index file's JSON line and its keys."""
    head, _, keys = raw.partition(b"\n")
    return json.loads(head), keys


def _file(head, keys) -> bytes:
    return json.dumps(head).encode() + b"\n" + keys


def test_a_second_dense_search_makes_no_text_and_ranks_the_same(run_cli, cache, made):
    first = _hybrid(run_cli)
    tools = made["texts"]
    assert tools > 50
    [path] = _index_files(cache)
    assert path.stat().st_mode & 0o077 == 0  # the user's alone, as every cache file
    assert _hybrid(run_cli) == first
    assert made["texts"] == tools  # the keys came from the index file: no text made again
    head, keys = _record(path.read_bytes())
    assert head["format"] == "toolsearch-vector-index/1" and head["live"] is None
    assert len(keys) == 16 * (head["tools"] + len(head["titled"]))


@pytest.mark.parametrize(
    "damage",
    [
        "truncated",
        "garbage",
        "no line",
        "wrong types",
        "keys cut short",
        "slot out of range",
        "oversized",
        "folder",
        "fifo",
    ],
)
def test_a_damaged_index_file_is_made_again(run_cli, cache, made, damage):
    first = _hybrid(run_cli)
    [path] = _index_files(cache)
    good = path.read_bytes()
    head, keys = _record(good)
    path.unlink()
    if damage == "truncated":
        path.write_bytes(good[: len(good) // 2])
    elif damage == "garbage":
        path.write_bytes(os.urandom(4096))
    elif damage == "no line":
        path.write_bytes(good.replace(b"\n", b" ", 1))
    elif damage == "wrong types":
        path.write_bytes(_file({**head, "tools": "62", "titled": {"a": 1}}, keys))
    elif damage == "keys cut short":
        path.write_bytes(_file(head, keys[:-8]))
    elif damage == "slot out of range":
        path.write_bytes(_file({**head, "titled": [*head["titled"][:-1], 10**9]}, keys))
    elif damage == "oversized":  # still the same record: only its size gives it away
        path.write_bytes(_file(head, b"").replace(b"}", b"}" + b" " * (2 << 20), 1)[:-1] + b"\n" + keys)
    elif damage == "folder":
        path.mkdir()
    elif damage == "fifo":
        os.mkfifo(path)  # opening it to read must not wait for a writer
    before = made["texts"]
    assert _hybrid(run_cli) == first
    assert made["texts"] > before  # made again, not taken from the damaged file
    if damage != "folder":  # a folder in the way stays (nothing is deleted); the search goes on
        assert path.read_bytes() == good  # and written again, whole
        made["texts"] = 0
        assert _hybrid(run_cli) == first and made["texts"] == 0


def test_a_link_in_place_of_the_index_file_is_not_followed(run_cli, cache, made, tmp_path):
    first = _hybrid(run_cli)
    [path] = _index_files(cache)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(path.read_bytes())  # a valid index: followed, it would spare the texts
    path.unlink()
    path.symlink_to(elsewhere)
    before = made["texts"]
    assert _hybrid(run_cli) == first
    assert made["texts"] > before  # not read through the link
    assert not path.is_symlink() and path.is_file()  # the link replaced by the file itself
    assert elsewhere.read_bytes() == path.read_bytes()  # and its target left as it was


def test_the_index_file_goes_stale_with_the_catalog_and_with_the_model(run_cli, cache, made, tmp_path, monkeypatch):
    import shutil

    from toolsearch_cli.search import embed

    catalog = tmp_path / "demo"
    shutil.copytree(DEMO, catalog)
    model = tmp_path / "model"
    shutil.copytree(STATIC, model)
    _hybrid(run_cli, catalog, model)
    assert len(_index_files(cache)) == 1
    weather = catalog / "weather.yaml"
    weather.write_text(weather.read_text().replace("Get the current weather", "Get the present weather", 1))
    before = made["texts"]
    _hybrid(run_cli, catalog, model)  # another catalog entry: another index file, the texts made again
    assert made["texts"] > before and len(_index_files(cache)) == 2
    tokenizer = model / "tokenizer.json"
    tokenizer.write_text(tokenizer.read_text() + "\n")  # the model's files changed: another identity
    monkeypatch.setattr(embed, "_embedders", {})  # loaded again, as a new process would
    before = made["texts"]
    _hybrid(run_cli, catalog, model)
    assert made["texts"] > before and len(_index_files(cache)) == 3


def test_the_index_file_is_named_by_the_entry_the_model_and_the_texts_version(cache, monkeypatch):
    from toolsearch_cli.search import vectors

    one = vectors.index_path("a" * 64, "model-1")
    assert one.parent == cache and one.name.startswith("a" * 64 + ".vectors-")
    assert vectors.index_path("b" * 64, "model-1") != one
    assert vectors.index_path("a" * 64, "model-2") != one
    monkeypatch.setattr(vectors, "TEXTS_VERSION", vectors.TEXTS_VERSION + 1)
    assert vectors.index_path("a" * 64, "model-1") != one


def test_no_index_file_without_the_cache(run_cli, cache, made, monkeypatch):
    monkeypatch.setenv("TOOLSEARCH_NO_CACHE", "1")
    _hybrid(run_cli)
    assert not cache.exists() or _index_files(cache) == []


def test_the_keys_record_gives_the_same_index_as_the_texts(cache, made):
    from toolsearch_cli import load_catalog
    from toolsearch_cli.search import vectors
    from toolsearch_cli.search.embed import load_local

    np = pytest.importorskip("numpy")
    model = load_local(str(STATIC))
    tools = load_catalog([str(DEMO)]).searchable()
    first = vectors.VectorIndex(tools, model.model_id)
    first.ensure(model)
    path = vectors.index_path("c" * 64, model.model_id)
    vectors.write_index_file(path, "c" * 64, model.model_id, first.keys_record())
    record = vectors.read_index_file(path, "c" * 64, model.model_id, len(tools))  # as a later process reads it
    assert vectors.read_index_file(path, "d" * 64, model.model_id, len(tools)) is None  # another entry's
    assert vectors.read_index_file(path, "c" * 64, "another model", len(tools)) is None
    again = vectors.VectorIndex(tools, model.model_id)
    assert again.adopt_keys(record)
    texts = made["texts"]
    again.ensure(model)
    assert made["texts"] == texts and not again.keys_made
    assert np.array_equal(again.matrix, first.matrix) and np.array_equal(again.title_matrix, first.title_matrix)
    fewer = vectors.VectorIndex(tools[:-1], model.model_id)
    assert not fewer.adopt_keys(record)  # another catalog's record is refused whole
    assert not vectors.VectorIndex(tools, model.model_id).adopt_keys({**record, "keys": record["keys"][:-8]})
    assert not vectors.VectorIndex(tools, model.model_id).adopt_keys({**record, "keys": "a string"})


def test_the_store_finds_rows_by_keys_and_refuses_any_key_it_does_not_hold_whole(cache):
    from toolsearch_cli.search import vectors
    from toolsearch_cli.search.embed_settings import embed_cost, reset_embed_cost

    np = pytest.importorskip("numpy")

    class Rows:
        """Text i's vector is row i of an identity matrix ("t3" -> e3)."""

        model_id, label, multilingual = "rows", "rows", False

        def embed(self, texts):
            return np.eye(8, dtype=np.float32)[[int(t[1:]) for t in texts]]

    store = vectors.VectorStore("rows")
    texts = [f"t{i}" for i in range(8)]
    store.vectors(Rows(), texts)
    keys = [vectors.text_key(t) for t in texts]
    reset_embed_cost()
    found = store.cached(keys[5] + keys[2] + keys[5])  # any order, a text twice
    assert np.array_equal(found, np.eye(8, dtype=np.float32)[[5, 2, 5]])
    assert embed_cost().cached == 2  # distinct texts
    assert store.cached(keys[1] + vectors.text_key("never stored")) is None
    assert store.cached(keys[1] + keys[3][:8] + b"\0" * 8) is None  # its first 8 bytes alone match
    assert store.cached(keys[1][:15]) is None and store.cached(b"") is None


def test_no_index_file_is_written_for_a_catalog_changed_at_run_time(cache, made):
    from toolsearch_cli import Tool, indexes
    from toolsearch_cli.catalog import cache as catalog_cache
    from toolsearch_cli.catalog import load_catalog_result, store_in_cache
    from toolsearch_cli.search import SearchRequest, get_ranker
    from toolsearch_cli.search.embed_settings import EmbedSettings

    loaded = load_catalog_result([str(DEMO)], cache=True)
    catalog = loaded.catalog
    assert indexes.disk_key(catalog) == loaded.cache_key is not None
    catalog.add_tool(Tool(name="brand_new_tool", description="Reads the tide tables for a harbour."))
    assert indexes.disk_key(catalog) is None  # no longer what the entry's files say
    ranker = get_ranker("hybrid").with_embed(EmbedSettings(model=str(STATIC)))
    ranker.search(catalog, SearchRequest(query="tide tables", max_results=3))
    assert _index_files(cache) == []
    fresh = load_catalog_result([str(DEMO)], cache=True)  # the entry as stored: no vector index inside
    ranker.search(fresh.catalog, SearchRequest(query="tide tables", max_results=3))
    assert "vectors:" not in " ".join(indexes.built(fresh.catalog))
    assert any(k.startswith("vectors:") for k in indexes.index_keys(fresh.catalog))
    store_in_cache(fresh)
    assert not any(k.startswith("vectors:") for k in catalog_cache.load(fresh.cache_key).indexes)
    assert len(_index_files(cache)) == 1
