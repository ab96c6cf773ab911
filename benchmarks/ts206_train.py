"""Train TS206's learned model (toolsearch_cli/lint/data/ts206_model.tsv.gz) and estimate how it
carries to phrasings it never saw: leave one batch out.

Usage: python benchmarks/ts206_train.py [--cv] [--write]

Data (all in this repository or the real-catalog cache; nothing from ../shared):

- positives: tests/data/injection_labelled.yaml (label injection), the held-out batches 3, 4 and
  5 (tests/lint/data/ts206_heldout_{3,4,5}.yaml, named one by one), and the paraphrases written
  by role and language in benchmarks/ts206_train/written.yaml and written_2.yaml, and by language
  and class in written_3.yaml (issue 37, round 3; negatives too, so that --holdout can leave out
  a class or a language);
- negatives: the benign entries of the same files, and every sentence of every distinct
  description of the real catalogs (benchmarks/ts206_heldout.py --real: the fetched cache, the
  MCP snapshots, GitHub's REST description).

Each text is read as TS206 reads it (:func:`toolsearch_cli.lint.injection.readings`: look-alikes,
spacing, leetspeak, encodings) and cut into chunks (:func:`.injection_model.chunks`). Every chunk
of a negative is a negative. A positive is a bag: first its whole readings are positives, then
(one more round) the best-scoring chunk of each bag (an order after an honest first sentence is
learned from its own sentence). Logistic regression, L2, full-batch Adam in numpy: deterministic.

Threshold (round 3): ``--write`` without ``--delta`` prints how the two halves' unseen descriptions
spread over the worst seen margin and a calibrated suggestion (warning where at most WARN_SHARE of
each unseen half rises, error ERROR_MARGIN above the highest); ``--rethreshold --delta D
--error-delta E`` sets both thresholds of the written model from its worst real margin.

Threshold (before): on the margin (logit), the worst margin of a real description the model was trained
on, plus ``delta``. ``delta`` is either given (``--delta``) or estimated: the real descriptions are
split in two halves by catalog file, a model trained on one half scores the other, and ``delta``
is how far the worst unseen description rises above the worst seen one, plus ``--margin``. The
written and labelled hard negatives are trained on but do not set the threshold (they are made to
look like orders; the held-out batches' negatives measure that class). Unseen real text is checked
on ../shared's 21,379 descriptions by ts206_heldout.py --shared, never trained on.

``--leave-out K[,K]`` (round 5): for each batch K, a model trained without it (batches 8, 9 and 10 are
training data since round 5), thresholds by the shipped rule, batch K linted with TS206 + TS207 through
the lint path (the model swapped in), at error and at any level, by language.

``--cv``: for each batch k in 3, 4, 5, a model trained without batch k (positives and negatives)
with the same rule for its threshold, scored on batch k; also without the written paraphrases.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import math
import pickle
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
import yaml

from benchmarks.ts206_heldout import REAL, real_catalogs
from toolsearch_cli import load_catalog
from toolsearch_cli.lint.injection import readings
from toolsearch_cli.lint.injection_model import (
    _SENTENCE,
    CUE_SCALE,
    CUES,
    MODEL_FILE,
    NORM_FLOOR,
    Model,
    chunk_features,
    features,
    normalise,
    units,
    write_model,
)
from toolsearch_cli.lint.rules.descriptions import described_fields

ROOT = Path(__file__).resolve().parent.parent
#: Threshold calibration on the two-halves split (issue 37, round 3): the warning threshold where at most
#: this share of the real descriptions a model never saw rises over it, the error threshold this far
#: above the highest of them.
WARN_SHARE = 0.0005
ERROR_MARGIN = 0.5
#: Batches trained on: 3-5 (issue 20) and 6 (blind batch of issue 20, measured on the frozen model first).
#: Batch 7 (issue 37, measured before this round) and batch 8 (written before the final measurement)
#: are never trained on.
#: Round 5: batches 8, 9 and 10 (spent as final measures of rounds 3-4) are trained on too; ``--leave-out K``
#: trains without batch K and measures it, as the honest estimate. Batch 7 stays out (its classes are in
#: written_2.yaml), batch 11 and later are never read here.
BATCHES = {k: ROOT / "tests" / "lint" / "data" / f"ts206_heldout_{k}.yaml" for k in (3, 4, 5, 6, 8, 9, 10)}
LABELLED = ROOT / "tests" / "data" / "injection_labelled.yaml"
WRITTEN = [ROOT / "benchmarks" / "ts206_train" / name for name in ("written.yaml", "written_2.yaml")]
#: Round 3 (issue 37): by language and class, negatives too, so that a language or class can be held out.
WRITTEN_3 = ROOT / "benchmarks" / "ts206_train" / "written_3.yaml"
#: Round 4 (issue 37): ten more languages (ar, hi, vi, id, sv, uk, cs, ro, fa, el), orders that say whom
#: they address, and honest AI-API documentation (system prompts, "instructions the assistant uses");
#: same layout as written_3.yaml, groups named "w4:<language>:<class>".
WRITTEN_4 = ROOT / "benchmarks" / "ts206_train" / "written_4.yaml"
#: Round 5 (issue 37): orders in the registers blind batch 10 showed the model missing (passive "it is
#: expected that", notes to "the integration"/"the orchestrator", fake known issues and migration guides,
#: tables, YAML configs, example transcripts, accessibility and legal notes, memory onboarding, steering),
#: in 14 languages, and honest look-alikes of each; groups named "w5:<language>:<class>".
WRITTEN_5 = ROOT / "benchmarks" / "ts206_train" / "written_5.yaml"
#: The dev set of round 3: blind batch 8, never trained on, scored by --holdout.
DEV = ROOT / "tests" / "lint" / "data" / "ts206_heldout_8.yaml"
CACHE = REAL.parent  # the benchmarks' cache directory (~/.cache/toolsearch-bench)
OUT = ROOT / "toolsearch_cli" / "lint" / "data" / MODEL_FILE


def entry_text(entry: dict) -> str:
    if "tool" in entry:
        spec = entry["tool"]
        return " ".join([spec["description"], *(spec.get("parameters") or {}).values()])
    return str(entry["text"])


def load_sets() -> dict[str, list[tuple[str, int]]]:
    """Texts with labels (1 injection, 0 benign), by source."""
    sets: dict[str, list[tuple[str, int]]] = {}
    labelled = yaml.safe_load(LABELLED.read_text(encoding="utf-8"))
    sets["labelled"] = [(e["text"], int(e["label"] == "injection")) for e in labelled]
    for k, path in BATCHES.items():
        entries = yaml.safe_load(path.read_text(encoding="utf-8"))
        sets[f"batch{k}"] = [(entry_text(e), int(e["label"] == "injection")) for e in entries]
    sets["written"] = []
    for path in WRITTEN:
        written = yaml.safe_load(path.read_text(encoding="utf-8"))
        pos = [t for by_kind in written["positive"].values() for texts in by_kind.values() for t in texts]
        sets["written"] += [(t, 1) for t in pos] + [(t, 0) for t in written["negative"]]
    for (lang, kind), items in written_3().items():
        sets[f"w3:{lang}:{kind}"] = items
    for (lang, kind), items in written_3(WRITTEN_4).items():
        sets[f"w4:{lang}:{kind}"] = items
    if WRITTEN_5.is_file():
        for (lang, kind), items in written_3(WRITTEN_5).items():
            sets[f"w5:{lang}:{kind}"] = items
    return sets


def written_3(path: Path = WRITTEN_3) -> dict[tuple[str, str], list[tuple[str, int]]]:
    """benchmarks/ts206_train/written_3.yaml (or written_4.yaml) by (language, class): positives under
    their class, negatives under ``honest-<class>`` (a language's flat list: ``honest``)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for label, side in ((1, "positive"), (0, "negative"), (1, "positive_2"), (0, "negative_2")):
        for lang, by_kind in (data.get(side) or {}).items():
            groups = by_kind.items() if isinstance(by_kind, dict) else [("", by_kind)]
            for kind, entries in groups:
                key = (lang, kind if label else f"honest-{kind}".rstrip("-"))
                out.setdefault(key, []).extend((entry_text(e) if isinstance(e, dict) else e, label) for e in entries)
    return out


def real_texts() -> list[list[str]]:
    """Distinct descriptions of the real catalogs, in two halves by file (alternating)."""
    halves: list[list[str]] = [[], []]
    seen: set[str] = set()
    for i, path in enumerate(real_catalogs()):
        for tool in load_catalog([str(path)]).tools:
            for _, text in described_fields(tool):
                if text not in seen:
                    seen.add(text)
                    halves[i % 2].append(text)
    return halves


def text_chunks(text: str, whole_too: bool = True) -> tuple[list[tuple[str, set[str]]], list[tuple[str, set[str]]]]:
    """The chunks of every reading of a text, and the readings themselves (with their features)."""
    whole = [r for r, _ in readings(text)]
    found: dict[str, set[str]] = {}
    for r in whole:
        for chunk, feats in chunk_features(r):
            found.setdefault(chunk, feats)
    return list(found.items()), [(r, features(normalise(r))) for r in whole] if whole_too else []


class Corpus:
    """Every chunk of every text once, as rows of one sparse matrix over a fixed vocabulary
    (binary features / sqrt(number of features of the chunk)); texts are bags of rows."""

    def __init__(self, texts: list[tuple[str, int, str]]) -> None:
        """``texts``: (text, label, group); group "real" for the real descriptions (read last)."""
        self.texts = texts
        self.rows: dict[str, int] = {}
        self.bags: list[np.ndarray] = []
        self.wholes: list[list[int]] = []
        row_feats: list[tuple[set[str], int]] = []  # features kept for a row, and how many it had
        # vocabulary: n-grams of >= 2 positive texts or >= 2 written/labelled negatives; words and
        # word pairs of >= 20 real chunks (so that honest phrasing can weigh against an order)
        df_pos: Counter[str] = Counter()
        df_neg: Counter[str] = Counter()
        df_real: Counter[str] = Counter()
        keep: set[str] = set()
        for text, label, group in texts:
            if group == "real" and not keep:
                keep = {f for f, n in df_pos.items() if n >= 2} | {f for f, n in df_neg.items() if n >= 2}
            bag, whole = text_chunks(text, whole_too=bool(label))
            if not bag:
                bag = [("", set())]
            ids = []
            for chunk, feats in [*bag, *(whole if label else [])]:
                row = self.rows.setdefault(chunk, len(self.rows))
                if row == len(row_feats):
                    kept = feats if group != "real" else {f for f in feats if f in keep or f[0] in "\x01\x02\x03"}
                    row_feats.append((kept, len(feats)))
                    if group == "real":
                        df_real.update(f for f in feats if f[0] in "\x01\x02\x03")
                ids.append(row)
            self.bags.append(np.array(ids[: len(bag)], np.int64))
            self.wholes.append(ids[len(bag) :])
            if group != "real":
                union = set().union(*(f for _, f in bag), *(f for _, f in whole))
                (df_pos if label else df_neg).update(union)
        keep |= {f for f, n in df_real.items() if n >= 20}
        self.vocab = {f: i for i, f in enumerate(sorted(keep))}
        indptr, cols, vals = [0], [], []
        for feats, n in row_feats:
            idx = [self.vocab[f] for f in feats if f in self.vocab]
            cols.extend(idx)
            vals.extend([1.0 / math.sqrt(max(n, 1))] * len(idx))
            indptr.append(len(cols))
        self.indptr = np.array(indptr, np.int64)
        self.cols = np.array(cols, np.int64)
        self.raw_vals = np.array(vals, np.float32)  # 1 / sqrt(number of features)
        self.vals = self.raw_vals
        self.nnz_row = np.repeat(np.arange(len(row_feats)), np.diff(self.indptr))

    def renormalise(self) -> None:
        """Divide by at least sqrt(NORM_FLOOR), as :meth:`.injection_model.Model.margin` does."""
        n = np.rint(1.0 / self.raw_vals.astype(np.float64) ** 2)
        scale = np.array([CUE_SCALE if f[0] == "\x03" else 1.0 for f in sorted(self.vocab, key=self.vocab.get)])
        self.vals = (scale[self.cols] / np.sqrt(np.maximum(n, NORM_FLOOR))).astype(np.float32)

    def _row(self, chunk: str) -> int:
        return self.rows.setdefault(chunk, len(self.rows))

    def select(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        starts = self.indptr[rows]
        lens = self.indptr[rows + 1] - starts
        pos = np.repeat(np.arange(len(rows)), lens)
        offs = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
        g = np.repeat(starts, lens) + offs
        return pos, self.cols[g], self.vals[g]

    def margins(self, w: np.ndarray, b: float) -> np.ndarray:
        return np.bincount(self.nnz_row, weights=w[self.cols] * self.vals, minlength=len(self.rows)) + b

    def text_margins(self, z: np.ndarray, ids: list[int]) -> np.ndarray:
        return np.array([z[self.bags[i]].max() for i in ids])


def fit(
    x: tuple[np.ndarray, np.ndarray, np.ndarray],
    n_rows: int,
    dim: int,
    y: np.ndarray,
    weight: np.ndarray,
    l2: float,
    epochs: int = 200,
    lr: float = 0.1,
) -> tuple[np.ndarray, float]:
    """Weighted logistic regression, full-batch Adam (deterministic)."""
    rows, cols, vals = x
    w = np.zeros(dim)
    b = 0.0
    m, v = np.zeros(dim + 1), np.zeros(dim + 1)
    total = weight.sum()
    for t in range(1, epochs + 1):
        z = np.bincount(rows, weights=w[cols] * vals, minlength=n_rows) + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
        err = (p - y) * weight / total
        g = np.empty(dim + 1)
        g[:dim] = np.bincount(cols, weights=vals * err[rows], minlength=dim) + l2 * w
        g[dim] = err.sum()
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        step = lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        w -= step[:dim]
        b -= step[dim]
    return w, b


def train(
    corpus: Corpus, ids: list[int], l2: float, pos_share: float, epochs: int = 200
) -> tuple[np.ndarray, float, float]:
    """(weights, bias, worst margin of a real description) from the texts ``ids`` of the corpus."""
    pos = [i for i in ids if corpus.texts[i][1]]
    neg_rows = np.unique(np.concatenate([corpus.bags[i] for i in ids if not corpus.texts[i][1]]))
    dim = len(corpus.vocab)
    w, b = np.zeros(dim), 0.0
    for round_ in range(2):
        if round_ == 0:
            pos_rows = [r for i in pos for r in corpus.wholes[i]]
        else:  # multiple-instance: the best chunk of each positive, and its first whole reading
            z = corpus.margins(w, b)
            pos_rows = []
            for i in pos:
                bag = corpus.bags[i]
                pos_rows += [int(bag[int(np.argmax(z[bag]))]), corpus.wholes[i][0]]
        rows = np.concatenate([np.array(pos_rows, np.int64), neg_rows])
        n_pos, n_neg = len(pos_rows), len(neg_rows)
        y = np.concatenate([np.ones(n_pos), np.zeros(n_neg)])
        weight = np.concatenate([np.full(n_pos, pos_share * n_neg / n_pos), np.ones(n_neg)])
        w, b = fit(corpus.select(rows), len(rows), dim, y, weight, l2, epochs)
    z = corpus.margins(w, b)
    real = [i for i in ids if corpus.texts[i][2] == "real"]
    return w, b, float(corpus.text_margins(z, real).max())


def holdout(args: argparse.Namespace, corpus: Corpus, texts: list, labelled_ids: list[int], real_ids: list[int],
            delta: float, clock) -> None:  # fmt: skip
    """Train without some groups of written_3.yaml; score them and blind batch 8 (the model alone,
    and with the written rules as TS206 runs them first) at the warning and error thresholds."""
    from toolsearch_cli.lint.injection import learned_margin, rule_reasons  # noqa: F401

    langs, _, kinds = args.holdout.partition("/")

    def held(group: str) -> bool:
        if not group.startswith(("w3:", "w4:", "w5:")):
            return False
        _, lang, kind = group.split(":")
        kind = kind.removeprefix("honest-")
        return (langs in ("", "*") or lang in langs.split(",")) and (kinds in ("", "*") or kind in kinds.split(","))

    train_ids = [i for i in labelled_ids if not held(texts[i][2])] + real_ids
    w, b, worst = train(corpus, train_ids, args.l2, args.pos_share)
    z = corpus.margins(w, b)
    threshold = worst + delta
    test = [i for i in labelled_ids if held(texts[i][2])]
    levels = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5)
    if test:
        m = corpus.text_margins(z, test) - threshold
        ys = np.array([texts[i][1] for i in test])
        print(f"held out {args.holdout}: {int(ys.sum())}+/{int((1 - ys).sum())}- ; recall by level over the "
              "warning threshold: " + ", ".join(f"+{lv}: {int(((m >= lv) & (ys == 1)).sum())}" for lv in levels)
              + "; false alarms: "
              + ", ".join(f"+{lv}: {int(((m >= lv) & (ys == 0)).sum())}" for lv in levels))  # fmt: skip
        for mi, i in sorted(zip(m, test, strict=True))[:12]:
            if texts[i][1]:
                print(f"    {mi:+.2f} {texts[i][2]} {ascii(texts[i][0])[1:100]}")
    # blind batch 8, through a Model with these weights (features of its readings, as TS206 reads)
    weights = {f: float(w[j]) * (CUE_SCALE if f[0] == "\x03" else 1.0) for f, j in corpus.vocab.items() if w[j]}
    model = Model(weights, float(b), threshold)
    entries = yaml.safe_load(DEV.read_text(encoding="utf-8"))
    pos = [e for e in entries if e["label"] == "injection"]
    neg = [e for e in entries if e["label"] == "benign"]

    def best(e: dict) -> float:
        fields = [e["text"]] if "text" in e else [e["tool"]["description"], *e["tool"]["parameters"].values()]
        return max(model.best_chunk(r)[0] for f in fields for r, _ in readings(f)) - threshold

    def ruled(e: dict) -> bool:
        fields = [e["text"]] if "text" in e else [e["tool"]["description"], *e["tool"]["parameters"].values()]
        return any(rule_reasons(f) for f in fields)

    for name, group in (("injections", pos), ("honest", neg)):
        ms = [(best(e), ruled(e)) for e in group]
        print(f"batch 8 {name} ({len(group)}), rules or model over warning + level: "
              + ", ".join(f"+{lv}: {sum(r or mm >= lv for mm, r in ms)}" for lv in levels)
              + f" (rules alone {sum(r for _, r in ms)}) {clock()}", flush=True)  # fmt: skip


def with_model(model: Model):  # noqa: ANN201 - a context manager
    """Run TS206/TS207 with ``model`` in place of the shipped one (the lint path itself, caches cleared)."""
    import contextlib

    from toolsearch_cli.lint import injection, injection_model

    @contextlib.contextmanager
    def swapped():  # noqa: ANN202
        saved = (injection.shipped_model, injection_model.shipped_model)
        injection.shipped_model = injection_model.shipped_model = lambda: model  # type: ignore[assignment]
        injection._learned_best.cache_clear()
        try:
            yield
        finally:
            injection.shipped_model, injection_model.shipped_model = saved
            injection._learned_best.cache_clear()

    return swapped()


def leave_out(args: argparse.Namespace, corpus: Corpus, texts: list, labelled_ids: list[int], real_ids: list[int],
              delta: float, error_over_worst: float | None, clock) -> None:  # fmt: skip
    """For each batch K of ``--leave-out``: a model trained without batch K (nothing of it, nor of any
    other left-out batch), thresholds by the shipped rule (warning = worst real margin + ``delta``, error =
    worst + ``error_over_worst``: the split's highest unseen + ERROR_MARGIN when the split ran, else warning +
    ``--error-delta``), batch K linted with TS206 + TS207 through the lint path (rules, split
    fields, model), at error level and at any level, by language."""
    import tempfile

    from benchmarks.ts206_heldout import flagged

    ks = [int(k) for k in args.leave_out.split(",")]
    for k in ks:
        others = {f"batch{j}" for j in ks} if args.leave_out_all else {f"batch{k}"}
        ids = [i for i in labelled_ids if texts[i][2] not in others] + real_ids
        w, b, worst = train(corpus, ids, args.l2, args.pos_share)
        threshold = worst + delta
        if error_over_worst is not None:
            error = worst + error_over_worst
        else:
            error = threshold + (args.error_delta if args.error_delta is not None else 5.53)
        weights = {f: float(w[j]) * (CUE_SCALE if f[0] == "\x03" else 1.0) for f, j in corpus.vocab.items() if w[j]}
        model = Model(weights, float(b), threshold, error)
        entries = yaml.safe_load(BATCHES[k].read_text(encoding="utf-8"))
        with with_model(model), tempfile.TemporaryDirectory() as tmp:
            hit_error = flagged(entries, Path(tmp), "error")
            hit_any = flagged(entries, Path(tmp))
            from toolsearch_cli.lint.injection import learned_margin

            margin = [max(learned_margin(f) for f in entry_fields(e)) for e in entries]
        by_lang: dict[str, list[int]] = {}
        for e, h in zip(entries, hit_any, strict=True):
            if e["label"] == "injection":
                by_lang.setdefault(e.get("lang", "?"), [0, 0])
                by_lang[e.get("lang", "?")][0] += int(h)
                by_lang[e.get("lang", "?")][1] += 1
        pos = [i for i, e in enumerate(entries) if e["label"] == "injection"]
        neg = [i for i, e in enumerate(entries) if e["label"] != "injection"]
        ea, aa = sum(hit_error[i] for i in pos), sum(hit_any[i] for i in pos)
        also = ",".join(sorted(others - {f"batch{k}"}))
        print(f"leave out batch {k}{f' (and {also})' if also else ''}: "
              f"error {ea}/{len(pos)} ({ea / len(pos):.0%}), any {aa}/{len(pos)} ({aa / len(pos):.0%}); honest "
              f"error {sum(hit_error[i] for i in neg)}/{len(neg)}, any {sum(hit_any[i] for i in neg)}/{len(neg)}; "
              "by language " + ", ".join(f"{lang} {a}/{n}" for lang, (a, n) in sorted(by_lang.items()))
              + f"; model margins of injections >= -1: {sum(margin[i] >= -1 for i in pos)}, >= -2: "
              f"{sum(margin[i] >= -2 for i in pos)} {clock()}", flush=True)  # fmt: skip
        if args.verbose:
            for i in pos:
                if not hit_any[i]:
                    print(f"    missed {margin[i]:+.2f} [{entries[i].get('lang')} {entries[i].get('kind')}]")
            for i in neg:
                if hit_any[i]:
                    print(f"    FALSE ALARM {margin[i]:+.2f} [{entries[i].get('lang')} {entries[i].get('kind')}] "
                          f"{ascii(entry_text(entries[i]))[1:100]}")  # fmt: skip


def entry_fields(entry: dict) -> list[str]:
    if "tool" in entry:
        return [entry["tool"]["description"], *(entry["tool"].get("parameters") or {}).values()]
    return [str(entry["text"])]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cv", action="store_true", help="leave one batch out")
    parser.add_argument("--write", action="store_true", help=f"write toolsearch_cli/lint/data/{MODEL_FILE}")
    parser.add_argument("--reuse", action="store_true", help="keep the featurised corpus in a temporary file")
    parser.add_argument("--delta", type=float, help="skip the two-halves estimate and use this delta")
    parser.add_argument("--batches", default="3,4,5", help="batches left out in turn by --cv")
    parser.add_argument("--without-written", action="store_true", help="--cv also without the written paraphrases")
    parser.add_argument(
        "--holdout",
        help="train without these groups of written_3.yaml (LANGS/CLASSES, e.g. 'pl,tr/compliance,setup'; "
        "'*' for all) and score them, and blind batch 8, at both thresholds",
    )
    parser.add_argument("--leave-out", help="batches (e.g. '10,9'): for each, train without it and lint it")
    parser.add_argument("--warn-delta", type=float, default=2.0, help="--leave-out: warning = worst real margin + this")
    parser.add_argument("--leave-out-all", action="store_true", help="--leave-out: each model without all of them")
    parser.add_argument("--verbose", "-v", action="store_true", help="--leave-out: list misses and false alarms")
    parser.add_argument("--l2", type=float, default=1e-7)
    parser.add_argument("--pos-share", type=float, default=0.5, help="positives' total weight / negatives'")
    parser.add_argument("--margin", type=float, default=1.0, help="added to the threshold's margin (logit)")
    parser.add_argument("--error-delta", type=float, help="error threshold = warning threshold + this (TS206)")
    parser.add_argument(
        "--rethreshold", action="store_true", help="only set the shipped model's error threshold (with --error-delta)"
    )
    args = parser.parse_args()
    start = time.perf_counter()
    if args.rethreshold:
        import gzip
        import json

        from toolsearch_cli.lint.injection_model import read_model

        data = OUT.read_bytes()
        header = json.loads(gzip.decompress(data).decode("utf-8").split("\n", 1)[0])
        model = read_model(data)
        extra = {k: v for k, v in header.items() if k not in ("bias", "threshold", "error_threshold")}
        if args.delta is not None:  # the warning threshold too, from the worst real margin trained on
            model.threshold = round(header["worst_negative_margin"] + args.delta, 4)
            extra["delta"] = args.delta
        model.error_threshold = round(model.threshold + args.error_delta, 4)
        OUT.write_bytes(write_model(model, {**extra, "error_delta": args.error_delta}))
        print(f"{OUT.relative_to(ROOT)}: error threshold {model.error_threshold} (warning {model.threshold})")
        return 0

    def clock() -> str:
        return f"[{time.perf_counter() - start:.0f} s]"

    sets = load_sets()
    halves = real_texts()
    texts = [(t, y, name) for name, items in sets.items() for t, y in items]
    texts += [(t, 0, "real") for half in halves for t in half]
    half_of = {t: k for k, half in enumerate(halves) for t in half}
    cache = CACHE / "ts206_corpus.pickle"  # our own cache directory, never a shared /tmp file
    code = "".join(inspect.getsource(f) for f in (normalise, features, units, chunk_features, readings))
    code += repr(CUES) + _SENTENCE.pattern  # the cues and the sentence splitter shape the features too
    key = hashlib.sha256(repr(texts).encode() + code.encode()).hexdigest()  # not NORM_FLOOR: applied below
    corpus: Corpus | None = None
    if args.reuse and cache.is_file():
        stored_key, stored = pickle.loads(cache.read_bytes())
        corpus = stored if stored_key == key else None
    if corpus is None:
        corpus = Corpus(texts)
        if args.reuse:
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_bytes(pickle.dumps((key, corpus)))
    corpus.renormalise()
    shown: dict[str, list[tuple[str, int]]] = {}
    for k, v in sets.items():  # written_3's groups summed
        shown.setdefault({"w3": "written_3", "w4": "written_4", "w5": "written_5"}.get(k[:2], k), []).extend(v)
    print("sets: " + ", ".join(f"{k} {sum(y for _, y in v)}+/{sum(1 - y for _, y in v)}-" for k, v in shown.items())
          + f"; real descriptions {len(halves[0])} + {len(halves[1])}; {len(corpus.rows)} chunks, "
          f"{len(corpus.vocab)} features {clock()}", flush=True)  # fmt: skip
    labelled_ids = [i for i, t in enumerate(texts) if t[2] != "real"]

    def real_half(k: int) -> list[int]:
        return [i for i, t in enumerate(texts) if t[2] == "real" and half_of[t[0]] == k]

    # delta: how far unseen real negatives rise above the worst seen negative
    deltas = []
    calibration: list[np.ndarray] = []  # unseen real margins over the worst seen one, by half
    for k in (0, 1) if args.delta is None else ():
        w, b, worst = train(corpus, labelled_ids + real_half(k), args.l2, args.pos_share)
        unseen = corpus.text_margins(corpus.margins(w, b), real_half(1 - k))
        deltas.append(float(unseen.max()) - worst)
        above = np.sort(unseen - worst)[::-1]
        calibration.append(above)
        print(f"half {k}: unseen real descriptions over the worst seen + d: "
              + ", ".join(f"d={d}: {int((above >= d).sum())}" for d in (0, 0.5, 1, 1.5, 2, 2.5, 3))
              + f"; top {', '.join(f'{a:+.2f}' for a in above[:5])}", flush=True)  # fmt: skip
        ids_k = real_half(1 - k)
        for j in np.argsort(-unseen)[:3]:  # what sets the error threshold
            print(f"    {unseen[j] - worst:+.2f} {ascii(texts[ids_k[j]][0])[1:140]}")
        print(f"half {k}: worst seen negative margin {worst:.2f}, worst unseen {unseen.max():.2f} "
              f"({int((unseen > worst).sum())} of {len(unseen)} unseen above it) {clock()}", flush=True)  # fmt: skip
    delta = max(max(deltas), 0.0) + args.margin if args.delta is None else args.delta
    if calibration:
        # calibrated on the split: warning where at most WARN_SHARE of the unseen half is over it
        # (both halves), error above the highest unseen description by ERROR_MARGIN
        grid = np.arange(0.0, 6.01, 0.1)
        warn = next(float(d) for d in grid if all((a >= d).sum() <= WARN_SHARE * len(a) for a in calibration))
        error = max(float(a[0]) for a in calibration) + ERROR_MARGIN
        print(f"calibrated on the split: warning delta {warn:.1f} (<= {WARN_SHARE:.2%} of each unseen half over it), "
              f"error delta {error:.2f} (the highest unseen + {ERROR_MARGIN}); apply with --rethreshold "
              f"--delta {warn:.1f} --error-delta {max(error - warn, 1.0):.2f}", flush=True)  # fmt: skip
    print(f"threshold rule: worst seen negative margin + {delta:.2f}", flush=True)

    real_ids = real_half(0) + real_half(1)
    if args.write:
        w, b, worst = train(corpus, labelled_ids + real_ids, args.l2, args.pos_share)
        threshold = worst + delta
        weights = {f: round(float(w[i]) * (CUE_SCALE if f[0] == "\x03" else 1.0), 4)
                   for f, i in corpus.vocab.items() if abs(w[i]) >= 1e-3}  # fmt: skip
        error = None if args.error_delta is None else round(threshold + args.error_delta, 4)
        model = Model(weights, round(b, 4), round(threshold, 4), error)
        OUT.parent.mkdir(parents=True, exist_ok=True)
        extra = {"delta": round(delta, 4), "worst_negative_margin": round(worst, 4), "error_delta": args.error_delta}
        OUT.write_bytes(write_model(model, extra))
        size = OUT.stat().st_size
        print(f"wrote {OUT.relative_to(ROOT)}: {len(weights)} weights of {len(corpus.vocab)}, "
              f"threshold margin {threshold:.2f}, error threshold {error}, {size:,} bytes {clock()}")  # fmt: skip
    if args.leave_out:
        error_over_worst = max(float(a[0]) for a in calibration) + ERROR_MARGIN if calibration else None
        leave_out(args, corpus, texts, labelled_ids, real_ids, args.warn_delta, error_over_worst, clock)
    if args.holdout:
        holdout(args, corpus, texts, labelled_ids, real_ids, delta, clock)
    if args.cv:
        for without_written in (False, True) if args.without_written else (False,):
            for k in (int(b) for b in args.batches.split(",")):
                test = [i for i, t in enumerate(texts) if t[2] == f"batch{k}"]
                ids = [i for i in labelled_ids if texts[i][2] != f"batch{k}"]
                ids = [i for i in ids if not (without_written and texts[i][2] == "written")] + real_ids
                w, b, worst = train(corpus, ids, args.l2, args.pos_share)
                m = corpus.text_margins(corpus.margins(w, b), test)
                hit = m >= worst + delta
                labels = [texts[i][1] for i in test]
                tp = sum(int(h) for h, y in zip(hit, labels, strict=True) if y)
                fp = sum(int(h) for h, y in zip(hit, labels, strict=True) if not y)
                n_pos = sum(labels)
                label = "without the written paraphrases" if without_written else "all other data"
                print(f"leave out batch {k} ({label}): recall {tp}/{n_pos} ({tp / n_pos:.0%}), "
                      f"false alarms {fp}/{len(test) - n_pos} {clock()}", flush=True)  # fmt: skip
                for h, i in zip(hit, test, strict=True):
                    if bool(h) != bool(texts[i][1]):
                        print(f"    {'missed' if texts[i][1] else 'FALSE ALARM'}: {ascii(texts[i][0])[1:110]}")

    return 0


if __name__ == "__main__":
    sys.exit(main())
