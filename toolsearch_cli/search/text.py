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
    +0.005 on metatool, -0.01 on seal_tools (benchmarks/README.md). Words of three letters or
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


def analyze_query(text: str | None) -> list[str]:
    """Distinct terms of a query, in first-seen order."""
    return list(dict.fromkeys(analyze(text)))
