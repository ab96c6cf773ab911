"""English terms of requests written in another language (issue 32, requests in other languages).

Real catalogs are nearly all described in English, but people ask in German, French, Chinese, …
("Rechnung löschen", "supprime le message", "删除这个文件"). :func:`translations` gives, for such a
request, the English terms of the words it has from the lexicon (:data:`LEXICON_FILE`), each with the word that
brought it; the default ranker adds them to the request as it adds related words
(:mod:`.related`, :data:`~.bm25f.TRANSLATED_WEIGHT`), so a catalog that has the request's own
word (a Chinese or bilingual catalog) still ranks on it first.

The lexicon was written by hand for this project from the general vocabulary of tool and web
APIs (the actions and things of :mod:`.related`'s groups, CRUD verbs, question words), English
concept first, then its usual words in German, French, Spanish, Portuguese, Italian, Dutch,
Russian, Chinese, Japanese and Korean; not from any request of a benchmark set. Each concept is
a line of English words (the first names it in a gloss and in explanations), then one indented
line ``lang: word word …`` per language. A Latin or Cyrillic word is
compared without case or accents; one ending in ``*`` is a stem (at least four letters) that
any longer word starting with it matches (``lösch*``: löschen, lösche, löscht; German
participles' ``ge-`` is tried off too); other words also match with a plural or verb ending
(ENDINGS) and, when long, as the end of a compound (``Kundenrechnung``). Words joined by ``_``
are a phrase, matched in the request's text. Chinese, Japanese and Korean words are found as
substrings (those scripts put no spaces between words), longest first.

Latin and Cyrillic words are translated only in a request that reads as another language than
English (:func:`foreign`: more function words of other languages than of English, or none of
English and at least one word of the lexicon): an English request never changes. Everything is
bounded: the text read (MAX_CHARS), the terms added (MAX_TERMS); the tables are built on first use.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .text import STOP_WORDS, analyze, has_cjk, is_cjk

#: The lexicon's file (a data file of the package, read on first use: see :func:`concepts`).
LEXICON_FILE = "data/lexicon.txt"

#: Function words of other languages than English (articles, prepositions, pronouns, "please").
FOREIGN_WORDS = frozenset(
    """
    de en der die das den dem des ein eine einen einem einer und ist sind mit für fuer von vom zu zum zur
    auf im ich mein meine meinen mir mich bitte nicht alle wie welche werden wurde noch nach aus bei
    le la les du un une et est sont pour avec dans sur mes ma moi je nous vous au aux ces cette ce
    qui que tous toutes sans svp
    el los las del una unos unas para con por mis mi todos todas es está están al lo cómo qué
    um uma da dos das nos nas meu minha meus minhas são não também favor
    il gli dei della delle degli di che tutti tutte sono mio mia miei nel nella alla
    het een voor met op mijn naar uit bij niet ook zijn wordt deze dit
    """.split()
)
#: English function words that count against :func:`foreign` (words that are function words of
#: other languages too, such as "in", "an", "die" or "me", are left out).
ENGLISH_WORDS = STOP_WORDS - frozenset(
    "in an so also was will me no a i e do as on per via etc or her am be over".split()
)
#: Endings tried off a word that the lexicon does not have as written (plurals, verb endings).
ENDINGS = ("ungen", "en", "es", "er", "ern", "e", "n", "s", "t", "st", "ez", "ons", "ent", "a", "o", "i")
#: Shortest stem (``*``) or word left after an ending is taken off.
MIN_STEM = 4
#: Compounds: a word of at least this many letters may end with a lexicon word of at least
#: COMPOUND_TAIL letters (``Kundenrechnung``: Rechnung).
COMPOUND_MIN = 8
COMPOUND_TAIL = 5
#: Only the request's first MAX_CHARS characters are read, and at most MAX_TERMS terms added.
MAX_CHARS = 2000
MAX_TERMS = 32
#: A word of a Latin or Cyrillic script (an apostrophe inside kept: aujourd'hui).
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


def fold(word: str) -> str:
    """A word compared without case or accents (``Lösche`` -> ``losche``)."""
    if word.isascii():
        return word.casefold()  # no accents to take off (most requests: English)
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@lru_cache(maxsize=1)
def concepts() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The lexicon's concepts: (English words, their ``lang: word word …`` lines), read once."""
    from importlib.resources import files

    text = files(__package__).joinpath(LEXICON_FILE).read_text(encoding="utf-8")
    out: list[tuple[str, list[str]]] = []
    for line in text.strip().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith(" "):
            out[-1][1].append(line.strip())
        else:
            out.append((line.strip(), []))
    return tuple((english, tuple(rest)) for english, rest in out)


