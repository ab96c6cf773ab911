"""Dense embeddings for the ``embedding`` and ``hybrid`` rankers: where vectors come from.

Which model embeds is an :class:`EmbedSettings`, carried by each ranker that needs one
(``ToolSearch(..., embed=EmbedSettings(...))``, ``search(..., embed=...)``,
``get_ranker("hybrid", embed=...)``): two instances with different models live side by side in
one process. A ranker given no settings uses the library default, the ``TOOLSEARCH_EMBED_*``
variables (:func:`~.embed_settings.default_settings`); the CLI builds one :class:`EmbedSettings`
per run from its ``--embed-*`` options (and those variables) and passes it down.

Two kinds of source:

* an OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama, vLLM, llama.cpp server,
  TEI) through the ``openai`` SDK: ``base_url`` + ``model``; the API key is read from the
  environment variable named by ``key_env`` and never printed (errors mask it);
* a local model folder, loaded from disk (nothing downloads): a transformer exported to ONNX
  (``model.onnx`` or ``onnx/model.onnx`` beside ``tokenizer.json``; run with onnxruntime), or a
  static model2vec folder (``model.safetensors`` + ``tokenizer.json``, run with model2vec); or a
  Hub id (``owner/name``) that ``toolsearch model pull`` put in the Hugging Face cache.

A model is used as it was trained (:func:`read_model_config`): its pooling (mean, CLS, last
token, max...), its normalisation and its query/document prompts (E5's ``query: `` /
``passage: ``, BGE's query instruction, nomic's ``search_query: ``...) come from the folder's
sentence-transformers files (``modules.json``, ``1_Pooling/config.json``,
``config_sentence_transformers.json``, ``sentence_bert_config.json``);
:attr:`EmbedSettings.query_prefix` / :attr:`EmbedSettings.document_prefix`
(``--embed-query-prefix`` / ``--embed-document-prefix``) override the prompts, and are how an
endpoint's model gets its prompts.

Everything heavy (numpy, onnxruntime, tokenizers, model2vec, openai, huggingface_hub) is
imported when a vector is first needed, never when toolsearch starts. Vectors are float32 rows,
L2-normalised unless the model was trained for raw dot products (no ``Normalize`` module and
``similarity_fn_name`` ``dot``), so a dot product is the similarity the model was trained for.

Tool vectors are cached on disk (:class:`VectorStore`), keyed by the model's identity and a hash
of the embedded text: re-running on an unchanged catalog embeds nothing, and a changed tool is
the only one embedded again.

What embedding costs is visible: :func:`embed_texts` (what the caches call for texts they lack)
adds to a process-wide :class:`EmbedCost` (texts embedded, texts found cached, seconds; see
:func:`embed_cost`), and tells an :class:`EmbedProgress` set by :func:`set_progress` how a run
of at least :data:`PROGRESS_AT` texts goes (the CLI draws a progress bar with it on a terminal;
this module draws nothing). An ONNX model's session is created when a text must be embedded,
not when the model is named: a search whose vectors are all cached loads no model.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from ..errors import EmbedError
from ..model import Tool
from .embed_settings import (
    MODEL_VAR,
    EmbedProgress,
    EmbedSettings,
    add_embedded,
    default_settings,
    progress_reporter,
)
from .text import split_identifiers

#: A model loaded once per distinct settings, shared by every ranker carrying equal settings.
_embedders: dict[EmbedSettings, Embedder] = {}

#: Texts per request to an endpoint / per batch of a local model.
ENDPOINT_BATCH = 128
#: The largest reply body read from an embeddings endpoint: 128 vectors of 3,072 numbers as JSON
#: text are about 8 MB; a bigger body is refused as it arrives (a hostile or broken endpoint).
MAX_ENDPOINT_REPLY_BYTES = 64 * 1024 * 1024
LOCAL_BATCH = 32
#: Longest input of a local transformer, in tokens, when its folder does not say (sentence-transformers'
#: ``max_seq_length`` for MiniLM); a folder's own ``sentence_bert_config.json`` is capped at :data:`TOKEN_CAP`.
MAX_TOKENS = 256
TOKEN_CAP = 8192
#: A tool's embedded text is cut here (characters): bounded work per tool, whatever the catalog holds.
MAX_TEXT_CHARS = 4000
#: Widest vector accepted from a model (the largest common models give 4,096 numbers).
MAX_DIMENSIONS = 8192
#: Embedding at least this many texts in one go is reported to the :class:`EmbedProgress` set by
#: :func:`set_progress` (at about 36 texts per second, a few seconds of work and more).
PROGRESS_AT = 200
#: Texts per call to an embedder that reports no progress of its own (its batches are not seen).
PROGRESS_CHUNK = 128


def embed_texts(embedder: Embedder, texts: Sequence[str]) -> Any:
    """``embedder.embed(texts)``, timed into :func:`embed_cost`; a run of at least :data:`PROGRESS_AT`
    texts is reported to the :func:`set_progress` reporter, batch by batch."""
    reporter = progress_reporter() if len(texts) >= PROGRESS_AT else None
    began = time.perf_counter()
    try:
        vectors = embedder.embed(texts) if reporter is None else _reported(embedder, texts, reporter)
    finally:
        spent = time.perf_counter() - began
    add_embedded(len(texts), spent)
    return vectors


def _reported(embedder: Embedder, texts: Sequence[str], reporter: EmbedProgress) -> Any:
    reporter.start(len(texts), getattr(embedder, "label", "the model"))
    try:
        if getattr(embedder, "reports_progress", False):  # its own batches, sorted by length
            return embedder.embed(texts, progress=reporter.advance)  # type: ignore[call-arg]
        import numpy as np

        parts = []
        for start in range(0, len(texts), PROGRESS_CHUNK):
            chunk = list(texts[start : start + PROGRESS_CHUNK])
            parts.append(np.asarray(embedder.embed(chunk), dtype=np.float32))
            reporter.advance(len(chunk))
        return np.concatenate(parts)
    finally:
        reporter.stop()


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows (a numpy array of shape ``(len(texts), dim)``)."""

    #: Identity for the vector cache: a different model (or model file) never reuses vectors.
    model_id: str
    #: What to call the model in output (a path or ``model @ url``; no credentials).
    label: str
    multilingual: bool
    #: Put before each query / each tool text (the model's prompts; an embedder may lack them: "").
    query_prefix: str
    document_prefix: str

    def embed(self, texts: Sequence[str]) -> Any: ...


