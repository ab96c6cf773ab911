"""``--format json``: a list of diagnostics with ruff-like keys (add, never rename)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..lint.diagnostic import Diagnostic
from ..printable import json_visible


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    """``[{code, name, message, severity, filename, location{row, column}, tool, field, related, url,
    count, fields}]``: one entry per rule per tool, ``count`` findings of it at ``fields``."""
    return json_visible(json.dumps([d.to_dict() for d in diagnostics], ensure_ascii=False, indent=2)) + "\n"
