"""Issue 11.4: the catalog cache is not a way for another user to run code as this one.

The "attacker" below can write to the cache folder and knows the entry format, but not the key.
"""

from __future__ import annotations

import os
import pickle

import pytest

from toolsearch_cli import cachedir, load_catalog
from toolsearch_cli.catalog import cache, load_catalog_result

CATALOG = "tools:\n  - name: getWeather\n    description: Current weather of a city\n"


class _RunsCode:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))  # unpickling this creates the marker file


def _swap_entry(entry, marker) -> None:
    """Replace a cache entry with a pickle that runs code, in the entry format of this version."""
    payload = pickle.dumps(("key", _RunsCode(str(marker))))
    tag = b"\0" * 32 if hasattr(cache, "KEY_FILE") else b""  # an authenticated format: the attacker guesses
    entry.write_bytes(cache.MAGIC + tag + payload)


@pytest.fixture
def cached(write, monkeypatch, tmp_path):
    folder = tmp_path / "cache"
    monkeypatch.setenv(cachedir.CACHE_DIR_VAR, str(folder))
    path = write("cat.yaml", CATALOG)
    first = load_catalog_result([str(path)], cache=True)
    entry = folder / f"{first.cache_key}.pickle"
    assert entry.exists()
    return path, folder, entry


def test_a_swapped_entry_is_never_unpickled(cached, tmp_path):
    path, _, entry = cached
    marker = tmp_path / "ran"
    _swap_entry(entry, marker)
    again = load_catalog([str(path)], cache=True)
    assert not marker.exists()
    assert [t.name for t in again.tools] == ["getWeather"]  # loaded from the file instead


def test_a_folder_others_can_write_to_is_not_used_and_the_warning_says_how_to_fix_it(cached, tmp_path, capsys):
    path, folder, entry = cached
    folder.chmod(0o777)
    marker = tmp_path / "ran"
    _swap_entry(entry, marker)
    capsys.readouterr()
    loaded = load_catalog([str(path)], cache=True)
    assert [t.name for t in loaded.tools] == ["getWeather"]
    assert not marker.exists()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other users can write to" in err and f"chmod 700 '{folder}'" in err
    folder.chmod(0o700)


def test_a_key_file_others_can_read_is_refused(cached, capsys):
    path, folder, _ = cached
    (folder / "cache.key").chmod(0o644)
    cache._secrets.clear()
    capsys.readouterr()
    load_catalog([str(path)], cache=True)
    assert "its key file" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_folder_of_another_user_is_not_used(cached, tmp_path, capsys):
    path, folder, entry = cached
    os.chown(folder, 65534, 65534)
    marker = tmp_path / "ran"
    _swap_entry(entry, marker)
    capsys.readouterr()
    load_catalog([str(path)], cache=True)
    assert not marker.exists()
    assert "belongs to another user" in capsys.readouterr().err
