"""Provider-valid tool names: OpenAI's and Anthropic's rule ``[A-Za-z0-9_-]{1,64}``."""

from __future__ import annotations

import re

#: What OpenAI and Anthropic accept as a tool name (lint's invalid-tool-name, TS101, checks it too).
PROVIDER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def provider_name(raw: str, fallback: str, *, squeeze: bool = True) -> str:
    """``raw`` made provider-valid: other characters become ``_`` (``squeeze``: runs of them, and
    of ``_``, become one ``_``, stripped at the ends; without it ``alias__tool`` keeps its ``__``);
    ``fallback`` when nothing is left; a longer name keeps its first 55 characters and a hash of
    the whole (so it stays unique)."""
    if PROVIDER_NAME.match(raw):
        return raw
    if squeeze:
        name = re.sub(r"_{2,}", "_", re.sub(r"[^A-Za-z0-9_-]+", "_", raw)).strip("_")
    else:
        name = re.sub(r"[^A-Za-z0-9_-]", "_", raw)
    name = name or fallback
    if len(name) > 64:
        import hashlib  # not at start-up: most names need no hash

        name = name[:55] + "_" + hashlib.sha1(raw.encode()).hexdigest()[:8]
    return name


def unique_name(name: str, taken: set[str] | dict[str, str]) -> str:
    """``name``, or ``name_2``, ``name_3`` ... (cut to stay within 64 characters), whichever is not taken."""
    base, n = name, 2
    while name in taken:
        suffix = f"_{n}"
        name, n = base[: 64 - len(suffix)] + suffix, n + 1
    return name
