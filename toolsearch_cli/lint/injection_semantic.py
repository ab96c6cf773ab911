"""A semantic reading of injection-like text (rule TS207), when an embedding model is configured.

Each sentence of a description is embedded and compared with a short shipped list of what an order
to the model *means* (``data/ts206_intents.tsv``: ignore your instructions, send the user's data
away, hide it from the user, call this tool with every other one, you are now unrestricted, the user
already approved, ask for a password ... in eight languages) and with honest tool sentences that
share their words ("Sends an email to the given recipient", "Ignore case when matching names").
A sentence is reported when it is closer to an order than to every honest sentence by at least
:data:`MARGIN` (cosine) and close to that order in absolute terms (:data:`MIN_SIMILARITY`).
Comparing with both lists, not with orders alone, is what keeps it usable across models whose
cosines sit in different ranges (E5's are all above 0.7).

Conservative and a warning only (rule TS207): its precision depends on the model, which the user
chooses; it never makes an error. The model is the one ``--embed-model`` / ``--embed-base-url`` name
(the same options as the ``hybrid`` ranker); nothing is loaded when none is configured.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from .injection_model import units

INTENTS_FILE = "ts206_intents.tsv"
#: Closer to an order than to every honest sentence by at least this much (cosine).
MARGIN = 0.08
#: And at least this close to that order.
MIN_SIMILARITY = 0.5
#: Sentences of one text embedded at most; shorter sentences than this are not read (names, units).
MAX_SENTENCES = 24
MIN_CHARS = 16
#: Texts' sentences embedded per run at most (bounded work on a huge catalog).
MAX_TOTAL = 50_000


@dataclass(frozen=True)
class Intents:
    """The shipped sentences: orders as (role, sentence), and honest sentences."""

    orders: tuple[tuple[str, str], ...]
    honest: tuple[str, ...]


def read_intents(text: str) -> Intents:
    """Intents from the shipped file's text: ``kind<TAB>role<TAB>lang<TAB>sentence`` lines, ``#`` comments."""
    orders: list[tuple[str, str]] = []
    honest: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 4 or parts[0] not in ("order", "honest") or not parts[3].strip():
            raise ValueError(f"{INTENTS_FILE}:{number}: expected kind<TAB>role<TAB>lang<TAB>sentence")
        if parts[0] == "order":
            orders.append((parts[1], parts[3].strip()))
        else:
            honest.append(parts[3].strip())
    return Intents(tuple(orders), tuple(honest))


@cache
def shipped_intents() -> Intents:
    data = resources.files("toolsearch_cli.lint").joinpath("data", INTENTS_FILE).read_text(encoding="utf-8")
    return read_intents(data)


def sentences(text: str) -> list[str]:
    """The sentences of a text the layer reads (long ones in windows, as the learned model cuts them)."""
    return [u for u in units(text) if len(u) >= MIN_CHARS][:MAX_SENTENCES]


@dataclass(frozen=True)
class SemanticHit:
    """A text's sentence read as an order: how far over the honest sentences, and which order."""

    margin: float
    similarity: float
    role: str
    sentence: str

    def reason(self) -> str:
        snippet = " ".join(self.sentence.split())[:80]
        return (
            f"reads as an order to the model (embedding model: {self.role}, similarity {self.similarity:.2f}, "
            f"{self.margin:+.2f} over honest text): {snippet!r}"
        )


def semantic_hits(
    texts: Sequence[str],
    embed: Callable[[list[str]], Any],
    intents: Intents | None = None,
    margin: float = MARGIN,
    min_similarity: float = MIN_SIMILARITY,
) -> list[SemanticHit | None]:
    """Each text's best sentence over the thresholds, or ``None``. ``embed`` turns a list of texts
    into L2-normalised rows (the configured embedder, its query prompt applied by the caller):
    the intents and every distinct sentence are embedded in one call."""
    import numpy as np

    intents = intents or shipped_intents()
    per_text = [sentences(t) for t in texts]
    distinct = list(dict.fromkeys(s for group in per_text for s in group))[:MAX_TOTAL]
    if not distinct:
        return [None] * len(texts)
    n_orders, n_honest = len(intents.orders), len(intents.honest)
    vectors = np.asarray(embed([s for _, s in intents.orders] + list(intents.honest) + distinct), dtype=np.float32)
    orders, honest, rows = vectors[:n_orders], vectors[n_orders : n_orders + n_honest], vectors[n_orders + n_honest :]
    to_orders = rows @ orders.T
    best_order = to_orders.argmax(axis=1)
    similarity = to_orders.max(axis=1)
    over = similarity - (rows @ honest.T).max(axis=1) if n_honest else similarity
    index = {s: i for i, s in enumerate(distinct)}
    found: list[SemanticHit | None] = []
    for group in per_text:
        best: SemanticHit | None = None
        for sentence in group:
            i = index.get(sentence)
            if i is None or over[i] < margin or similarity[i] < min_similarity:
                continue
            if best is None or over[i] > best.margin:
                role = intents.orders[int(best_order[i])][0]
                best = SemanticHit(float(over[i]), float(similarity[i]), role, sentence)
        found.append(best)
    return found
