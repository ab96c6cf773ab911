"""Text normalisation and tokenisation.

Two analysers live here:

* :func:`classic_normalize` / :func:`classic_tokenize` reproduce the reference scorer's
  normalisation exactly (camelCase split without acronym handling, non letter/number runs to one
  space, lowercase; a run of CJK characters is one token).
* :func:`analyze` is the default ranker's analyser: NFKC, identifier splitting (camelCase,
  acronyms, snake_case, dots, kebab-case), casefolding, stop words and one-letter tokens
  dropped, a light English stemmer, and CJK runs turned into characters and bigrams.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache
from itertools import chain
from typing import Any

# --- classic (reference parity) ------------------------------------------------------------

_ASCII_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_LETTER_OR_NUMBER = re.compile(r"[\W_]+")


def _split_camel_unicode(text: str) -> str:
    out: list[str] = []
    prev_lower_or_digit = False
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Lu" and prev_lower_or_digit:
            out.append(" ")
        out.append(ch)
        prev_lower_or_digit = cat == "Ll" or "0" <= ch <= "9"
    return "".join(out)


def classic_normalize(text: str | None) -> str:
    """The reference normalisation: camel split, non letter/number runs to a space, trim, lower."""
    if not text:
        return ""
    text = _ASCII_CAMEL.sub(" ", text) if text.isascii() else _split_camel_unicode(text)
    return _NOT_LETTER_OR_NUMBER.sub(" ", text).strip().lower()


def classic_tokenize(text: str | None) -> list[str]:
    """Normalised words, de-duplicated in first-seen order."""
    normalized = classic_normalize(text)
    if not normalized:
        return []
    return list(dict.fromkeys(normalized.split(" ")))


# --- default analyser ----------------------------------------------------------------------

# Boundaries inside identifiers: fooBar, HTTPResponse -> HTTP|Response, v2Beta -> v2|Beta.
_CAMEL = re.compile(r"(?<=[a-z\d])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# CJK ideographs, kana and hangul (code point ranges). Checked with ``ord`` rather than a regex
# character class: compiling such a class costs milliseconds at every start-up.
_CJK_RANGES = (
    (0x2E80, 0x2FDF),
    (0x3040, 0x30FF),
    (0x3100, 0x312F),
    (0x3190, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0x20000, 0x3134F),
)
# A run of letters and digits; runs mixing CJK and other letters are split by _words().
_RUN = re.compile(r"[^\W_]+")


def is_cjk(ch: str) -> bool:
    """Whether a character is a CJK ideograph, kana or hangul."""
    code = ord(ch)
    return code >= 0x2E80 and any(lo <= code <= hi for lo, hi in _CJK_RANGES)


def has_cjk(text: str) -> bool:
    """Whether ``text`` has a CJK ideograph, kana or hangul (:func:`is_cjk`); an ASCII text has none."""
    return not text.isascii() and any(map(is_cjk, text))


def _words(token: str) -> list[str]:
    """Words of a token: runs of CJK characters, and runs of other letters and digits."""
    runs = _RUN.findall(token)
    if token.isascii():
        return runs
    out: list[str] = []
    for run in runs:
        start = 0
        for i in range(1, len(run)):
            if is_cjk(run[i]) != is_cjk(run[i - 1]):
                out.append(run[start:i])
                start = i
        out.append(run[start:])
    return out


STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we
    were what when where which while who whom why will with would you your yours yourself
    yourselves also etc e g eg ie via per please may might must shall let lets need needs
    want wants like help
    """.split()
)
# Single CJK characters too common to carry meaning on their own (particles, pronouns).
CJK_STOP_CHARS = frozenset("的了和是在我你他她它们这那个把被就也都而及与或请吗呢吧啊一")
# Two-character function words and request chatter ("what", "can", "help me", "I want").
CJK_STOP_BIGRAMS = frozenset(
    "什么 怎么 如何 哪些 哪个 一个 这个 那个 我们 你们 他们 可以 需要 帮我 请问 是否 一下 "
    "我想 我要 能否 能不 的是".split()
)