def as_queries(embedder: Embedder, texts: Sequence[str]) -> list[str]:
    """``texts`` as the model is to read them as queries: with its query prompt."""
    prefix = getattr(embedder, "query_prefix", "") or ""
    return [prefix + t for t in texts] if prefix else list(texts)


def as_documents(embedder: Embedder, texts: Sequence[str]) -> list[str]:
    """``texts`` as the model is to read them as documents (tool texts): with its document prompt."""
    prefix = getattr(embedder, "document_prefix", "") or ""
    return [prefix + t for t in texts] if prefix else list(texts)


def default_embedder() -> Embedder:
    """The embedder of the default settings (the ``TOOLSEARCH_EMBED_*`` variables, loaded once per
    distinct settings); an :class:`EmbedError` when none is configured."""
    return embedder_for(default_settings())


def embedder_for(settings: EmbedSettings) -> Embedder:
    """The embedder of these settings, loaded once per distinct settings (rankers carrying equal
    settings share it); an :class:`EmbedError` when they name no model."""
    if not settings.configured:
        raise EmbedError(
            "this ranker needs an embedding model: --embed-model NAME (a Hub id fetched once with "
            "`toolsearch model pull NAME`, e.g. sentence-transformers/all-MiniLM-L6-v2) or PATH (a local ONNX or "
            "model2vec folder), "
            f"or --embed-base-url URL --embed-model NAME for an OpenAI-compatible endpoint (or ${MODEL_VAR})",
            field="embed-model",
        )
    if settings.weight is not None:  # how hybrid fuses is not the model: one load for every weight
        settings = replace(settings, weight=None)
    embedder = _embedders.get(settings)
    if embedder is None:
        import_numpy()  # before any vector work (a dense search's first use of numpy)
        embedder = _embedders[settings] = _load(settings)
    return embedder


#: OpenBLAS (numpy's BLAS) reads how long its idle worker threads spin before they sleep from
#: this variable when numpy is imported: 2^N CPU cycles, 2^28 (about 0.1 s) unless told.
BLAS_SPIN_VAR = "OPENBLAS_THREAD_TIMEOUT"


def import_numpy() -> None:
    """Import numpy with OpenBLAS' idle worker threads told to sleep at once (2^4 cycles) rather
    than spin for about 0.1 s at the import and after every multi-threaded product: the same
    results (the work is shared out as before) for about 20-40 ms less CPU per search process
    (benchmarks/notes/fusion.md, "Issue 19 — new hybrid request start-up"). Nothing is changed when
    numpy is already imported or the variable is set; it is set for the import only, so programs
    this process starts do not inherit it.

    Why the environment and not something narrower: OpenBLAS reads the variable once, with
    ``getenv``, when numpy loads it, and has no call to change it afterwards. So it is set just
    around the import and removed after it only if it still holds this value (were it changed
    meanwhile, by another thread, the change is someone else's and stays). What remains is the
    import's own window (~0.1 s), in which another thread starting a program would pass it on:
    harmless (a BLAS there sleeps its idle threads sooner; results do not change)."""
    import sys

    if "numpy" in sys.modules or BLAS_SPIN_VAR in os.environ:
        return
    ours = "4"
    os.environ[BLAS_SPIN_VAR] = ours
    try:
        import numpy  # noqa: F401
    except ImportError:
        pass  # said by whatever needs it
    finally:
        if os.environ.get(BLAS_SPIN_VAR) == ours:
            del os.environ[BLAS_SPIN_VAR]


def _load(settings: EmbedSettings) -> Embedder:
    assert settings.model
    if settings.base_url:
        return EndpointEmbedder(settings)
    return load_local(
        settings.model,
        multilingual=settings.multilingual,
        query_prefix=settings.query_prefix,
        document_prefix=settings.document_prefix,
    )


# -- the text of a tool ---------------------------------------------------------------------


def tool_text(tool: Tool, *, cjk: bool = True, repeated: frozenset[str] = frozenset()) -> str:
    """What is embedded for a tool: its name (identifiers split), title, description, parameters;
    without the sentences and parameter descriptions its catalog repeats (``repeated``:
    :func:`repeated_text`)."""
    parts = [split_identifiers(tool.name)]
    title = tool.title.strip()
    if title and title != tool.description.strip():
        parts.append(title)
    if tool.description:
        parts.append(own_description(tool.description, repeated).strip())
    params = []
    for top in tool.parameter_tree():
        for p in top.walk():
            name = split_identifiers(p.name)
            said = p.description.strip()
            if said and repeated and _folded(said) in repeated:
                said = ""  # the catalog says it of many tools' parameters: it tells none apart
            params.append(f"{name}: {said}" if said else name)
    if params:
        parts.append("Parameters: " + "; ".join(params))
    text = ". ".join(parts)
    return (text if cjk else without_cjk(text) or text)[:MAX_TEXT_CHARS]  # all CJK: the text as it is


