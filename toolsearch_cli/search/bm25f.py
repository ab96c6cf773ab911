"""The default ranker: BM25F over the tool's fields, with an inverted index built once per catalog.

Why this model (figures in benchmarks/README.md):

* field weighting: a term in the name or tags says more about what a tool does than the same
  term in a parameter description;
* rarity (IDF): ``get`` or ``data`` in every tool earns little, ``invoice`` earns a lot;
* saturation (k1, and at most three counted repeats per field): repeating a term in ten tags
  or twenty parameters cannot inflate a score without bound;
* per-field length normalisation: a short name that matches beats a long description that
  happens to mention the word;
* the analyser (:func:`toolsearch_cli.search.text.analyze`): identifiers split, stop words and
  one-letter tokens dropped, light stemming, CJK bigrams.

A term's contribution per posting does not depend on the query, so it is computed at index
time: a query is a sum over the postings of its terms.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from ..errors import SearchError
from ..model import Catalog, Tool
from .base import FIELDS, Contribution, Hit, SearchRequest
from .text import analyze, analyze_query, classic_normalize, is_weak_term


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One indexed field: the weight of a term there, and how much field length matters (b)."""

    weight: float
    b: float
    reported_as: str


#: Index fields. ``params`` holds parameter names; ``param_text`` their descriptions and enums.
FIELD_SPECS: dict[str, FieldSpec] = {
    "name": FieldSpec(3.0, 0.3, "name"),
    "description": FieldSpec(1.0, 0.75, "description"),
    "category": FieldSpec(0.3, 0.0, "category"),
    "tags": FieldSpec(0.5, 0.5, "tags"),
    "params": FieldSpec(0.7, 0.5, "parameters"),
    "param_text": FieldSpec(0.4, 0.3, "parameters"),
}
K1 = 1.2
#: A term counts at most this many times per field: repeating a tag fifty times is stuffing,
#: not evidence (measured neutral to slightly positive on the dev sets).
MAX_FIELD_COUNT = 3


def tool_fields(tool: Tool) -> dict[str, list[str]]:
    """The analysed terms of each indexed field of a tool."""
    params: list[str] = []
    param_text: list[str] = []
    for top in tool.parameter_tree(include_array_items=True):
        for p in top.walk():
            params.extend(analyze(p.name))
            param_text.extend(analyze(p.description))
    for enum_value in _enum_values(tool.parameters):
        param_text.extend(analyze(enum_value))
    return {
        "name": analyze(tool.name),
        "description": analyze(tool.description),
        "category": analyze(tool.category),
        "tags": [term for tag in tool.tags for term in analyze(tag)],
        "params": params,
        "param_text": param_text,
    }


def _enum_values(schema: object, depth: int = 0) -> Iterable[str]:
    if depth > 16:
        return
    if isinstance(schema, dict):
        enum = schema.get("enum")
        if isinstance(enum, list):
            yield from (str(v) for v in enum if isinstance(v, str))
        for key, value in schema.items():
            if key != "enum":
                yield from _enum_values(value, depth + 1)
    elif isinstance(schema, list):
        for value in schema:
            yield from _enum_values(value, depth + 1)


