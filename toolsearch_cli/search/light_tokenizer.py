"""A WordPiece tokenizer for a few texts, without loading the model's whole vocabulary.

Loading a BERT-style ``tokenizer.json`` (30,522 words for all-MiniLM-L6-v2) costs about 35 ms of
CPU, more than a search's new request spends running the model once. WordPiece splits each word
greedily: at each position the longest piece in the vocabulary wins (``##`` before a piece that
does not start the word), and a word with no split is ``[UNK]``. So a tokenizer whose vocabulary
holds every vocabulary entry that is a piece of one of the texts' words -- with its own id --
gives exactly the tokens and ids of the whole one for those texts: every lookup the greedy
split makes gets the same answer. :func:`tokenizer_for` builds that tokenizer with the library's
own normaliser, pre-tokeniser, post-processor and truncation (only the vocabulary is smaller).

The words are found with the tokenizer's own normaliser and pre-tokeniser run over each whole
text. This finds every word the full tokenizer's model sees when the special tokens are split
off at punctuation (BERT's ``[CLS]``, ``[SEP]``...) and the normaliser works character by
character, so only tokenizers of this shape are served: a ``WordPiece`` model with ids 0..n-1,
no normaliser or ``BertNormalizer``, ``BertPreTokenizer``, special added tokens that begin and
end with punctuation. Anything else (BPE, Unigram, other normalisers...) gets ``None`` and the
caller loads the whole tokenizer, as it would anyway.

The vocabulary is kept ready in the cache (``<cache>/tokenizers/<hash of tokenizer.json>.json``:
the tokenizer's settings without the vocabulary, the words one per line and a SHA-256 of them,
written on first use); it is read in about 2 ms. A file that does not match (wrong source,
wrong hash, not JSON, another format) is made again; the cache off or not this user's alone
means no light tokenizer (``None``).
"""

from __future__ import annotations

import hashlib
import json
import os
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

FORMAT = 1
#: tokenizers kept ready in the cache (a few hundred KB each)
KEEP = 8
#: the largest ``tokenizer.json`` read to make one (a 250,000-word vocabulary is about 10 MB)
MAX_SOURCE_BYTES = 64 * 1024 * 1024
#: texts longer than this together (characters) get the whole tokenizer (a search's request is shorter)
MAX_TEXT_CHARS = 4000


class _Vocabulary:
    """A prepared tokenizer: settings without the vocabulary, the words by id, their longest length."""

    def __init__(self, skeleton: dict[str, Any], words: list[str], longest: int) -> None:
        self.skeleton = skeleton
        self.words = words
        model = skeleton["model"]
        self.prefix: str = model.get("continuing_subword_prefix") or "##"
        self.max_word: int = int(model.get("max_input_chars_per_word") or 100)
        #: the longest word of the vocabulary (characters): no longer piece is looked for
        self.longest = longest
        specials = [t["content"] for t in skeleton.get("added_tokens") or []]
        self.always = {model["unk_token"], *specials}
        self._probe: Any = None

    def _tokenizer(self, vocab: dict[str, int]) -> Any:
        from tokenizers import Tokenizer

        skeleton = dict(self.skeleton, model=dict(self.skeleton["model"], vocab=vocab))
        return Tokenizer.from_str(json.dumps(skeleton))

    def tokenizer(self, texts: Sequence[str]) -> Any:
        if sum(len(text) for text in texts) > MAX_TEXT_CHARS:
            return None  # its words' pieces would take longer to find than the whole vocabulary to load
        if self._probe is None:  # the settings alone (its model is never run), to find the words
            self._probe = self._tokenizer({self.skeleton["model"]["unk_token"]: 0})
        normalizer, pre_tokenizer = self._probe.normalizer, self._probe.pre_tokenizer
        pieces: set[str] = set()
        for text in texts:
            normal = normalizer.normalize_str(text) if normalizer is not None else text
            for word, _ in pre_tokenizer.pre_tokenize_str(normal):
                if len(word) > self.max_word:
                    continue  # [UNK] whatever the vocabulary
                for start in range(len(word)):
                    head = "" if start == 0 else self.prefix
                    for end in range(start + 1, min(len(word), start + self.longest) + 1):
                        pieces.add(head + word[start:end])
        wanted = pieces | self.always
        return self._tokenizer({w: i for i, w in enumerate(self.words) if w in wanted})


_ready: dict[tuple[Path, str], _Vocabulary | None] = {}


