"""The dense rankers: ``embedding`` (cosine similarity alone) and ``hybrid`` (fused with ``default``).

``hybrid`` asks ``default`` for its best :data:`CANDIDATES` tools and the embedding model for the
cosine similarity of every tool, then fuses the two (figures in benchmarks/notes/fusion.md):

* the request is embedded whole and, when it has several sentences, sentence by sentence (as
  ``default`` scores each sentence): one vector of a request for three tools averages its three
  intents, while each sentence's vector finds its own tool; and without its value-like words
  (:func:`plain_view`: "the Legal folder" should not pull a legal-hold operation up by meaning).
  A tool's semantic part is its best over these views;
* ``nsf`` (normalised-score fusion, what ``hybrid`` uses): both sides rescaled to 0..1 between
  their :data:`CANDIDATES`-th best and their best score (each view of the request on its own, over
  a span of at least :data:`SEMANTIC_MIN_SPAN`: a model that barely tells the best tools apart
  weighs less), then ``(1 - w) * lexical + w * semantic``. ``w`` is decided per request (:func:`fusion_share`):
  the settings' weight (``--embed-weight``; 0.5 unless told: a weaker model earns less,
  benchmarks/notes/fusion.md "per-model weight") is the base, moved towards the semantic side when
  the best lexical hits' evidence is weak (few of the request's terms in their names and
  descriptions, their points from parameters, the meaning rating them low) and towards the
  lexical side when it is strong; a weight of 0 or 1 stays as it is, and
  ``HybridRanker(adaptive=False)`` fuses every request with the base weight;
* ``rrf`` (reciprocal-rank fusion, ``1/(k + rank)`` summed over both lists), measured for
  comparison (ranker ``hybrid-rrf``).

Queries with Chinese, Japanese or Korean characters rank lexically alone unless the model is
declared multilingual (``--embed-multilingual``): an English-only model embeds them as noise and
would only pull good lexical results down. The exception is a CJK request the lexical side cannot
read either (no hit, or hits holding at most :data:`CJK_MAX_TERMS` of its terms in their own words:
a Chinese request to an English catalog), fused as any other. ``--explain`` shows both parts of every score and,
on each semantic row, the share the semantic side got for this request and why.
"""

from __future__ import annotations

import contextvars
import math
import re
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import SearchError
from ..indexes import cached_index, disk_key
from ..model import Catalog, Tool
from .base import Contribution, Hit, SearchRequest
from .bm25f import MAX_CLAUSES, BM25FRanker, action_of, asked_action, build_index, explain, query_plan
from .embed_settings import EmbedSettings, check_weight, default_settings
from .name_lookup import put_named_first
from .text import classic_normalize, request_parts, split_sentences

# The embedding code (.embed, .vectors) is imported where a dense ranker first runs, so that
# registering these rankers, and importing toolsearch_cli, loads none of it.
if TYPE_CHECKING:
    from .embed import Embedder
    from .vectors import VectorIndex

