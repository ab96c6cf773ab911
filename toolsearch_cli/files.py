"""Reading users' text files, with failures turned into one-line errors naming the file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .errors import CatalogError, ToolsearchError, UsageError


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


_SEPARATORS = tuple(sep for sep in (os.sep, os.altsep) if sep)


def check_output_name(
    path: str | Path, *, what: str = "", error: type[ToolsearchError] = UsageError, field: str | None = None
) -> None:
    """Refuse a name no file can be written under: an empty one, or one ending in a separator
    (``out.json/`` names a folder; writing the file ``out.json`` instead would surprise)."""
    name = os.fspath(path)
    prefix = f"{what}: " if what else ""
    if not name:
        raise error(f"{prefix}the file name is empty", field=field)
    if name.endswith(_SEPARATORS) and not os.path.isdir(name):
        raise error(f"{prefix}a name ending in {name[-1]!r} names a folder, not a file", file=name, field=field)
    if os.path.isdir(name):  # known before the command runs, not only when it saves its work
        raise error(f"{prefix}it is a folder", file=name, field=field)


def write_text_atomic(
    path: str | Path,
    text: str,
    *,
    what: str,
    error: type[ToolsearchError] = CatalogError,
    field: str | None = None,
    make_parents: bool = True,
) -> None:
    """Write ``text`` (registered secrets masked) to ``path``, never losing what is there.

    * A regular file (or a new one) is written through a temporary file in the same folder and
      renamed over it, so an interrupted write never leaves half a file; missing parent folders
      are created unless ``make_parents`` is false (then a missing folder is an error). The file
      gets the permissions an ordinary write would give it (an existing file keeps its own, a new
      one follows the umask), not the owner-only mode of the temporary file.
    * A symbolic link stays a link: the file it points to is written, as above.
    * A FIFO or a character device (``/dev/null``, a terminal) is written to as it is, not
      replaced by a regular file; this process's own output (``-o /dev/stdout``, wherever it
      goes) is printed to, in order with the rest.
    * Anything else (a folder, a socket, a block device) is refused.

    A failure raises ``error`` ("cannot write {what}: ...") naming the file, and leaves no
    temporary file behind.
    """
    import stat
    import tempfile

    from .redaction import redact

    check_output_name(path, what=f"cannot write {what}", error=error, field=field)
    text = redact(text)
    tmp: str | None = None
    try:
        try:
            st: os.stat_result | None = os.stat(path)  # through symlinks
        except FileNotFoundError:
            st = None
        own = _own_stream(st) if st is not None else None
        if own is not None:  # -o /dev/stdout: printed in order with the rest of the output
            own.write(text)
            own.flush()
            return
        if st is not None and (stat.S_ISFIFO(st.st_mode) or stat.S_ISCHR(st.st_mode)):
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(text)
            return
        if st is not None and not stat.S_ISREG(st.st_mode):
            kind = "it is a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file, FIFO or character device"
            raise error(f"cannot write {what}: {kind}", file=str(path), field=field)
        target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
        if make_parents:
            target.parent.mkdir(parents=True, exist_ok=True)
        if st is not None:
            mode = st.st_mode & 0o7777
        else:
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


def _own_stream(st: os.stat_result) -> Any:
    """``sys.stdout`` or ``sys.stderr`` when the file is this process's standard output or error
    (``-o /dev/stdout``, even when the shell sent it to a file): written there, never replaced."""
    import sys

    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        try:
            own = os.fstat(fd)
        except OSError:
            continue
        if stream is not None and (own.st_dev, own.st_ino) == (st.st_dev, st.st_ino):
            return stream
    return None