def tokenizer_for(tokenizer_file: Path, texts: Sequence[str]) -> Any:
    """A tokenizer giving ``texts`` exactly the encodings the whole ``tokenizer_file`` gives them
    (not set up for truncation or padding: the caller does that as for the whole one), or ``None``
    when this tokenizer is not of the shape served here or the cache cannot hold it."""
    from .. import cachedir as cache

    if not cache.enabled():
        return None
    try:
        from .file_hashes import remembered

        digest = remembered("sha256", [tokenizer_file], lambda: _sha256_file(tokenizer_file))
    except OSError:
        return None
    key = (Path(tokenizer_file), digest)
    if key not in _ready:
        _ready[key] = _prepared(tokenizer_file, digest)
    vocabulary = _ready[key]
    if vocabulary is None:
        return None
    try:
        return vocabulary.tokenizer(texts)
    except Exception:  # noqa: BLE001 - e.g. text the library refuses: the whole tokenizer says why
        return None


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _prepared(tokenizer_file: Path, digest: str) -> _Vocabulary | None:
    from .. import cachedir as cache

    root = cache.cache_dir() / "tokenizers"
    if cache.trusted_folder(False, root) is not None:
        found = _read(root / f"{digest[:32]}.json", digest)
        if found is not None:
            return found
    if cache.trusted_folder(True, root) is None:
        return None
    made = _make(tokenizer_file, digest)
    if made is None:
        return None
    record, vocabulary = made
    target = root / f"{digest[:32]}.json"
    data = json.dumps(record, ensure_ascii=False).encode("utf-8")  # read faster than \\u escapes
    try:
        cache.write_atomic(target, lambda f: f.write(data))
        cache.prune(root, "*.json", KEEP, newest=target)
    except OSError:
        pass  # not kept: made again next time
    return vocabulary


def _read(path: Path, digest: str) -> _Vocabulary | None:
    from .. import cachedir as cache

    record = cache.read_json(path, MAX_SOURCE_BYTES)
    try:
        if not isinstance(record, dict) or record.get("format") != FORMAT or record.get("source") != digest:
            return None
        if not record.get("served"):
            return None  # a tokenizer of another shape: the whole one is loaded (no need to look again)
        text, skeleton, longest = record.get("words"), record.get("skeleton"), record.get("longest")
        if not isinstance(text, str) or not isinstance(skeleton, dict) or not _servable(skeleton):
            return None
        if not isinstance(longest, int) or isinstance(longest, bool) or longest < 1:
            return None
        if _words_sha256(text, longest) != record.get("words_sha256"):
            return None
        return _Vocabulary(skeleton, text.split("\n"), longest)
    except (OSError, ValueError, RecursionError, KeyError, TypeError):
        return None


def _make(tokenizer_file: Path, digest: str) -> tuple[dict[str, Any], _Vocabulary | None] | None:
    """The record to keep and the vocabulary it holds (``None``: a tokenizer not served here)."""
    try:
        if os.stat(tokenizer_file).st_size > MAX_SOURCE_BYTES:
            return None
        with open(tokenizer_file, "rb") as f:
            raw = f.read()
        if hashlib.sha256(raw).hexdigest() != digest:
            return None  # changed while being read
        data = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return None
    record: dict[str, Any] = {"format": FORMAT, "source": digest, "served": False}
    model: Any = data.get("model") if isinstance(data, dict) else None
    vocab = model.get("vocab") if isinstance(model, dict) else None
    if not isinstance(vocab, dict) or not vocab:
        return record, None
    skeleton = dict(data, model=dict(model, vocab={}))
    if not _servable(skeleton):
        return record, None
    words = [""] * len(vocab)
    for word, index in vocab.items():
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(words) or words[index]:
            return record, None  # ids are not 0..n-1, once each
        if not word or "\n" in word:
            return record, None
        words[index] = word
    if skeleton["model"].get("unk_token") not in vocab:
        return record, None
    text = "\n".join(words)
    longest = max(len(word) for word in words)
    record.update(
        served=True, skeleton=skeleton, longest=longest, words=text, words_sha256=_words_sha256(text, longest)
    )
    return record, _Vocabulary(skeleton, words, longest)


def _words_sha256(text: str, longest: int) -> str:
    return hashlib.sha256(f"{longest}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()


def _is_punctuation(ch: str) -> bool:
    """As BERT's pre-tokeniser decides it: ASCII symbols and Unicode punctuation."""
    code = ord(ch)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _servable(skeleton: dict[str, Any]) -> bool:
    """Whether a tokenizer (its settings) is of the shape whose words :func:`tokenizer_for` finds."""
    model = skeleton.get("model")
    if not isinstance(model, dict) or model.get("type") != "WordPiece" or not isinstance(model.get("unk_token"), str):
        return False
    prefix = model.get("continuing_subword_prefix")
    if prefix is not None and not isinstance(prefix, str):
        return False
    if not isinstance(model.get("max_input_chars_per_word", 100), int):
        return False
    normalizer = skeleton.get("normalizer")
    if normalizer is not None and (not isinstance(normalizer, dict) or normalizer.get("type") != "BertNormalizer"):
        return False
    pre = skeleton.get("pre_tokenizer")
    if not isinstance(pre, dict) or pre.get("type") != "BertPreTokenizer":
        return False
    added = skeleton.get("added_tokens") or []
    if not isinstance(added, list):
        return False
    for token in added:
        if not isinstance(token, dict) or token.get("special") is not True:
            return False
        content = token.get("content")
        if (
            not isinstance(content, str)
            or not content
            or not (_is_punctuation(content[0]) and _is_punctuation(content[-1]))
        ):
            return False
    return True