#: The senses of a word: (language, English label) pairs in the file's order. A word can have
#: several: in one language (Chinese 关闭 is to close and to disable; German *Karte* a map and a
#: card) or in two (*nombre* is a name in Spanish, a number in French).
Senses = tuple[tuple[str, str], ...]


def _add(table: dict[str, Senses], key: str, lang: str, label: str) -> None:
    senses = table.get(key, ())
    if (lang, label) not in senses:
        table[key] = (*senses, (lang, label))


class _Tables:
    """The lexicon's look-up tables (built once, on first use)."""

    def __init__(self) -> None:
        self.words: dict[str, Senses] = {}  # folded word -> its senses
        self.stems: dict[str, Senses] = {}  # folded stem -> the same
        self.phrases: dict[str, Senses] = {}  # folded phrase with spaces -> the same
        self.cjk: dict[str, Senses] = {}  # CJK word -> the same
        self.terms: dict[str, tuple[tuple[str, str], ...]] = {}  # English label -> (term, its English word)
        for english, rest in concepts():
            label = english.split()[0].replace("_", " ")
            targets = tuple(
                {
                    t: w.replace("_", " ") for w in reversed(english.split()) for t in analyze(w.replace("_", " "))
                }.items()
            )[::-1]
            if not targets:
                continue
            self.terms[label] = targets
            for part in rest:
                lang, _, words = part.partition(":")
                lang = lang.strip()
                for word in words.split():
                    if is_cjk(word[0]):
                        if len(word) > 1:  # one character is too often part of another word
                            _add(self.cjk, word.replace("_", ""), lang, label)
                    elif "_" in word:
                        _add(self.phrases, fold(word.replace("_", " ")), lang, label)
                    elif word.endswith("*"):
                        stem = fold(word[:-1])
                        if len(stem) >= MIN_STEM:
                            _add(self.stems, stem, lang, label)
                    else:
                        _add(self.words, fold(word), lang, label)
        self.longest_stem = max(map(len, self.stems), default=0)
        self.longest_cjk = max(map(len, self.cjk), default=0)

    def word(self, folded: str) -> Senses:
        """The senses of one folded Latin or Cyrillic word (none: ``()``)."""
        found = self._exact_or_stem(folded)
        if not found and folded.startswith("ge") and len(folded) > 6:
            found = self._exact_or_stem(folded[2:])  # a German participle: gelöscht
        if not found and len(folded) >= COMPOUND_MIN:
            for i in range(3, len(folded) - COMPOUND_TAIL + 1):
                found = self.words.get(folded[i:], ())
                if found:
                    break
        return found

    def _exact_or_stem(self, folded: str) -> Senses:
        found = self.words.get(folded, ())
        if found:
            return found
        for ending in ENDINGS:
            if folded.endswith(ending) and len(folded) - len(ending) >= MIN_STEM:
                found = self.words.get(folded[: -len(ending)], ())
                if found:
                    return found
        for size in range(min(len(folded), self.longest_stem), MIN_STEM - 1, -1):
            found = self.stems.get(folded[:size], ())
            if found:
                return found
        return ()


def _in_language(hits: list[tuple[int, int, Senses, str]]) -> list[tuple[int, int, str, str]]:
    """Each hit's English labels: of a word with senses in several languages, those of the
    language most of the request's words have a sense in (the language first in the file breaks a
    tie); of a word with several senses in that language, all of them."""
    votes: dict[str, int] = {}
    for _, _, senses, _ in hits:
        for lang in {lang for lang, _ in senses}:
            votes[lang] = votes.get(lang, 0) + 1
    out: list[tuple[int, int, str, str]] = []
    for start, end, senses, source in hits:
        best = max(votes[lang] for lang, _ in senses)
        chosen = next(lang for lang, _ in senses if votes[lang] == best)
        labels = dict.fromkeys(label for lang, label in senses if lang == chosen)
        out.extend((start, end, label, source) for label in labels)
    return out


@lru_cache(maxsize=1)
def tables() -> _Tables:
    """The lexicon's tables (built on first use: none of this runs at start-up)."""
    return _Tables()


@lru_cache(maxsize=1)
def english_vocabulary() -> frozenset[str]:
    """English words this module knows: function words, :mod:`.related`'s words and the
    lexicon's English side (a request word among them is English, never translated)."""
    from .related import GROUPS

    words = set(ENGLISH_WORDS)
    for line in GROUPS:
        words.update(w for member in line.replace(">", " ").split() for w in member.split("_"))
    for english, _ in concepts():
        words.update(w for member in english.split() for w in member.split("_"))
    return frozenset(fold(w) for w in words)


