"""Value-like words in a request: the user's own things, not the operation they want.

People name their own world when they ask for a tool: a folder ("inside the *Legal* folder"), a
person ("invite *Maria*"), a day ("for *Monday* at *10*"), a quoted name, an id, an e-mail or
a web address. Those words say which *thing* to act on, not which *operation*: a catalog whose
``post_legal_hold_policies`` happens to share the word "legal" should not come first for "make a
new directory called Contracts inside the Legal folder".

:func:`value_terms` finds them, as analysed terms of :func:`~.text.analyze`, with a few
surface rules and no dictionary of names:

* a quoted span (straight or typographic quotes, at most :data:`MAX_QUOTED_WORDS` words);
* an e-mail address, a web address or a dotted host name (``docs.example.org``);
* a number, an amount (``$40``, ``10%``), a clock time (``10:30``, ``3pm``), a date (``2024-05-01``);
* an id: a token mixing letters and digits (``INV-2041``, ``a1b2c3``), or an upper-case
  identifier with an underscore (``STRIPE_KEY``);
* a weekday, a month, the relative days (today, tomorrow, yesterday, tonight) and relative
  periods (*last week*, *next month*, *this year*, *two days ago*);
* a proper noun: a capitalised word that does not start its sentence (``Maria``, ``Marketing``),
  not an all-capitals acronym (``DNS``, ``PDF`` often *are* the operation).

Also weighed like values: a few words of asking rather than of the operation (*give*, *now*,
*currently*, *quickly*, *really*, *take*, *go*, *say*, *know*) and indefinite words (*something*,
*everything*, *ones*, *already*: :data:`FILLER`), which API texts rarely use, so that they earn a
high IDF when one does ("how long does it *take* to drive" is not about "Take a screenshot").

A term counts as value-like only if every word of the request that gives it is value-like ("show
the *Files* folder and list files": ``file`` is not). The default ranker weighs these terms less
(:data:`~.bm25f.VALUE_WEIGHT`); they still count, so a tool whose name or description is about
them still gains from them.
"""

from __future__ import annotations

import re

from .text import analyze

#: Quoted spans longer than this many words are prose, not a name.
MAX_QUOTED_WORDS = 6

_QUOTED = re.compile(r"\"([^\"]{1,200})\"|“([^”]{1,200})”|‘([^’]{1,200})’|(?<![\w])'([^']{1,200})'(?![\w])")
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_URL = re.compile(r"^(?:https?://|www\.)\S+$", re.IGNORECASE)
_HOST = re.compile(r"^(?:[a-z0-9-]+\.)+[a-z]{2,}$", re.IGNORECASE)
_NUMBER = re.compile(r"^[$€£¥#+-]?\d[\d,.:/-]*(?:%|st|nd|rd|th|am|pm|k|m|h|s|ms|gb|mb|kb)?$", re.IGNORECASE)
_MIXED_ID = re.compile(r"^(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{3,}$")
_UPPER_ID = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_DAYS = frozenset(
    """
    monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat sun
    january february march april may june july august september october november december
    jan feb mar apr jun jul aug sep sept oct nov dec
    today tomorrow yesterday tonight
    """.split()
)
_PERIODS = frozenset(
    "day days week weeks weekend month months year years quarter night morning evening hour hours".split()
)
_PERIOD_LEAD = frozenset("last next this past coming previous upcoming".split())
#: Words of asking, not of the operation ("give me", "right now", "currently").
FILLER = frozenset(
    "give try able going really now currently right thing things stuff way sure quickly actually maybe kindly asap"
    " called named titled labelled labeled"
    " already anymore ones something anything everything someone anyone everyone whole exactly"
    " think know take say saying go going use using".split()
)
_STRIP = "\"'“”‘’()[]{}<>,;:!?…"
_SENTENCE_END = (".", "?", "!", ";", ":")


def _value_word(word: str, sentence_start: bool) -> bool:
    """Whether one word of a request (its surrounding punctuation stripped) is value-like."""
    if not word:
        return False
    if _EMAIL.match(word) or _URL.match(word) or _HOST.match(word) or _NUMBER.match(word):
        return True
    if _MIXED_ID.match(word) and not word.isalpha():
        # "v2", "s3", "ec2", "mp4" are names of things an API is about, not ids
        return len(word) > 3 or sum(ch.isdigit() for ch in word) > 1
    if _UPPER_ID.match(word):
        return True
    if word.casefold() in _DAYS:
        # "may" and "march" are also verbs: only capitalised ones are dates
        return word.casefold() not in ("may", "march", "sun", "sat", "wed", "mar") or word[0].isupper()
    if sentence_start or not word[0].isupper() or not word[1:2].islower():
        return False
    # a capitalised word inside a sentence, not an acronym: a name
    return word.isalpha() or "'" in word or "’" in word


def value_words(query: str) -> list[tuple[str, bool]]:
    """Each white-space separated word of ``query`` (punctuation around it stripped), with whether
    it is value-like; a quoted span's words are all value-like."""
    quoted: set[int] = set()
    for match in _QUOTED.finditer(query):
        inner = next(g for g in match.groups() if g is not None)
        if len(inner.split()) <= MAX_QUOTED_WORDS:
            quoted.update(range(match.start(), match.end()))
    out: list[tuple[str, bool]] = []
    sentence_start = True
    for match in re.finditer(r"\S+", query):
        raw = match.group(0)
        word = raw.strip(_STRIP)
        # "Lena's" -> "Lena": the possessive does not change what the word is
        base = re.sub(r"['’]s$", "", word)
        folded = base.casefold()
        is_value = match.start() in quoted or _value_word(base, sentence_start) or folded in FILLER
        if folded in _PERIODS and out and (out[-1][0].casefold() in _PERIOD_LEAD or out[-1][1]):
            # "last week", "next month", "3 days": the period and the word before it
            is_value = True
            out[-1] = (out[-1][0], True)
        elif folded == "ago" and out:
            is_value = True
        out.append((word, is_value))
        if word:
            sentence_start = raw.rstrip("\"'”’)").endswith(_SENTENCE_END)
    return out


def value_terms(query: str) -> frozenset[str]:
    """The analysed terms that come only from value-like words of ``query``."""
    valued: set[str] = set()
    plain: set[str] = set()
    for word, is_value in value_words(query):
        (valued if is_value else plain).update(analyze(word))
    return frozenset(valued - plain)
