"""Model files' hashes remembered in the cache by the files' stamps (search/file_hashes.py): computed
once per unchanged file, again after any change, and a damaged or planted memo file is ignored."""

from __future__ import annotations

import json
import os

import pytest

from toolsearch_cli.search import file_hashes


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(folder))
    monkeypatch.delenv("TOOLSEARCH_NO_CACHE", raising=False)
    monkeypatch.setattr(file_hashes, "SETTLE_NS", 0)  # files written by the test count as settled
    file_hashes.forget()
    yield folder
    file_hashes.forget()


@pytest.fixture
def files(tmp_path):
    a, b = tmp_path / "model.onnx", tmp_path / "tokenizer.json"
    a.write_bytes(b"weights" * 1000)
    b.write_text('{"model": {}}', encoding="utf-8")
    return [a, b]


class Counter:
    def __init__(self, value: str = "ab" * 16) -> None:
        self.calls = 0
        self.value = value

    def __call__(self) -> str:
        self.calls += 1
        return self.value


def _again(kind, paths, compute):
    """As a new process would: what it reads of the memo file, not what this one remembers."""
    file_hashes.forget()
    return file_hashes.remembered(kind, paths, compute)


def test_an_unchanged_file_is_hashed_once_across_processes(cache, files):
    compute = Counter()
    assert file_hashes.remembered("identity/1", files, compute) == compute.value
    assert _again("identity/1", files, compute) == compute.value
    assert _again("identity/1", files, compute) == compute.value
    assert compute.calls == 1
    assert (cache / file_hashes.NAME).is_file()
    other = Counter("cd" * 16)
    assert _again("another kind", files, other) == other.value  # each kind of hash is its own entry
    assert other.calls == 1


def test_any_change_of_a_file_hashes_it_again_even_with_its_old_size_and_time(cache, files):
    compute = Counter()
    file_hashes.remembered("identity/1", files, compute)
    before = os.stat(files[0])
    files[0].write_bytes(b"WEIGHTS" * 1000)  # same size
    os.utime(files[0], ns=(before.st_atime_ns, before.st_mtime_ns))  # modification time put back
    changed = Counter("ef" * 16)
    assert _again("identity/1", files, changed) == changed.value
    assert changed.calls == 1


def test_a_moved_or_replaced_file_is_hashed_again(cache, files, tmp_path):
    compute = Counter()
    file_hashes.remembered("identity/1", files, compute)
    moved = tmp_path / "elsewhere.onnx"
    os.rename(files[0], moved)
    assert _again("identity/1", [moved, files[1]], compute) == compute.value and compute.calls == 2
    replacement = tmp_path / "new.onnx"
    replacement.write_bytes(moved.read_bytes())
    os.replace(replacement, files[0])  # another inode under the old name
    assert _again("identity/1", files, compute) == compute.value and compute.calls == 3


def test_a_file_changed_just_now_is_not_remembered(cache, files, monkeypatch):
    """A file still being written could change again within one tick of the clock and keep its stamp."""
    monkeypatch.setattr(file_hashes, "SETTLE_NS", 2_000_000_000)
    compute = Counter()
    file_hashes.remembered("identity/1", files, compute)
    _again("identity/1", files, compute)
    assert compute.calls == 2
    assert not (cache / file_hashes.NAME).exists()


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\xff not json",
        b"[1, 2, 3]",
        b'{"format": 99, "entries": {}}',
        b'{"format": 1, "entries": []}',
        b'{"format": 1, "entries": {"short": "abcdef12"}}',
        b"[" * 100_000,  # nesting deeper than the parser's recursion limit
        b" " * (file_hashes.MAX_BYTES + 10),
    ],
    ids=["binary", "a-list", "other-format", "entries-not-an-object", "bad-key", "deep-nesting", "too-big"],
)
def test_a_damaged_memo_file_is_ignored_and_replaced(cache, files, content):
    cache.mkdir(mode=0o700)
    (cache / file_hashes.NAME).write_bytes(content)
    compute = Counter()
    assert file_hashes.remembered("identity/1", files, compute) == compute.value
    assert compute.calls == 1
    assert _again("identity/1", files, compute) == compute.value
    assert compute.calls == 1  # the file was rewritten whole


def test_a_planted_value_that_is_not_a_hash_is_not_used(cache, files):
    compute = Counter()
    file_hashes.remembered("identity/1", files, compute)
    memo = cache / file_hashes.NAME
    data = json.loads(memo.read_text(encoding="utf-8"))
    (key,) = data["entries"]
    for planted in ("../../etc/passwd", "x" * 10_000, 12345, None, ["ab" * 16]):
        data["entries"][key] = planted
        memo.write_text(json.dumps(data), encoding="utf-8")
        assert _again("identity/1", files, compute) == compute.value
    assert compute.calls == 1 + 5


def test_a_memo_file_that_is_a_symlink_or_in_a_folder_others_can_write_is_not_read(cache, files, tmp_path, capsys):
    compute = Counter()
    file_hashes.remembered("identity/1", files, compute)
    memo = cache / file_hashes.NAME
    elsewhere = tmp_path / "planted.json"
    os.replace(memo, elsewhere)
    memo.symlink_to(elsewhere)
    _again("identity/1", files, compute)
    assert compute.calls == 2
    memo.unlink()
    os.replace(elsewhere, memo)
    cache.chmod(0o777)
    try:
        _again("identity/1", files, compute)
        assert compute.calls == 3
        assert "other users can write" in capsys.readouterr().err
    finally:
        cache.chmod(0o700)


def test_the_number_of_entries_is_bounded(cache, files):
    for i in range(file_hashes.MAX_ENTRIES + 20):
        file_hashes.remembered(f"kind {i}", files, Counter())
    data = json.loads((cache / file_hashes.NAME).read_text(encoding="utf-8"))
    assert len(data["entries"]) == file_hashes.MAX_ENTRIES
    compute = Counter()
    _again(f"kind {file_hashes.MAX_ENTRIES + 19}", files, compute)  # the newest are kept
    _again("kind 0", files, compute)  # the oldest went
    assert compute.calls == 1


def test_nothing_is_written_when_the_cache_is_off(cache, files, monkeypatch):
    monkeypatch.setenv("TOOLSEARCH_NO_CACHE", "1")
    compute = Counter()
    file_hashes.remembered("identity/1", files, compute)
    _again("identity/1", files, compute)
    assert compute.calls == 2
    assert not cache.exists()


def test_a_missing_file_raises_as_hashing_it_would(cache, tmp_path):
    with pytest.raises(OSError):
        file_hashes.remembered("identity/1", [tmp_path / "absent"], Counter())


def test_a_model_s_identity_is_what_it_was_before_it_was_remembered(cache, tmp_path):
    """The vector cache is keyed by the model's identity: remembering must not change it."""
    pytest.importorskip("tokenizers")
    pytest.importorskip("onnx")
    from toolsearch_cli.search import embed

    from ..tiny_models import one_hot_model

    one_hot_model(tmp_path / "model", ["send", "mail"])
    paths = (tmp_path / "model" / "onnx" / "model.onnx", tmp_path / "model" / "tokenizer.json")
    direct = embed._hash_identity(paths)
    assert embed._file_identity(*paths) == direct  # computed and remembered
    file_hashes.forget()
    assert embed._file_identity(*paths) == direct  # read back
    assert json.loads((cache / file_hashes.NAME).read_text(encoding="utf-8"))["entries"]
