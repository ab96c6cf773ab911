"""The global loading options (``--strict``, ``--live-ttl``, ``--refresh``, ``--sanitize-names``)
and how load warnings are shown: one line each on stderr, then a count."""

from __future__ import annotations

from ..catalog.lenient import LoadSettings, LoadWarning, summary

#: Warnings shown one by one; the rest are only counted (``toolsearch lint`` lists them all).
SHOWN = 20


def load_settings(*, strict: bool, live_ttl: str | None, refresh: bool, sanitize_names: bool) -> LoadSettings:
    """Every catalog load of this command, from the global options (and ``$TOOLSEARCH_LIVE_TTL``,
    ``$TOOLSEARCH_MCP_*``)."""
    import functools

    from ..catalog.live_cache import parse_ttl
    from ..environment import live_ttl as ttl_from_env
    from ..environment import mcp_settings

    raw = live_ttl if live_ttl is not None else ttl_from_env() or "0"
    return LoadSettings(
        strict=strict,
        live_ttl=parse_ttl(raw),
        refresh=refresh,
        sanitize_names=sanitize_names,
        report=print_warnings,
        # the TOOLSEARCH_MCP_* variables, read once for the command when a live server is first
        # asked (a bad value fails only a command that asks one, as it always did)
        mcp=functools.cache(mcp_settings),
    )


def forget_command() -> None:
    """What one command leaves behind: the folder links it warned of (warned again next command)."""
    from ..catalog import forget_warned_links

    forget_warned_links()


def print_warnings(warnings: list[LoadWarning], *, converting: bool = False) -> None:
    """One line per warning (the first :data:`SHOWN`), then what they add up to."""
    from rich.text import Text

    from .render import data, error_console

    err = error_console()
    for warning in warnings[:SHOWN]:
        err.print(Text.assemble(("warning:", "yellow"), " ", data(warning)))
    more = len(warnings) - SHOWN
    tail = f" ({more} not shown; `toolsearch lint` lists them all)" if more > 0 else ""
    if converting:
        err.print(data(f"{summary(warnings, 'conversion warning')}{tail} (toolsearch --strict makes them errors)"))
    else:
        err.print(data(f"{summary(warnings)}{tail}; the rest of the catalog is loaded (--strict makes them errors)"))