#: An untitled tool whose :func:`tool_text` is at least this long (parameters fill the model's
#: window) and whose description is at most :data:`OWN_WORDS_CHARS` gets a second vector of its
#: name and description (:func:`title_text`).
LONG_TEXT_CHARS = 500
OWN_WORDS_CHARS = 300
#: An untitled tool whose description is longer than this gets a second vector of its name and the
#: description's gist (:func:`description_gist`: its first sentences, about :data:`GIST_CHARS`
#: characters), in place of the name and whole description. MCP servers write long instructions
#: to the model after the first sentence ("Common use cases: ... Common mistakes: ...", which
#: tools to use instead, how to format the answer), and the one vector of the whole text averages
#: what the tool does with them (truncated at the model's 256 tokens). Round 7 of issue 32
#: (benchmarks/notes/fusion.md): `embedding` MRR@10 on the MCP groups project / realworld-dev /
#: blind4 / blind5 / blind6 0.769 / 0.734 / 0.475 / 0.513 / 0.499 -> 0.769 / 0.734 / 0.498 / 0.514 /
#: 0.543, project OpenAPI 0.608 -> 0.626; `hybrid` within 0.007 of before on every group (MCP mean
#: 0.734 -> 0.733). Over 100 characters gives the same, over 300 `embedding` 0.528 against 0.532 (the
#: mean of the ten OpenAPI and MCP groups); a gist of 160 / 200 characters 0.533 / 0.531, but blind set
#: 5 MCP `hybrid` 0.700 (0.709 with 120); a gist for titled tools too (a third vector) costs the
#: OpenAPI groups' `hybrid` mean 0.008-0.015.
GIST_OVER_CHARS = 150
GIST_CHARS = 120


def title_text(tool: Tool, *, cjk: bool = True, repeated: frozenset[str] = frozenset()) -> str | None:
    """A tool's second, short text: its name and title (an OpenAPI summary, an MCP title); for an
    untitled tool with a long description (over :data:`GIST_OVER_CHARS`), its name and the
    description's gist (:func:`description_gist`); for an untitled tool whose parameters make its
    full text long, its name and short description.

    A long operation description averages the title away in :func:`tool_text`'s one vector (on
    GitHub's REST API "create an issue" did not find ``issues_create`` in the top 20); this
    vector keeps what the tool is for, and a tool scores the better of its two cosines. Long
    parameter texts do the same to a short description (Kubernetes: ``create a Deployment`` is
    followed by 4,000 characters of the Deployment's schema, so "create a deployment" found
    ``readAppsV1NamespacedDeployment``, whose text is short, closer), and so do an MCP tool's
    instructions to the model to the first sentence that says what the tool does.
    """
    title = (tool.title if cjk else without_cjk(tool.title)).strip()
    if not title:
        own = own_description(tool.description, repeated)
        description = (own if cjk else without_cjk(own)).strip()
        whole = tool_text(tool, cjk=cjk, repeated=repeated)
        if len(description) > GIST_OVER_CHARS:
            gist = f"{split_identifiers(tool.name)}. {description_gist(description)}"[:MAX_TEXT_CHARS]
            return gist if gist != whole else None  # the whole text already: nothing to add
        # long as the catalog writes it (the text the catalog repeats left in): bunq's 429 operations
        # share seven header parameters, ~1,600 characters; judged on the shorter text they lost this
        # vector: bunq `hybrid` 0.697 -> 0.651 (0.658 with it), ArgoCD 0.654 (0.668 with it)
        written = whole if not repeated else tool_text(tool, cjk=cjk)
        if not description or len(written) < LONG_TEXT_CHARS:
            return None
        title = description
    return f"{split_identifiers(tool.name)}. {title}"[:MAX_TEXT_CHARS]


#: Where a description's sentences end for :func:`description_gist`: a full stop (or ! ?) before a
#: capital, quote, bracket or back-tick; an empty line; a line that starts a list item, a heading
#: or a quote; a line that starts with a label ("Common use cases:", "Returns:").
_GIST_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'`])|\n\s*\n|\n\s*(?:[-*+#>]|\d+[.)])|\n(?=\s*[A-Z][A-Za-z ]{2,30}:)")


def description_gist(description: str, size: int = GIST_CHARS) -> str:
    """The first sentences of a (long) description, white space folded: whole sentences, at least
    ``size / 2`` characters of them when there are, no more than ``size`` unless the first sentence
    alone is longer (then it, cut at twice ``size``)."""
    out = ""
    for piece in _GIST_BREAK.split(description[: 8 * size]):
        sentence = " ".join(piece.split())
        if not sentence:
            continue
        if out and len(out) + 1 + len(sentence) > size:
            break
        out = f"{out} {sentence}" if out else sentence
        if len(out) >= size // 2:
            break
    return out[: 2 * size]


#: Text a catalog repeats across most of its tools tells none of them apart: a description sentence
#: (split as :data:`_GIST_BREAK` splits, white space folded) or a parameter's whole description that
#: at least :data:`REPEATED_SHARE` of the catalog's tools (and at least :data:`REPEATED_MIN_TOOLS`)
#: carry is left out of the texts embedded for them (:func:`tool_text`, :func:`title_text`): eve-esi's
#: "The server name you would like data from" on all 206 operations, ms365's two response options on
#: 178 of 188 tools, AntV's chart width / height / theme on 24 of 27. Round 9 of issue 32
#: (benchmarks/notes/fusion.md, "Round 9: sem9"): `hybrid` MRR@10 blind7 MCP 0.807 -> 0.819, blind8
#: 0.610 / 0.611 -> 0.616 / 0.625, blind4 / blind5 OpenAPI +0.003 / +0.005, project OpenAPI 0.702 ->
#: 0.699 (bunq), the other groups within 0.001; dev sets unchanged. A share
#: of 0.05 (parameters too, or descriptions only) cost blind (Netlify, Square) 0.763 -> 0.728 and
#: project OpenAPI 0.702 -> 0.696: text a family of tools shares (Square's address fields, Netlify's
#: note on its environment-variable tools) does tell that family from the rest.
REPEATED_SHARE = 0.5
REPEATED_MIN_TOOLS = 3
#: Only a description's first this many characters are split into sentences (the model reads no more).
REPEATED_SCAN_CHARS = MAX_TEXT_CHARS
#: A sentence longer than this is never counted (a catalog's repeated boilerplate is short sentences).
REPEATED_UNIT_CHARS = 400
#: A bigger catalog is counted on this many of its tools (every n-th): a share is a share of a
#: sample as well, and the pass stays bounded (100,000 of benchmarks/scale.py's tools counted whole: 9.4 s on
#: the shared machine; sampled: 0.45 s, against ~7.5 s to make their texts).
REPEATED_SAMPLE = 5000


