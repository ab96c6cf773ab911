"""How the injection rule (TS206, TS207) reads a text: the normalised readings every layer
examines, and the URL forms every layer knows.

- :func:`visible`: NFKC, invisible (format) characters dropped, look-alike letters mapped to
  their Latin skeleton (only in words that mix scripts or are made entirely of look-alikes);
- :func:`join_spaced`: runs of spaced-out single letters joined (``I g n o r e  a l l``);
- :func:`decoded_payloads`: base64 and hex runs that decode to readable text (two levels deep);
- :func:`unleet`, :func:`url_decoded`: leetspeak digits read as letters, percent-encoding undone;
- :func:`fold`: accents dropped from Latin letters, what the lexicons of the scored signals
  (:mod:`.injection_signals`) are matched on; :func:`strip_marks`: every combining mark dropped
  after compatibility decomposition, what the learned model's features are made from
  (:func:`.injection_model.normalise`). The two differ on purpose and are not merged: ``fold``
  keeps the marks of other scripts (Japanese dakuten: が stays が), the model was trained
  without them (が reads as か).

URLs (:data:`URL_SCHEME` and the forms built on it): the phrase patterns name ``{=url}`` (a URL to
the next white space) and ``{=url_start}`` (its start, lazily); the scored signals replace
:data:`URL_IN_TEXT` (stops at a closing bracket or quote: a Markdown link's target) by one word;
the learned model replaces :data:`URL_OR_WWW` (also ``www.`` addresses, any case) by a mark.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
import urllib.parse
from collections.abc import Iterator

#: The URL schemes an order may send data to (``https://``, ``ftp://``, ``wss://`` ...).
URL_SCHEME = r"(?:https?://|ftp://|wss?://)"
#: A URL up to the next white space, and its start (lazily: what follows it in a pattern decides).
URL = URL_SCHEME + r"\S+"
URL_START = URL_SCHEME + r"[^\s]*?"
#: A URL in running text: it stops at a closing bracket or a quote (``[see](https://...)``).
URL_IN_TEXT = re.compile(URL_SCHEME + r"[^\s)\]>\"']+")
#: A URL or a ``www.`` address, any case.
URL_OR_WWW = re.compile(URL + r"|\bwww\.\S+", re.I)

_ACCENTS = re.compile("[\u0300-\u036f]")


def fold(text: str) -> str:
    """Accents dropped from Latin letters (``Olvídate`` -> ``Olvidate``), so one lexicon entry
    covers the spellings with and without them; other scripts are left as they are."""
    if text.isascii():
        return text
    return unicodedata.normalize("NFC", _ACCENTS.sub("", unicodedata.normalize("NFD", text)))


def strip_marks(text: str) -> str:
    """Compatibility decomposition with every combining mark dropped (accents, and the marks of
    other scripts: ``が`` -> ``か``); not recomposed."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


#: Encoded payloads decoded per text, and how deep (base64 inside base64 ...).
MAX_PAYLOADS = 8
MAX_DEPTH = 2

# --- look-alike letters -----------------------------------------------------------------------

