"""A learned reading of injection-like text (rule TS206): a logistic regression over character
n-grams and word n-grams of a normalised text, shipped as data (``data/ts206_model.tsv.gz``) and
trained by ``benchmarks/ts206_train.py`` (deterministic; labelled positives in eight languages,
the held-out batches, written paraphrases by role; real tool descriptions as negatives).

Why: the word lexicons of :mod:`.injection_signals` found about half of the orders written after
each freeze (issue 20): an order said with new words slips through. Character n-grams carry across
inflections, scripts without spaces (Chinese, Japanese) and near-synonyms; word pairs carry the
shape of an order ("the user", "previous instructions", "to <url>").

A text is cut into chunks (each sentence or window of a long one, each pair of neighbouring
sentences) and each chunk is scored on its own: an order hidden in a long honest description is
judged on its own sentence. Only the standard library runs here (a dict of weights);
nothing is downloaded. The model's file is read once, on first use.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import re
from collections.abc import Iterator
from functools import cache
from importlib import resources

from .injection_text import URL_OR_WWW, strip_marks

#: Character n-gram sizes.
NGRAMS = (2, 3, 4, 5)
#: A sentence longer than this is scored in windows of this size (half overlapping).
WINDOW = 240
#: Two neighbouring sentences are scored together when their join is no longer than this.
PAIR = 320
#: A chunk's summed weights are divided by the square root of its number of features, at least
#: this many (a short chunk, "The user's bio.", would otherwise weigh its few n-grams too much).
NORM_FLOOR = 150
#: Chunks scored per text at most (a text is already cut at ``MAX_TEXT`` characters upstream).
MAX_CHUNKS = 400

_MAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DIGIT = re.compile(r"\d")
_TOKEN = re.compile(r"[^\W_]+")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|(?<=[。！？；])|\s*\n\s*")
#: Marks for the sinks an exfiltration needs, kept as words of their own.
URL_MARK, MAIL_MARK = "urlx", "mailx"
_WORD_FEATURE, _PAIR_FEATURE = "\x01", "\x02"
_MARKS = {URL_MARK: "<url>", MAIL_MARK: "<e-mail>"}


def normalise(text: str) -> str:
    """Case folded, accents dropped, URLs and e-mail addresses replaced by a mark, digits by 0,
    white space collapsed (the input is a reading already free of look-alikes and invisibles)."""
    text = URL_OR_WWW.sub(f" {URL_MARK} ", text)
    text = _MAIL.sub(f" {MAIL_MARK} ", text)
    text = text.casefold()
    if not text.isascii():
        text = strip_marks(text)
    return " ".join(_DIGIT.sub("0", text).split())


def features(norm: str) -> set[str]:
    """Character n-grams of a normalised text (with a space at each end), its words and its pairs
    of neighbouring words."""
    padded = f" {norm} "
    size = len(padded)
    found = {padded[i : i + n] for n in NGRAMS for i in range(size - n + 1)}
    words = _TOKEN.findall(norm)
    found.update(_WORD_FEATURE + w for w in words)
    found.update(f"{_PAIR_FEATURE}{a} {b}" for a, b in itertools.pairwise(words))
    return found


def units(text: str) -> list[str]:
    """A text's sentences; a sentence longer than :data:`WINDOW` as half-overlapping windows."""
    out: list[str] = []
    for sentence in _SENTENCE.split(text):
        sentence = sentence.strip()
        if len(sentence) <= WINDOW:
            out.append(sentence)
        else:
            step = WINDOW // 2
            out.extend(sentence[j : j + WINDOW] for j in range(0, len(sentence) - step, step))
    return [u for u in out if u][:MAX_CHUNKS]


def chunk_features(text: str) -> list[tuple[str, set[str]]]:
    """The pieces of a text scored on their own, with their features: each sentence (or window),
    each pair of neighbouring ones (the union of their features), and the whole text when it is
    short. Each sentence is featurised once."""
    parts = units(text)
    feats = [features(normalise(u)) for u in parts]
    out: dict[str, set[str]] = {}
    for i, (unit, f) in enumerate(zip(parts, feats, strict=True)):
        out.setdefault(unit, f)
        if i + 1 < len(parts) and len(unit) + len(parts[i + 1]) < PAIR:
            out.setdefault(f"{unit} {parts[i + 1]}", f | feats[i + 1])
    if 1 < len(parts) and len(text) <= PAIR:
        out.setdefault(" ".join(parts), set().union(*feats))
    return list(out.items())


def chunks(text: str) -> list[str]:
    """The pieces of a text scored on their own (see :func:`chunk_features`)."""
    return [c for c, _ in chunk_features(text)]