def _folded(text: str) -> str:
    return " ".join(text.split())


def _sentences(description: str) -> list[str]:
    """A description's sentences (:data:`_GIST_BREAK`), white space folded, empty ones left out."""
    return [u for piece in _GIST_BREAK.split(description[:REPEATED_SCAN_CHARS]) if (u := _folded(piece))]


def repeated_text(tools: Sequence[Tool]) -> frozenset[str]:
    """The description sentences and parameter descriptions (white space folded) that at least
    :data:`REPEATED_SHARE` of ``tools``, and at least :data:`REPEATED_MIN_TOOLS` of them, carry: one
    pass over the catalog, each tool's text counted once a unit, bounded by
    :data:`REPEATED_SCAN_CHARS` a description and :data:`REPEATED_UNIT_CHARS` a unit."""
    from collections import Counter

    count: Counter[str] = Counter()
    step = -(-len(tools) // REPEATED_SAMPLE)  # ceiling: at most REPEATED_SAMPLE tools counted
    sample = tools[::step] if step > 1 else tools
    for tool in sample:
        units: set[str] = set()
        if tool.description:
            units.update(u for u in _sentences(tool.description) if len(u) <= REPEATED_UNIT_CHARS)
        for top in tool.parameter_tree():
            for p in top.walk():
                said = p.description.strip()
                if said and len(said) <= REPEATED_UNIT_CHARS:
                    units.add(_folded(said))
        count.update(units)
    least = max(REPEATED_MIN_TOOLS, REPEATED_SHARE * len(sample))
    return frozenset(u for u, n in count.items() if n >= least)


def own_description(description: str, repeated: frozenset[str]) -> str:
    """``description`` without the sentences its catalog repeats (``repeated``): as it is when it has
    none of them, or when they are all it says (a tool never loses its whole description)."""
    if not repeated or not description:
        return description
    units = _sentences(description)
    kept = [u for u in units if u not in repeated]
    if len(kept) == len(units) or not kept:
        return description
    return "\n\n".join(kept)


#: Runs of Chinese/Japanese/Korean characters with the full-width punctuation between them.
_CJK_RUN = re.compile(
    "[\u2e80-\u2fdf\u3000-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]+"
)


def without_cjk(text: str) -> str:
    """``text`` with its Chinese/Japanese/Korean runs left out, for a model that reads English only:
    a bilingual description's Chinese half is noise in such a model's one vector of the tool."""
    if not _CJK_RUN.search(text):
        return text  # nothing to leave out: the text exactly as it is
    text = _CJK_RUN.sub(" ", text)
    text = re.sub(r"\s+([.,;:])", r"\1", text)  # "address. 收件人邮箱; subject" -> "address.; subject"
    text = re.sub(r"([.,;:])(?:\s*[.,;:])+", r"\1", text)
    text = re.sub(r"\s{2,}", " ", text).strip()
    return text if any(ch.isalnum() for ch in text) else ""  # nothing but punctuation left: nothing


def text_key(text: str) -> bytes:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]


# -- how a model was trained: pooling, normalisation, prompts ---------------------------------

#: sentence-transformers' pooling modes (``1_Pooling/config.json``), by the names toolsearch uses.
POOLING_KEYS = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len",
    "pooling_mode_weightedmean_tokens": "weightedmean",
    "pooling_mode_lasttoken": "lasttoken",
}
POOLING_MODES = ("mean", "cls", "lasttoken", "max", "mean_sqrt_len", "weightedmean")
#: The prompt names sentence-transformers' ``encode_document`` tries, in its order.
DOCUMENT_PROMPT_NAMES = ("document", "passage", "corpus")
#: Model families trained with prompts that their files do not declare (their model cards say so),
#: by the last part of the model's name or folder: these prompts apply unless the files or the
#: settings give others. E5 (e5-small/-base/-large[-v2], multilingual-e5-*; not the -instruct
#: ones) reads "query: " before a query and "passage: " before a document.
KNOWN_PROMPTS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (
        re.compile(
            r"^(?:multilingual-)?e5-(?:small|base|large)(?:-v2)?(?:[-_.:](?:onnx|int8|q8|f16|fp16|latest))*$", re.I
        ),  # noqa: E501
        "query: ",
        "passage: ",
    ),
)


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """How a model was trained to be used, from its folder's files (or the defaults: mean, normalised)."""

    #: One or more of :data:`POOLING_MODES`; several are concatenated, as sentence-transformers does.
    pooling: tuple[str, ...] = ("mean",)
    normalize: bool = True
    query_prefix: str = ""
    document_prefix: str = ""
    max_tokens: int = MAX_TOKENS
    #: The files that said so (for ``toolsearch model show``), relative to the folder.
    sources: tuple[str, ...] = field(default=(), compare=False)

    def identity(self) -> str:
        """What of the config changes vectors, for the model's cache identity."""
        return json.dumps(
            [list(self.pooling), self.normalize, self.query_prefix, self.document_prefix, self.max_tokens]
        )


def _read_json(folder: Path, name: str) -> Any:
    """A JSON file of the model folder (``None`` when absent); a broken one is an :class:`EmbedError`."""
    path = folder / name
    if not path.is_file():
        return None
    try:
        if path.stat().st_size > 1 << 20:
            raise ValueError("larger than 1 MiB")
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        raise EmbedError(
            f"embedding model folder {str(folder)!r}: {name} is not readable JSON ({str(exc)[:120]})",
            field="embed-model",
        ) from None