#: Cyrillic and Greek letters that look like Latin ones (after NFKC), by their Latin skeleton.
_CONFUSABLE = {
    # Cyrillic lower case
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԁ": "d", "ԛ": "q", "ԝ": "w",
    "һ": "h", "ӏ": "l", "ɡ": "g", "ո": "n", "ս": "u",
    # Cyrillic upper case
    "А": "A", "В": "B", "Е": "E", "Ё": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ї": "I", "Ј": "J", "Ԛ": "Q", "Ԝ": "W", "Һ": "H",
    # Greek
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")
_ANY_CONFUSABLE = re.compile("[" + "".join(_CONFUSABLE) + "]")


#: Look-alikes that say a word was disguised when a Latin word holds them: every Cyrillic one, and
#: Greek capitals and omicron (lower-case Greek letters stand beside Latin ones in formulas: ε₀, μA).
_DISGUISING = frozenset(ch for ch in _CONFUSABLE if not ("\u03b1" <= ch <= "\u03c9") or ch == "\u03bf")


def disguised_word(text: str) -> str | None:
    """The first word that mixes Latin letters (two or more) with look-alike letters of another
    script (``Аssistant`` with a Cyrillic А), else ``None``: no honest word is spelled that way
    (none of 41,891 distinct real descriptions — ../shared's eval and realworld-dev catalogs, the
    project's real catalogs and blind set 4 — holds one; a Greek ``ε₀KA`` in a formula is not one)."""
    if not _ANY_CONFUSABLE.search(text):
        return None
    for match in _WORD.finditer(text):
        word = match.group(0)
        if any(ch in _DISGUISING for ch in word) and sum(ch.isascii() for ch in word) >= 2:
            if all(ch.isascii() or ch in _CONFUSABLE for ch in word):
                return word
    return None


def skeleton(text: str) -> str:
    """Look-alike letters mapped to Latin in each word that mixes Latin with them, or is made only
    of them (a Greek or Russian word with other letters is left alone)."""

    if not _ANY_CONFUSABLE.search(text):
        return text

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        if not any(ch in _CONFUSABLE for ch in word):
            return word
        rest = [ch for ch in word if ch not in _CONFUSABLE]
        if all(ch.isascii() for ch in rest):  # Latin mixed with look-alikes, or only look-alikes
            return "".join(_CONFUSABLE.get(ch, ch) for ch in word)
        return word

    return _WORD.sub(fix, text)


# --- spacing, invisible characters, encodings -------------------------------------------------

#: Three or more single letters each followed by one separator: ``I g n o r e``, ``i.g.n.o.r.e``.
SPACED = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_*·]){3,}[^\W\d_](?![^\W_])")
_WIDE_GAP = re.compile(r"(?<=[^\W\d_]) {2,}(?=[^\W\d_])|\s*/\s*")


_DOTTED = re.compile(r"(?:[^\W\d_][.\-_*·]){2,}[^\W\d_]")


def join_spaced(text: str) -> str:
    """Runs of spaced-out letters joined into words; a wider gap (two spaces or more, or ``/``)
    between runs is kept as one space: ``I g n o r e   a l l`` -> ``Ignore all``; letters joined
    by dots or dashes keep single spaces as word gaps: ``i.g.n.o.r.e a.l.l`` -> ``ignore all``."""
    if not SPACED.search(text):
        return text
    if any(_DOTTED.fullmatch(t.strip(",;:!?")) for t in text.split()):
        return " ".join(_DOTTED.sub(lambda m: re.sub(r"[.\-_*·]", "", m.group(0)), t) for t in text.split(" "))
    words = _WIDE_GAP.split(text)
    return " ".join(SPACED.sub(lambda m: re.sub(r"[ .\-_*·]", "", m.group(0)), w) for w in words)


#: Characters nobody sees: zero-width, bidirectional controls, word joiners, BOM, tag characters.
HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]")
_EMOJI = "\U0001f000-\U0001faff\u2600-\u27bf"
_EMOJI_JOINER = re.compile(rf"(?<=[{_EMOJI}\ufe0f])\u200d(?=[{_EMOJI}])")