#: How many of each list's best tools are fused.
CANDIDATES = 50
#: The ``k`` of reciprocal-rank fusion.
RRF_K = 10
#: Per-request fusion (issue 32, item 3). The base weight moves, in log-odds, by SHIFT_START
#: towards the semantic side, + SHIFT_PARAMETERS x the share of the best lexical hits' points that
#: came from parameters alone, - SHIFT_CONFIRMED x the semantic part (0..1) of the best lexical hit
#: (the meaning agrees with it), - SHIFT_PER_TERM for each distinct term of the request that those
#: hits hold in their own words (name, description), counted up to MAX_TERMS, - SHIFT_MARGIN x the
#: lexical margin (the best score's lead over the second, as a share of the best: 0..1), - SHIFT_ACTION
#: when the best lexical hit does the action the request asks for (create, read, update, delete:
#: :mod:`.actions`, as ``default``'s action agreement). A request none of whose words a name or
#: description holds, its lexical hits close together, gets ~0.82 (base 0.5); one with six such terms
#: and a clear lexical winner (a lead of half its score) ~0.43, ~0.35 when that one does the action asked.
#: EVIDENCE_HITS: how many of the best lexical hits are weighed.
#: Round 4 (after round 3's label bonus made the lexical side right more often; the round-2 rule,
#: 2.0 / 0.5 / 0.5 / 0.35 and no margin, was then below a fixed 0.5 on five of six real groups):
#: chosen on a replay of every real group (project, realworld-dev, blind, held-out) and 500
#: requests of each dev set (``python -m benchmarks fusion-replay``), the best real-group mean
#: among rules that cost no dev set 0.01 R@5, keeping the parameters' term (0 gains 0.002, within
#: noise): benchmarks/notes/fusion.md, "Issue 32, item 3, round 4".
#: Round 5 (with the plain view, :func:`plain_view`, and blind set 4 in the tuning): every shift
#: halved (round 4's 1.25 / 0.5 / 0.2 / 1.0), a gentler share: the mean of the eight real groups
#: 0.671 -> 0.677 (replayed; x0.25 0.674, x0.75 0.672, a fixed 0.5 0.679 but realworld-dev MCP
#: -0.036 and bfcl_static R@5 -0.008), the six groups round 4 was tuned on level (0.700 -> 0.702),
#: blind set 4 0.579 / 0.587 -> 0.601 / 0.604: benchmarks/notes/fusion.md, "round 5".
#: Round 6 (with SEMANTIC_MIN_SPAN, and blind set 5 in the tuning): start 1.375 (was 0.625), per term
#: 0.2 (was 0.1), margin 1.0 (was 0.5), parameters as before. The damped semantic parts leave the
#: semantic side less to say, so a larger share at the start and a faster move away from it as the
#: lexical evidence grows: the mean of the ten real groups 0.646 -> 0.655 (replayed; the minimum span
#: alone with round 5's share 0.651 at 0.2, 0.647 at 0.25), the best of 144 rules by the mean of their
#: neighbours on the grid, no dev set losing 0.01 R@5: benchmarks/notes/fusion.md, "round 6".
#: Round 6b (on ``default`` with round 6's action agreement): start 1.5, per term 0.2, margin 1.125,
#: parameters 0 (was 0.25), the action agreed 0.375 (new), SEMANTIC_MIN_SPAN 0.3: the mean of the ten
#: real groups 0.668 -> 0.683 (replayed), the best of 5,625 rules by the mean of their neighbours on
#: the grid, no group losing 0.01 MRR and no dev set 0.01 R@5: benchmarks/notes/fusion.md, "round 6b".
EVIDENCE_HITS = 3
SHIFT_START = 1.5
SHIFT_PARAMETERS = 0.0
SHIFT_CONFIRMED = 0.0
SHIFT_PER_TERM = 0.2
SHIFT_MARGIN = 1.125
SHIFT_ACTION = 0.375
#: The least span a view's cosines are rescaled over (round 6). Each view of the request is rescaled
#: between its CANDIDATES-th best tool and its best; where the best stands barely above the 50th
#: (a catalog of near-duplicates, 35 entities x the same 11 operations; long documents that all read
#: alike to the model; a sentence with nothing to say, "Acme Corp signed!"), the full 0..1 made noise
#: of a few hundredths of cosine as strong as a clear match. The span is now at least this, so such a
#: view's best tool gets best-minus-floor / SEMANTIC_MIN_SPAN. Median spans of the whole request:
#: 0.18 on blind set 5's OpenAPI documents, 0.25-0.32 on the other groups and the dev sets. Chosen
#: with the share above (0.2 / 0.25 / 0.3 on the grid's best neighbourhoods: 0.650 / 0.652 / 0.652);
#: 0.3 since round 6b (0.25 with its share: 0.680 against 0.683, replayed).
#: In cosine units, so a figure of all-MiniLM-L6-v2 (a span relative to each view's spread measured
#: 0.639-0.649): a model whose cosines spread less has more of its views damped.
SEMANTIC_MIN_SPAN = 0.3
MAX_TERMS = 8
#: A request with Chinese, Japanese or Korean characters and an English-only model ranks lexically
#: alone, unless the best lexical hits hold at most this many of its terms in their names and
#: descriptions (none at all, or no lexical hit: a CJK request to an English catalog, where the
#: words the model can read, such as names and Latin words, are all there is). Held-out MRR 0.477
#: -> 0.502 with the round-2 share, 0.484 -> 0.515 with round 4's; ultratool_zh unchanged (its
#: requests' hits hold 3 or more; 2 gains 0.006 more but leaves no margin).
CJK_MAX_TERMS = 1
#: A request in another language is embedded with its English gloss (:func:`glossed_views`) by an
#: English-only model. Figures: benchmarks/notes/languages.md.
GLOSS_VIEW = True
#: A lexical score at most this is none (the parameter cap leaves float dust such as 7e-17).
NO_POINTS = 1e-9
#: The fields that hold a tool's own words, as explanations report them.
OWN_FIELDS = frozenset({"name", "description"})

#: Query vectors kept in memory (an evaluation embeds its queries once, for every dense ranker).
QUERY_CACHE = 50_000

_query_vectors: OrderedDict[tuple[str, str], Any] = OrderedDict()
#: Inside :func:`searches_kept_on_disk` (a context variable: the block's, not the process's).
_KEEP_SEARCHES: contextvars.ContextVar[bool] = contextvars.ContextVar("toolsearch_keep_searches", default=False)


@contextmanager
def searches_kept_on_disk() -> Iterator[None]:
    """Within, a single search's request vectors also go through the on-disk store of searches
    (``query_vectors(..., persist="searches")``): the CLI's ``search`` runs in it, so repeating a
    request in a new process loads no model. Outside (an app's loop, ``lint``'s example queries)
    they stay in memory: a long-lived process has them there, and one rewrite of the store per
    request would cost more than it saves."""
    token = _KEEP_SEARCHES.set(True)
    try:
        yield
    finally:
        _KEEP_SEARCHES.reset(token)


def _search_store() -> bool | str:
    return "searches" if _KEEP_SEARCHES.get() else False