def _bad_config(folder: Path, name: str, what: str) -> EmbedError:
    return EmbedError(f"embedding model folder {str(folder)!r}: {name}: {what}", field="embed-model")


def known_prompts(name: str) -> tuple[str, str] | None:
    """The (query, document) prompts of a model family trained with prompts its files do not declare."""
    last = re.split(r"[/\\]", name.strip().rstrip("/\\"))[-1]
    for pattern, query, document in KNOWN_PROMPTS:
        if pattern.match(last):
            return query, document
    return None


def read_model_config(folder: Path, *, name: str | None = None) -> ModelConfig:
    """Pooling, normalisation, prompts and input length as the model's own files give them.

    * ``modules.json`` lists the sentence-transformers modules: the ``Pooling`` module's folder
      holds its ``config.json`` (``pooling_mode_*`` flags, or ``pooling_mode``), a ``Normalize``
      module means L2-normalised vectors;
    * ``config_sentence_transformers.json``: ``prompts`` (``query``; ``document``/``passage``/
      ``corpus`` for documents, as ``encode_query``/``encode_document`` pick them),
      ``default_prompt_name`` for a role without its own, ``similarity_fn_name`` (``dot``
      without a ``Normalize`` module: raw vectors);
    * ``sentence_bert_config.json``: ``max_seq_length``.

    A folder without these files gets the defaults (mean pooling, normalised, no prompts); a
    model ``name`` of a family in :data:`KNOWN_PROMPTS` gets its prompts when the files declare none.
    """
    sources: list[str] = []
    pooling: tuple[str, ...] = ("mean",)
    normalize: bool | None = None
    pooling_dir: str | None = None
    modules = _read_json(folder, "modules.json")
    if modules is not None:
        if not isinstance(modules, list) or not all(isinstance(m, dict) for m in modules):
            raise _bad_config(folder, "modules.json", "not a list of modules")
        sources.append("modules.json")
        kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
        normalize = True if "Normalize" in kinds else None
        for module, kind in zip(modules, kinds, strict=True):
            if kind == "Pooling":
                pooling_dir = str(module.get("path") or "")
    elif (folder / "1_Pooling" / "config.json").is_file():
        pooling_dir = "1_Pooling"
    if pooling_dir is not None:
        rel = f"{pooling_dir}/config.json" if pooling_dir not in ("", ".") else "config.json"
        if ".." in Path(rel).parts or Path(rel).is_absolute():
            raise _bad_config(folder, "modules.json", f"a module path outside the folder: {pooling_dir!r}")
        config = _read_json(folder, rel)
        if config is not None:
            if not isinstance(config, dict):
                raise _bad_config(folder, rel, "not an object")
            sources.append(rel)
            modes = [mode for key, mode in POOLING_KEYS.items() if config.get(key) is True]
            if not modes and isinstance(config.get("pooling_mode"), str):
                modes = [config["pooling_mode"].strip().lower().replace("_tokens", "").replace("token", "")]
                modes = [{"lasttoken": "lasttoken", "last": "lasttoken"}.get(modes[0], modes[0])]
            unknown = [m for m in modes if m not in POOLING_MODES]
            if unknown:
                raise _bad_config(folder, rel, f"pooling {unknown[0]!r} is none of {', '.join(POOLING_MODES)}")
            if not modes:
                raise _bad_config(folder, rel, "no pooling mode is on")
            pooling = tuple(modes)
    query_prefix = document_prefix = None
    st_config = _read_json(folder, "config_sentence_transformers.json")
    if st_config is not None:
        if not isinstance(st_config, dict):
            raise _bad_config(folder, "config_sentence_transformers.json", "not an object")
        sources.append("config_sentence_transformers.json")
        prompts = st_config.get("prompts") or {}
        if not isinstance(prompts, dict) or not all(isinstance(v, str) for v in prompts.values()):
            raise _bad_config(folder, "config_sentence_transformers.json", "prompts is not an object of texts")
        default_name = st_config.get("default_prompt_name")
        default = prompts.get(default_name) if isinstance(default_name, str) else None
        query_prefix = prompts.get("query", default)
        document_prefix = next((prompts[n] for n in DOCUMENT_PROMPT_NAMES if n in prompts), default)
        similarity = str(st_config.get("similarity_fn_name") or "cosine").lower()
        if normalize is None and similarity in ("dot", "dot_product"):
            normalize = False
    max_tokens = MAX_TOKENS
    bert_config = _read_json(folder, "sentence_bert_config.json")
    if isinstance(bert_config, dict) and isinstance(bert_config.get("max_seq_length"), int):
        sources.append("sentence_bert_config.json")
        max_tokens = max(1, min(TOKEN_CAP, bert_config["max_seq_length"]))
    if query_prefix is None and document_prefix is None:
        known = known_prompts(name or str(folder))
        if known is not None:
            query_prefix, document_prefix = known
            sources.append("known prompts of the model family")
    return ModelConfig(
        pooling=pooling,
        normalize=True if normalize is None else normalize,
        query_prefix=query_prefix or "",
        document_prefix=document_prefix or "",
        max_tokens=max_tokens,
        sources=tuple(sources),
    )


def with_overrides(config: ModelConfig, query_prefix: str | None, document_prefix: str | None) -> ModelConfig:
    """The config with the prompts the settings give (``None``: the model's own)."""

    return replace(
        config,
        query_prefix=config.query_prefix if query_prefix is None else query_prefix,
        document_prefix=config.document_prefix if document_prefix is None else document_prefix,
    )


