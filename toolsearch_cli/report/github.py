"""``--format github``: workflow commands that GitHub Actions turns into annotations."""

from __future__ import annotations

from collections.abc import Sequence

from ..lint.diagnostic import Diagnostic
from ..printable import shown


def _escape_data(text: str) -> str:
    """``%``, CR and LF as the runner's escapes (it turns them back), then every other control
    character (ESC, BEL, NEL, line separators, bidi overrides) as visible text: data can neither
    start a workflow command on a new line nor send escape codes to the log."""
    return shown(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(diagnostics: Sequence[Diagnostic]) -> str:
    """One ``::error title=toolsearch (TS101),file=...,line=...,col=...::message`` line per diagnostic
    (``::notice`` for info); a collapsed diagnostic's message says how many findings it stands for."""
    lines = []
    for d in diagnostics:
        props = [f"title={_escape_property(f'toolsearch ({d.code})')}"]
        if d.file:
            props.append(f"file={_escape_property(d.file)}")
            if d.line:
                props.append(f"line={d.line}")
                if d.column:
                    props.append(f"col={d.column}")
        subject = f"tool {d.tool!r}: " if d.tool else ""
        command = "notice" if d.severity == "info" else d.severity
        message = "\n".join([f"{d.code} {d.name}: {subject}{d.message}", *d.detail])  # the runner shows %0A as lines
        lines.append(f"::{command} {','.join(props)}::{_escape_data(message)}")
    return "".join(line + "\n" for line in lines)
