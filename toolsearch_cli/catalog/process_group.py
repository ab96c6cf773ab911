"""Stopping a stdio MCP server with every process it started.

The SDK starts each stdio server in a session of its own (its own process group) and kills that
group only when the server does not exit within its grace period after stdin closes. A server
that exits promptly (as ``npx``, ``uv`` or a shell script's server does) leaves its own children
running. So toolsearch starts the server through ``/bin/sh``, which writes the group's id to a
file before it becomes the server, and stops the whole group on leaving, on every exit path: the
catalog loader (:mod:`.mcp_client`) and the gateway's upstreams (:mod:`..serve.upstream`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .sources.live_syntax import LiveSource

#: Seconds the helpers a server leaves behind get to end on SIGTERM before SIGKILL.
GROUP_STOP_WAIT = 1.0
# run by /bin/sh: write its pid (the process group's id: the SDK starts each server in a session
# of its own) to the file named $0, then become the server (exec keeps the pid)
_PID_THEN_EXEC = 'echo $$ > "$0" && exec "$@"'


@contextlib.contextmanager
def _pidfile(live: LiveSource) -> Iterator[str | None]:
    """A path for a stdio server's process-group id (in a private temporary folder), or ``None``
    where groups are not used: other transports, no POSIX, no ``/bin/sh``."""
    if live.transport != "stdio" or os.name != "posix" or not os.path.exists("/bin/sh"):
        yield None
        return
    import tempfile

    with tempfile.TemporaryDirectory(prefix="toolsearch-mcp-") as folder:
        yield os.path.join(folder, "pgid")


@contextlib.contextmanager
def group_stopped(live: LiveSource) -> Iterator[str | None]:
    """For a stdio server on POSIX: a file for the server's process-group id, and on leaving (a
    normal return, an error, Ctrl-C or SIGTERM alike) the whole group is stopped. The SDK stops
    the server itself, but a server that exits when its stdin closes leaves its own children
    (``npx``'s node, a shell script's programs) running; they share its group."""
    with _pidfile(live) as pidfile:
        try:
            yield pidfile
        finally:
            if pidfile is not None:
                stop_group(pidfile)


@contextlib.asynccontextmanager
async def group_stopped_async(live: LiveSource) -> AsyncIterator[str | None]:
    """:func:`group_stopped` inside an event loop (the gateway): the stop, which may wait up to
    :data:`GROUP_STOP_WAIT` seconds, runs in a worker thread, shielded from cancellation so that
    a gateway being cancelled (Ctrl-C, SIGTERM, end of input) still stops the group."""
    import anyio

    with _pidfile(live) as pidfile:
        try:
            yield pidfile
        finally:
            if pidfile is not None:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(stop_group, pidfile)


def own_group_command(command: list[str], pidfile: str | None) -> list[str]:
    """The command line that starts ``command`` and writes its pid to ``pidfile`` (unchanged
    without one). A command that cannot be run fails here as the SDK's start would have."""
    if pidfile is None:
        return command
    import errno
    import shutil

    program = shutil.which(command[0])
    if program is None:
        if os.sep in command[0] and os.path.exists(command[0]):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), command[0])
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), command[0])
    return ["/bin/sh", "-c", _PID_THEN_EXEC, pidfile, program, *command[1:]]


def stop_group(pidfile: str) -> None:
    """SIGTERM to the process group whose id ``pidfile`` holds, SIGKILL to what is left after
    :data:`GROUP_STOP_WAIT` seconds; nothing when the group is gone (the usual case)."""
    import signal
    import time

    try:
        with open(pidfile, encoding="ascii") as handle:
            pgid = int(handle.read().strip())
    except (OSError, ValueError):
        return  # never started
    if pgid <= 1:
        return
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    deadline = time.monotonic() + GROUP_STOP_WAIT
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