def pool(hidden: Any, mask: Any, modes: Sequence[str]) -> Any:
    """Token vectors ``(batch, tokens, dim)`` pooled into one row per text, over the real tokens of
    ``mask`` (right-padded, as :class:`OnnxEmbedder` pads); several modes are concatenated."""
    import numpy as np

    hidden = np.asarray(hidden, dtype=np.float32)
    weights = np.asarray(mask, dtype=np.float32)[:, :, None]
    counts = np.maximum(weights.sum(axis=1), 1e-9)
    parts = []
    for mode in modes:
        if mode == "mean":
            parts.append((hidden * weights).sum(axis=1) / counts)
        elif mode == "mean_sqrt_len":
            parts.append((hidden * weights).sum(axis=1) / np.sqrt(counts))
        elif mode == "max":
            parts.append(np.where(weights > 0, hidden, -np.inf).max(axis=1))
        elif mode == "cls":
            parts.append(hidden[:, 0])
        elif mode == "lasttoken":
            last = np.maximum(weights[:, :, 0].sum(axis=1).astype(int) - 1, 0)
            parts.append(hidden[np.arange(len(hidden)), last])
        elif mode == "weightedmean":
            positions = np.arange(1, hidden.shape[1] + 1, dtype=np.float32)[None, :, None] * weights
            parts.append((hidden * positions).sum(axis=1) / np.maximum(positions.sum(axis=1), 1e-9))
        else:
            raise ValueError(f"unknown pooling {mode!r}")
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)


# -- local models ---------------------------------------------------------------------------


#: characters of a model path shown in an error (a longer one is cut)
_SHOWN_PATH = 200


def load_local(
    path: str,
    *,
    multilingual: bool = False,
    query_prefix: str | None = None,
    document_prefix: str | None = None,
) -> Embedder:
    """A local model folder: ONNX transformer or model2vec static model (decided by the files in it).

    ``path`` may also be a Hub id (``owner/name``) that ``toolsearch model pull`` put in the
    Hugging Face cache: it is resolved from the cache alone (searching never downloads).
    """
    shown = repr(path if len(path) <= _SHOWN_PATH else path[:_SHOWN_PATH] + "…")
    name: str | None = None
    try:  # a path the OS refuses (too long, ~user of no user) is the user's to fix, not an internal error
        folder = Path(path).expanduser()
        if not folder.exists():
            from .hub_cache import cached_model_folder, looks_like_hub_id

            if looks_like_hub_id(path):
                folder, name = cached_model_folder(path), path.strip()
        found = folder.is_dir()
    except (OSError, RuntimeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)[:200]
        raise EmbedError(f"embedding model {shown}: not a usable path ({why})", field="embed-model") from None
    if not found:
        what = "a file, not a folder" if folder.exists() else "not found"
        raise EmbedError(
            f"embedding model {shown}: {what}; give a folder holding tokenizer.json and model.onnx "
            "(a transformer exported to ONNX) or model.safetensors (a model2vec static model), or a Hub id "
            "fetched with `toolsearch model pull NAME`; with --embed-base-url the model is a name at that endpoint",
            field="embed-model",
        )
    if not (folder / "tokenizer.json").is_file():
        raise EmbedError(f"embedding model folder {shown} has no tokenizer.json", field="embed-model")
    config = with_overrides(read_model_config(folder, name=name), query_prefix, document_prefix)
    for candidate in (folder / "model.onnx", folder / "onnx" / "model.onnx"):
        if candidate.is_file():
            return OnnxEmbedder(folder, candidate, multilingual=multilingual, config=config, label=name)
    if (folder / "model.safetensors").is_file():
        return StaticEmbedder(folder, multilingual=multilingual, config=config, label=name)
    raise EmbedError(
        f"embedding model folder {shown} has neither model.onnx (nor onnx/model.onnx) nor model.safetensors",
        field="embed-model",
    )


def _file_identity(*paths: Path) -> str:
    """Model identity for the cache: content size + a hash of the first and last MiB of each file
    (remembered in the cache for the files unchanged: :mod:`.file_hashes`)."""
    from .file_hashes import remembered

    return remembered("identity/1", paths, lambda: _hash_identity(paths))


def _hash_identity(paths: Sequence[Path]) -> str:
    import hashlib

    digest = hashlib.sha256()
    for path in paths:
        size = path.stat().st_size
        digest.update(f"{path.name}:{size}\n".encode())
        with open(path, "rb") as f:
            digest.update(f.read(1 << 20))
            if size > 2 << 20:
                f.seek(-(1 << 20), os.SEEK_END)
                digest.update(f.read(1 << 20))
    return digest.hexdigest()[:32]


def _config_identity(base: str, config: ModelConfig) -> str:
    """``base`` when the config is the defaults (vectors cached before configs were read stay valid),
    else ``base`` with a hash of what of the config changes vectors."""
    if config == ModelConfig():
        return base
    import hashlib

    return f"{base}-{hashlib.sha256(config.identity().encode()).hexdigest()[:12]}"


def _missing_extra(what: str, exc: ImportError) -> EmbedError:
    package = (exc.name or "onnxruntime tokenizers").split(".")[0]
    return EmbedError(
        f"{what} needs {exc.name or 'an optional package'}, which is not installed: "
        f"pip install {package} (the extra `embed`: pip install -e '.[embed]' in a clone)",
        field="embed-model",
    )


def _normalise(matrix: Any) -> Any:
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