def query_vectors(embedder: Embedder, queries: Sequence[str], *, persist: bool | str = False) -> list[Any]:
    """The model's vector of each query; cached in memory, missing ones embedded in one batch.

    ``persist``: also through an on-disk store of query vectors: ``True`` (or ``"queries"``) the
    store of an evaluation's queries, so re-running an evaluation embeds nothing; ``"searches"``
    the store of single searches (the newest :data:`~.vectors.MAX_SEARCHES` kept), so repeating a
    request loads no model. The model reads each query with its query prompt (E5's "query: "...);
    the caches are keyed by the model's identity, which includes its prompts.
    """
    missing = list(dict.fromkeys(q for q in queries if (embedder.model_id, q) not in _query_vectors))
    if missing:
        from .embed import as_queries, embed_texts
        from .vectors import MAX_SEARCHES, MAX_STORED, VectorStore, store_enabled

        if persist:
            kind = persist if isinstance(persist, str) else "queries"
            limit = MAX_SEARCHES if kind == "searches" else MAX_STORED
            store = VectorStore(embedder.model_id, kind, limit=limit)
            vectors = store.vectors(embedder, as_queries(embedder, missing), persist=store_enabled())
        else:  # rounded as the stored ones are, so a search scores as its evaluation did
            import numpy as np

            vectors = np.asarray(embed_texts(embedder, as_queries(embedder, missing)), dtype=np.float32)
            vectors = vectors.astype(np.float16).astype(np.float32)
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
    """The catalog's tool vectors under this model, embedded (through the on-disk cache) on first use.

    Not stored in the catalog's cache entry (a search that is not dense would read it back and
    import this code): for a catalog loaded through the cache, the index's texts' keys are kept in
    a file of its own beside the entry (:func:`~.vectors.index_path`), read here on first use and
    written when :meth:`~.vectors.VectorIndex.ensure` had to make them."""
    from .vectors import VectorIndex, index_path, read_index_file, store_enabled, write_index_file

    model_id = embedder.model_id
    disk = disk_key(catalog) if store_enabled() else None

    def build() -> VectorIndex:
        index = VectorIndex(catalog.searchable(), model_id)
        if disk is not None:
            record = read_index_file(index_path(disk, model_id), disk, model_id, len(index.tools))
            if record is not None:
                index.adopt_keys(record)
        return index

    index: VectorIndex = cached_index(catalog, f"vectors:{model_id}", build, own_file=True)
    index.ensure(embedder)
    if index.keys_made and disk is not None and disk_key(catalog) == disk:
        record = index.keys_record()
        if record is not None:
            write_index_file(index_path(disk, model_id), disk, model_id, record)
        index.keys_made = False
    return index


def query_views(query: str) -> list[str]:
    """What ``hybrid`` embeds of a request: the whole of it, then each of its sentences when it has
    from two to ``MAX_CLAUSES`` (the sentences ``default`` scores on their own too)."""
    sentences = [s for s in split_sentences(query) if classic_normalize(s)]
    return [query, *sentences] if 1 < len(sentences) <= MAX_CLAUSES else [query]


def plain_view(query: str) -> str | None:
    """The request without its value-like words (:func:`~.values.value_words`: a named folder, a
    person, a day, a number, an id, a quoted name, an e-mail, words of asking), the words kept in
    their order; ``None`` when it has none, when nothing else is left, or for a request with
    Chinese, Japanese or Korean characters (its Latin words, often names, are what an English
    model reads of it). The model reads "make a new directory called Contracts inside the Legal
    folder" as partly about legal matters; "make a new directory inside the folder" is only
    the operation. ``hybrid`` embeds it as one more view (:func:`hybrid_views`), so the names
    still count through the whole request's view (benchmarks/notes/fusion.md, round 5)."""
    from .text import has_cjk
    from .values import value_words

    if has_cjk(query):
        return None
    words = value_words(query)
    kept = [word for word, is_value in words if word and not is_value]
    if len(kept) == sum(1 for word, _ in words if word):
        return None
    plain = " ".join(kept)
    return plain if classic_normalize(plain) else None


def hybrid_views(query: str) -> tuple[list[str], bool]:
    """What ``hybrid`` embeds of a request: :func:`query_views`, then :func:`plain_view` when there
    is one; with whether the last view is that one (for ``--explain``)."""
    views = query_views(query)
    plain = plain_view(query)
    action = action_view(query, plain) if ACTION_VIEW else None
    if action is not None and action not in views:
        views = [*views, action]
    return ([*views, plain], True) if plain is not None else (views, False)


#: ``hybrid`` embeds a request that asks for an action in words no tool uses for it (neither its
#: class's name, create / read / update / delete, :func:`~.actions.request_action`, nor one of the
#: verbs tools' names use for it, :data:`~.actions.TOOL_VERBS`) once more, led by the class's name
#: (:func:`action_view`): "file a bug: checkout page crashes on Safari" is also embedded as "create
#: file a bug checkout page crashes on", "how many orders are in the database?" as "read how many
#: orders are in the database?", nearer to how tools say what they do. Round 8 of issue 32
#: (benchmarks/notes/fusion.md): `hybrid` MRR@10, mean of the six MCP groups (project, realworld-dev,
#: blind sets 4-7) 0.760 -> 0.768, of their six OpenAPI groups 0.665 -> 0.669 (23 requests up, 8
#: down); also for requests that say a tool's verb ("list the files") 0.765 / 0.672 (35 up, 22 down,
#: project MCP 0.840 but blind sets 6 and 7 MCP 0.663 / 0.799 against 0.673 / 0.807); without the read
#: class 0.764 / 0.669; "get" for read 0.767 / 0.667; the request itself in place of the request
#: without its values 0.758 / 0.666; in place of the plain view 0.762 / 0.672.
ACTION_VIEW = True


@lru_cache(maxsize=8)
def _tool_verbs(action: str) -> frozenset[str]:
    """The analysed words tools' names use for a class of action (:data:`~.actions.TOOL_VERBS`)."""
    from .actions import TOOL_VERBS
    from .text import analyze

    return frozenset(term for word in TOOL_VERBS.get(action, "").split() for term in analyze(word))


def action_view(query: str, plain: str | None) -> str | None:
    """The request (without its values when it has some: ``plain``, :func:`plain_view`) led by the
    class of action it asks for (:func:`~.actions.request_action`), when it asks for one and does
    not say the class's own word; ``None`` otherwise, and for a request with Chinese, Japanese or
    Korean characters (as :func:`plain_view`)."""
    from .actions import request_action
    from .text import analyze, has_cjk

    if has_cjk(query):
        return None
    action = request_action(query)
    if action is None or action in {w.casefold() for w in re.findall(r"\w+", query)}:
        return None
    if _tool_verbs(action) & set(analyze(query)):
        return None  # the request says it as tools do ("list the files", "add a column")
    return f"{action} {plain or query}"


