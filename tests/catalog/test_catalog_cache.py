"""The on-disk catalog cache: hits skip parsing, any change or damage is a miss, never wrong."""

from __future__ import annotations

import subprocess

from toolsearch_cli import cachedir, load_catalog
from toolsearch_cli.catalog import cache, load_catalog_result, store_in_cache
from toolsearch_cli.indexes import index_keys
from toolsearch_cli.search import search

from ..conftest import DEMO, ROOT, TOOLSEARCH, clean_env

CATALOG = """\
tools:
  - name: getWeather
    description: Current weather of a city
    category: weather
  - name: sendEmail
    description: Send an email to someone
"""


def entries():
    return sorted(cachedir.cache_dir().glob("*.pickle"))


def test_second_load_is_a_cache_hit_with_its_index(write, monkeypatch, tmp_path):
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    path = write("cat.yaml", CATALOG)
    loaded = load_catalog_result([str(path)], cache=True)
    first = loaded.catalog
    assert loaded.cache_key is not None and len(entries()) == 1
    assert [h.name for h in search(first, "weather")] == ["getWeather"]
    store_in_cache(loaded)  # now with the default index

    import toolsearch_cli.catalog as catalog_module

    def no_parsing(*args, **kwargs):
        raise AssertionError("a cache hit must not parse the YAML")

    monkeypatch.setitem(catalog_module.LOADER_BY_SUFFIX, ".yaml", no_parsing)
    again = load_catalog_result([str(path)], cache=True)
    second = again.catalog
    assert again.cache_key == loaded.cache_key and second is not first
    assert "default" in index_keys(second)
    assert [t.name for t in second.tools] == ["getWeather", "sendEmail"]
    assert second.tools[0].source == first.tools[0].source  # locations survive
    assert [h.name for h in search(second, "weather")] == ["getWeather"]


def test_editing_a_file_misses_the_cache(write, monkeypatch, tmp_path):
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    path = write("cat.yaml", CATALOG)
    before = load_catalog_result([str(path)], cache=True)
    path.write_text(CATALOG.replace("Send an email", "Send a letter"), encoding="utf-8")
    after = load_catalog_result([str(path)], cache=True)
    assert after.cache_key != before.cache_key
    assert after.catalog.get("sendEmail").description == "Send a letter to someone"


def test_a_damaged_or_foreign_entry_is_a_miss(write, monkeypatch, tmp_path):
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    path = write("cat.yaml", CATALOG)
    first = load_catalog_result([str(path)], cache=True)
    entry = cachedir.cache_dir() / f"{first.cache_key}.pickle"
    entry.write_bytes(b"garbage")
    assert cache.load(first.cache_key) is None
    again = load_catalog([str(path)], cache=True)
    assert [t.name for t in again.tools] == ["getWeather", "sendEmail"]
    # an entry stored under another key (copied or renamed) is not trusted either
    other = cachedir.cache_dir() / ("0" * 64 + ".pickle")
    other.write_bytes(entry.read_bytes())
    assert cache.load("0" * 64) is None


def test_cache_can_be_turned_off_and_python_modules_are_never_cached(write, monkeypatch, tmp_path):
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    monkeypatch.setenv(cachedir.NO_CACHE_VAR, "1")
    path = write("cat.yaml", CATALOG)
    assert load_catalog_result([str(path)], cache=True).cache_key is None
    assert entries() == []
    monkeypatch.delenv(cachedir.NO_CACHE_VAR)
    module = str(ROOT / "catalogs" / "python" / "ops_tools.py")
    assert load_catalog_result([module], cache=True).cache_key is None
    assert load_catalog_result([str(path)], cache=False).cache_key is None
    assert entries() == []


def test_an_unwritable_cache_folder_is_not_an_error(write, monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(blocker / "c"))  # cannot be created
    path = write("cat.yaml", CATALOG)
    catalog = load_catalog([str(path)], cache=True)
    assert [t.name for t in catalog.tools] == ["getWeather", "sendEmail"]


