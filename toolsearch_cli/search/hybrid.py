"""The dense rankers: ``embedding`` (cosine similarity alone) and ``hybrid`` (fused with ``default``).

``hybrid`` asks ``default`` for its best :data:`CANDIDATES` tools and the embedding model for the
cosine similarity of every tool, then fuses the two (figures in benchmarks/README.md):

* ``nsf`` (normalised-score fusion, what ``hybrid`` uses): the lexical score divided by the best
  lexical score, the cosine rescaled to 0..1 between the :data:`CANDIDATES`-th best and the best
  cosine, then ``(1 - w) * lexical + w * semantic`` with ``w`` = :data:`SEMANTIC_WEIGHT` for
  requests of up to :data:`LONG_QUERY_WORDS` words, less for longer ones (on seal_tools, whose
  requests run to 57 words, embeddings alone reach R@5 0.61 against 0.93 lexically);
* ``rrf`` (reciprocal-rank fusion, ``1/(k + rank)`` summed over both lists), measured for
  comparison (ranker ``hybrid-rrf``).

Queries with Chinese, Japanese or Korean characters rank lexically alone unless the model is
declared multilingual (``--embed-multilingual``): an English-only model embeds them as noise and
would only pull good lexical results down. ``--explain`` shows both parts of every score.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, ClassVar

from ..errors import SearchError
from ..model import Catalog, Tool
from .base import Contribution, Hit, SearchRequest
from .bm25f import BM25FRanker
from .embed import Embedder, current_embedder, has_cjk
from .text import classic_normalize
from .vectors import VectorIndex, VectorStore, store_enabled

#: How many of each list's best tools are fused.
CANDIDATES = 50
#: Share of the semantic part in normalised-score fusion.
SEMANTIC_WEIGHT = 0.5
#: Requests longer than this (in words) lean towards the lexical side (see HybridRanker.semantic_weight).
LONG_QUERY_WORDS = 30
#: The ``k`` of reciprocal-rank fusion.
RRF_K = 10
#: Query vectors kept in memory (an evaluation embeds its queries once, for every dense ranker).
QUERY_CACHE = 50_000

_query_vectors: OrderedDict[tuple[str, str], Any] = OrderedDict()


def query_vectors(embedder: Embedder, queries: Sequence[str], *, persist: bool = False) -> list[Any]:
    """The model's vector of each query; cached in memory, missing ones embedded in one batch.

    ``persist``: also through the on-disk store of query vectors (an evaluation's queries), so
    re-running an evaluation embeds nothing.
    """
    missing = list(dict.fromkeys(q for q in queries if (embedder.model_id, q) not in _query_vectors))
    if missing:
        if persist:
            vectors = VectorStore(embedder.model_id, "queries").vectors(embedder, missing, persist=store_enabled())
        else:  # rounded as the stored ones are, so a search scores as its evaluation did
            import numpy as np

            vectors = np.asarray(embedder.embed(missing), dtype=np.float32).astype(np.float16).astype(np.float32)
        for query, vector in zip(missing, vectors, strict=True):
            _query_vectors[(embedder.model_id, query)] = vector
        while len(_query_vectors) > QUERY_CACHE:
            _query_vectors.popitem(last=False)
    out = []
    for q in queries:
        _query_vectors.move_to_end((embedder.model_id, q))
        out.append(_query_vectors[(embedder.model_id, q)])
    return out


def vector_index(catalog: Catalog, embedder: Embedder) -> VectorIndex:
    """The catalog's tool vectors under this model, embedded (through the on-disk cache) on first use."""
    index: VectorIndex = catalog.cached_index(
        f"vectors:{embedder.model_id}", lambda: VectorIndex(catalog.searchable(), embedder.model_id)
    )
    index.ensure(embedder)
    return index


def _check_query(request: SearchRequest) -> None:
    if not classic_normalize(request.query):
        raise SearchError("the query is blank or only punctuation; say what the tool should do", field="query")
    if request.category is not None and not classic_normalize(request.category):
        raise SearchError("the category is blank or only punctuation", field="category")


class EmbeddingRanker:
    """Cosine similarity between the query's and each tool's embedding (name, description, parameters)."""

    name: ClassVar[str] = "embedding"
    description: ClassVar[str] = "cosine similarity of dense embeddings (needs --embed-model)"
    #: ``eval --ranker all`` leaves it out when no embedding model is configured
    needs_embeddings: ClassVar[bool] = True

    def prepare(self, catalog: Catalog, queries: Sequence[str]) -> None:
        """Embed these queries in one batch ahead of many searches (evaluations)."""
        query_vectors(current_embedder(), [q for q in queries if classic_normalize(q)], persist=True)

    def search(self, catalog: Catalog, request: SearchRequest) -> list[Hit]:
        _check_query(request)
        embedder = current_embedder()
        index = vector_index(catalog, embedder)
        [vector] = query_vectors(embedder, [request.query])
        hits = []
        for tool, cosine in index.top(index.scores(vector), request.max_results, request.category):
            if cosine <= 0:
                break
            parts = [Contribution("*", "semantic", cosine, f"cosine {cosine:.3f}")] if request.explain else []
            hits.append(
                Hit(
                    tool=tool, score=cosine, matched_fields=["semantic"] if request.explain else [], contributions=parts
                )
            )
        return hits


class HybridRanker:
    """``default``'s lexical scores fused with embedding similarity."""

    name: ClassVar[str] = "hybrid"
    description: ClassVar[str] = "default fused with dense embeddings (needs --embed-model)"
    needs_embeddings: ClassVar[bool] = True

    def __init__(self, fusion: str = "nsf", weight: float = SEMANTIC_WEIGHT, rrf_k: int = RRF_K) -> None:
        if fusion not in ("nsf", "rrf"):
            raise ValueError(f"unknown fusion {fusion!r}")
        self.fusion = fusion
        self.weight = weight
        self.rrf_k = rrf_k
        self.lexical = BM25FRanker()

    prepare = EmbeddingRanker.prepare

    def search(self, catalog: Catalog, request: SearchRequest) -> list[Hit]:
        _check_query(request)
        depth = max(CANDIDATES, request.max_results)
        sub = SearchRequest(query=request.query, max_results=depth, category=request.category, explain=request.explain)
        embedder = current_embedder()
        try:
            lexical = self.lexical.search(catalog, sub)
        except SearchError:
            lexical = []  # only stop words: the meaning can still match
        if has_cjk(request.query) and not embedder.multilingual:
            note = Contribution("*", "semantic", 0.0, "off: CJK query, English-only model (--embed-multilingual)")
            for hit in lexical[: request.max_results]:
                if request.explain:
                    hit.contributions.append(note)
            return lexical[: request.max_results]
        index = vector_index(catalog, embedder)
        [vector] = query_vectors(embedder, [request.query])
        sims = index.scores(vector)
        semantic = index.top(sims, depth, request.category)  # one matrix product per query
        if self.fusion == "rrf":
            parts = self._rrf(lexical, semantic)
        else:
            parts = self._nsf(request.query, lexical, semantic, sims, index)
        ranked = sorted(parts.items(), key=lambda item: (-(item[1][0] + item[1][1]), item[0]))
        by_name = {h.tool.name: h for h in lexical}
        tools = {t.name: t for t, _ in semantic}
        hits = []
        for name, (lex_part, sem_part, cosine) in ranked[: request.max_results]:
            score = lex_part + sem_part
            if score <= 0:
                break
            lex_hit = by_name.get(name)
            tool: Tool = lex_hit.tool if lex_hit is not None else tools[name]
            if not request.explain:
                hits.append(Hit(tool=tool, score=score))
                continue
            contributions = []
            fields = list(lex_hit.matched_fields) if lex_hit is not None else []
            if lex_hit is not None and lex_hit.score > 0:
                scale = lex_part / lex_hit.score
                for c in lex_hit.contributions:
                    contributions.append(Contribution(c.term, c.field, c.points * scale, c.detail))
            if sem_part > 0:
                fields.append("semantic")
            contributions.append(Contribution("*", "semantic", sem_part, f"cosine {cosine:.3f}"))
            hits.append(Hit(tool=tool, score=score, matched_fields=fields, contributions=contributions))
        return hits

    def semantic_weight(self, query: str) -> float:
        """The semantic share for this query: :data:`SEMANTIC_WEIGHT` up to :data:`LONG_QUERY_WORDS`
        words, then falling with the cube of the length (a long request's one vector averages its
        several intents, while its many words give the lexical side plenty to match)."""
        words = max(1, len(query.split()))
        return self.weight * min(1.0, (LONG_QUERY_WORDS / words) ** 3)

    def _nsf(
        self, query: str, lexical: list[Hit], semantic: list[tuple[Tool, float]], sims: Any, index: VectorIndex
    ) -> dict[str, tuple[float, float, float]]:
        weight = self.semantic_weight(query)
        best_lex = lexical[0].score if lexical else 0.0
        top = semantic[0][1] if semantic else 0.0
        floor = max(semantic[-1][1], 0.0) if semantic else 0.0
        span = top - floor
        out: dict[str, tuple[float, float, float]] = {}

        def semantic_part(cosine: float) -> float:
            return weight * max(0.0, cosine - floor) / span if span > 0 else 0.0

        for tool, cosine in semantic:
            out[tool.name] = (0.0, semantic_part(cosine), cosine)
        for hit in lexical:
            slot = index.slot_of.get(hit.tool.name)
            cosine = float(sims[slot]) if slot is not None else 0.0
            lex = (1.0 - weight) * hit.score / best_lex if best_lex > 0 else 0.0
            out[hit.tool.name] = (lex, semantic_part(cosine), cosine)
        return out

    def _rrf(self, lexical: list[Hit], semantic: list[tuple[Tool, float]]) -> dict[str, tuple[float, float, float]]:
        out: dict[str, tuple[float, float, float]] = {}
        for rank, (tool, cosine) in enumerate(semantic, 1):
            out[tool.name] = (0.0, 1.0 / (self.rrf_k + rank), cosine)
        for rank, hit in enumerate(lexical, 1):
            _, sem, cosine = out.get(hit.tool.name, (0.0, 0.0, 0.0))
            out[hit.tool.name] = (1.0 / (self.rrf_k + rank), sem, cosine)
        return out


class HybridRRFRanker(HybridRanker):
    """``hybrid`` with reciprocal-rank fusion instead of normalised scores (for comparison)."""

    name: ClassVar[str] = "hybrid-rrf"
    description: ClassVar[str] = "default and embeddings fused by reciprocal rank (needs --embed-model)"

    def __init__(self) -> None:
        super().__init__(fusion="rrf")