def glossed_views(query: str, multilingual: bool) -> list[str] | None:
    """For an English-only model (not ``multilingual``), the views of a request in another
    language with its English gloss (:func:`~.lexicon.gloss`: "Rechnung löschen" -> "invoice
    delete"): the gloss alone for a request with Chinese, Japanese or Korean characters (the model
    reads nothing else of it but names, which the gloss keeps), else the whole request and the
    gloss. ``None`` without a gloss (an English request, or no word the lexicon has)."""
    if multilingual or not GLOSS_VIEW:
        return None
    from .lexicon import gloss
    from .text import has_cjk

    english = gloss(query)
    if not english or not classic_normalize(english):
        return None
    return [english] if has_cjk(query) else [query, english]


#: ``embedding`` embeds a request without its values (:func:`plain_view`) as one more part
#: (:func:`embedding_views`), as ``hybrid`` does since round 5. Round 7 of issue 32
#: (benchmarks/notes/fusion.md): `embedding` MRR@10 OpenAPI / MCP, project 0.626 / 0.769 -> 0.633 /
#: 0.761, realworld-dev 0.336 / 0.734 -> 0.343 / 0.737, blind4 0.476 / 0.498 -> 0.486 / 0.517, blind5
#: 0.316 / 0.514 -> 0.319 / 0.551, blind6 0.505 / 0.543 -> 0.558 / 0.561; the plain view in place of
#: the whole request (the whole kept as a part) 0.555 against 0.546 on the mean of the ten groups, but
#: realworld-dev OpenAPI -0.070 and project MCP -0.027.
EMBEDDING_PLAIN_VIEW = True


def embedding_views(query: str) -> list[str]:
    """What ``embedding`` embeds of a request: the whole of it, then its parts when it has several
    (:func:`~.text.request_parts`: sentences and connective-led clauses, quoted text kept whole,
    at most :data:`~.text.MAX_PARTS`), then the request without its values (:func:`plain_view`)
    when it has any (:data:`EMBEDDING_PLAIN_VIEW`): "hand ENG-482 over to Tom" is also embedded as
    "hand over to", which the id and the name no longer pull towards other tools."""
    views = [query, *request_parts(query, clauses=True)]
    plain = plain_view(query) if EMBEDDING_PLAIN_VIEW else None
    return [*views, plain] if plain is not None and plain not in views else views


def _check_query(request: SearchRequest) -> None:
    if not classic_normalize(request.query):
        raise SearchError("the query is blank or only punctuation; say what the tool should do", field="query")
    if request.category is not None and not classic_normalize(request.category):
        raise SearchError("the category is blank or only punctuation", field="category")


class _Dense:
    """What the dense rankers share: the embedding settings they carry (``None``: the library default)."""

    #: ``eval --ranker all`` leaves them out when no embedding model is configured
    needs_embeddings: ClassVar[bool] = True
    embed: EmbedSettings | None = None

    def embedder(self) -> Embedder:
        """This ranker's model: its own settings' (loaded once per settings), else the library default's."""
        from .embed import default_embedder, embedder_for

        return embedder_for(self.embed) if self.embed is not None else default_embedder()

    def with_embed(self, settings: EmbedSettings) -> Any:
        """This ranker, carrying ``settings`` (a new instance: the registered one is left as it is)."""
        import copy

        bound = copy.copy(self)
        bound.embed = settings
        return bound


class EmbeddingRanker(_Dense):
    """Cosine similarity between the query's and each tool's embedding (name, description, parameters).

    A request of several parts (:func:`embedding_views`: sentences and the clauses a connective
    starts) is embedded whole and part by part in one batch; a tool scores the mean of its cosine
    to the whole request and its cosine to the closest view (one view: its cosine), so each intent
    of a multi-tool request can find its own tool while the whole request keeps its say
    (benchmarks/notes/fusion.md, "Issue 19 — multi-intent requests (multiq)"). The request without
    its values (:func:`plain_view`) is one more view (:data:`EMBEDDING_PLAIN_VIEW`).
    """

    name: ClassVar[str] = "embedding"
    description: ClassVar[str] = "cosine similarity of dense embeddings (needs --embed-model)"

    def __init__(self, embed: EmbedSettings | None = None) -> None:
        self.embed = embed

    def prepare(self, catalog: Catalog, queries: Sequence[str]) -> None:
        """Embed these queries and their parts in one batch ahead of many searches (evaluations)."""
        views = [v for q in queries if classic_normalize(q) for v in embedding_views(q)]
        query_vectors(self.embedder(), views, persist=True)

    def search(self, catalog: Catalog, request: SearchRequest) -> list[Hit]:
        import numpy as np

        _check_query(request)
        embedder = self.embedder()
        index = vector_index(catalog, embedder)
        views = embedding_views(request.query)
        sims = index.scores_many(np.stack(query_vectors(embedder, views, persist=_search_store())))  # (views, slots)
        closest = sims.argmax(axis=0) if sims.shape[1] else np.zeros(0, dtype=int)
        scores = (sims[0] + sims.max(axis=0, initial=-np.inf)) / 2
        hits = []
        for tool, score in index.top(scores, request.max_results, request.category):
            if score <= 0:
                break
            parts = []
            if request.explain:
                slot = index.slot_of[tool.name]
                view = int(closest[slot])
                plain = view == len(views) - 1 and views[-1] == plain_view(request.query)
                detail = _views_detail(float(sims[0, slot]), view, float(sims[view, slot]), views, plain=plain)
                parts = [Contribution("*", "semantic", score, detail)]
            hits.append(
                Hit(tool=tool, score=score, matched_fields=["semantic"] if request.explain else [], contributions=parts)
            )
        return hits