class Model:
    """Weights by feature, a bias and two decision thresholds (on the margin, the logit):
    ``threshold`` for a warning (rule TS207) and ``error_threshold`` for an error (rule TS206),
    the second set higher, where no real description came near it (``None``: the model never
    reports at error level)."""

    def __init__(
        self, weights: dict[str, float], bias: float, threshold: float, error_threshold: float | None = None
    ) -> None:
        self.weights = weights
        self.vocabulary = frozenset(weights)
        self.bias = bias
        self.threshold = threshold
        self.error_threshold = error_threshold

    def margin(self, feats: set[str]) -> float:
        if not feats:
            return self.bias
        weights = self.weights
        return self.bias + sum(weights[f] for f in feats & self.vocabulary) / math.sqrt(max(len(feats), NORM_FLOOR))

    def best_chunk(self, text: str) -> tuple[float, str, set[str]]:
        """The highest margin among a text's chunks, the chunk and its features."""
        best = (-math.inf, "", set[str]())
        for chunk, feats in chunk_features(text):
            z = self.margin(feats)
            if z > best[0]:
                best = (z, chunk, feats)
        return best

    def words_for(self, feats: set[str], top: int = 3) -> list[str]:
        """The words (or word pairs) of a chunk that weigh most towards injection."""
        scored = [
            (w, f[1:]) for f in feats if f[0] in (_WORD_FEATURE, _PAIR_FEATURE) and (w := self.weights.get(f, 0.0)) > 0
        ]
        if not scored:  # a script without spaces (Chinese, Japanese): its character n-grams
            scored = [(w, f.strip()) for f in feats if f.strip() and (w := self.weights.get(f, 0.0)) > 0]
        scored.sort(key=lambda s: (-s[0], s[1]))
        names: list[str] = []
        for _, name in scored:
            if not any(name in other or other in name for other in names):
                names.append(name)
            if len(names) == top:
                break
        return [" ".join(_MARKS.get(w, w) for w in n.split(" ")) for n in names]


MODEL_FILE = "ts206_model.tsv.gz"


def read_model(data: bytes) -> Model:
    """A model from its file: a JSON header line (bias, threshold), then ``weight<TAB>feature`` lines."""
    lines = gzip.decompress(data).decode("utf-8").split("\n")
    header = json.loads(lines[0])
    weights: dict[str, float] = {}
    for line in lines[1:]:
        if line:
            weight, feature = line.split("\t", 1)
            weights[feature] = float(weight)
    error = header.get("error_threshold")
    return Model(weights, float(header["bias"]), float(header["threshold"]), None if error is None else float(error))


def write_model(model: Model, extra: dict[str, object]) -> bytes:
    fields: dict[str, object] = {"bias": model.bias, "threshold": model.threshold}
    if model.error_threshold is not None:
        fields["error_threshold"] = model.error_threshold
    header = json.dumps({**fields, **extra}, sort_keys=True)
    body = "\n".join(f"{w:.4g}\t{f}" for f, w in sorted(model.weights.items()))
    return gzip.compress(f"{header}\n{body}\n".encode(), mtime=0)


@cache
def shipped_model() -> Model | None:
    """The model shipped with the package (``None`` when its file is missing)."""
    try:
        data = resources.files("toolsearch_cli.lint").joinpath("data", MODEL_FILE).read_bytes()
    except (FileNotFoundError, OSError):
        return None
    return read_model(data)


def model_reason(text: str, model: Model | None = None, *, sure: bool = False) -> str | None:
    """Why the learned model reads a text as an order to the model, or ``None`` under its threshold
    (with ``sure``, under its error threshold: ``None`` also when the model has none)."""
    model = model or shipped_model()
    if model is None:
        return None
    threshold = model.error_threshold if sure else model.threshold
    if threshold is None:
        return None
    z, chunk, feats = model.best_chunk(text)
    if z < threshold:
        return None
    return describe(model, z, chunk, feats)


def describe(model: Model, z: float, chunk: str, feats: set[str] | frozenset[str]) -> str:
    """The message of a finding: the score over the warning threshold, the words that weigh most, the chunk."""
    words = ", ".join(repr(w) for w in model.words_for(set(feats)))
    snippet = " ".join(chunk.split())[:80]
    return f"reads as an order to the model (learned model, score {z - model.threshold:+.2f}; {words}): {snippet!r}"


def model_scores(texts: Iterator[str] | list[str], model: Model) -> list[float]:
    """The best chunk margin of each text, minus the threshold (>= 0: reported)."""
    return [model.best_chunk(t)[0] - model.threshold for t in texts]