def foreign(words: list[str], hits: int) -> bool:
    """Whether a request's Latin or Cyrillic ``words`` (casefolded) read as another language than
    English: more words of other languages (their function words, words with letters outside
    ASCII) than English words (:func:`english_vocabulary`), or no English word and at least one
    of the lexicon's words (``hits``)."""
    vocabulary = english_vocabulary()
    english = other = 0
    for word in words:
        if fold(word) in vocabulary:
            english += 1
        elif word in FOREIGN_WORDS or not word.isascii():
            other += 1
    return other > english or (english == 0 and hits > 0)


@lru_cache(maxsize=4096)
def found(query: str) -> tuple[tuple[int, int, str, str], ...]:
    """The lexicon's words in ``query`` (its first MAX_CHARS characters, NFKC), in the text's
    order: (start, end, the line's English word, the request's word or phrase as found). Latin and
    Cyrillic words count only in a request that reads as another language (:func:`foreign`);
    Chinese, Japanese and Korean words always."""
    table = tables()
    text = unicodedata.normalize("NFKC", query[:MAX_CHARS])
    out: list[tuple[int, int, str, str]] = []
    plain = text.isascii()  # no CJK character to look for, character by character (most requests)
    matches = list(_WORD.finditer(text)) if plain else [m for m in _WORD.finditer(text) if not has_cjk(m.group())]
    folded = [fold(m.group()) for m in matches]
    vocabulary = english_vocabulary()
    if foreign([m.group().casefold() for m in matches], 0) or not any(w in vocabulary for w in folded):
        latin = list(zip(matches, folded, strict=True))
    else:
        latin = []  # reads as English whatever the lexicon has of it: nothing to look up
    hits: list[tuple[int, int, Senses, str]] = []
    for match, key in latin:
        if key in vocabulary:
            continue
        senses = table.word(key)
        if senses:
            hits.append((match.start(), match.end(), senses, match.group().casefold()))
    if latin and table.phrases and len(folded) > 1:
        for i in range(len(folded) - 1):
            for size in (4, 3, 2):  # phrases of at most four words
                senses = table.phrases.get(" ".join(folded[i : i + size]), ()) if i + size <= len(folded) else ()
                if senses:
                    phrase = text[matches[i].start() : matches[i + size - 1].end()]
                    hits.append((matches[i].start(), matches[i + size - 1].end(), senses, phrase.casefold()))
                    break
    if hits and foreign([m.group().casefold() for m in matches], len(hits)):
        out = _in_language(hits)
    if not plain and has_cjk(text):
        i, n = 0, len(text)
        while i < n:
            if not is_cjk(text[i]):
                i += 1
                continue
            for size in range(min(table.longest_cjk, n - i), 1, -1):
                senses = table.cjk.get(text[i : i + size], ())
                if senses:
                    labels = dict.fromkeys(label for _, label in senses)
                    out.extend((i, i + size, label, text[i : i + size]) for label in labels)
                    i += size
                    break
            else:
                i += 1
    out.sort(key=lambda hit: (hit[0], hit[1]))  # stable: a word's senses stay in the file's order
    return tuple(out)


def translations(query: str) -> dict[str, tuple[str, str]]:
    """English terms for the words of ``query`` that the lexicon has (:func:`found`): term ->
    (the request's word or phrase that brought it, the English word it stands for); at most
    MAX_TERMS terms."""
    table = tables()
    out: dict[str, tuple[str, str]] = {}
    for _, _, entry, source in found(query):
        for term, english in table.terms[entry]:
            if len(out) < MAX_TERMS:
                out.setdefault(term, (source, english))
    return out


#: Taken off the ends of a word kept in a gloss.
_PUNCTUATION = ".,;:!?\"'()[]{}«»„“”‚‘’¿¡，。、：；！？（）「」『』"


def gloss(query: str) -> str | None:
    """An English gloss of a request of another language, for an English embedding model: the
    request's words in order, each word the lexicon has replaced by its English word, its other
    Latin words kept (names, ids) except function words of other languages, its other Chinese,
    Japanese or Korean characters left out; at most MAX_CHARS characters. ``None`` when the
    lexicon has none of its words."""
    hits = found(query)
    if not hits:
        return None
    text = unicodedata.normalize("NFKC", query[:MAX_CHARS])
    pieces: list[str] = []
    last = 0

    def between(start: int, end: int) -> None:
        for token in "".join(" " if is_cjk(ch) else ch for ch in text[start:end]).split():
            token = token.strip(_PUNCTUATION)
            if token and token.casefold() not in FOREIGN_WORDS and any(ch.isalnum() for ch in token):
                pieces.append(token)

    for start, end, entry, _ in hits:
        if start < last:
            continue  # overlapping a phrase already glossed
        between(last, start)
        if not pieces or pieces[-1] != entry:
            pieces.append(entry)
        last = end
    between(last, len(text))
    return " ".join(pieces)[:MAX_CHARS]