class OnnxEmbedder:
    """A transformer exported to ONNX, run with onnxruntime; token vectors pooled as the model's
    files say (mean over the mask when they say nothing), normalised unless trained for dot products."""

    def __init__(
        self,
        folder: Path,
        model_file: Path,
        *,
        multilingual: bool = False,
        config: ModelConfig | None = None,
        label: str | None = None,
    ) -> None:
        import importlib.util

        for module in ("onnxruntime", "tokenizers"):
            if importlib.util.find_spec(module) is None:
                error = ImportError(module)
                error.name = module
                raise _missing_extra("an ONNX embedding model", error)
        self.config = config or ModelConfig()
        self.folder = folder
        self.model_file = model_file
        self.label = label or str(folder)
        self.multilingual = multilingual
        self.query_prefix = self.config.query_prefix
        self.document_prefix = self.config.document_prefix
        self.model_id = _config_identity("onnx:" + _file_identity(model_file, folder / "tokenizer.json"), self.config)
        self._session: Any = None  # created by the first text to embed (a cached search needs none)
        self._light = False
        self.tokenizer: Any = None

    def _load(self, light: bool = False) -> None:
        """The onnxruntime session, on the model's prepared copy (:mod:`.prepared`), and for the full
        session the whole tokenizer (a light one's texts get theirs from :meth:`_tokenizer_for`).
        ``light``: for a few texts (a search's new request), a session that does not repack the
        weights for fast matrix products: made in about half the CPU time, vectors equal within
        float rounding (about 1e-7); :meth:`embed` makes the full one when many texts come."""
        import onnxruntime

        from . import prepared

        folder = self.folder
        # a light session's few texts get a tokenizer holding just the words they use (made per call:
        # :meth:`_tokenizer_for`); the full session loads the whole one
        tokenizer = self.tokenizer if light else self._whole_tokenizer()
        try:
            options = onnxruntime.SessionOptions()
            options.log_severity_level = 4  # its own (coloured) error lines: ours say it in one
            if light:
                options.add_session_config_entry("session.disable_prepacking", "1")
            # idle worker threads sleep instead of spinning: less CPU for the same vectors, on a busy
            # machine faster too (benchmarks/notes/fusion.md, issue 19 cost)
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            # the cache's copy with memory-mapped weights (made on first use): same graph, same vectors
            ready = prepared.session_file(self.model_file)
            try:
                session = onnxruntime.InferenceSession(str(ready), options, providers=["CPUExecutionProvider"])
            except Exception:  # noqa: BLE001 - a prepared copy that does not load: the model's own file
                if ready == self.model_file:
                    raise
                prepared.forget(self.model_file)
                session = onnxruntime.InferenceSession(
                    str(self.model_file), options, providers=["CPUExecutionProvider"]
                )
        except Exception as exc:  # noqa: BLE001 - any unreadable model is one clear line
            raise EmbedError(
                f"cannot load the embedding model in {folder}: {type(exc).__name__}: {str(exc)[:200]}",
                field="embed-model",
            ) from None
        inputs = {i.name for i in session.get_inputs()}
        if "input_ids" not in inputs:
            raise EmbedError(f"the ONNX model in {folder} has no input_ids input", field="embed-model")
        outputs = [o.name for o in session.get_outputs()]
        #: token vectors by name when the export names them (some add a pooled output after them)
        self.output = "last_hidden_state" if "last_hidden_state" in outputs else outputs[0]
        self.tokenizer, self.inputs, self._session, self._light = tokenizer, inputs, session, light

    def _set_up(self, tokenizer: Any) -> Any:
        tokenizer.enable_truncation(self.config.max_tokens)
        tokenizer.no_padding()  # embed() pads each batch itself, to its own longest text
        return tokenizer

    def _whole_tokenizer(self) -> Any:
        """The model's tokenizer, loaded once (``self.tokenizer``)."""
        if self.tokenizer is None:
            from tokenizers import Tokenizer

            try:
                self.tokenizer = self._set_up(Tokenizer.from_file(str(self.folder / "tokenizer.json")))
            except Exception as exc:  # noqa: BLE001 - any unreadable tokenizer is one clear line
                raise EmbedError(  # the file named: a damaged tokenizer.json, not the weights, is what to replace
                    f"cannot load the embedding model's tokenizer {self.folder / 'tokenizer.json'}: "
                    f"{type(exc).__name__}: {str(exc)[:200]}",
                    field="embed-model",
                ) from None
        return self.tokenizer

    def _tokenizer_for(self, texts: Sequence[str]) -> Any:
        """The whole tokenizer when loaded (or when no light one can be made); else, with a light
        session, one holding only the words ``texts`` can use (:mod:`.light_tokenizer`; same ids:
        made in about 10 ms of CPU instead of 35 for MiniLM's 30,522 words)."""
        if self.tokenizer is None and self._light:
            from .light_tokenizer import tokenizer_for

            light = tokenizer_for(self.folder / "tokenizer.json", texts)
            if light is not None:
                return self._set_up(light)
        return self._whole_tokenizer()

    @property
    def session(self) -> Any:
        """The full session (made now if there is none, or only a light one)."""
        if self._session is None or self._light:
            self._load()
        return self._session

    def _session_for(self, count: int) -> Any:
        if self._session is None:
            self._load(light=count <= self.light_session_at)
        elif self._light and count > self.light_session_at:
            self._load()
        return self._session

    #: :func:`embed_texts` may pass ``progress``, called with each batch's size
    reports_progress = True
    #: a first call with at most this many texts makes a light session (:meth:`_load`)
    light_session_at = 8

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Any:
        """Vectors of ``texts`` in their order. Batches are made of texts of similar length (sorted
        by token count), so a short text is not padded to the longest of a random batch."""
        import numpy as np

        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        session = self._session_for(len(texts))  # loaded now, on the first text to embed
        encodings = self._tokenizer_for(texts).encode_batch(list(texts))  # truncated, not padded
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out: Any = None
        for start in range(0, len(order), LOCAL_BATCH):
            rows = order[start : start + LOCAL_BATCH]
            width = max(1, max(len(encodings[i].ids) for i in rows))
            ids = np.zeros((len(rows), width), dtype=np.int64)  # padding is masked out below
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encodings[i].ids)
                ids[r, :n] = encodings[i].ids
                mask[r, :n] = 1
            feed = {"input_ids": ids}
            if "attention_mask" in self.inputs:
                feed["attention_mask"] = mask
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros_like(ids)
            try:
                hidden = session.run([self.output], feed)[0]
            except Exception as exc:  # noqa: BLE001 - e.g. a tokenizer that does not fit the model
                detail = re.sub(r"\s+", " ", str(exc))[:200]
                raise EmbedError(
                    f"the embedding model in {self.label} failed: {type(exc).__name__}: {detail} "
                    "(does tokenizer.json belong to this model?)",
                    field="embed-model",
                ) from None
            if hidden.ndim == 3:  # token vectors: pooled as the model was trained
                hidden = pool(hidden, mask, self.config.pooling)
            vectors = _normalise(hidden) if self.config.normalize else np.asarray(hidden, dtype=np.float32)
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[rows] = vectors
            if progress is not None:
                progress(len(rows))
        return out