def split_identifiers(text: str) -> str:
    """Insert spaces at camelCase and acronym boundaries (``getHTTPResponse`` -> ``get HTTP Response``)."""
    return _CAMEL.sub(" ", text)


_snowball: Any = None


def stem(word: str) -> str:
    """English Snowball (Porter2) stemming of a lowercase ASCII word; other words are left alone.

    Porter2 (via PyStemmer) replaced a home-made light stemmer: +0.02 R@5 on ultratool_en,
    +0.005 on metatool, -0.01 on seal_tools (benchmarks/notes/ranking.md). Words of three letters or
    fewer, and anything with digits or non-ASCII letters, are not stemmed. Results are cached
    by the word analyser.
    """
    global _snowball
    if len(word) <= 3 or not word.isascii() or not word.isalpha():
        return word
    if _snowball is None:
        import Stemmer

        _snowball = Stemmer.Stemmer("english")
    return _snowball.stemWord(word)


def _cjk_terms(run: str) -> list[str]:
    """Single characters (minus particles) and overlapping bigrams: no dictionary needed.

    Bigrams carry most of the meaning of Chinese words; single characters recover words of
    one character and split compounds (measured: +0.11 R@5 on ultratool_zh over bigrams alone).
    """
    terms = [ch for ch in run if ch not in CJK_STOP_CHARS]
    terms.extend(b for b in (run[i : i + 2] for i in range(len(run) - 1)) if b not in CJK_STOP_BIGRAMS)
    return terms


def is_weak_term(term: str) -> bool:
    """A single CJK character: it may add to a score but cannot make a match on its own."""
    return len(term) == 1 and is_cjk(term)


@lru_cache(maxsize=262144)
def _analyze_word(word: str) -> tuple[str, ...]:
    """Terms of one word as found in the text (case kept, so identifiers can be split here)."""
    if is_cjk(word[0]):
        return tuple(_cjk_terms(word))
    parts = [word.casefold()] if word.islower() or word.isdigit() else _CAMEL.sub(" ", word).casefold().split()
    out = []
    for part in parts:
        if len(part) < 2 or part in STOP_WORDS:
            continue
        stemmed = stem(part)
        if stemmed not in STOP_WORDS:
            out.append(stemmed)
    return tuple(out)


def analyze(text: str | None) -> list[str]:
    """Terms of a text for the default ranker, in order, with repeats (term frequency counts).

    The text is split on whitespace and each distinct token and word is analysed once (cached):
    identifier split, casefold, stop words, stemming, CJK characters and bigrams.
    """
    if not text:
        return []
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return list(chain.from_iterable(map(_analyze_token, text.split())))


def analyze_lazy(text: str) -> Iterable[str]:
    """:func:`analyze` as an iterator (no list built): for counting terms while indexing."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    return chain.from_iterable(map(_analyze_token, text.split()))


def normalized(text: str) -> str:
    """``text`` as the analyser reads it before splitting it into tokens (NFKC unless ASCII)."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def text_terms(text: str) -> Iterable[str]:
    """:func:`analyze_lazy` of a text already :func:`normalized`."""
    return chain.from_iterable(map(_analyze_token, text.split())) if text else ()


@lru_cache(maxsize=262144)
def _analyze_token(token: str) -> tuple[str, ...]:
    """Terms of one whitespace-separated token; tokens repeat far more than texts, so cache them."""
    words = _words(token)
    if len(words) == 1:
        return _analyze_word(words[0])
    return tuple(chain.from_iterable(map(_analyze_word, words)))


#: The terms of one white-space free token of a :func:`normalized` text (cached).
token_terms = _analyze_token


# A sentence ends at . ? ! ; followed by white space (not "3.5" or "e.g.x"), or at CJK
# sentence punctuation or a line break.
_SENTENCE_END = re.compile(r"(?<=[.?!;])\s+|[。？！；\n]+")


def split_sentences(text: str) -> list[str]:
    """The sentences of a text (empty ones dropped)."""
    return [part for part in _SENTENCE_END.split(text) if part.strip()]


