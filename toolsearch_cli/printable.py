"""Data shown as text, literally: control and invisible characters become visible escapes.

The one definition of which characters a terminal, a log or a CI runner could interpret or would
not show (ESC sequences, BEL, CR, line separators, bidi overrides, zero-width and tag
characters): the CLI's renderers, its error and warning lines and the plain-text reports (GitHub
Actions annotations) all go through :func:`shown`, so ``getWeather`` and ``getWe\\u200bather``
never look the same. JSON output keeps the text itself and writes the same characters as JSON
``\\uXXXX`` escapes (:func:`json_visible`): the value read back is unchanged, the bytes are visible.

Escaped (``\\x1b`` below U+0100, ``\\u200b`` in the BMP, ``\\U000e0041`` above it):

- C0 controls but newline and tab, DEL and the C1 controls;
- line and paragraph separators (U+2028, U+2029);
- Unicode's *default ignorable* code points, which render as nothing: soft hyphen, combining
  grapheme joiner, Arabic letter mark, Hangul fillers, Mongolian variation selectors, zero-width
  space/joiners, LRM/RLM, bidi embeddings, overrides and isolates, word joiner and invisible
  operators, BOM, the tag characters (U+E0000-U+E0FFF) ...
- lone surrogates (only ever from a lossy decode).

Two ignorables are text where a script or emoji needs them, and kept there only: the zero-width
(non-)joiners U+200C/U+200D between two letters of the scripts that join (Arabic, Persian, Syriac,
the Indic and South-East Asian scripts) or two emoji (woman + laptop, heart + fire), a
text/emoji variation selector (U+FE0E/U+FE0F) after a symbol with an emoji form (heart), an
ideographic variation selector after a Han character. Anywhere else (``getWe\\u200dather``,
between two Han characters) they are escaped like the rest, so two names never differ by one
unseen. A literal backslash is not doubled (Windows paths and regexes stay readable): text
holding the six characters ``\\u200b`` looks like the escape; ``--format json`` tells them apart.
"""

from __future__ import annotations

import re

# always escaped (see the module docstring); ranges as regex class text
_ALWAYS = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but \t \n, DEL, C1
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b\u200e\u200f\u202a-\u202e\u2028\u2029\u2060-\u206f\u3164\uffa0\ufeff\ufff0-\ufff8"
    "\ud800-\udfff"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e00ff\U000e01f0-\U000e0fff"
)
_JOINERS = "\u200c\u200d"
_SELECTORS = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
# letters of the scripts whose shaping the (non-)joiners control (the BOM U+FEFF left out)
_JOINING = (
    "\u0600-\u06ff\u0700-\u074f\u0750-\u077f\u0780-\u07bf\u08a0-\u08ff\u0900-\u0dff"
    "\u0f00-\u0fff\u1000-\u109f\u1780-\u17ff\ufb50-\ufdff\ufe70-\ufefe"
)
# symbols that have an emoji form (and the emoji blocks, skin tones included)
_EMOJI = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u27bf\u2934\u2935"
    "\u2b05-\u2b55\u3030\u303d\u3297\u3299\U0001f000-\U0001faff"
)
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"

#: Every character :func:`shown` escapes, where it stands (``CONTROL.search(text)`` finds the first).
CONTROL = re.compile(
    f"[{_ALWAYS}]"
    f"|(?<![{_JOINING}{_EMOJI}\ufe0f])[{_JOINERS}]"  # after an emoji's selector too (heart + fire)
    f"|[{_JOINERS}](?![{_JOINING}{_EMOJI}])"
    f"|(?<![{_EMOJI}])[\ufe0e\ufe0f]"
    "|[\ufe00-\ufe0d]"
    f"|(?<![{_HAN}])[\U000e0100-\U000e01ef]"
)
# in JSON, every one of them, wherever it stands (machine output: nothing to keep readable); also
# the quick first look of shown(): almost no text holds one, and then the lookarounds never run
_JSON_HIDDEN = re.compile(f"[{_ALWAYS}{_JOINERS}{_SELECTORS}]")


# ASCII text (most text; str.isascii() costs nothing) can hold only these
_ASCII_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def hidden(text: str) -> bool:
    """Whether :func:`shown` would change ``text``."""
    if text.isascii():
        return _ASCII_CONTROL.search(text) is not None
    return _JSON_HIDDEN.search(text) is not None and CONTROL.search(text) is not None


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(value: object) -> str:
    """``value`` as text that prints literally: control and invisible characters become ``\\x1b``,
    ``\\u200b`` or ``\\U000e0041`` escapes."""
    text = value if isinstance(value, str) else str(value)
    if text.isascii():
        return _ASCII_CONTROL.sub(_visible, text) if _ASCII_CONTROL.search(text) else text
    if _JSON_HIDDEN.search(text) is None:
        return text
    return CONTROL.sub(_visible, text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON spells characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_visible(text: str) -> str:
    """JSON text (as ``json.dumps(..., ensure_ascii=False)`` writes it) with every control and
    invisible character written as a ``\\uXXXX`` escape: the same value once parsed.

    Safe on whole documents: outside strings JSON holds only ASCII punctuation and whitespace,
    none of which is escaped here."""
    return _JSON_HIDDEN.sub(_json_escape, text)
