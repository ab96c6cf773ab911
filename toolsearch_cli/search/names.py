"""Look-ups by tool name: a query that *is* a tool's name, and words of a query that no tool uses.

* **Exact names** (:mod:`.name_lookup`; its names are importable from here too). A query whose
  letters and digits are exactly a tool's name (case and separators ignored), or a unique prefix
  of one, or a name after its namespace, ranks that tool first.
* **Unmatched words.** When a search finds nothing, the words of the query that no tool of the
  catalog contains, and close words the catalog does use (did-you-mean over its vocabulary), so a
  user or a model can rephrase instead of retrying the same words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..indexes import cached_index
from ..model import Catalog, Tool, unpacked
from .bm25f import build_index
from .text import analyze, is_cjk, is_weak_term

__all__ = [
    "UnmatchedWord",
    "Vocabulary",
    "unmatched_phrase",
    "unmatched_words",
    "vocabulary_of",
]


@dataclass(slots=True)
class UnmatchedWord:
    """A word of a query that no searchable tool contains, and close words that some do."""

    word: str
    suggestions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"word": self.word, "suggestions": list(self.suggestions)}


class Vocabulary:
    """The words of a catalog as written (names split, titles, descriptions, tags, categories,
    parameter names), by their analysed term: what a suggestion can offer."""

    def __init__(self, tools: list[Tool]) -> None:
        from ..bounded import gc_paused
        from ..markup import plain_text
        from .text import split_identifiers

        found: set[str] = set()
        texts: list[str] = []
        names: list[str] = []

        def flush() -> None:
            # one split per batch of texts; the distinct tokens are searched for words once, at
            # the end (a word never runs across white space: the same words). The names are split
            # at their identifier boundaries together: a boundary is between two letters or
            # digits of one line, never at a line break (the same words as one name at a time).
            found.update("\n".join(texts).split())
            found.update(split_identifiers("\n".join(names)).replace("_", " ").replace("-", " ").split())
            texts.clear()
            names.clear()

        with gc_paused():  # a large catalog's tools are read through transient copies: no cycles
            for tool in map(unpacked, tools):  # a packed tool stays packed (a large catalog's are)
                names.append(tool.name)
                texts += [tool.title, plain_text(tool.description, urls=False), tool.category or "", *tool.tags]
                properties = tool.parameters.get("properties")
                if isinstance(properties, dict):
                    texts += map(_parameter_words, properties)
                if len(texts) >= 8192:
                    flush()
            flush()
            found = set(_WORD.findall("\n".join(found)))
        # each distinct word lowered once
        words = set(map(str.casefold, found))
        self.words = sorted(w for w in words if len(w) > 2 and not w.isdigit())

    def close(self, word: str, limit: int = 3) -> list[str]:
        """Up to ``limit`` catalog words spelt like ``word`` (ratio ≥ 0.75), closest first."""
        from difflib import SequenceMatcher  # only when a word matched nothing: not at start-up

        lowered = word.casefold()
        if len(lowered) < 3 or any(is_cjk(ch) for ch in lowered):
            return []
        scored = []
        matcher = SequenceMatcher(autojunk=False)
        matcher.set_seq2(lowered)
        for candidate in self.words:
            if abs(len(candidate) - len(lowered)) > 3 or candidate[0] != lowered[0] or candidate == lowered:
                continue
            matcher.set_seq1(candidate)
            if matcher.real_quick_ratio() < 0.75 or matcher.quick_ratio() < 0.75:
                continue
            ratio = matcher.ratio()
            if ratio >= 0.75:
                scored.append((-ratio, candidate))
        return [candidate for _, candidate in sorted(scored)[:limit]]


_WORD = re.compile(r"[^\W\d_][^\W_]*")


@lru_cache(maxsize=65536, typed=True)  # typed: a YAML key 1 is not True
def _parameter_words(name: object) -> str:
    """A parameter name as words (``cityName`` -> ``city Name``): names repeat across tools."""
    from .text import split_identifiers

    return split_identifiers(str(name)).replace("_", " ")


def unmatched_phrase(unmatched: list[UnmatchedWord], limit: int = 8) -> str:
    """``'wether' (did you mean 'weather' or 'whether'?), 'blorp'``: the words, each with its
    suggestions (the CLI's line and ``toolSearch``'s note say the same)."""
    parts = []
    for word in unmatched[:limit]:
        close = f" (did you mean {' or '.join(repr(s) for s in word.suggestions)}?)" if word.suggestions else ""
        parts.append(f"{word.word!r}{close}")
    return ", ".join(parts)


def unmatched_words(catalog: Catalog, query: str) -> list[UnmatchedWord]:
    """The words of ``query`` of which no searchable tool contains any term, each with close catalog words.

    Stop words and one-letter words are not reported (they are never searched for), nor a query
    or word that names a tool (:func:`.name_lookup.named_tool`: Keycloak's operation ``post``,
    whose only word the ranker reads as an HTTP method elsewhere, was found and said to be missing).
    """
    from .name_lookup import named_tool

    if named_tool(catalog, query) is not None:
        return []
    index = cached_index(catalog, "default", lambda: build_index(catalog.searchable()), of_searchable=True)
    out: list[UnmatchedWord] = []
    seen: set[str] = set()
    for word in query.split()[:64]:
        terms = analyze(word)
        # a word counts as found when any of its terms is (a CJK run's bigrams across word
        # boundaries never are); lone CJK characters only when the word has nothing else
        strong = [term for term in terms if not is_weak_term(term)] or terms
        if not strong or any(index.df.get(term, 0) for term in strong) or named_tool(catalog, word):
            continue
        shown = word.strip(".,;:!?\"'()[]{}<>")
        if shown.casefold() in seen:
            continue
        seen.add(shown.casefold())
        out.append(UnmatchedWord(shown, vocabulary_of(catalog).close(shown)))
    return out


def vocabulary_of(catalog: Catalog) -> Vocabulary:
    """The catalog's :class:`Vocabulary` (built on first use, kept with its indexes and in the
    on-disk cache with them)."""
    vocabulary: Vocabulary = cached_index(
        catalog, "vocabulary", lambda: Vocabulary(catalog.searchable()), of_searchable=True
    )
    return vocabulary
