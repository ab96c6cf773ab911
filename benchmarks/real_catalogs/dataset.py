"""The real-catalog dev set: catalogs built by ``fetch.py`` and the requests of ``queries.yaml``.

``load()`` gives one :class:`Entry` per catalog: its toolsearch ``Catalog`` (read with
``toolsearch_cli.load_catalog``) and its requests as (query, set of relevant tool names).
OpenAPI catalogs live in the cache folder (``fetch.py`` writes them there); MCP catalogs are
the committed snapshots in ``snapshots/``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
SNAPSHOTS = HERE / "snapshots"
QUERIES = HERE / "queries.yaml"

# id -> (group, source): a file name in the cache's catalogs/ folder (openapi) or in snapshots/ (mcp)
CATALOGS: dict[str, tuple[str, str]] = {
    "trello": ("openapi", "catalogs/trello.json"),
    "sendgrid": ("openapi", "catalogs/sendgrid.json"),
    "mailchimp": ("openapi", "catalogs/mailchimp.json"),
    "netlify": ("openapi", "catalogs/netlify.json"),
    "square": ("openapi", "catalogs/square.json"),
    "dracoon": ("openapi", "catalogs/dracoon.json"),
    "vimeo": ("openapi", "catalogs/vimeo.json"),
    "openai": ("openapi", "catalogs/openai.yml"),
    "mcp-everything": ("mcp", "snapshots/mcp-everything.json"),
    "mcp-filesystem": ("mcp", "snapshots/mcp-filesystem.json"),
    "mcp-memory": ("mcp", "snapshots/mcp-memory.json"),
    "mcp-desktop-commander": ("mcp", "snapshots/mcp-desktop-commander.json"),
    "mcp-git": ("mcp", "snapshots/mcp-git.json"),
    "mcp-gitlab": ("mcp", "snapshots/mcp-gitlab.json"),
    "mcp-supabase": ("mcp", "snapshots/mcp-supabase.json"),
    "mcp-sentry": ("mcp", "snapshots/mcp-sentry.json"),
    "mcp-utilities": ("mcp", "snapshots/mcp-utilities.json"),
}


@dataclass
class Entry:
    id: str
    group: str
    path: Path
    catalog: Any  # toolsearch_cli's Catalog
    queries: list[tuple[str, set[str]]] = field(default_factory=list)


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    if cache_dir is None:
        cache_dir = os.environ.get("TOOLSEARCH_BENCH_CACHE") or Path.home() / ".cache" / "toolsearch-bench" / "real"
    return Path(cache_dir).expanduser()


def source_path(cid: str, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    group, source = CATALOGS[cid]
    return HERE / source if group == "mcp" else cache_root(cache_dir) / source


def read_queries(path: Path = QUERIES) -> dict[str, list[tuple[str, set[str]]]]:
    """catalog id -> [(query, relevant names)], in file order; malformed entries are errors."""
    found: dict[str, list[tuple[str, set[str]]]] = {cid: [] for cid in CATALOGS}
    if not path.is_file():
        return found
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    for i, item in enumerate(data):
        if not isinstance(item, dict) or set(item) != {"catalog", "query", "relevant"}:
            raise ValueError(f"{path.name}: entry {i} must have exactly catalog, query, relevant: {item!r}")
        if item["catalog"] not in CATALOGS:
            raise ValueError(f"{path.name}: entry {i}: unknown catalog {item['catalog']!r}")
        relevant = item["relevant"]
        if not isinstance(relevant, list) or not relevant or not all(isinstance(r, str) for r in relevant):
            raise ValueError(f"{path.name}: entry {i}: relevant must be a non-empty list of names")
        found[item["catalog"]].append((str(item["query"]).strip(), set(relevant)))
    return found


def load(cache_dir: str | os.PathLike[str] | None = None, only: set[str] | None = None) -> list[Entry]:
    """Every catalog (or those in ``only``) with its requests; a missing file says to run fetch.py."""
    from toolsearch_cli import load_catalog

    queries = read_queries()
    entries = []
    for cid, (group, _) in CATALOGS.items():
        if only and cid not in only:
            continue
        path = source_path(cid, cache_dir)
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: run python benchmarks/real_catalogs/fetch.py")
        entries.append(Entry(cid, group, path, load_catalog([str(path)]), queries[cid]))
    return entries


def tool_names(catalog: Any) -> list[str]:
    return [t.name for t in catalog.tools]


def check_labels(cache_dir: str | os.PathLike[str] | None = None, only: set[str] | None = None) -> int:
    """Load every catalog and check each label names one of its tools; print a summary table."""
    problems = 0
    print("| catalog | group | tools | requests |")
    print("|---|---|---:|---:|")
    for entry in load(cache_dir, only):
        names = set(tool_names(entry.catalog))
        for query, relevant in entry.queries:
            for name in sorted(relevant - names):
                print(f"error: {entry.id}: {query!r}: {name!r} is not a tool of the catalog", file=sys.stderr)
                problems += 1
        print(f"| {entry.id} | {entry.group} | {len(names)} | {len(entry.queries)} |")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(check_labels(sys.argv[1] if len(sys.argv) > 1 else None))