def _views_detail(whole: float, view: int, cosine: float, views: list[str], *, plain: bool = False) -> str:
    """What ``--explain`` says of an ``embedding`` score: the cosines it is the mean of (``plain``:
    the closest view is the request without its values)."""
    if len(views) == 1:
        return f"cosine {whole:.3f}"
    if view == 0:
        return f"cosine {whole:.3f} (whole request; no part is closer)"
    if plain:
        return f"mean of cosine {whole:.3f} (whole request) and {cosine:.3f} (request without its values)"
    return f"mean of cosine {whole:.3f} (whole request) and {cosine:.3f} (part {view} of {len(views) - 1})"


class _Semantic:
    """One request's semantic side: cosines per view, each tool's part and best view, its best tools."""

    __slots__ = ("index", "sims", "part", "view", "ranked", "k")

    def __init__(
        self, index: VectorIndex, sims: Any, part: Any, view: Any, ranked: list[tuple[Tool, float]], k: int = 0
    ) -> None:
        self.index = index
        self.sims = sims  # (views, slots) cosines, -inf for removed tools and other categories
        self.part = part  # (slots,) the semantic part, 0..1
        self.view = view  # (slots,) which view gave it: 0 the whole request, i sentence i
        self.ranked = ranked  # the best tools by part, best first
        self.k = k  # each view was rescaled between its k-th best tool and its best

    def narrow_span(self, view: int) -> float | None:
        """How far this view's best cosine stands above its floor (its ``k``-th best, at least 0)
        when that is less than :data:`SEMANTIC_MIN_SPAN` (its parts were rescaled over the
        minimum instead); ``None`` otherwise."""
        import numpy as np

        row = self.sims[view]
        row = row[np.isfinite(row)]
        if not self.k or len(row) < self.k:
            return None
        ordered = -np.partition(-row, (0, self.k - 1) if self.k > 1 else 0)
        span = float(ordered[0] - max(float(ordered[self.k - 1]), 0.0))
        return span if 0 < span < SEMANTIC_MIN_SPAN else None

    def slot_of(self, name: str) -> int | None:
        return self.index.slot_of.get(name)

    def detail(self, slot: int | None, views: int, *, plain: bool | None = False, action: int | None = None) -> str:
        """What ``--explain`` says of a tool's semantic part (``plain``: the last of the ``views`` is
        the request without its values, :func:`plain_view`; ``None``: its English gloss; ``action``:
        which view is the request led by its action's class, :func:`action_view`)."""
        if slot is None or not len(self.part):
            return "no vector"
        view = int(self.view[slot])
        cosine = float(self.sims[view, slot])
        if views == 1:
            return f"cosine {cosine:.3f}" + self._narrow_note(view)
        sentences = views - 1 - (plain is not False) - (action is not None)
        if plain is None and view == views - 1:
            where = "English gloss"
        elif view == 0:
            where = "whole request"
        elif plain and view == views - 1:
            where = "request without its values"
        elif view == action:
            where = "request led by its action"
        else:
            where = f"sentence {view} of {sentences}"
        return f"cosine {cosine:.3f} ({where})" + self._narrow_note(view)

    def _narrow_note(self, view: int) -> str:
        span = self.narrow_span(view)
        if span is None:
            return ""
        return f"; the view's best only {span:.3f} above its floor (rank {self.k}): rescaled over {SEMANTIC_MIN_SPAN:g}"


def view_similarities(
    index: VectorIndex, embedder: Embedder, views: list[str], category: str | None, *, persist: bool | str
) -> Any:
    """The cosine of every tool to each of a request's views (views x slots, one matrix product);
    tools outside ``category`` at -inf."""
    import numpy as np

    sims = index.scores_many(np.stack(query_vectors(embedder, views, persist=persist)))
    if category is not None and sims.shape[1]:
        sims[:, ~index.category_mask(category)] = -np.inf
    return sims


def rescale_views(sims: Any, k: int, min_span: float = 0.0) -> tuple[Any, Any, Any]:
    """Each view's (row's) cosines rescaled between its ``k``-th best (at least 0) and its best: 0..1,
    a flat view all 0; with each row's floor and span. ``min_span``: the least span divided by, so
    a view whose best stands less than that above its floor gives its best tool less than 1
    (:data:`SEMANTIC_MIN_SPAN`)."""
    import numpy as np

    # both the best (0) and the k-th best in place: a partition at k - 1 alone leaves the ones before
    # it in any order (numpy 2's happened to put the best first; 1.25's does not)
    ordered = -np.partition(-sims, (0, k - 1) if k > 1 else 0, axis=1)
    top, floor = ordered[:, :1], np.maximum(ordered[:, k - 1 : k], 0.0)
    span = top - floor
    with np.errstate(invalid="ignore", divide="ignore"):
        rescaled = (sims - floor) / np.where(span > 0, np.maximum(span, min_span), np.inf)
    return np.nan_to_num(rescaled, nan=0.0, neginf=0.0, copy=False), floor, span


def best_rescaled_view(sims: Any, k: int) -> tuple[Any, Any]:
    """Each tool's part and the view it comes from: the best of its rescaled cosines
    (:func:`rescale_views`, over at least :data:`SEMANTIC_MIN_SPAN`), at least 0."""
    import numpy as np

    rescaled, _, _ = rescale_views(sims, k, SEMANTIC_MIN_SPAN)
    view = rescaled.argmax(axis=0)
    return np.maximum(rescaled[view, np.arange(len(view))], 0.0), view


