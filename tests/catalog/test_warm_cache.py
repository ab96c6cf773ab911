"""Warm paths (issue 35 item 4): a catalog read back from the cache is the catalog just built —
the same rankings, NumPy's fast paths intact, nothing left to build after the first run — and a
damaged, foreign or hostile cache entry is a miss, never a crash and never code run."""

from __future__ import annotations

import json
import os

import pytest

from toolsearch_cli import cachedir, indexes
from toolsearch_cli.catalog import cache, load_catalog_result, store_in_cache
from toolsearch_cli.search import search

np = pytest.importorskip("numpy")

QUERIES = [
    "send mail kind 3 number 1200",
    "fetch the weather report. then send mail",  # two sentences: the sentence bonus
    "number 77 calendar",
    "kind 5",
]


def _big_catalog(write):
    # 2,500 tools: above NUMPY_MIN_TOOLS, so the default index uses the NumPy store
    rows = [
        {
            "name": f"tool{i}",
            "description": f"send mail kind {i % 7} number {i}" + (" weather report" if i % 11 == 0 else ""),
            "parameters": {"type": "object", "properties": {"calendar": {"type": "string"}}} if i % 13 == 0 else {},
        }
        for i in range(2500)
    ]
    return write("big.json", json.dumps({"tools": rows}))


def _hits(catalog, explain=False):
    from toolsearch_cli.search import SearchRequest, get_ranker

    out = []
    for query in QUERIES:
        if explain:
            found = get_ranker("default").search(catalog, SearchRequest(query=query, max_results=10, explain=True))
        else:
            found = search(catalog, query, max_results=10)
        out.append([(h.name, h.score, [(c.term, c.field, c.points) for c in h.contributions or []]) for h in found])
    return out


def test_a_cached_numpy_index_ranks_as_the_fresh_one_with_numpy_s_own_dtypes(write, monkeypatch, tmp_path):
    """An unpickled array's dtype is a new object equal to NumPy's built-in one; ``np.add.at`` took
    its generic path (15-60x slower) on such arrays, so a cached 100,000-tool catalog answered
    each query 6.5x slower than the same index just built. The store's arrays are viewed with the
    built-in dtypes on load; the rankings (scores and explanations) are bit for bit the fresh ones."""
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    path = _big_catalog(write)
    loaded = load_catalog_result([str(path)], cache=True)
    fresh = _hits(loaded.catalog), _hits(loaded.catalog, explain=True)
    store_in_cache(loaded)
    again = load_catalog_result([str(path)], cache=True)
    assert again.catalog is not loaded.catalog and "default" in (again.cache_stored or ())
    store = indexes.built(again.catalog)["default"]._store
    assert type(store).__name__ == "NumpyStore"
    arrays = {name: value for name, value in vars(store).items() if isinstance(value, np.ndarray)}
    assert {"slots", "group_slots", "group_scores", "lengths", "alive", "bounds"} <= set(arrays)
    for name, array in arrays.items():
        assert array.dtype is np.dtype(array.dtype.type), name
    assert (_hits(again.catalog), _hits(again.catalog, explain=True)) == fresh


def _entry_stamp(key):
    st = os.stat(cachedir.cache_dir() / f"{key}.pickle")
    return st.st_ino, st.st_mtime_ns, st.st_size


def test_the_cache_is_complete_after_the_first_run(write, monkeypatch, tmp_path):
    """The first CLI search of a catalog writes an entry holding everything a later search needs:
    a second search whose query has a word no tool holds (so its suggestions need the vocabulary)
    builds no index and does not rewrite the entry (it did: 3.1 s against 0.63 s at 100,000 tools)."""
    from toolsearch_cli.search_report import SearchSettings, run_search

    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    path = _big_catalog(write)
    first = run_search(SearchSettings(query="send mail kind 3", catalog=[str(path)]))
    assert first.unmatched == []
    key = load_catalog_result([str(path)], cache=True).cache_key
    stamp = _entry_stamp(key)
    builds = dict(indexes.BUILDS)
    second = run_search(SearchSettings(query="send mail to my boss", catalog=[str(path)]))
    assert [w.word for w in second.unmatched] == ["boss"]
    assert _entry_stamp(key) == stamp  # the entry was not written again
    assert indexes.BUILDS == builds  # nothing built: every index came from the entry
    third = run_search(SearchSettings(query="send mail to my boss", catalog=[str(path)]))
    assert [h.name for h in third.hits] == [h.name for h in second.hits]
    assert indexes.BUILDS == builds and _entry_stamp(key) == stamp


