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
    """The file's text; a missing, unreadable, non-UTF-8 or too big file (see
    :func:`bounded.read_bytes`) raises ``error`` naming ``file``.

    ``what`` names the file in the message (``"cannot read the script: ..."``); ``file`` is the
    name shown (the path by default).
    """
    from .bounded import read_bytes

    shown = file if file is not None else str(path)
    data = read_bytes(path, shown, what=what, error=error)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text ({exc.reason} at byte {exc.start})", file=shown) from exc


def write_text_atomic(
    path: str | Path,
    text: str,
    *,
    what: str,
    error: type[ToolsearchError] = CatalogError,
    field: str | None = None,
    make_parents: bool = True,
) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, so an interrupted
    write never leaves half a file; missing parent folders are created unless ``make_parents``
    is false (then a missing folder is an error).

    The file gets the permissions an ordinary write would give it (an existing file keeps its own,
    a new one follows the umask), not the owner-only mode of the temporary file. A failure raises
    ``error`` ("cannot write {what}: ...") naming the file, and leaves no temporary file behind.
    """
    import os
    import tempfile

    target = Path(path)
    tmp: str | None = None
    try:
        if make_parents:
            target.parent.mkdir(parents=True, exist_ok=True)
        try:
            mode = target.stat().st_mode & 0o7777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise error(f"cannot write {what}: {exc.strerror or exc}", file=str(path), field=field) from exc
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
