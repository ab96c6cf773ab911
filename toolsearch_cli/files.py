"""Reading users' text files, with failures turned into one-line errors naming the file."""

from __future__ import annotations

from pathlib import Path

from .errors import CatalogError, ToolsearchError


def read_text(
    path: str | Path,
    file: str | None = None,
    *,
    what: str = "",
    error: type[ToolsearchError] = CatalogError,
    encoding: str = "utf-8",
) -> str:
    """The file's text; a missing, unreadable or non-UTF-8 file raises ``error`` naming ``file``.

    ``what`` names the file in the message (``"cannot read the script: ..."``); ``file`` is the
    name shown (the path by default).
    """
    shown = file if file is not None else str(path)
    try:
        return Path(path).read_text(encoding=encoding)
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=shown) from exc
    except OSError as exc:
        reading = f"cannot read {what}" if what else "cannot read"
        raise error(f"{reading}: {exc.strerror}", file=shown) from exc
