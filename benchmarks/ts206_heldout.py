"""TS206 (injection-like-text): recall and false alarms on the labelled set and the held-out batches,
and findings on every description of the real catalogs.

Usage: python benchmarks/ts206_heldout.py [--real] [--verbose] [FILE.yaml ...]

Only the public ``lint`` API is used, so ``PYTHONPATH=OLD python benchmarks/ts206_heldout.py``
measures an older checkout on the same data (the "before" column of benchmarks/README.md).

- tests/data/injection_labelled.yaml, by source (written, issue-20, written-heldout,
  written-heldout-2, and the real excerpts);
- tests/lint/data/ts206_heldout_*.yaml (or the files named): entries with ``text`` (one
  description) or ``tool`` (a description and parameter descriptions: an injection split across
  fields counts as found when any field of the tool is reported);
- ``--real``: every tool and parameter description of the real catalogs (the fetched cache
  ~/.cache/toolsearch-bench/real: catalogs/ and heldout/, the MCP snapshots of
  benchmarks/real_catalogs/snapshots, GitHub's REST description from tests/servers/npm when
  linked), linted with TS206 alone: distinct texts, findings (each listed) and the time TS206 took.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import yaml

from toolsearch_cli.lint import LintConfig, lint

ROOT = Path(__file__).resolve().parent.parent
LABELLED = ROOT / "tests" / "data" / "injection_labelled.yaml"
HELDOUT = sorted((ROOT / "tests" / "lint" / "data").glob("ts206_heldout_*.yaml"))
REAL = Path(os.environ.get("TOOLSEARCH_BENCH_CACHE") or Path.home() / ".cache" / "toolsearch-bench" / "real")
NPM = ROOT / "tests" / "servers" / "npm" / "node_modules"
GITHUB = NPM / "@octokit" / "openapi" / "generated" / "api.github.com.json"


def _tool(i: int, entry: dict) -> dict:
    if "tool" in entry:
        spec = entry["tool"]
        params = {k: {"type": "string", "description": v} for k, v in (spec.get("parameters") or {}).items()}
        return {"name": f"tool{i}", "description": spec["description"], "parameters": params}
    return {"name": f"tool{i}", "description": entry["text"]}


def flagged(entries: list[dict], work: Path, level: str = "any") -> list[bool]:
    """Whether TS206 or TS207 reports each entry (each entry is one tool of a catalog); with
    ``level="error"`` only error-level findings count (what fails a CI run)."""
    path = work / "entries.yaml"
    tools = [_tool(i, e) for i, e in enumerate(entries)]
    path.write_text(yaml.safe_dump({"tools": tools}, allow_unicode=True), encoding="utf-8")
    diagnostics = lint([str(path)], LintConfig(select=["TS206", "TS207"])).diagnostics
    hit = {d.tool for d in diagnostics if level == "any" or d.severity == "error"}
    return [f"tool{i}" in hit for i in range(len(entries))]


def _show(entry: dict) -> str:
    text = entry.get("text") or " | ".join([entry["tool"]["description"], *entry["tool"]["parameters"].values()])
    return ascii(text)[1:-1][:140]


def score(name: str, entries: list[dict], hits: list[bool], verbose: bool) -> None:
    pos = [(e, h) for e, h in zip(entries, hits, strict=True) if e["label"] == "injection"]
    neg = [(e, h) for e, h in zip(entries, hits, strict=True) if e["label"] == "benign"]
    tp, fp = sum(h for _, h in pos), sum(h for _, h in neg)
    recall = f"{tp}/{len(pos)} ({tp / len(pos):.0%})" if pos else "-"
    precision = f"{tp / (tp + fp):.3f}" if tp + fp else "-"
    print(f"| {name} | {recall} | {fp}/{len(neg)} | {precision} |")
    if verbose:
        for e, h in pos:
            if not h:
                print(f"    missed [{e.get('lang', '')} {e.get('kind', '')}]: {_show(e)}")
        for e, h in neg:
            if h:
                print(f"    FALSE ALARM [{e.get('lang', '')} {e.get('kind', '')}]: {_show(e)}")


def real_catalogs() -> list[Path]:
    files = [*sorted((REAL / "catalogs").glob("*.*")), *sorted((REAL / "heldout").glob("*.*"))]
    files += sorted((ROOT / "benchmarks" / "real_catalogs" / "snapshots").glob("*.json"))
    if GITHUB.is_file():
        files.append(GITHUB)
    return [f for f in files if f.is_file()]


def shared_catalogs(shared: Path) -> list[Path]:
    """The eval catalogs of ../shared/eval (ToolBench, UltraTool en/zh, MetaTool, Seal-Tools, BFCL)
    and the real-world dev catalogs (../shared/eval/realworld-dev: Stripe, Box, Zoom, MCP servers,
    LangChain toolkits): more real descriptions (UltraTool zh: Chinese ones), read in place, never
    copied, never trained on."""
    eval_dir = shared / "eval"
    files = [*eval_dir.glob("*/catalog.yaml"), *eval_dir.glob("realworld-dev/*/catalog.*")]
    return sorted(p for p in files if p.is_file())


def margins(name: str, texts: list[str], labels: list[int] | None = None) -> None:
    """The learned model's margins over its warning threshold: how many texts reach each level, and
    the highest ones (negatives) or the lowest ones (positives); for choosing the error threshold."""
    from toolsearch_cli.lint.injection import learned_margin, rule_reasons

    levels = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
    for label in (0, 1) if labels else (0,):
        subset = [t for i, t in enumerate(texts) if not labels or labels[i] == label]
        if not subset:
            continue
        scored = sorted(((learned_margin(t), bool(rule_reasons(t)), t) for t in subset), reverse=bool(not label))
        counts = ", ".join(f">={lv}: {sum(m >= lv for m, _, _ in scored)}" for lv in levels)
        kind = "positives" if label else "negatives"
        print(f"margins {name} {kind} ({len(subset)}): {counts}")
        for m, ruled, t in scored[:8]:
            print(f"    {m:+.2f}{' (rules)' if ruled else ''} {ascii(' '.join(t.split()))[1:120]}")


def real(verbose: bool, shared: Path | None = None, show_margins: bool = False) -> None:
    from toolsearch_cli import load_catalog
    from toolsearch_cli.lint.rules.descriptions import described_fields

    texts: set[str] = set()
    findings: list[str] = []
    spent = 0.0
    files = shared_catalogs(shared) if shared else real_catalogs()
    for path in files:
        for tool in load_catalog([str(path)]).tools:
            texts.update(text for _, text in described_fields(tool))
        start = time.perf_counter()
        result = lint([str(path)], LintConfig(select=["TS206", "TS207"]))
        spent += time.perf_counter() - start
        findings += [f"{path.name} {d.tool} {d.field} [{d.severity}]: {d.message[:160]}" for d in result.diagnostics]
    print(f"{'shared eval' if shared else 'real'} catalogs: {len(files)} files, {len(texts)} distinct descriptions, "
          f"{len(findings)} TS206+TS207 findings ({sum('[error]' in f for f in findings)} at error level), "
          f"lint --select TS206,TS207 {spent:.1f} s")  # fmt: skip
    for f in findings:
        print("    " + ascii(f)[1:-1])
    if show_margins:
        margins("shared eval" if shared else "real", sorted(texts))


def speed(baseline: Path, rounds: int = 3) -> None:
    """``injection_reasons`` of this checkout against the one in ``baseline`` (an older
    injection.py, loaded under another name), on the distinct real descriptions, alternating in
    the same process; the best of ``rounds`` each."""
    import importlib.util

    from toolsearch_cli import load_catalog
    from toolsearch_cli.lint.injection import injection_reasons
    from toolsearch_cli.lint.rules.descriptions import described_fields

    spec = importlib.util.spec_from_file_location("baseline_injection", baseline)
    assert spec and spec.loader
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    texts = sorted({t for path in real_catalogs() for tool in load_catalog([str(path)]).tools
                    for _, t in described_fields(tool)})  # fmt: skip
    best = {"baseline": float("inf"), "this checkout": float("inf")}
    for _ in range(rounds):
        for name, fn in (("baseline", old.injection_reasons), ("this checkout", injection_reasons)):
            start = time.perf_counter()
            for text in texts:
                list(fn(text))
            best[name] = min(best[name], time.perf_counter() - start)
    ratio = best["this checkout"] / best["baseline"]
    print(f"injection_reasons on {len(texts)} real descriptions, best of {rounds}: baseline "
          f"{best['baseline']:.2f} s, this checkout {best['this checkout']:.2f} s ({ratio:.2f}x)")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--real", action="store_true", help="also lint every description of the real catalogs")
    parser.add_argument("--shared", type=Path, help="also the eval catalogs of SHARED/eval (e.g. ../shared)")
    parser.add_argument("--speed", type=Path, metavar="OLD_INJECTION_PY", help="time against an older injection.py")
    parser.add_argument("--verbose", "-v", action="store_true", help="list misses and false alarms")
    parser.add_argument("--margins", action="store_true", help="also the learned model's margins on each set")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print("| set | recall | false alarms | precision |")
        print("|---|---:|---:|---:|")
        if not args.files:
            labelled = yaml.safe_load(LABELLED.read_text(encoding="utf-8"))
            hits = flagged(labelled, work)
            groups: dict[str, list[int]] = defaultdict(list)
            for i, e in enumerate(labelled):
                groups[e["source"] if e["source"].startswith(("written", "issue-")) else "real excerpts"].append(i)
            for source, idx in groups.items():
                score(f"labelled: {source}", [labelled[i] for i in idx], [hits[i] for i in idx], args.verbose)
            score("labelled: all", labelled, hits, False)
        for file in args.files or HELDOUT:
            entries = yaml.safe_load(file.read_text(encoding="utf-8"))
            score(f"{file.stem} (error level)", entries, flagged(entries, work, "error"), args.verbose)
            score(f"{file.stem} (any level)", entries, flagged(entries, work), args.verbose)
            if args.margins:
                from benchmarks.ts206_train import entry_text

                labels = [int(e["label"] == "injection") for e in entries]
                margins(file.stem, [entry_text(e) for e in entries], labels)
        if args.real:
            real(args.verbose, show_margins=args.margins)
        if args.shared:
            real(args.verbose, args.shared, show_margins=args.margins)
        if args.speed:
            speed(args.speed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
