"""Data shown as text, literally: control characters become visible escapes.

The one definition of which characters a terminal, a log or a CI runner could interpret (ESC
sequences, BEL, CR, line separators, bidi overrides): the CLI's renderers and the plain-text
reports (GitHub Actions annotations) both go through :func:`shown`.
"""

from __future__ import annotations

import re

# C0 controls but newline and tab, DEL, C1 controls, and the invisible format characters that
# reorder or hide text (bidi overrides/isolates, zero-width joiners are left alone: they are text)
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(value: object) -> str:
    """``value`` as text that prints literally: control characters become ``\\x1b``-style escapes."""
    text = value if isinstance(value, str) else str(value)
    return CONTROL.sub(_visible, text)