def semantic_side(index: VectorIndex, sims: Any, depth: int, combine: Any) -> _Semantic:
    """A request's semantic side from its views' cosines: ``combine(sims, k)`` gives each tool's
    part and view (``k``: the depth, at most the usable tools); its best ``depth`` tools ranked."""
    import numpy as np

    usable = np.isfinite(sims[0])
    k = min(depth, int(usable.sum()))
    if not k:
        nothing = np.zeros(sims.shape[1], dtype=np.float32)
        return _Semantic(index, sims, nothing, nothing.astype(int), [])
    part, view = combine(sims, k)
    part = np.asarray(part, dtype=np.float32)
    return _Semantic(index, sims, part, view, index.top(np.where(usable, part, -np.inf), depth), k)


@dataclass(frozen=True, slots=True)
class LexicalEvidence:
    """What the best lexical hits of a request rest on (:func:`lexical_evidence`)."""

    #: the share (0..1) of their points that came from parameters (names, descriptions, allowed values)
    parameters: float
    #: how many distinct terms of the request their own words (names, descriptions) hold
    covered: int
    #: the semantic side's part (0..1) of the best lexical hit: 1 when the meaning puts it first too
    confirmed: float = 0.0
    #: the best lexical score's lead over the second, as a share of the best (0..1; 0 with one hit)
    margin: float = 0.0
    #: the action the request asks for, when the best lexical hit does it (``None``: no action asked,
    #: the hit's not known or another: :mod:`.actions`)
    action: str | None = None


#: No lexical hit at all: nothing for the lexical side to stand on.
NO_EVIDENCE = LexicalEvidence(parameters=1.0, covered=0, confirmed=0.0)


def lexical_evidence(
    explained: Sequence[Sequence[Contribution]],
    confirmed: float = 0.0,
    margin: float = 0.0,
    action: str | None = None,
) -> LexicalEvidence:
    """The evidence of the best lexical hits, from their explanations (``explained``: one list of
    term/field/points rows per hit, best first) and the semantic part of the best hit
    (``confirmed``, 0..1).

    ``parameters``: the mean over the hits of the share of each one's points earned in its
    parameters; ``covered``: the distinct terms that some hit holds in its own words (a request
    for two tools is covered by the two together)."""
    if not explained:
        return NO_EVIDENCE
    shares: list[float] = []
    covered: set[str] = set()
    for rows in explained:
        total = sum(max(0.0, c.points) for c in rows)
        param = sum(max(0.0, c.points) for c in rows if c.field == "parameters")
        shares.append(param / total if total > 0 else 1.0)
        covered.update(c.term for c in rows if c.field in OWN_FIELDS and c.points > 0)
    return LexicalEvidence(
        parameters=sum(shares) / len(shares),
        covered=len(covered),
        confirmed=min(1.0, max(0.0, confirmed)),
        margin=min(1.0, max(0.0, margin)),
        action=action,
    )


def lexical_margin(scores: Sequence[float]) -> float:
    """The best of ``scores``' lead over the second best, as a share of the best (0..1); 0 for a
    single score (no second to lead: the same figures as 1 on every real group, and a lone hit on
    parameters alone is no sign of confidence) and when the best is not above 0."""
    if len(scores) < 2:
        return 0.0
    best, second = sorted(scores, reverse=True)[:2]
    if best <= 0:
        return 0.0
    return min(1.0, max(0.0, (best - max(0.0, second)) / best))


@dataclass(frozen=True, slots=True)
class FusionShare:
    """The semantic side's share of one request's fused scores (the lexical side gets the rest)."""

    semantic: float
    #: the weight it was decided from (the settings' ``--embed-weight``, 0.5 unless told)
    base: float
    #: ``None``: not adapted (``HybridRanker(adaptive=False)``, or a base of 0 or 1)
    evidence: LexicalEvidence | None = None

    def describe(self) -> str:
        """One line for ``--explain``: the shares and why."""
        shares = f"semantic share {self.semantic:.2f}, lexical {1 - self.semantic:.2f}"
        e = self.evidence
        if e is None:
            return f"{shares} (fixed)"
        if e == NO_EVIDENCE:
            return f"{shares} (base {self.base:g}; no lexical hit)"
        # the inputs the share was moved by: the semantic part of the first weighs 0 since round 4
        # and the parameters' part of the points since round 6b
        params = f", {e.parameters:.0%} of their points from parameters" if SHIFT_PARAMETERS else ""
        confirmed = f"; semantic part of the first {e.confirmed:.2f}" if SHIFT_CONFIRMED else ""
        action = f"; the first does what the request asks ({e.action})" if SHIFT_ACTION and e.action else ""
        return (
            f"{shares} (base {self.base:g}; best lexical hits: {e.covered} of the request's terms in their "
            f"names or descriptions{params}; lead of the first {e.margin:.0%}{confirmed}{action})"
        )


def fusion_share(base: float, evidence: LexicalEvidence | None) -> FusionShare:
    """A request's semantic share: ``base`` moved, in log-odds, by SHIFT_START + SHIFT_PARAMETERS x
    ``evidence.parameters`` - SHIFT_CONFIRMED x ``evidence.confirmed`` - SHIFT_PER_TERM x
    ``evidence.covered`` (at most MAX_TERMS) - SHIFT_MARGIN x ``evidence.margin`` - SHIFT_ACTION when
    the best lexical hit does the action the request asks for (``evidence.action``). ``evidence``
    ``None`` or a base of 0 or 1 (one side alone, as asked): the base as it is."""
    if evidence is None or base <= 0.0 or base >= 1.0:
        return FusionShare(base, base, None)
    shift = (
        SHIFT_START
        + SHIFT_PARAMETERS * evidence.parameters
        - SHIFT_CONFIRMED * evidence.confirmed
        - SHIFT_PER_TERM * min(evidence.covered, MAX_TERMS)
        - SHIFT_MARGIN * evidence.margin
        - (SHIFT_ACTION if evidence.action else 0.0)
    )
    semantic = 1.0 / (1.0 + math.exp(-(math.log(base / (1.0 - base)) + shift)))
    return FusionShare(semantic, base, evidence)