#: Invisible characters that hide text wherever they stand: bidirectional embeddings, overrides and
#: isolates (they reorder what a reviewer sees) and Unicode tag characters (they spell hidden text).
_ALWAYS_HIDING = re.compile("[\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
#: Zero-width characters counted towards an encoding (not the joiners Persian and Indic text need).
_ZERO_WIDTH = re.compile("[\u200b\u2060-\u2064\ufeff]")


def _in_a_word(letter: str) -> bool:
    """A Latin, Greek or Cyrillic letter: words of the scripts whose text has no use for
    zero-width characters inside a word (Thai, Khmer, Persian and Indic text do)."""
    return letter.isalpha() and (ord(letter) < 0x0530 or 0x1E00 <= ord(letter) <= 0x1FFF)


def hidden_character(text: str) -> str | None:
    """The first invisible character of a text that hides something, else ``None``.

    Hiding: a bidirectional control or a tag character anywhere; a zero-width character inside a
    Latin, Greek or Cyrillic word (``ig\u200bnore`` splits a word a reviewer or a word list would
    read); two invisible characters in a row, or three zero-width characters in one text (an
    encoding). A lone zero-width character between a word and punctuation or space hides nothing
    (Keycloak's OpenAPI document has one after an ellipsis: a copy-paste leftover), nor does the
    zero-width joiner inside emoji sequences or a joiner Persian or Indic words need."""
    text = _EMOJI_JOINER.sub("", text)
    matches = list(HIDDEN.finditer(text))
    if not matches:
        return None
    if always := _ALWAYS_HIDING.search(text):
        return always.group(0)
    if len(_ZERO_WIDTH.findall(text)) >= 3:
        return matches[0].group(0)
    for match in matches:
        start, end = match.span()
        if end < len(text) and HIDDEN.match(text, end):
            return match.group(0)
        before, after = text[start - 1 : start], text[end : end + 1]
        if before and after and _in_a_word(before) and _in_a_word(after):
            return match.group(0)
    return None


_TAG = re.compile("[\U000e0020-\U000e007e]")


def tag_text(text: str) -> str:
    """What Unicode tag characters spell (U+E0041 is a hidden 'A'): ASCII smuggling."""
    if not _TAG.search(text):
        return ""
    return "".join(chr(ord(ch) - 0xE0000) for ch in text if 0xE0020 <= ord(ch) <= 0xE007E)


def visible(text: str) -> str:
    """NFKC, format characters dropped (soft hyphen, zero-width ...), look-alikes mapped."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text)
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return skeleton(text)


_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}(?:\\x|%|\s)?){10,}")


def _readable(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    letters = sum(ch.isalpha() for ch in text)
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    wide = sum(not ch.isascii() and ch.isalpha() for ch in text)  # CJK text has no spaces
    if printable < 0.95 * len(text) or letters < 0.5 * len(text) or (" " not in text.strip() and wide < 4):
        return None
    return text


def _b64(token: str) -> bytes | None:
    if token.isalpha() and (token.islower() or token.isupper()):
        return None  # a long plain word, not an encoding
    try:
        return base64.b64decode(token.replace("-", "+").replace("_", "/") + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        return None


def decoded_payloads(text: str, depth: int = 1) -> Iterator[str]:
    """Readable text hidden in base64 (standard or URL-safe) or hex runs of a text; base64 inside
    base64 is unwrapped up to :data:`MAX_DEPTH` levels."""
    found = 0
    for match in _BASE64.finditer(text):
        raw = _b64(match.group(0))
        for _level in range(depth, MAX_DEPTH):  # base64 of base64: unwrap
            if raw is None or not _BASE64.fullmatch(raw.decode("ascii", "replace")):
                break
            raw = _b64(raw.decode("ascii"))
        readable = _readable(raw) if raw is not None else None
        if readable:
            found += 1
            yield readable
            if found >= MAX_PAYLOADS:
                return
    for match in _HEX.finditer(text):
        digits = re.sub(r"\\x|%|\s", "", match.group(0))
        try:
            readable = _readable(bytes.fromhex(digits))
        except ValueError:
            continue
        if readable:
            found += 1
            yield readable
            if found >= MAX_PAYLOADS:
                return


#: Leetspeak: digits and signs standing for letters, inside words that mix them with letters.
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "@": "a", "$": "s"})
_LEET_L = {**_LEET, ord("1"): "l"}  # "1" stands for "i" or for "l": both are read
_LEET_GATE = re.compile(r"[^\W\d_][013457@$]|[013457@$][^\W\d_]")
_LEET_WORD = re.compile(r"(?=[\w@$]*[^\W\d_])(?=[\w@$]*[013457@$])[\w@$]{2,}")


def unleet(text: str, one: str = "i") -> str:
    """``1gn0r3 4ll pr3v10u5 1n57ruc710n5`` -> ``ignore all previous instructions``: only words that
    mix letters with digit look-alikes are mapped, ``1`` as ``i`` (or as ``l`` with ``one="l"``);
    ``v2``, ``sha256`` become nonsense, not orders; and only when a text has at least two of them."""
    if not _LEET_GATE.search(text):
        return text
    words = _LEET_WORD.findall(text)
    if len(words) < 2:
        return text
    table = _LEET if one == "i" else _LEET_L
    return _LEET_WORD.sub(lambda m: m.group(0).translate(table), text)


_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")


def url_decoded(text: str) -> str:
    """Percent-encoding undone (``Ignore%20previous%20instructions``), when a text has three escapes."""
    if "%" not in text or len(_PERCENT.findall(text)) < 3:
        return text
    return urllib.parse.unquote(text, errors="replace")
