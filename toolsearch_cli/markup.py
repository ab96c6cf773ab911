"""Markup in tool text (HTML, Markdown) turned into plain text for indexing and display.

Real catalogs carry markup: most operations of big OpenAPI documents describe themselves in HTML
(``<p>Creates a refund…</p>``, ``<a href="/docs/api#…">``), MCP servers in Markdown (headings,
``**bold**``, ``[links](https://…)``, code spans and fences). Indexed as it is, a tag's name
becomes a term (``href``, ``code``, ``strong``) and a link's address a handful of terms
(``https``, ``docs``, ``com``) that match requests about none of it; shown as it is, the table
is noise. :func:`plain_text` keeps the words a reader sees. Nothing here interprets the markup:
tags are dropped by pattern, entities decoded to characters, and the result is only ever data.

The original text is never changed: exports and what is sent to a model keep it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from types import SimpleNamespace

# Cheap test first: most descriptions have no markup at all. Substring tests run at C speed
# (eight times faster than one character-class regex over a 100,000-tool catalog's texts).
_MARKUP_CHARS = ("<", "&", "`", "*", "[", "#", "|", ">", "~", "__")


@lru_cache(maxsize=1)
def _compiled() -> SimpleNamespace:
    """The patterns, compiled on first use (not at import: the CLI imports this module at start-up).

    HTML comments and ``<script>``/``<style>`` blocks are cut by a linear scan (a lazy regex would
    rescan from every opening of ``"<!--" * 50_000``); every pattern here is bounded, so a hostile
    1 MB description cannot make one backtrack for long. Markdown emphasis (``**bold**``,
    ``__bold__``, ``*em*``) only counts when the delimiters hug words, so ``a * b`` and snake_case
    stay as they are.
    """
    return SimpleNamespace(
        BULLET_LINE=re.compile(r"(?:^|\n)[ \t]{0,3}(?:[-+]|\d{1,3}[.)])[ \t]"),
        DROPPED_BLOCK_OPEN=re.compile(r"<!--|<(script|style)\b", re.I),
        HTML_BREAK=re.compile(r"<(?:br|/p|/div|/li|/h[1-6]|/tr|p|li|tr|h[1-6])\b[^>]{0,2000}>", re.I),
        HTML_TAG=re.compile(r"</?([A-Za-z][A-Za-z0-9:-]{0,40})(?:\s[^<>]{0,2000})?/?>"),
        ENTITY=re.compile(r"&(#\d{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});"),
        MD_FENCE=re.compile(r"^\s{0,3}(```|~~~)[^\n]{0,100}$", re.M),
        MD_IMAGE_OR_LINK=re.compile(r"!?\[([^\[\]\n]{0,500})\]\((?:[^()\s]{0,2000})(?:\s+\"[^\"\n]{0,500}\")?\)"),
        MD_REFERENCE_LINK=re.compile(r"\[([^\[\]\n]{1,500})\]\[[^\[\]\n]{0,100}\]"),
        MD_LINK_DEFINITION=re.compile(r"^\s{0,3}\[[^\]\n]{1,100}\]:\s*\S{1,2000}.*$", re.M),
        MD_AUTOLINK=re.compile(r"<(https?://[^<>\s]{1,2000})>"),
        MD_HEADING=re.compile(r"^\s{0,3}#{1,6}[ \t]+", re.M),
        MD_QUOTE=re.compile(r"^\s{0,3}(?:>[ \t]?)+", re.M),
        MD_BULLET=re.compile(r"^[ \t]{0,12}(?:[-*+]|\d{1,3}[.)])[ \t]+", re.M),
        MD_RULE=re.compile(r"^\s{0,3}(?:[-*_][ \t]*){3,}$", re.M),
        MD_TABLE_RULE=re.compile(
            r"^[ \t]{0,12}\|?(?:[ \t]{0,12}:?-{2,}:?[ \t]{0,12}\|)+[ \t]{0,12}(?::?-+:?)?[ \t]*$", re.M
        ),
        MD_STRONG=re.compile(r"(\*\*|__)(?=\S)([^\n]{1,500}?)(?<=\S)\1"),
        MD_EMPHASIS=re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]{1,500}?)(?<=[^\s*])\*(?![\w*])"),
        MD_CODE=re.compile(r"(`{1,3})([^`\n]{1,2000}?)\1"),
        URL=re.compile(r"\bhttps?://[^\s<>\"')\]]{1,2000}"),
        BLANKS=re.compile(r"[ \t]+"),
        BLANK_LINES=re.compile(r"\n{3,}"),
    )


def _maybe_markup(text: str) -> bool:
    for marker in _MARKUP_CHARS:
        if marker in text:
            return True
    return ("\n" in text or text[:1] in "-+0123456789") and _compiled().BULLET_LINE.search(text) is not None


# Tags inside a line of text: dropped without a space ("<code>id</code>." stays "id.").
_INLINE_TAGS = frozenset(
    "a abbr b bdi bdo cite code data dfn em i kbd mark q s samp small span strong sub sup time u var".split()
)

_NAMED_ENTITIES = {
    "amp": "&",
    "lt": "<",
    "gt": ">",
    "quot": '"',
    "apos": "'",
    "nbsp": " ",
    "ndash": "–",
    "mdash": "—",
    "hellip": "…",
    "rsquo": "’",
    "lsquo": "‘",
    "rdquo": "”",
    "ldquo": "“",
    "copy": "©",
    "reg": "®",
    "trade": "™",
    "middot": "·",
    "bull": "•",
    "times": "×",
}


def _entity(match: re.Match[str]) -> str:
    body = match.group(1)
    if body[0] == "#":
        try:
            code = int(body[2:], 16) if body[1] in "xX" else int(body[1:])
        except ValueError:
            return match.group(0)
        # a control character or surrogate from an entity is no text (and must not reach a terminal)
        if code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
            return " "
        return chr(code)
    return _NAMED_ENTITIES.get(body, match.group(0))


def _tag(match: re.Match[str]) -> str:
    return "" if match.group(1).lower() in _INLINE_TAGS else " "


def _drop_blocks(text: str) -> str:
    """``text`` without HTML comments and ``<script>``/``<style>`` elements (an unclosed one runs to the end)."""
    parts: list[str] = []
    at = 0
    lowered = text.lower() if "<s" in text.lower() else text
    while True:
        opening = _compiled().DROPPED_BLOCK_OPEN.search(text, at)
        if opening is None:
            parts.append(text[at:])
            return " ".join(parts)
        parts.append(text[at : opening.start()])
        closing = "-->" if opening.group(1) is None else f"</{opening.group(1).lower()}"
        end = lowered.find(closing, opening.end())
        if end < 0:
            return " ".join(parts)
        close_end = text.find(">", end + len(closing) - 1) if closing != "-->" else end + 2
        at = (close_end if close_end >= 0 else len(text) - 1) + 1


def plain_text(text: str, *, urls: bool = True) -> str:
    """``text`` with HTML and Markdown markup removed, as a reader would see it.

    Tags, comments and ``<script>``/``<style>`` blocks are dropped, block tags become line
    breaks, entities become characters; Markdown links keep their text, code spans their code,
    emphasis, headings, quotes, bullets, rules and table rules lose their syntax. With
    ``urls=False`` bare addresses are dropped too (for indexing: ``https``, ``com`` and a path's
    words say nothing about what a tool does). Text without markup comes back unchanged.
    """
    if not text or not _maybe_markup(text):
        return text if urls or "http" not in text else _compiled().URL.sub(" ", text)
    out = text
    if "<" in out:
        out = _drop_blocks(out)
        out = _compiled().MD_AUTOLINK.sub(r"\1", out)
        out = _compiled().HTML_BREAK.sub("\n", out)
        out = _compiled().HTML_TAG.sub(_tag, out)
    if "`" in out or "~~~" in out:
        out = _compiled().MD_FENCE.sub("", out)
        out = _compiled().MD_CODE.sub(r"\2", out)
    if "[" in out:
        out = _compiled().MD_IMAGE_OR_LINK.sub(r"\1", out)
        out = _compiled().MD_REFERENCE_LINK.sub(r"\1", out)
        out = _compiled().MD_LINK_DEFINITION.sub("", out)
    if "*" in out or "_" in out:
        out = _compiled().MD_STRONG.sub(r"\2", out)
        out = _compiled().MD_EMPHASIS.sub(r"\1", out)
    out = _compiled().MD_TABLE_RULE.sub("", out)
    out = _compiled().MD_RULE.sub("", out)
    out = _compiled().MD_HEADING.sub("", out)
    out = _compiled().MD_QUOTE.sub("", out)
    out = _compiled().MD_BULLET.sub("", out)
    if "|" in out:
        out = out.replace("|", " ")
    if "&" in out:  # last: a decoded "&lt;b&gt;" is text, not a tag to drop
        out = _compiled().ENTITY.sub(_entity, out)
    if not urls:
        out = _compiled().URL.sub(" ", out)
    out = _compiled().BLANKS.sub(" ", out)
    out = "\n".join(line.strip() for line in out.split("\n"))
    return _compiled().BLANK_LINES.sub("\n\n", out).strip()