def explained_hits(catalog: Catalog, query: str, hits: Sequence[Hit]) -> list[list[Contribution]]:
    """The term/field/points rows of the best EVIDENCE_HITS lexical hits, made the same way
    whether the request asked for explanations or not (so ``--explain`` ranks as a plain search does)."""
    if not hits:
        return []
    index = cached_index(catalog, "default", lambda: build_index(catalog.searchable()), of_searchable=True)
    plan = query_plan(query)
    return [explain(index, hit.tool, plan.terms, {}, plan.weights)[1] for hit in hits[:EVIDENCE_HITS]]


def request_evidence(
    catalog: Catalog,
    query: str,
    lexical: Sequence[Hit],
    semantic: _Semantic | None,
    explained: list[list[Contribution]] | None = None,
) -> LexicalEvidence:
    """:func:`lexical_evidence` of a request's best lexical hits, confirmed by its semantic side
    (``None``: not weighed), with the lexical margin and whether the best hit does the action the
    request asks for (``explained``: their :func:`explained_hits`, when the caller has them already)."""
    confirmed = 0.0
    if lexical and semantic is not None:
        slot = semantic.slot_of(lexical[0].tool.name)
        confirmed = float(semantic.part[slot]) if slot is not None and len(semantic.part) else 0.0
    margin = lexical_margin([h.score for h in lexical])
    if explained is None:
        explained = explained_hits(catalog, query, lexical)
    asked = asked_action(query) if lexical and SHIFT_ACTION else None  # not a whole query plan again
    action = asked if asked is not None and action_of(lexical[0].tool) == asked else None
    return lexical_evidence(explained, confirmed, margin, action)


def _views_of(query: str, multilingual: bool) -> tuple[list[str], bool | None]:
    """:func:`hybrid_views`, or :func:`glossed_views` when there is a gloss (then ``None`` for
    whether the last view is the plain one: it is the gloss)."""
    glossed = glossed_views(query, multilingual)
    return (glossed, None) if glossed is not None else hybrid_views(query)


def _action_view_at(query: str, views: list[str], plain: bool | None) -> int | None:
    """Which of a request's views (:func:`_views_of`) is its :func:`action_view`, if one is."""
    if plain is None or not ACTION_VIEW:
        return None  # a glossed request has none
    action = action_view(query, plain_view(query))
    return views.index(action) if action is not None and action in views[1:] else None


def _gloss_note(views: list[str], plain: bool | None) -> str:
    """What ``--explain`` adds of a request embedded with its English gloss (:func:`_views_of`)."""
    return f"; English gloss embedded: {views[-1]!r}" if plain is None else ""


def _own_rows(query: str, explained: list[list[Contribution]]) -> list[list[Contribution]]:
    """``explained`` (rows of lexical hits) without the rows of terms the request does not say
    (related words and translations, :mod:`.related`, :mod:`.lexicon`)."""
    added = query_plan(query).related
    return [[c for c in rows if c.term not in added] for rows in explained] if added else explained