# ------------------------------------------------------------------------------- hostile entries


def _cached_entry(write, monkeypatch, tmp_path):
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    path = _big_catalog(write)
    loaded = load_catalog_result([str(path)], cache=True)
    expected = _hits(loaded.catalog)
    store_in_cache(loaded)
    entry = cachedir.cache_dir() / f"{loaded.cache_key}.pickle"
    return path, loaded.cache_key, entry, expected


def _damaged_forms(good: bytes) -> dict[str, bytes]:
    body = len(cache.MAGIC) + 32
    flipped_payload = bytearray(good)
    flipped_payload[body + 64] ^= 0x01
    flipped_buffer = bytearray(good)
    flipped_buffer[-100] ^= 0x40  # inside the last out-of-band buffer (an index array)
    return {
        "empty": b"",
        "magic only": cache.MAGIC,
        "no body": good[:body],
        "truncated header": good[: body + 5],
        "truncated half": good[: len(good) // 2],
        "truncated by one byte": good[:-1],
        "one byte more": good + b"\0",
        "older format": b"toolsearch-catalog-cache/3\n" + good[len(cache.MAGIC) :],
        "newer format": b"toolsearch-catalog-cache/99\n" + good[len(cache.MAGIC) :],
        "payload byte flipped": bytes(flipped_payload),
        "buffer byte flipped": bytes(flipped_buffer),
        "tag zeroed": cache.MAGIC + b"\0" * 32 + good[body:],
    }


def test_damaged_entries_are_misses_and_the_catalog_is_rebuilt(write, monkeypatch, tmp_path):
    path, key, entry, expected = _cached_entry(write, monkeypatch, tmp_path)
    good = entry.read_bytes()
    for label, damaged in _damaged_forms(good).items():
        entry.write_bytes(damaged)
        assert cache.load(key) is None, label
        again = load_catalog_result([str(path)], cache=True)
        assert again.cache_stored == frozenset(), label  # parsed again (a miss), stored again
        assert _hits(again.catalog) == expected, label
        store_in_cache(again)
        assert cache.load(key) is not None, label  # the rebuilt entry is good


class _Planted:
    """What a planted pickle would build: running its reduce writes a marker file."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_planted_pickle_is_never_unpickled(write, monkeypatch, tmp_path):
    """An entry written by someone without the cache's key (a pickle whose loading would create a
    file) fails its authentication and is never unpickled, whatever tag it carries."""
    import pickle
    import struct

    path, key, entry, expected = _cached_entry(write, monkeypatch, tmp_path)
    marker = tmp_path / "ran"
    payload = pickle.dumps((key, _Planted(str(marker)), {}, ()), protocol=5)
    head = struct.pack("<QI", len(payload), 0)
    for tag in (b"\0" * 32, os.urandom(32), entry.read_bytes()[len(cache.MAGIC) : len(cache.MAGIC) + 32]):
        entry.write_bytes(cache.MAGIC + tag + head + payload)
        assert cache.load(key) is None
        assert _hits(load_catalog_result([str(path)], cache=True).catalog) == expected
    assert not marker.exists()


def test_an_authentic_entry_with_impossible_buffer_places_is_a_miss(write, monkeypatch, tmp_path):
    """Even an entry this user's key authenticates (a bug, a half-written older format) is checked
    before it is used: buffers said to lie outside the file, or over the payload, make it a miss."""
    import hashlib
    import hmac
    import struct

    path, key, entry, expected = _cached_entry(write, monkeypatch, tmp_path)
    secret = (cachedir.cache_dir() / cache.KEY_FILE).read_bytes()
    good = entry.read_bytes()
    body = len(cache.MAGIC) + 32
    size, count = struct.unpack_from("<QI", good, body)
    assert count > 0
    places_at = body + 12
    for at, length in ((len(good) + 64, 8), (len(good) - 8, 64), (body, 8), (2**63, 2**63)):
        forged = bytearray(good)
        struct.pack_into("<QQ", forged, places_at, at, length)
        tail = bytes(forged[body:])
        forged[len(cache.MAGIC) : body] = hmac.new(secret, tail, hashlib.sha256).digest()
        entry.write_bytes(bytes(forged))
        assert cache.load(key) is None
    assert _hits(load_catalog_result([str(path)], cache=True).catalog) == expected


# ------------------------------------------------------------------ engines over a cached catalog


def test_a_tool_search_over_a_cached_catalog_builds_nothing_the_second_time(write, monkeypatch, tmp_path):
    """A tool search ranks over a catalog of its manager's tools, not the loaded catalog: it built
    the index of a cached catalog again (5 s at 100,000 tools), and every engine's start read and
    counted every tool for its all-tools baseline (12 s). The index is taken over from the loaded
    catalog (the very same tools), the baseline is kept with the catalog's indexes, and written to
    the cache entry with them: the next start builds and counts nothing, with the same figures."""
    from toolsearch_cli.agent import ToolSearch
    from toolsearch_cli.catalog import load_catalog

    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    path = _big_catalog(write)
    messages = [{"role": "user", "content": "hi"}]

    def answer(ts):
        request = ts.request(messages)
        return ts.handle("toolSearch", {"query": "send mail kind 3 number 1200", "maxResults": 5}, request).content

    uncached = ToolSearch(load_catalog([str(path)]))
    expected = answer(uncached), uncached.engine.baseline_tool_tokens
    loaded = load_catalog_result([str(path)], cache=True)
    first = ToolSearch(loaded.catalog)
    builds = dict(indexes.BUILDS)
    assert (answer(first), first.engine.baseline_tool_tokens) == expected
    assert indexes.BUILDS["default"] == builds["default"] + 1  # the loaded catalog had none yet
    store_in_cache(loaded)
    warm = load_catalog_result([str(path)], cache=True)
    assert {"default", "names"} <= (warm.cache_stored or frozenset())
    assert any(key.startswith("baseline-tokens:") for key in warm.cache_stored)
    builds = dict(indexes.BUILDS)
    second = ToolSearch(warm.catalog)
    assert (answer(second), second.engine.baseline_tool_tokens) == expected
    assert indexes.BUILDS == builds
    store_in_cache(warm)  # the index moved to the manager's catalog: the entry keeps it
    assert {"default", "names"} <= (load_catalog_result([str(path)], cache=True).cache_stored or frozenset())


def test_an_index_is_taken_over_only_by_a_catalog_of_the_very_same_tools(write):
    from toolsearch_cli.catalog import load_catalog
    from toolsearch_cli.model import Catalog

    a = load_catalog([str(_big_catalog(write))])
    query = "send mail kind 3 number 1200"
    expected = [(h.name, h.score) for h in search(a, query)]
    builds = indexes.BUILDS.get("default", 0)
    b = Catalog(tools=list(a.tools))
    assert [(h.name, h.score) for h in search(b, query)] == expected
    assert indexes.BUILDS["default"] == builds  # taken over from a
    copies = Catalog(tools=[t.copy_with() for t in a.tools])  # equal tools, other objects
    assert [(h.name, h.score) for h in search(copies, query)] == expected
    assert indexes.BUILDS["default"] == builds + 1
    top = expected[0][0]
    b.remove_tool(top)  # b's index follows b; a still holds the tool
    assert top not in [h.name for h in search(b, query)]
    assert [(h.name, h.score) for h in search(a, query)] == expected  # a's own index again, not b's
    assert indexes.BUILDS["default"] == builds + 2
