"""The real-catalog dev set: catalogs built by ``fetch.py`` and the requests of ``queries.yaml``,
``queries-2.yaml`` and ``queries-3.yaml``.

``load()`` gives one :class:`Entry` per catalog: its toolsearch ``Catalog`` (read with
``toolsearch_cli.load_catalog``) and its requests of all three files as (query, set of relevant
tool names), in file order; ``Entry.styles`` holds each request's style (``None`` for the first
batch, which has none).
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
QUERIES = HERE / "queries.yaml"  # first batch: implicit requests, no style key
QUERIES_2 = HERE / "queries-2.yaml"  # second batch: each request has a style
QUERIES_3 = HERE / "queries-3.yaml"  # third batch: the big OpenAPI catalogs, each request has a style
QUERY_FILES = (QUERIES, QUERIES_2, QUERIES_3)
# held out: requests written before any ranking was looked at, for judging ranking changes, never tuning
HELDOUT_QUERY_FILES = (
    HERE / "heldout-kubernetes.yaml",
    # issue 19: about half English, half Chinese, for hybrid with a multilingual model
    HERE / "heldout-docker-engine.yaml",
    HERE / "heldout-mastodon.yaml",
    HERE / "heldout-hetzner.yaml",
)
# blind set 4 (issue 32): further real catalogs, requests written and committed before any ranker ran on
# them; the lead's before/after measure of the ranking work (``load(blind="blind4")``), never tuned on
BLIND4_QUERY_FILES = (HERE / "blind4.yaml",)
# blind set 5 (issue 32): nine more such catalogs, the same way (``load(blind="blind5")``), never tuned on
BLIND5_QUERY_FILES = (HERE / "blind5.yaml",)
# blind set 6 (issue 32): ten more such catalogs, the same way (``load(blind="blind6")``), never tuned on
BLIND6_QUERY_FILES = (HERE / "blind6.yaml",)
# blind set 7 (issue 32): ten more such catalogs, MCP-heavy (``load(blind="blind7")``), never tuned on
BLIND7_QUERY_FILES = (HERE / "blind7.yaml",)
# blind set 8 (issue 32): nine more such catalogs, MCP-heavy (``load(blind="blind8")``), never tuned on
BLIND8_QUERY_FILES = (HERE / "blind8.yaml",)
# blind set 9 (issue 32): ten more such catalogs, MCP-heavy (``load(blind="blind9")``), never tuned on
BLIND9_QUERY_FILES = (HERE / "blind9.yaml",)
STYLES = ("direct", "task", "verbose")

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
    "aws-iam": ("openapi", "catalogs/aws-iam.json"),
    "aws-sagemaker": ("openapi", "catalogs/aws-sagemaker.json"),
    "loket": ("openapi", "catalogs/loket.json"),
    "zuora": ("openapi", "catalogs/zuora.json"),
    "bunq": ("openapi", "catalogs/bunq.json"),
    "magento": ("openapi", "catalogs/magento.json"),
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
# the held-out catalogs (only the HELDOUT_QUERY_FILES ask about them; ``load(heldout=True)``)
HELDOUT_CATALOGS: dict[str, tuple[str, str]] = {
    "kubernetes": ("openapi", "catalogs/kubernetes.json"),
    "docker-engine": ("openapi", "catalogs/docker-engine.json"),
    "mastodon": ("openapi", "catalogs/mastodon.json"),
    "hetzner": ("openapi", "catalogs/hetzner.json"),
}
# the catalogs of blind set 4 (only BLIND4_QUERY_FILES ask about them); their MCP snapshots live in
# snapshots-blind4/, out of the snapshots/ folder that the lint and TS206 benchmarks read whole
BLIND4_CATALOGS: dict[str, tuple[str, str]] = {
    "linode": ("openapi", "catalogs/linode.json"),
    "keycloak": ("openapi", "catalogs/keycloak.json"),
    "xero-accounting": ("openapi", "catalogs/xero-accounting.json"),
    "files-com": ("openapi", "catalogs/files-com.json"),
    "peertube": ("openapi", "catalogs/peertube.json"),
    "mcp-todoist": ("mcp", "snapshots-blind4/mcp-todoist.json"),
    "mcp-plane": ("mcp", "snapshots-blind4/mcp-plane.json"),
    "mcp-mapbox": ("mcp", "snapshots-blind4/mcp-mapbox.json"),
    "mcp-airtable-line-pinecone": ("mcp", "snapshots-blind4/mcp-airtable-line-pinecone.json"),
}
# the catalogs of blind set 5 (only BLIND5_QUERY_FILES ask about them); MCP snapshots in snapshots-blind5/
BLIND5_CATALOGS: dict[str, tuple[str, str]] = {
    "data2crm": ("openapi", "catalogs/data2crm.json"),
    "aws-chime": ("openapi", "catalogs/aws-chime.json"),
    "drchrono": ("openapi", "catalogs/drchrono.json"),
    "appcenter": ("openapi", "catalogs/appcenter.json"),
    "reverb": ("openapi", "catalogs/reverb.json"),
    "mcp-datadog": ("mcp", "snapshots-blind5/mcp-datadog.json"),
    "mcp-monday": ("mcp", "snapshots-blind5/mcp-monday.json"),
    "mcp-paddle": ("mcp", "snapshots-blind5/mcp-paddle.json"),
    "mcp-gcal-discord": ("mcp", "snapshots-blind5/mcp-gcal-discord.json"),
}
# the catalogs of blind set 6 (only BLIND6_QUERY_FILES ask about them); MCP snapshots in snapshots-blind6/
BLIND6_CATALOGS: dict[str, tuple[str, str]] = {
    "trakt": ("openapi", "catalogs/trakt.json"),
    "gerermesaffaires": ("openapi", "catalogs/gerermesaffaires.json"),
    "budgea": ("openapi", "catalogs/budgea.json"),
    "telnyx": ("openapi", "catalogs/telnyx.json"),
    "netbox": ("openapi", "catalogs/netbox.json"),
    "mcp-linear": ("mcp", "snapshots-blind6/mcp-linear.json"),
    "mcp-cloudflare": ("mcp", "snapshots-blind6/mcp-cloudflare.json"),
    "mcp-codacy": ("mcp", "snapshots-blind6/mcp-codacy.json"),
    "mcp-launchdarkly": ("mcp", "snapshots-blind6/mcp-launchdarkly.json"),
    "mcp-vapi-lara": ("mcp", "snapshots-blind6/mcp-vapi-lara.json"),
}
# the catalogs of blind set 7 (only BLIND7_QUERY_FILES ask about them); MCP snapshots in snapshots-blind7/
BLIND7_CATALOGS: dict[str, tuple[str, str]] = {
    "meraki": ("openapi", "catalogs/meraki.json"),
    "orthanc": ("openapi", "catalogs/orthanc.json"),
    "clicksend": ("openapi", "catalogs/clicksend.json"),
    "mcp-ms365": ("mcp", "snapshots-blind7/mcp-ms365.json"),
    "mcp-lark": ("mcp", "snapshots-blind7/mcp-lark.json"),
    "mcp-antv-chart": ("mcp", "snapshots-blind7/mcp-antv-chart.json"),
    "mcp-argocd": ("mcp", "snapshots-blind7/mcp-argocd.json"),
    "mcp-amap": ("mcp", "snapshots-blind7/mcp-amap.json"),
    "mcp-mobile": ("mcp", "snapshots-blind7/mcp-mobile.json"),
    "mcp-n8n": ("mcp", "snapshots-blind7/mcp-n8n.json"),
}
# the catalogs of blind set 8 (only BLIND8_QUERY_FILES ask about them); MCP snapshots in snapshots-blind8/
BLIND8_CATALOGS: dict[str, tuple[str, str]] = {
    "jellyfin": ("openapi", "catalogs/jellyfin.json"),
    "xtrf": ("openapi", "catalogs/xtrf.json"),
    "eve-esi": ("openapi", "catalogs/eve-esi.json"),
    "mcp-miro": ("mcp", "snapshots-blind8/mcp-miro.json"),
    "mcp-hostinger": ("mcp", "snapshots-blind8/mcp-hostinger.json"),
    "mcp-ebay": ("mcp", "snapshots-blind8/mcp-ebay.json"),
    "mcp-chatwork": ("mcp", "snapshots-blind8/mcp-chatwork.json"),
    "mcp-qase": ("mcp", "snapshots-blind8/mcp-qase.json"),
    "mcp-variflight-howtocook": ("mcp", "snapshots-blind8/mcp-variflight-howtocook.json"),
}
# the catalogs of blind set 9 (only BLIND9_QUERY_FILES ask about them); MCP snapshots in snapshots-blind9/
BLIND9_CATALOGS: dict[str, tuple[str, str]] = {
    "rubrik": ("openapi", "catalogs/rubrik.json"),
    "apacta": ("openapi", "catalogs/apacta.json"),
    "pi-web-api": ("openapi", "catalogs/pi-web-api.json"),
    "mcp-creem": ("mcp", "snapshots-blind9/mcp-creem.json"),
    "mcp-brightdata": ("mcp", "snapshots-blind9/mcp-brightdata.json"),
    "mcp-cloudbase": ("mcp", "snapshots-blind9/mcp-cloudbase.json"),
    "mcp-browserstack": ("mcp", "snapshots-blind9/mcp-browserstack.json"),
    "mcp-coolify": ("mcp", "snapshots-blind9/mcp-coolify.json"),
    "mcp-grafana": ("mcp", "snapshots-blind9/mcp-grafana.json"),
    "mcp-metabase": ("mcp", "snapshots-blind9/mcp-metabase.json"),
}
#: blind set name -> (its request files, its catalogs): one row a set, for load(blind=...),
#: check_labels and ``python -m benchmarks real --sets blindN``
BLIND_SETS: dict[str, tuple[tuple[Path, ...], dict[str, tuple[str, str]]]] = {
    "blind4": (BLIND4_QUERY_FILES, BLIND4_CATALOGS),
    "blind5": (BLIND5_QUERY_FILES, BLIND5_CATALOGS),
    "blind6": (BLIND6_QUERY_FILES, BLIND6_CATALOGS),
    "blind7": (BLIND7_QUERY_FILES, BLIND7_CATALOGS),
    "blind8": (BLIND8_QUERY_FILES, BLIND8_CATALOGS),
    "blind9": (BLIND9_QUERY_FILES, BLIND9_CATALOGS),
}
KNOWN_CATALOGS = {**CATALOGS, **HELDOUT_CATALOGS}
for _files, _catalogs in BLIND_SETS.values():
    KNOWN_CATALOGS.update(_catalogs)


@dataclass
class Entry:
    id: str
    group: str
    path: Path
    catalog: Any  # toolsearch_cli's Catalog
    queries: list[tuple[str, set[str]]] = field(default_factory=list)
    styles: list[str | None] = field(default_factory=list)  # parallel to queries


@dataclass
class Request:
    catalog: str
    query: str
    relevant: set[str]
    style: str | None  # one of STYLES, or None when the file gives none
    source: str  # the file's name


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    if cache_dir is None:
        cache_dir = os.environ.get("TOOLSEARCH_BENCH_CACHE") or Path.home() / ".cache" / "toolsearch-bench" / "real"
    return Path(cache_dir).expanduser()


def source_path(cid: str, cache_dir: str | os.PathLike[str] | None = None) -> Path:
    group, source = KNOWN_CATALOGS[cid]
    return HERE / source if group == "mcp" else cache_root(cache_dir) / source


def read_requests(paths: Path | tuple[Path, ...] | list[Path] = QUERY_FILES) -> list[Request]:
    """Every request of the given files, in file order; a missing file gives none.

    Malformed entries are errors: each must have exactly catalog, query and relevant, plus an
    optional style (one of STYLES); the catalog must be known, the query a non-empty string and
    relevant a non-empty list of names; the same (catalog, query) may appear only once across
    all the files read.
    """
    if isinstance(paths, Path):
        paths = (paths,)
    requests: list[Request] = []
    seen: dict[tuple[str, str], str] = {}
    for path in paths:
        if not path.is_file():
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        if not isinstance(data, list):
            raise ValueError(f"{path.name}: must be a list of requests")
        for i, item in enumerate(data):
            keys = set(item) if isinstance(item, dict) else set()
            if keys not in ({"catalog", "query", "relevant"}, {"catalog", "query", "relevant", "style"}):
                raise ValueError(
                    f"{path.name}: entry {i} must have exactly catalog, query, relevant (style optional): {item!r}"
                )
            if item["catalog"] not in KNOWN_CATALOGS:
                raise ValueError(f"{path.name}: entry {i}: unknown catalog {item['catalog']!r}")
            query = item["query"]
            if not isinstance(query, str) or not query.strip():
                raise ValueError(f"{path.name}: entry {i}: query must be a non-empty string")
            relevant = item["relevant"]
            if not isinstance(relevant, list) or not relevant or not all(isinstance(r, str) for r in relevant):
                raise ValueError(f"{path.name}: entry {i}: relevant must be a non-empty list of names")
            style = item.get("style")
            if "style" in item and style not in STYLES:
                raise ValueError(f"{path.name}: entry {i}: style must be one of {', '.join(STYLES)}, not {style!r}")
            key = (item["catalog"], query.strip())
            if key in seen:
                raise ValueError(f"{path.name}: entry {i}: request {query.strip()!r} already in {seen[key]}")
            seen[key] = path.name
            requests.append(Request(item["catalog"], query.strip(), set(relevant), style, path.name))
    return requests


def read_queries(
    paths: Path | tuple[Path, ...] | list[Path] = QUERY_FILES,
) -> dict[str, list[tuple[str, set[str]]]]:
    """catalog id -> [(query, relevant names)], in file order (queries.yaml, queries-2.yaml, queries-3.yaml)."""
    found: dict[str, list[tuple[str, set[str]]]] = {cid: [] for cid in CATALOGS}
    for request in read_requests(paths):
        found[request.catalog].append((request.query, request.relevant))
    return found


def load(
    cache_dir: str | os.PathLike[str] | None = None,
    only: set[str] | None = None,
    heldout: bool = False,
    blind: str | None = None,
) -> list[Entry]:
    """Every catalog (or those in ``only``) with its requests; a missing file says to run fetch.py.

    ``heldout``: the held-out catalogs and the requests of HELDOUT_QUERY_FILES instead; ``blind``
    (``"blind4"`` to ``"blind9"``): that blind set's catalogs and requests (BLIND_SETS).
    """
    from toolsearch_cli import load_catalog

    if blind is not None:
        files, catalogs = BLIND_SETS[blind]
        requests = read_requests(files)
    elif heldout:
        requests, catalogs = read_requests(HELDOUT_QUERY_FILES), HELDOUT_CATALOGS
    else:
        requests, catalogs = read_requests(QUERY_FILES), CATALOGS
    entries = []
    for cid, (group, _) in catalogs.items():
        if only and cid not in only:
            continue
        path = source_path(cid, cache_dir)
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: run python -m benchmarks fetch")
        mine = [r for r in requests if r.catalog == cid]
        entry = Entry(cid, group, path, load_catalog([str(path)]))
        entry.queries = [(r.query, r.relevant) for r in mine]
        entry.styles = [r.style for r in mine]
        entries.append(entry)
    return entries


def tool_names(catalog: Any) -> list[str]:
    return [t.name for t in catalog.tools]


def check_labels(cache_dir: str | os.PathLike[str] | None = None, only: set[str] | None = None) -> int:
    """Load every catalog and check each label names one of its tools; print a summary table.

    ``requests`` counts all files; ``first``, ``second`` and ``third`` are the requests of
    queries.yaml, queries-2.yaml and queries-3.yaml, ``held out`` those of HELDOUT_QUERY_FILES and
    each blind set's (BLIND_SETS) those of its files (those catalogs come last); the style columns
    count the styled ones.
    """
    problems = 0
    labels = 0
    columns = ("requests", "first", "second", "third", "held out", *BLIND_SETS, *STYLES)
    every_file = QUERY_FILES + HELDOUT_QUERY_FILES + tuple(f for files, _ in BLIND_SETS.values() for f in files)
    sources = {(request.catalog, request.query): request.source for request in read_requests(every_file)}
    heldout_names = {path.name for path in HELDOUT_QUERY_FILES}
    blind_names = {name: {path.name for path in files} for name, (files, _) in BLIND_SETS.items()}
    totals = dict.fromkeys(columns, 0)
    print("| catalog | group | tools | " + " | ".join(columns) + " |")
    print("|---|---|---:|" + "---:|" * len(columns))
    everything = load(cache_dir, only) + load(cache_dir, only, heldout=True)
    for name in BLIND_SETS:
        everything += load(cache_dir, only, blind=name)
    for entry in everything:
        names = set(tool_names(entry.catalog))
        for query, relevant in entry.queries:
            labels += len(relevant)
            for name in sorted(relevant - names):
                print(f"error: {entry.id}: {query!r}: {name!r} is not a tool of the catalog", file=sys.stderr)
                problems += 1
        files = [sources[entry.id, query] for query, _ in entry.queries]
        counts = {
            "requests": len(entry.queries),
            "first": files.count(QUERIES.name),
            "second": files.count(QUERIES_2.name),
            "third": files.count(QUERIES_3.name),
            "held out": sum(1 for f in files if f in heldout_names),
            **{name: sum(1 for f in files if f in names) for name, names in blind_names.items()},
            **{style: entry.styles.count(style) for style in STYLES},
        }
        for key, value in counts.items():
            totals[key] += value
        print(f"| {entry.id} | {entry.group} | {len(names)} | " + " | ".join(str(counts[c]) for c in columns) + " |")
    print("| total | | | " + " | ".join(str(totals[c]) for c in columns) + " |")
    if problems:
        print(f"{problems} of {labels} labels name no tool of their catalog", file=sys.stderr)
    else:
        print(f"all {labels} labels name a tool of their catalog")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(check_labels(sys.argv[1] if len(sys.argv) > 1 else None))
