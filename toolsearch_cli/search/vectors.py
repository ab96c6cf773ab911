"""Tool vectors: an on-disk cache per model, and the in-memory index the dense rankers search.

:class:`VectorStore` keeps every vector a model ever produced for a tool text, keyed by a hash
of the text, in ``<cache dir>/vectors/<model>.npz`` (float16; owner-only folder). An unchanged
catalog is embedded once; an edited tool is the only one embedded again.

:class:`VectorIndex` holds one catalog's tool vectors as a float32 matrix and ranks by brute
force (one matrix-vector product, then a partial sort): at 100,000 tools of 384 dimensions that
is a few milliseconds (benchmarks/embed_scale.py measures it against usearch's HNSW), with exact
results and nothing to tune. Tools added or removed at run time are embedded on the next query;
nothing is rebuilt.

An index of a catalog loaded through the catalog cache is kept in a file of its own beside the
catalog's entry (:func:`index_path`: ``<cache dir>/<entry key>.vectors-<model>.keys``), never in
the entry: a search that is not dense reads none of it and imports none of this. The file holds
the keys of the tools' texts (:meth:`VectorIndex.keys_record`), so a later dense search of the
unchanged catalog takes its vectors from the :class:`VectorStore` without making a text. It is
named by the entry's key (the catalog files' bytes, this build of toolsearch), the model's
identity and :data:`TEXTS_VERSION`, so it goes stale when any of them changes; a damaged,
planted (a link), oversized or mismatched file is a miss, and the index is made again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, BinaryIO

from ..model import Tool
from .embed import Embedder, as_documents, embed_texts, repeated_text, text_key, title_text, tool_text
from .embed_settings import count_cached, progress_reporter
from .text import classic_normalize

#: Vectors kept per model in the on-disk cache; the ones in use now are always kept.
MAX_STORED = 300_000
#: Vectors kept of ``search`` requests (a repeated request loads no model); the newest are kept.
MAX_SEARCHES = 500
#: Raised when :func:`~.embed.tool_text` or :func:`~.embed.title_text` make other texts: an index
#: file (:func:`index_path`, named by it) of older texts' keys is not read: the texts are made again.
TEXTS_VERSION = 5
#: The newest this many index files (:func:`index_path`) are kept.
MAX_INDEX_FILES = 64
#: What an index file says it is.
INDEX_FORMAT = "toolsearch-vector-index/1"
#: Embedding this many texts at once is said on an interactive stderr (a first run can take minutes)
#: when no progress reporter is set (:func:`~.embed.set_progress`; the CLI sets one that draws a bar).
NOTICE_AT = 200


def _notice(message: str) -> None:
    import sys

    stream = sys.stderr
    if stream is not None and stream.isatty():
        from ..printable import shown
        from ..redaction import redact

        print(f"note: {shown(redact(message))}", file=stream, flush=True)


def store_enabled() -> bool:
    from .. import cachedir as cache

    return cache.enabled()


def index_path(catalog_key: str, model_id: str) -> Path:
    """Where the index of the catalog in the cache entry ``catalog_key`` under the model
    ``model_id`` is kept: beside that entry, named by both and by :data:`TEXTS_VERSION`."""
    import hashlib

    from .. import cachedir as cache

    model = hashlib.sha256(f"{model_id}\n{TEXTS_VERSION}".encode()).hexdigest()[:32]
    return cache.cache_dir() / f"{catalog_key}.vectors-{model}.keys"


def _index_file_limit(tools: int) -> int:
    """The most bytes an index file of ``tools`` tools can need: two 16-byte keys a tool (its
    text and its title's), two slot numbers in JSON, and room for the document prompt."""
    return (1 << 16) + 64 * tools


def read_index_file(path: Path, catalog_key: str, model_id: str, tools: int) -> dict[str, Any] | None:
    """The record :meth:`VectorIndex.keys_record` wrote at ``path`` for this catalog entry and model,
    or ``None``: missing, a link, not a regular file, over the bound, not a JSON line then keys,
    another format, entry or model (the file is hostile input; ``None`` means "make the index
    again"). The file is one line of JSON (the record but its keys), then the keys as bytes."""
    import json

    from .. import cachedir as cache

    if cache.trusted_folder(create=False) is None:
        return None
    raw = cache.read_file(path, _index_file_limit(tools))
    if raw is None:
        return None
    head, newline, keys = raw.partition(b"\n")
    try:
        data = json.loads(head) if newline else None
    except (ValueError, RecursionError):
        return None
    if (
        not isinstance(data, dict)
        or data.get("format") != INDEX_FORMAT
        or data.get("catalog") != catalog_key
        or data.get("model") != model_id
        or data.get("texts_version") != TEXTS_VERSION
    ):
        return None
    data["keys"] = keys
    return data


def write_index_file(path: Path, catalog_key: str, model_id: str, record: dict[str, Any]) -> None:
    """Keep ``record`` (:meth:`VectorIndex.keys_record`) at ``path`` for this catalog entry and model,
    whole or not at all; the newest :data:`MAX_INDEX_FILES` kept. Nothing is written where another
    user could change it, nor when it cannot be (a read-only cache folder): the next dense search
    makes the index again."""
    import json

    from .. import cachedir as cache

    if cache.trusted_folder(create=True) is None:
        return
    head = {"format": INDEX_FORMAT, "catalog": catalog_key, "model": model_id, "texts_version": TEXTS_VERSION}
    rest = {k: v for k, v in record.items() if k != "keys"}
    line = json.dumps({**head, **rest}, separators=(",", ":")).encode() + b"\n"  # no newline inside

    def write(f: BinaryIO) -> None:
        f.write(line)
        f.write(record["keys"])

    try:
        cache.write_atomic(path, write)
        cache.prune(path.parent, "*.vectors-*.keys", MAX_INDEX_FILES, newest=path)
    except OSError:
        pass


class VectorStore:
    """Text vectors of one model on disk, keyed by a 16-byte hash of the text."""

    def __init__(self, model_id: str, kind: str = "tools", folder: Path | None = None, limit: int = MAX_STORED) -> None:
        import hashlib

        from .. import cachedir as cache

        self.model_id = model_id
        #: the cache's own folder must be this user's alone (planted vectors would steer rankings);
        #: a folder given by the caller (benchmarks, tests) is the caller's business
        self.checked = folder is None
        self.folder = folder if folder is not None else cache.cache_dir() / "vectors"
        #: ``tools`` (catalog texts), ``queries`` (an evaluation's query texts) or ``searches``
        #: (``search`` requests): separate files
        self.limit = limit
        self.path = self.folder / (hashlib.sha256(model_id.encode()).hexdigest()[:32] + f"-{kind}.npz")
        #: How many texts the last :meth:`vectors` call had to embed (0: all came from the cache).
        self.embedded = 0

    def _trusted(self, create: bool) -> bool:
        from .. import cachedir as cache

        if not self.checked:
            return True
        return cache.trusted_folder(create, self.folder) is not None

    def _read(self) -> tuple[Any, Any] | None:
        import numpy as np

        if not self._trusted(create=False):
            return None
        try:
            with np.load(self.path, allow_pickle=False) as data:
                keys, vectors, model = data["keys"], data["vectors"], str(data["model"])
        except Exception:  # noqa: BLE001 - a missing or damaged cache file is a miss
            return None
        if (
            model != self.model_id
            or keys.ndim != 2
            or keys.shape[1] != 16
            or keys.dtype != np.uint8
            or vectors.ndim != 2
            or len(keys) != len(vectors)
            or vectors.dtype != np.float16
        ):
            return None
        return keys, vectors

    def vectors(self, embedder: Embedder, texts: Sequence[str], *, persist: bool = True) -> Any:
        """float32 rows for ``texts`` (L2-normalised, rounded through float16), embedding only unseen texts."""
        import numpy as np

        keys = [text_key(t) for t in texts]
        known: dict[bytes, int] = {}
        old = self._read() if persist else None
        if old is not None:
            known = {bytes(k): i for i, k in enumerate(old[0])}
        missing: dict[bytes, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key not in known and key not in missing:
                missing[key] = text
        self.embedded = len(missing)
        count_cached(len(set(keys)) - len(missing))
        fresh = None
        if len(missing) >= NOTICE_AT and progress_reporter() is None:
            _notice(f"embedding {len(missing):,} texts with {getattr(embedder, 'label', 'the model')} (once: cached)")
        if missing:
            fresh = np.asarray(embed_texts(embedder, list(missing.values())), dtype=np.float32).astype(np.float16)
            if old is not None and old[1].shape[1] != fresh.shape[1]:
                old, known = None, {}  # the model's vector size changed: its old vectors are unusable
        if old is None and fresh is None:
            return np.zeros((0, 0), dtype=np.float32)
        dim = fresh.shape[1] if fresh is not None else old[1].shape[1]  # type: ignore[index]
        out = np.empty((len(texts), dim), dtype=np.float16)
        fresh_row = {key: i for i, key in enumerate(missing)}
        for i, key in enumerate(keys):
            if key in fresh_row:
                out[i] = fresh[fresh_row[key]]  # type: ignore[index]
            else:
                out[i] = old[1][known[key]]  # type: ignore[index]
        if fresh is not None and persist:
            self._write(list(missing), fresh, set(keys))
        return out.astype(np.float32)

    def cached(self, keys: bytes) -> Any:
        """float32 rows of the texts of these keys (``keys``: 16 bytes a text, one after another;
        rows as :meth:`vectors` gives them) when the store holds every one, else ``None`` (nothing
        counted then).

        Looked up with NumPy, not a dict of every stored key: the stored keys sorted by their
        first 8 bytes, each wanted key found by binary search, then compared whole (a wanted key
        whose first 8 bytes another stored key shares, one chance in 2^64 a pair, is a miss: the
        texts are made again). A dict of 110,000 stored keys cost ~200 ms of a warm dense search
        at 100,000 tools; this ~45 ms (benchmarks/notes/fusion.md, "Issue 19 — vectors beside the
        catalog entry")."""
        import numpy as np

        if not keys or len(keys) % 16:
            return None
        old = self._read()
        if old is None or not len(old[0]):
            return None
        stored = np.ascontiguousarray(old[0], dtype=np.uint8)
        wanted = np.frombuffer(keys, dtype=np.uint8).reshape(-1, 16)
        firsts = stored.view("<u8")[:, 0]  # (rows, 2) uint64 -> the first 8 bytes of each key
        order = np.argsort(firsts, kind="stable")
        at = np.minimum(np.searchsorted(firsts[order], wanted.view("<u8")[:, 0]), len(order) - 1)
        rows = order[at]
        if not (stored[rows] == wanted).all():
            return None  # a key the store does not hold
        self.embedded = 0
        # the store holds each key once: distinct rows are distinct texts (counted on a sorted copy:
        # np.unique imports numpy.ma, ~30 ms of a warm search)
        ordered = np.sort(rows)
        count_cached(1 + int(np.count_nonzero(ordered[1:] != ordered[:-1])))
        return old[1][rows].astype("float32")

    def _write(self, new_keys: list[bytes], fresh: Any, in_use: set[bytes]) -> None:
        import numpy as np

        old = self._read()  # as it is now: another process may have added vectors meanwhile
        if old is not None and old[1].shape[1] != fresh.shape[1]:
            old = None  # the model's vector size changed: start over
        if old is not None:
            added = set(new_keys)
            not_new = np.array([bytes(k) not in added for k in old[0]], dtype=bool)
            old = (old[0][not_new], old[1][not_new])

        key_rows = np.frombuffer(b"".join(new_keys), dtype=np.uint8).reshape(len(new_keys), 16)
        keys, vectors = key_rows, fresh
        if old is not None:
            keep = np.ones(len(old[0]), dtype=bool)
            room = self.limit - len(new_keys)
            if len(old[0]) > room:  # over the bound: keep what is in use now, then the newest others
                used = np.array([bytes(k) in in_use for k in old[0]], dtype=bool)
                spare = max(0, room - int(used.sum()))
                others = np.flatnonzero(~used)
                keep = used.copy()
                keep[others[len(others) - spare :] if spare else []] = True
            keys = np.concatenate([old[0][keep], key_rows])
            vectors = np.concatenate([old[1][keep], fresh])
        if not self._trusted(create=True):
            return  # run without the cache (trusted_folder said why)
        from .. import cachedir as cache

        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            cache.write_atomic(
                self.path, lambda f: np.savez(f, keys=keys, vectors=vectors, model=np.array(self.model_id))
            )
        except OSError:
            pass  # a read-only cache folder: run without the cache


class VectorIndex:
    """One catalog's tool vectors under one model; brute-force cosine ranking; add/remove in place."""

    def __init__(self, tools: Sequence[Tool], model_id: str) -> None:
        self.model_id = model_id
        self.tools: list[Tool | None] = list(tools)
        self.slot_of = {t.name: i for i, t in enumerate(self.tools) if t is not None}
        self.matrix: Any = None  # float32 (rows, dim); rows < len(tools) while some are pending
        self.dead: set[int] = set()
        #: The slots of titled tools and their title vectors (:func:`~.embed.title_text`), row by row.
        self.title_slots: Any = None
        self.title_matrix: Any = None
        #: How many tool texts the last :meth:`ensure` embedded (0: all from the on-disk cache).
        self.embedded = 0
        #: The keys (:func:`~.embed.text_key`) of all the tools' texts as the last whole :meth:`ensure`
        #: made them, kept in the index's own file (:meth:`keys_record`, :func:`index_path`) or a
        #: pickle of the index, so a later process finds their vectors without making the texts
        #: again: (cjk, texts version and document prompt, tools, live slots, titled slots, the
        #: keys as one bytes).
        self._text_keys: tuple[bool, str, int, list[int], list[int], bytes] | None = None
        #: The last :meth:`ensure` made :attr:`_text_keys` (they are worth keeping on disk).
        self.keys_made = False
        #: The text the catalog repeats (:func:`~.embed.repeated_text`), found once when the texts
        #: are first made and used for tools added later (not pickled: found again when needed).
        self.repeated: frozenset[str] | None = None

    def keys_record(self) -> dict[str, Any] | None:
        """The texts' keys for the index's own file (``None`` before a whole :meth:`ensure`): JSON
        data but ``keys``, the keys as one ``bytes`` (16 a text)."""
        if self._text_keys is None:
            return None
        cjk, prefix, tools, live, titled, blob = self._text_keys
        return {
            "cjk": cjk,
            "prefix": prefix,
            "tools": tools,
            "live": None if live == list(range(tools)) else live,
            "titled": titled,
            "keys": blob,
        }

    def adopt_keys(self, record: dict[str, Any]) -> bool:
        """Take the texts' keys of a record :meth:`keys_record` made (read back from a file: checked
        as hostile input); ``False``, taking nothing, when it does not fit this index's tools."""
        tools = len(self.tools)
        cjk, prefix, count, live, titled, keys = (
            record.get(k) for k in ("cjk", "prefix", "tools", "live", "titled", "keys")
        )
        every = live is None  # no tool removed: every slot live (checked as it is made)
        if every:
            live = list(range(tools))
        if not (
            isinstance(cjk, bool)
            and isinstance(prefix, str)
            and count == tools
            and not isinstance(count, bool)
            and isinstance(keys, bytes)
            and isinstance(live, list)
            and isinstance(titled, list)
            and (every or _slots(live, tools))
            and _slots(titled, tools)
        ):
            return False
        if len(keys) != 16 * (len(live) + len(titled)):
            return False
        self._text_keys = (cjk, prefix, tools, live, titled, keys)
        return True

    def __getstate__(self) -> dict[str, Any]:
        # vectors live in the VectorStore, not in a pickle of the index
        state = dict(self.__dict__)
        state["matrix"] = state["title_slots"] = state["title_matrix"] = state["repeated"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.title_slots = self.title_matrix = None  # absent from indexes pickled before titles had vectors
        self._text_keys = None  # absent from indexes pickled before the keys were kept
        self.keys_made = False
        self.repeated = None
        self.__dict__.update(state)

    def add(self, tool: Tool) -> None:
        if tool.name in self.slot_of:
            from ..errors import CatalogError

            raise CatalogError(f"the index already holds a tool named {tool.name!r}", tool=tool.name, field="name")
        self.slot_of[tool.name] = len(self.tools)
        self.tools.append(tool)  # embedded on the next query

    def remove(self, name: str) -> None:
        slot = self.slot_of.pop(name, None)
        if slot is not None:
            self.dead.add(slot)
            self.tools[slot] = None

    def ensure(self, embedder: Embedder) -> None:
        """Embed the tools that have no vector yet (all of them after loading), through the on-disk cache."""
        import numpy as np

        done = 0 if self.matrix is None else len(self.matrix)
        self.embedded = 0
        self.keys_made = False
        if done == len(self.tools):
            return
        pending = self.tools[done:]
        cjk = embedder.multilingual  # an English-only model reads a bilingual text's CJK half as noise
        # with the version of the texts' making: an index cached before it changed makes them again
        prefix = f"{TEXTS_VERSION}:" + (getattr(embedder, "document_prefix", "") or "")
        store = VectorStore(self.model_id)
        found = None
        known = self._text_keys if done == 0 else None
        if known is not None and known[:3] == (cjk, prefix, len(self.tools)) and store_enabled():
            # this index came with its texts' keys (its own file, see index_path): no text to make
            # when the vector store holds them all (a search of an unchanged catalog)
            _, _, _, live, titled_slots, blob = known
            found = store.cached(blob)
        if found is None:
            # removed tools get a zero row, not a vector of "" (endpoints refuse empty input)
            alive = [(i, t) for i, t in enumerate(pending) if t is not None]
            live = [i for i, _ in alive]
            if self.repeated is None:  # once a catalog, over every tool it holds now
                self.repeated = repeated_text([t for t in self.tools if t is not None])
            shared = self.repeated
            texts = [tool_text(t, cjk=cjk, repeated=shared) for _, t in alive]
            titled = [(done + i, text) for i, t in alive if (text := title_text(t, cjk=cjk, repeated=shared))]
            titled_slots = [slot for slot, _ in titled]
            # as the model reads documents: with its document prompt (E5's "passage: "...)
            documents = as_documents(embedder, texts + [text for _, text in titled])
            found = store.vectors(embedder, documents, persist=store_enabled())
            self.embedded = store.embedded
            if done == 0:  # kept in the index's own file (see index_path)
                blob = b"".join(text_key(d) for d in documents)
                self._text_keys = (cjk, prefix, len(self.tools), live, titled_slots, blob)
                self.keys_made = True
        dim = found.shape[1] if found.size else (self.matrix.shape[1] if self.matrix is not None else 0)
        rows = np.zeros((len(pending), dim), dtype=np.float32)
        if live:
            rows[live] = found[: len(live)]
        title_rows = found[len(live) :]
        if self.matrix is not None and len(self.matrix) and rows.shape[1] != self.matrix.shape[1]:
            from .embed import EmbedError

            raise EmbedError("the embedding model changed its vector size", field="embed-model")
        self.matrix = rows if self.matrix is None or not len(self.matrix) else np.concatenate([self.matrix, rows])
        if titled_slots:
            slots = np.array(titled_slots, dtype=np.intp)
            if self.title_slots is None:
                self.title_slots, self.title_matrix = slots, title_rows
            else:
                self.title_slots = np.concatenate([self.title_slots, slots])
                self.title_matrix = np.concatenate([self.title_matrix, title_rows])

    def scores(self, query_vector: Any) -> Any:
        """Cosine similarity of every slot (``-inf`` for removed tools); a titled tool's is the better
        of its full text's and its title's."""
        import numpy as np

        return self.scores_many(np.asarray(query_vector, dtype=np.float32)[None, :])[0]

    def scores_many(self, query_vectors: Any) -> Any:
        """:meth:`scores` of several query vectors (rows) at once: one pass over the tool matrix."""
        import numpy as np

        queries = np.asarray(query_vectors, dtype=np.float32)
        if self.matrix is None or not len(self.matrix):
            return np.zeros((len(queries), 0), dtype=np.float32)  # an empty catalog
        if queries.shape[1] != self.matrix.shape[1]:
            from .embed import EmbedError

            raise EmbedError(
                f"the embedding model gave the query a vector of {queries.shape[1]} numbers but the tools "
                f"{self.matrix.shape[1]}: the model behind this name changed; clear the cache folder's vectors/ "
                "or name the model differently",
                field="embed-model",
            )
        # (tools x dim) @ (dim x views), then views as rows: BLAS runs this shape faster than the
        # transposed one when there are several views (27 vs 38 ms for 5 views at 100,000 tools)
        sims = np.ascontiguousarray((self.matrix @ queries.T).T)
        if self.title_slots is not None:  # a titled tool scores the better of its two vectors
            titles = (self.title_matrix @ queries.T).T
            sims[:, self.title_slots] = np.maximum(sims[:, self.title_slots], titles)
        if self.dead:
            sims[:, list(self.dead)] = -np.inf
        return sims

    def category_mask(self, category: str) -> Any:
        """Which slots hold a tool of this category (compared as ``default`` compares them)."""
        import numpy as np

        wanted = classic_normalize(category)
        return np.array(
            [t is not None and bool(t.category) and classic_normalize(t.category) == wanted for t in self.tools],
            dtype=bool,
        )

    def top(self, sims: Any, k: int, category: str | None = None) -> list[tuple[Tool, float]]:
        """The ``k`` most similar tools by their :meth:`scores` ``sims``, best first (ties by name)."""
        import numpy as np

        if not len(sims):
            return []
        if category is not None:
            sims = np.where(self.category_mask(category), sims, -np.inf)
        k = min(k, len(sims))
        part = np.argpartition(-sims, k - 1)[:k] if k < len(sims) else np.arange(len(sims))
        best = sorted(
            ((float(sims[i]), i) for i in part if np.isfinite(sims[i])),
            key=lambda p: (-p[0], self.tools[p[1]].name),  # type: ignore[union-attr]
        )
        return [(self.tools[i], s) for s, i in best]  # type: ignore[misc]


def _slots(value: list[Any], tools: int) -> bool:
    """Whether ``value`` (read from a file) is a rising list of slot numbers below ``tools``."""
    if len(value) > tools:
        return False
    last = -1
    for slot in value:
        if type(slot) is not int or not last < slot < tools:
            return False
        last = slot
    return True