class StaticEmbedder:
    """A static (model2vec) model: each token has a vector, a text is their mean. Fast, smaller, weaker."""

    def __init__(
        self, folder: Path, *, multilingual: bool = False, config: ModelConfig | None = None, label: str | None = None
    ) -> None:
        try:
            from model2vec import StaticModel
        except ImportError as exc:
            raise _missing_extra("a static (model2vec) embedding model", exc) from None
        # model2vec pools and normalises by its own config.json: only the prompts apply here
        self.config = config or ModelConfig()
        self.label = label or str(folder)
        self.multilingual = multilingual
        self.query_prefix = self.config.query_prefix
        self.document_prefix = self.config.document_prefix
        prompts = ModelConfig(query_prefix=self.query_prefix, document_prefix=self.document_prefix)
        self.model_id = _config_identity(
            "model2vec:" + _file_identity(folder / "model.safetensors", folder / "tokenizer.json"), prompts
        )
        import logging

        # huggingface_hub says "Repo card metadata block was not found" on every load; the app's own
        # logging.disable level is kept (and put back), only raised to WARNING for the load
        previous = logging.root.manager.disable
        logging.disable(max(previous, logging.WARNING))
        try:
            self.model = StaticModel.from_pretrained(folder)
        except Exception as exc:  # noqa: BLE001 - any unreadable model is one clear line
            raise EmbedError(
                f"cannot load the embedding model in {folder}: {type(exc).__name__}: {str(exc)[:200]}",
                field="embed-model",
            ) from None
        finally:
            logging.disable(previous)

    def embed(self, texts: Sequence[str]) -> Any:
        return _normalise(self.model.encode(list(texts), batch_size=1024, show_progress_bar=False))


# -- OpenAI-compatible endpoints ------------------------------------------------------------


class EndpointEmbedder:
    """``POST {base_url}/embeddings`` in batches, through the endpoint client of
    :mod:`toolsearch_cli.providers.openai_embeddings` (bounded replies, bounded retries); the
    vectors it returns are checked here."""

    def __init__(self, settings: EmbedSettings) -> None:
        from ..providers.openai_embeddings import EmbeddingsClient
        from ..redaction import shown_url

        assert settings.model and settings.base_url
        self.model = settings.model
        self.shown_url = shown_url(settings.base_url.rstrip("/"))
        self.label = f"{self.model} @ {self.shown_url}"
        self.multilingual = settings.multilingual
        # an endpoint has no folder to read prompts from: the settings', else a known family's
        known = known_prompts(self.model) or ("", "")
        self.query_prefix = known[0] if settings.query_prefix is None else settings.query_prefix
        self.document_prefix = known[1] if settings.document_prefix is None else settings.document_prefix
        # credentials in the URL are not part of the identity (nor written anywhere)
        import hashlib

        base = "endpoint:" + hashlib.sha256(f"{self.shown_url}\n{self.model}".encode()).hexdigest()[:32]
        self.model_id = _config_identity(
            base, ModelConfig(query_prefix=self.query_prefix, document_prefix=self.document_prefix)
        )
        self.client = EmbeddingsClient(
            base_url=settings.base_url,
            model=settings.model,
            api_key=os.environ.get(settings.key_env) or None,
            key_env=settings.key_env,
            timeout=settings.timeout,
            max_reply_bytes=MAX_ENDPOINT_REPLY_BYTES,
            missing_sdk=lambda exc: _missing_extra("an embeddings endpoint (--embed-base-url)", exc),
        )

    #: :func:`embed_texts` may pass ``progress``, called with each request's size
    reports_progress = True

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> Any:
        import numpy as np

        rows: list[Any] = []
        for start in range(0, len(texts), ENDPOINT_BATCH):
            batch = list(texts[start : start + ENDPOINT_BATCH])
            embeddings = self.client.embeddings(batch)
            try:
                with np.errstate(over="ignore", invalid="ignore"):  # too large for float32: refused below
                    matrix = np.array(embeddings, dtype=np.float32)
            except (TypeError, ValueError):
                matrix = None
            if matrix is None or matrix.ndim != 2 or not matrix.shape[1] or not np.isfinite(matrix).all():
                raise EmbedError(
                    f"the embeddings endpoint {self.shown_url} returned vectors that are not lists of numbers "
                    "of one length",
                    field="embed-base-url",
                )
            if not np.abs(matrix).sum(axis=1).all():
                raise EmbedError(
                    f"the embeddings endpoint {self.shown_url} returned an all-zero vector, which says nothing "
                    f"of a text's meaning (is {self.model!r} an embedding model?)",
                    field="embed-base-url",
                )
            if matrix.shape[1] > MAX_DIMENSIONS:
                raise EmbedError(
                    f"the embeddings endpoint {self.shown_url} returned vectors of {matrix.shape[1]} numbers; "
                    f"toolsearch takes at most {MAX_DIMENSIONS}",
                    field="embed-base-url",
                )
            if rows and matrix.shape[1] != rows[0].shape[1]:
                raise EmbedError(
                    f"the embeddings endpoint {self.shown_url} changed its vector size", field="embed-model"
                )
            rows.append(matrix)
            if progress is not None:
                progress(len(batch))
        return _normalise(np.concatenate(rows)) if rows else np.zeros((0, 0), dtype=np.float32)