def test_only_the_newest_entries_are_kept(write, monkeypatch, tmp_path):
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    monkeypatch.setattr(cache, "MAX_ENTRIES", 3)
    for i in range(5):
        path = write(f"cat{i}.yaml", CATALOG)
        load_catalog([str(path)], cache=True)
    assert len(entries()) == 3


def test_cli_output_is_the_same_from_the_cache(tmp_path):
    env = clean_env(TOOLSEARCH_CACHE_DIR=str(tmp_path / "c"), COLUMNS="160", PATH="")
    argv = [*TOOLSEARCH, "search", "查询城市天气", "--catalog", str(DEMO), "--explain"]
    cold = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert list((tmp_path / "c").glob("*.pickle"))
    warm = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path)
    assert cold.returncode == warm.returncode == 0
    assert "getWeather" in cold.stdout
    assert warm.stdout == cold.stdout


def test_pruning_keeps_the_entry_just_written_when_modification_times_tie(tmp_path):
    """Entries written within one tick of the file system's clock tie on their modification time;
    sorting alone could delete the entry just written (a later miss). It is always kept now, and
    the other entries are pruned down to the limit."""
    import os

    from toolsearch_cli.cachedir import prune

    entries = [tmp_path / f"{n:02d}.pickle" for n in range(6)]
    for entry in entries:
        entry.write_bytes(b"x")
        os.utime(entry, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))  # one tick for all
    for newest in (entries[0], entries[-1]):  # whatever order the folder lists them in
        for entry in entries:
            entry.write_bytes(b"x")
            os.utime(entry, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
        prune(tmp_path, "*.pickle", 3, newest=newest)
        left = sorted(tmp_path.glob("*.pickle"))
        assert newest in left and len(left) == 3
    (tmp_path / "other.json").write_bytes(b"{}")  # not matching the pattern: untouched
    prune(tmp_path, "*.pickle", 1)
    assert len(list(tmp_path.glob("*.pickle"))) == 1 and (tmp_path / "other.json").exists()


def test_a_cached_index_s_arrays_are_the_mapped_entry_and_changing_them_leaves_the_file_alone(
    write, monkeypatch, tmp_path
):
    """The arrays of a cached NumPy index are views of the mapped entry (out-of-band buffers, not
    copies), aligned and writable (the mapping is copy-on-write): a run-time change works and the
    entry on disk still holds the catalog it was written with."""
    import json

    from toolsearch_cli.indexes import built

    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(tmp_path / "c"))
    rows = [{"name": f"tool{i}", "description": f"send mail kind {i % 7} number {i}"} for i in range(2500)]
    path = write("big.json", json.dumps({"tools": rows}))
    loaded = load_catalog_result([str(path)], cache=True)
    expected = [(h.name, h.score) for h in search(loaded.catalog, "send mail kind 3 number 1200", max_results=5)]
    store_in_cache(loaded)
    entry = cachedir.cache_dir() / f"{loaded.cache_key}.pickle"
    before = entry.read_bytes()

    cached = load_catalog_result([str(path)], cache=True).catalog
    store = built(cached)["default"]._store
    assert type(store).__name__ == "NumpyStore"
    for array in (store.slots, store.group_scores, store.lengths, store.alive):
        root = array
        while root.base is not None and not isinstance(root.base, memoryview):
            root = root.base
        assert isinstance(root.base, memoryview) and array.flags.writeable and array.flags.aligned
    assert [(h.name, h.score) for h in search(cached, "send mail kind 3 number 1200", max_results=5)] == expected
    cached.remove_tool(expected[0][0])  # marks the slot dead in place: this process's copy of the page
    assert expected[0][0] not in [h.name for h in search(cached, "send mail kind 3 number 1200", max_results=5)]
    assert entry.read_bytes() == before
    again = load_catalog_result([str(path)], cache=True).catalog
    assert [(h.name, h.score) for h in search(again, "send mail kind 3 number 1200", max_results=5)] == expected