# Inside a sentence a further request often starts at a connective after a comma ("..., and
# also ...", "..., then ...", "...，然后..."): the part starts with the connective.
_CLAUSE_START = re.compile(
    r"(?:,\s+|\s+(?=and\s+(?:then|also)\b))(?=(?:and\s+)?(?:then|also|additionally|afterwards|after\s+that|"
    r"finally|lastly|plus)\b)|,\s+(?=and\s)|[，,、]\s*(?=(?:并且|然后|还要|还需要|同时|另外|此外|接着|之后|再|并|以及))",
    re.IGNORECASE,
)
# A part of a request ends where a sentence does, also after a closing quote or bracket when no
# lower-case word follows ('... "done." Then ...'), and at a line break.
_PART_END = re.compile(r"(?<=[.?!;])\s+|(?<=[.?!;][\"”)\]])\s+(?![a-z])|[。？！；\n]+")
# Quoted text is the request's data (a file's content, a message to send), not what it asks for:
# no part ends inside it. Double and CJK quotes only (a single quote is also an apostrophe); a
# quoted span of more than half the text is the request itself, quoted, and splits as usual.
_QUOTED = re.compile(r'"[^"\n]*"|“[^”\n]*”|「[^」\n]*」|『[^』\n]*』')


def _piece_spans(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Where ``text[start:end]`` splits at ``pattern``'s matches that do not start inside a quoted
    span: the (start, end) of each piece between them, the separators left out."""
    segment = text[start:end]
    quoted: list[tuple[int, int]] = []
    if '"' in segment or not segment.isascii():
        quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(segment) if 2 * (m.end() - m.start()) <= len(segment)]
    opens = [a for a, _ in quoted]
    out: list[tuple[int, int]] = []
    last = 0
    for match in pattern.finditer(segment):
        i = bisect_right(opens, match.start()) - 1
        if i >= 0 and match.start() < quoted[i][1]:
            continue  # inside quotes
        out.append((start + last, start + match.start()))
        last = match.end()
    out.append((start + last, end))
    return out


#: At most this many parts of a request are embedded on their own (longer requests are cut into
#: this many runs of neighbouring parts).
MAX_PARTS = 8
#: A part with fewer analysed terms than this joins its neighbour ("Thanks!", "Also,").
MIN_PART_TERMS = 2


def request_parts(text: str, *, clauses: bool = False, max_parts: int = MAX_PARTS) -> list[str]:
    """The parts of a request that may each ask for a different tool: its sentences and, with
    ``clauses``, the clauses a connective starts ("…, and also …", "…，然后…"); a part of fewer than
    :data:`MIN_PART_TERMS` terms joins the one before it (or after, for the first); more than
    ``max_parts`` parts are joined into ``max_parts`` runs of neighbours of about equal length.
    ``[]`` when the request is one part (nothing to add to the whole request)."""
    spans = _piece_spans(_PART_END, text, 0, len(text))
    if clauses:
        spans = [piece for a, b in spans for piece in _piece_spans(_CLAUSE_START, text, a, b)]
    groups: list[list[tuple[int, int]]] = []  # each part's pieces, in order
    pending: list[tuple[int, int]] = []  # tiny pieces before the first part
    for a, b in spans:
        if not text[a:b].strip():
            continue
        if len(analyze(text[a:b])) < MIN_PART_TERMS:
            (groups[-1] if groups else pending).append((a, b))
        else:
            groups.append([*pending, (a, b)])
            pending = []
    if len(groups) > max_parts:  # runs of neighbours of about equal length, at most max_parts
        target = sum(g[-1][1] - g[0][0] for g in groups) / max_parts
        runs: list[list[tuple[int, int]]] = []
        size = 0
        for group in groups:
            length = group[-1][1] - group[0][0]
            if runs and (len(runs) == max_parts or size + length <= target):
                runs[-1].extend(group)
                size += length
            else:
                runs.append(list(group))
                size = length
        groups = runs
    # a part is the request's own text from its first piece to its last (separators inside kept)
    parts = [text[g[0][0] : g[-1][1]].strip() for g in groups]
    return parts if len(parts) > 1 else []


def analyze_query(text: str | None) -> list[str]:
    """Distinct terms of a query, in first-seen order."""
    return list(dict.fromkeys(analyze(text)))
