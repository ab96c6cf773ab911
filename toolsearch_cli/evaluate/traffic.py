"""Learning from real traffic: ``toolsearch serve --log FILE`` records, turned into labelled queries
(``toolsearch eval --from-log``). It lives with the other query sources, not in ``serve/``, so that
evaluate never imports the gateway's package (and serve never needs evaluate).

A ``search`` record followed (in the same session, before the next search) by a ``call`` of a
catalog tool becomes the query "searched X, then called Y": ``{query: X, relevant: [Y]}``. Only
the first call after a search labels it; calls of resident tools, of names that did not exist,
and searches nothing followed are left out. The gateway names tools as it serves them (prefixed
only on collision); each call record also carries the server alias and the upstream's own name,
so a catalog loaded another way (``eval`` prefixes every server's tools when it loads several)
is matched through them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..model import Catalog
from .queries import Query

#: A log line longer than this is refused (a record is a few hundred bytes).
MAX_LINE = 1 << 20
#: Call records whose tool did not exist (or was hidden): they label nothing.
_NO_TOOL = frozenset({"unknown-tool"})


@dataclass(slots=True)
class LogQueries:
    """The queries read from a traffic log, and how many labelled calls could not be used."""

    queries: list[Query]
    #: Labels naming a tool the catalog given to ``eval`` does not have (or has as resident).
    unmatched: int = 0
    searches: int = 0


def queries_from_log(path: str | Path, catalog: Catalog) -> LogQueries:
    """Labelled queries from a ``--log`` file, named as ``catalog`` names its tools."""
    from ..files import read_text

    file = str(path)
    text = read_text(path, file, what="the traffic log", error=UsageError)
    by_server: dict[tuple[str, str], str] = {}
    for tool in catalog.tools:
        server = tool.metadata.get("mcp_server")
        if isinstance(server, dict) and isinstance(server.get("name"), str) and isinstance(server.get("tool"), str):
            by_server.setdefault((server["name"], server["tool"]), tool.name)
    resident = set(catalog.resident)
    pending: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, str]] = set()
    out = LogQueries([])
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            raise UsageError(f"a line of {len(line):,} characters is not a log record", file=file, line=number)
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise UsageError(f"not a JSON log record ({exc})", file=file, line=number, field="log") from None
        if not isinstance(record, dict):
            raise UsageError("a log record must be a JSON object", file=file, line=number, field="log")
        session = str(record.get("session"))
        event = record.get("event")
        if event == "search":
            out.searches += 1
            query = record.get("query")
            if isinstance(query, str) and query.strip() and record.get("status") != "error":
                pending[session] = {"query": query, "line": number}
            else:
                pending.pop(session, None)
        elif event == "call":
            search = pending.pop(session, None)
            if search is None or record.get("refused") in _NO_TOOL or record.get("session") is None:
                continue
            name = _catalog_name(record, catalog, by_server)
            if name is None or name in resident:
                out.unmatched += 1
                continue
            key = (search["query"], name)
            if key in seen:
                continue
            seen.add(key)
            out.queries.append(
                Query(
                    id=f"log-{len(out.queries) + 1}",
                    query=search["query"],
                    relevant=[name],
                    extra={"rank_served": record.get("rank")},
                    file=file,
                    line=search["line"],
                )
            )
    return out


def _catalog_name(record: dict[str, Any], catalog: Catalog, by_server: dict[tuple[str, str], str]) -> str | None:
    server, original = record.get("server"), record.get("server_tool")
    if isinstance(server, str) and isinstance(original, str) and (server, original) in by_server:
        return by_server[(server, original)]
    tool = record.get("tool")
    return tool if isinstance(tool, str) and tool in catalog else None
