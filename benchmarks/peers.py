"""Peer rankers a user might pick instead of ours, behind one small interface.

Each peer is built from tool names and their text (``tool_text``: name, description, parameter
names and parameter descriptions, category and tags) and answers ``search(query, k) -> [tool
names]``, best first, only positive scores. Installed by the ``bench`` extra: ``pip install -e ".[bench]"``.

* ``bm25s``        — bm25s with its own tokenizer and English stop words (what its README shows);
* ``bm25s+cjk``    — bm25s over text pre-tokenised with identifier splitting and CJK bigrams,
                     stemmed with PyStemmer's English Snowball stemmer;
* ``tantivy+cjk``  — tantivy (Rust, BM25) over the same CJK-bigram pre-tokenised text;
* ``rank-bm25``    — rank-bm25's BM25Okapi over lowercase word tokens (quality only: it scores
                     every document in Python/NumPy per query).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from toolsearch_cli.model import Tool

_WORD = re.compile(r"\w+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def tool_text(tool: Tool) -> str:
    parts = [tool.name, tool.description, tool.category or "", " ".join(tool.tags)]
    for top in tool.parameter_tree(include_array_items=True):
        for p in top.walk():
            parts.append(p.name)
            parts.append(p.description)
    return "\n".join(parts)


def cjk_pretokenize(text: str) -> str:
    """Split identifiers (camelCase, snake_case) and turn CJK runs into bigrams (a lone char stays)."""

    def bigrams(match: re.Match[str]) -> str:
        run = match.group(0)
        if len(run) == 1:
            return f" {run} "
        return " " + " ".join(run[i : i + 2] for i in range(len(run) - 1)) + " "

    text = _CAMEL.sub(" ", text).replace("_", " ")
    return _CJK.sub(bigrams, text)


class Peer:
    name: str

    def search(self, query: str, k: int) -> list[str]:  # pragma: no cover - interface
        raise NotImplementedError


class Bm25sPeer(Peer):
    def __init__(self, names: Sequence[str], texts: Sequence[str], *, cjk: bool) -> None:
        import bm25s

        self.name = "bm25s+cjk" if cjk else "bm25s"
        self._bm25s = bm25s
        self._cjk = cjk
        self._stemmer = None
        if cjk:
            import Stemmer

            self._stemmer = Stemmer.Stemmer("english")
        self.names = list(names)
        corpus = [self._prep(text) for text in texts]
        tokens = bm25s.tokenize(corpus, stopwords="en", stemmer=self._stemmer, show_progress=False)
        self.retriever = bm25s.BM25()
        self.retriever.index(tokens, show_progress=False)

    def _prep(self, text: str) -> str:
        return cjk_pretokenize(text) if self._cjk else text

    def search(self, query: str, k: int) -> list[str]:
        tokens = self._bm25s.tokenize(
            [self._prep(query)], stopwords="en", stemmer=self._stemmer, show_progress=False, return_ids=False
        )
        if not tokens or not tokens[0]:
            return []
        k = min(k, len(self.names))
        docs, scores = self.retriever.retrieve([tokens[0]], k=k, show_progress=False, n_threads=1)
        return [self.names[d] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


class TantivyPeer(Peer):
    name = "tantivy+cjk"

    def __init__(self, names: Sequence[str], texts: Sequence[str]) -> None:
        import tantivy

        self._tantivy = tantivy
        builder = tantivy.SchemaBuilder()
        builder.add_unsigned_field("doc", stored=True, fast=True)
        builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
        self.schema = builder.build()
        self.index = tantivy.Index(self.schema)
        writer = self.index.writer(heap_size=128_000_000, num_threads=1)
        for i, text in enumerate(texts):
            document = tantivy.Document()
            document.add_unsigned("doc", i)
            document.add_text("body", cjk_pretokenize(text))
            writer.add_document(document)
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()
        self.names = list(names)

    def search(self, query: str, k: int) -> list[str]:
        words = " ".join(_WORD.findall(cjk_pretokenize(query)))
        if not words:
            return []
        parsed = self.index.parse_query(words, ["body"])
        result = self.searcher.search(parsed, k)
        out = []
        for score, address in result.hits:
            if score > 0:
                out.append(self.names[self.searcher.doc(address)["doc"][0]])
        return out


class RankBm25Peer(Peer):
    name = "rank-bm25"

    def __init__(self, names: Sequence[str], texts: Sequence[str]) -> None:
        from rank_bm25 import BM25Okapi

        self.names = list(names)
        self.bm25 = BM25Okapi([self._tokens(text) for text in texts])

    @staticmethod
    def _tokens(text: str) -> list[str]:
        return [w.lower() for w in _WORD.findall(cjk_pretokenize(text))]

    def search(self, query: str, k: int) -> list[str]:
        tokens = self._tokens(query)
        if not tokens:
            return []
        scores = self.bm25.get_scores(tokens)
        order = sorted(range(len(scores)), key=lambda i: -scores[i])[:k]
        return [self.names[i] for i in order if scores[i] > 0]


#: Peers by name, built from (tool names, tool texts).
PEERS: dict[str, Callable[[Sequence[str], Sequence[str]], Peer]] = {
    "bm25s": lambda names, texts: Bm25sPeer(names, texts, cjk=False),
    "bm25s+cjk": lambda names, texts: Bm25sPeer(names, texts, cjk=True),
    "tantivy+cjk": TantivyPeer,
    "rank-bm25": RankBm25Peer,
}