class BM25FIndex:
    """Postings of precomputed per-(term, tool) scores, plus what explanations need."""

    def __init__(self, tools: list[Tool], specs: dict[str, FieldSpec] = FIELD_SPECS, k1: float = K1) -> None:
        self.tools = tools
        self.specs = specs
        self.k1 = k1
        n = len(tools)
        field_terms = [tool_fields(t) for t in tools]
        self.avg_length = {f: (sum(len(fields[f]) for fields in field_terms) / n if n else 0.0) or 1.0 for f in specs}
        # term -> {doc: weighted, length-normalised term frequency}
        pseudo_tf: dict[str, dict[int, float]] = {}
        for doc, fields in enumerate(field_terms):
            for f, terms in fields.items():
                for term, count in Counter(terms).items():
                    per_doc = pseudo_tf.setdefault(term, {})
                    per_doc[doc] = per_doc.get(doc, 0.0) + self._field_tf(f, count, len(terms))
        self.idf: dict[str, float] = {}
        self.postings: dict[str, tuple[list[int], list[float]]] = {}
        for term, per_doc in pseudo_tf.items():
            df = len(per_doc)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            self.idf[term] = idf
            self.postings[term] = (list(per_doc), [self._saturate(idf, tf) for tf in per_doc.values()])
        self.by_category: dict[str, set[int]] = {}
        for doc, tool in enumerate(tools):
            if tool.category:
                self.by_category.setdefault(classic_normalize(tool.category), set()).add(doc)

    def _field_tf(self, field: str, count: int, length: int) -> float:
        """A field's weighted, length-normalised count of a term (repeats capped)."""
        spec = self.specs[field]
        norm = 1.0 - spec.b + spec.b * length / self.avg_length[field]
        return spec.weight * min(count, MAX_FIELD_COUNT) / norm

    def _saturate(self, idf: float, tf: float) -> float:
        return idf * tf * (self.k1 + 1.0) / (self.k1 + tf)

    def scores(self, terms: list[str], allowed: set[int] | None = None) -> dict[int, float]:
        """Summed scores of every tool sharing a term with the query.

        When the query has a real word (not only single CJK characters), a tool must share one
        of those: a lone character such as 天 is not a match for 今天的新闻 on its own.
        """
        acc: dict[int, float] = {}
        strong = [t for t in terms if not is_weak_term(t)]
        if strong and len(strong) < len(terms):
            strong_docs: set[int] = set()
            for term in strong:
                posting = self.postings.get(term)
                if posting is not None:
                    strong_docs.update(posting[0])
            allowed = strong_docs if allowed is None else allowed & strong_docs
        for term in terms:
            posting = self.postings.get(term)
            if posting is None:
                continue
            for doc, s in zip(*posting, strict=True):
                if allowed is None or doc in allowed:
                    acc[doc] = acc.get(doc, 0.0) + s
        return acc

    def explain(self, doc: int, terms: list[str], originals: dict[str, str]) -> tuple[list[str], list[Contribution]]:
        """Split each term's score over the fields it occurred in, in proportion to their share."""
        fields = tool_fields(self.tools[doc])
        parts: list[Contribution] = []
        matched: dict[str, None] = {}
        for term in terms:
            shares = {
                f: self._field_tf(f, field_terms.count(term), len(field_terms))
                for f, field_terms in fields.items()
                if term in field_terms
            }
            tf = sum(shares.values())
            if not tf:
                continue
            term_score = self._saturate(self.idf[term], tf)
            merged: dict[str, float] = {}
            for f, share in shares.items():
                reported = self.specs[f].reported_as
                merged[reported] = merged.get(reported, 0.0) + term_score * share / tf
                matched.setdefault(reported, None)
            label = originals.get(term, term)
            for reported, points in merged.items():
                detail = f"idf {self.idf[term]:.2f}" + (f", stem {term!r}" if label != term else "")
                parts.append(Contribution(term=label, field=reported, points=points, detail=detail))
        return sorted(matched, key=FIELDS.index), parts


class BM25FRanker:
    """Field-weighted BM25 with CJK bigrams, identifier splitting and light stemming."""

    name: ClassVar[str] = "default"
    description: ClassVar[str] = "BM25F over name, description, category, tags and parameters"

    def search(self, catalog: Catalog, request: SearchRequest) -> list[Hit]:
        terms = analyze_query(request.query)
        if not terms:
            if not classic_normalize(request.query):
                raise SearchError("the query is blank or only punctuation; say what the tool should do", field="query")
            raise SearchError(
                f"the query {request.query!r} has only stop words or one-letter words; "
                "use words that describe the task",
                field="query",
            )
        index: BM25FIndex = catalog.cached_index("default", lambda: BM25FIndex(catalog.searchable()))
        allowed: set[int] | None = None
        if request.category is not None:
            wanted = classic_normalize(request.category)
            if not wanted:
                raise SearchError("the category is blank or only punctuation", field="category")
            allowed = index.by_category.get(wanted, set())
        acc = index.scores(terms, allowed)
        best = heapq.nsmallest(request.max_results, acc.items(), key=lambda kv: (-kv[1], index.tools[kv[0]].name))
        if not request.explain:
            return [Hit(tool=index.tools[doc], score=score) for doc, score in best]
        originals = _originals(request.query)
        hits = []
        for doc, score in best:
            fields, parts = index.explain(doc, terms, originals)
            hits.append(Hit(tool=index.tools[doc], score=score, matched_fields=fields, contributions=parts))
        return hits


def _originals(query: str) -> dict[str, str]:
    """Map each analysed term back to the query word it came from (for explanations)."""
    out: dict[str, str] = {}
    for word in query.split():
        terms = analyze(word)
        label = word.strip(".,;:!?\"'()[]{}").lower() if len(terms) == 1 else None
        for term in terms:
            out.setdefault(term, label or term)
    return out