class HybridRanker(_Dense):
    """``default``'s lexical scores fused with embedding similarity."""

    name: ClassVar[str] = "hybrid"
    description: ClassVar[str] = "default fused with dense embeddings (needs --embed-model)"

    def __init__(
        self,
        fusion: str = "nsf",
        weight: float | None = None,
        rrf_k: int = RRF_K,
        *,
        embed: EmbedSettings | None = None,
        adaptive: bool = True,
    ) -> None:
        if fusion not in ("nsf", "rrf"):
            raise ValueError(f"unknown fusion {fusion!r}")
        self.embed = embed
        self.fusion = fusion
        #: decide each request's share from its lexical evidence (:func:`fusion_share`); else the base weight
        self.adaptive = adaptive
        #: the semantic share; ``None``: the embedding settings' (``EmbedSettings.weight``, 0.5 unless told)
        self.weight = check_weight(weight, "weight")
        self.rrf_k = rrf_k
        self.lexical = BM25FRanker()

    def prepare(self, catalog: Catalog, queries: Sequence[str]) -> None:
        """Embed these queries and their sentences in one batch ahead of many searches (evaluations)."""
        multilingual = self.embedder().multilingual
        views = [v for q in queries if classic_normalize(q) for v in _views_of(q, multilingual)[0]]
        query_vectors(self.embedder(), views, persist=True)

    def search(self, catalog: Catalog, request: SearchRequest) -> list[Hit]:
        _check_query(request)
        depth = max(CANDIDATES, request.max_results)
        sub = SearchRequest(query=request.query, max_results=depth, category=request.category, explain=request.explain)
        embedder = self.embedder()
        try:
            lexical = self.lexical.search(catalog, sub)
        except SearchError:
            lexical = []  # only stop words: the meaning can still match
        from .text import has_cjk

        explained = None  # the best lexical hits' rows, made once for the CJK check and the share
        if has_cjk(request.query) and not embedder.multilingual:
            explained = explained_hits(catalog, request.query, lexical)
        if explained is not None and not self._cjk_fused(lexical, _own_rows(request.query, explained)):
            note = Contribution("*", "semantic", 0.0, "off: CJK query, English-only model (--embed-multilingual)")
            for hit in lexical[: request.max_results]:
                if request.explain:
                    hit.contributions.append(note)
            return lexical[: request.max_results]  # the lexical ranker put a named tool first
        index = vector_index(catalog, embedder)
        views, plain = _views_of(request.query, embedder.multilingual)
        led = _action_view_at(request.query, views, plain) if request.explain else None
        semantic = self._semantic(index, embedder, views, depth, request.category)
        shown_weight = ""
        if self.fusion == "rrf":
            parts = self._rrf(lexical, semantic)
        else:
            share = self.request_share(catalog, request.query, lexical, semantic, explained)
            parts = self._nsf(lexical, semantic, depth, share.semantic)
            shown_weight = "; " + share.describe()
        ranked = sorted(parts.items(), key=lambda item: (-(item[1][0] + item[1][1]), item[0]))
        by_name = {h.tool.name: h for h in lexical}
        tools = {t.name: t for t, _ in semantic.ranked}
        hits = []
        for name, (lex_part, sem_part, slot) in ranked[: request.max_results]:
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
            detail = (
                semantic.detail(slot, len(views), plain=plain, action=led) + _gloss_note(views, plain) + shown_weight
            )
            contributions.append(Contribution("*", "semantic", sem_part, detail))
            hits.append(Hit(tool=tool, score=score, matched_fields=fields, contributions=contributions))
        return put_named_first(catalog, request, hits)

    @staticmethod
    def _cjk_fused(lexical: Sequence[Hit], explained: list[list[Contribution]]) -> bool:
        """Whether a CJK request, with an English-only model, is fused all the same: no lexical hit,
        or its best hits (``explained``: their rows) hold at most CJK_MAX_TERMS of its terms in their
        names and descriptions (an English catalog: the model still reads its names and Latin words)."""
        if not lexical:
            return True
        return lexical_evidence(explained).covered <= CJK_MAX_TERMS

    def request_share(
        self,
        catalog: Catalog,
        query: str,
        lexical: Sequence[Hit],
        semantic: _Semantic,
        explained: list[list[Contribution]] | None = None,
    ) -> FusionShare:
        """The semantic share of this request: the base weight (:meth:`fusion_weight`), adapted to
        the evidence of the best lexical hits (``explained``: their rows, when made already) unless
        this ranker is not ``adaptive``."""
        base = self.fusion_weight()
        if not self.adaptive or base <= 0.0 or base >= 1.0:
            return fusion_share(base, None)
        return fusion_share(base, request_evidence(catalog, query, lexical, semantic, explained))

    def fusion_weight(self) -> float:
        """The base semantic share this ranker fuses with: its own ``weight``, else its settings'."""
        if self.weight is not None:
            return self.weight
        return (self.embed if self.embed is not None else default_settings()).fusion_weight

    @staticmethod
    def _semantic(
        index: VectorIndex, embedder: Embedder, views: list[str], depth: int, category: str | None
    ) -> _Semantic:
        """Every tool's semantic part (0..1): its best over the request's views, each view's cosine
        rescaled between that view's ``depth``-th best and best tool (one matrix product per query)."""
        sims = view_similarities(index, embedder, views, category, persist=_search_store())
        return semantic_side(index, sims, depth, best_rescaled_view)

    @staticmethod
    def _nsf(
        lexical: list[Hit], semantic: _Semantic, depth: int, weight: float
    ) -> dict[str, tuple[float, float, int | None]]:
        best = max((h.score for h in lexical), default=0.0)
        floor = lexical[depth - 1].score if len(lexical) >= depth else 0.0
        # hits left at (next to) 0 points, as the parameter cap leaves matches on parameters alone
        # when no hit has better evidence, are no lexical evidence: they share nothing
        span = best - floor if best > NO_POINTS else 0.0
        out: dict[str, tuple[float, float, int | None]] = {}
        slot_of = semantic.slot_of
        for tool, part in semantic.ranked:
            out[tool.name] = (0.0, weight * part, slot_of(tool.name))
        for hit in lexical:
            slot = slot_of(hit.tool.name)
            sem = weight * float(semantic.part[slot]) if slot is not None else 0.0
            if span > 0:
                lex = (1.0 - weight) * (hit.score - floor) / span
            else:  # all the hits level: the whole share each, unless they all scored nothing
                lex = (1.0 - weight) if best > NO_POINTS else 0.0
            out[hit.tool.name] = (lex, sem, slot)
        return out

    def _rrf(self, lexical: list[Hit], semantic: _Semantic) -> dict[str, tuple[float, float, int | None]]:
        out: dict[str, tuple[float, float, int | None]] = {}
        for rank, (tool, _) in enumerate(semantic.ranked, 1):
            out[tool.name] = (0.0, 1.0 / (self.rrf_k + rank), semantic.slot_of(tool.name))
        for rank, hit in enumerate(lexical, 1):
            _, sem, _ = out.get(hit.tool.name, (0.0, 0.0, None))
            out[hit.tool.name] = (1.0 / (self.rrf_k + rank), sem, semantic.slot_of(hit.tool.name))
        return out


class HybridRRFRanker(HybridRanker):
    """``hybrid`` with reciprocal-rank fusion instead of normalised scores (for comparison)."""

    name: ClassVar[str] = "hybrid-rrf"
    description: ClassVar[str] = "default and embeddings fused by reciprocal rank (needs --embed-model)"

    def __init__(self, *, embed: EmbedSettings | None = None) -> None:
        super().__init__(fusion="rrf", embed=embed)
