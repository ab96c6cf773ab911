"""Run the gateway as ``toolsearch serve`` does: :func:`serve` until the client leaves or the
process is stopped (the dry run is :func:`toolsearch_cli.serve.dry_run.dry_run`)."""

from __future__ import annotations

from collections.abc import Callable

from ..errors import UsageError
from .settings import ServeSettings


def serve(
    settings: ServeSettings,
    *,
    notice: Callable[[str], None] | None = None,
    on_signal: Callable[[int], None] | None = None,
) -> None:
    """Serve over stdio, or streamable HTTP at ``settings.address``; ``notice`` hears what the
    gateway says about itself (listening address, lost upstreams), ``on_signal`` ends the process
    on SIGTERM or Ctrl-C over stdio (see :func:`~toolsearch_cli.serve.server.run_gateway`).
    Without the MCP SDK this is a :class:`UsageError` naming the extra to install."""
    try:
        import anyio
        import mcp  # noqa: F401 - the server side of the SDK: said once here, not as a traceback later
    except ImportError as exc:
        raise UsageError(f"toolsearch serve needs the MCP SDK: pip install 'toolsearch-cli[mcp]' ({exc})") from None
    from .server import run_gateway

    anyio.run(lambda: run_gateway(settings, http=settings.address, notice=notice, on_signal=on_signal))
