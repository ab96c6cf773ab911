"""Load time of one catalog in every format, as a ratio to toolsearch's own YAML measured in the same run.

    python -m benchmarks formats                  # the demo catalog in yaml/openai/anthropic/mcp, plus OpenAPI
    python -m benchmarks formats --mcp            # also a live stdio MCP server (needs the [mcp] extra)

Each figure is the median of --repeat loads (default 15) after one warm-up load.
"""

from __future__ import annotations

import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import options
from toolsearch_cli.catalog import load_catalog
from toolsearch_cli.catalog.export import EXPORTER_BY_NAME, export_catalog
from toolsearch_cli.model import Catalog

ROOT = Path(__file__).resolve().parent.parent


def median_ms(source: str, repeat: int) -> tuple[float, int]:
    count = len(load_catalog(source))  # warm-up (imports, caches)
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        load_catalog(source)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), count


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--mcp", action="store_true", help="also load a live stdio MCP server (slow: starts Python)")
    args = parser.parse_args()
    demo = load_catalog(str(ROOT / "catalogs" / "demo"))
    with tempfile.TemporaryDirectory() as tmp:
        rows: list[tuple[str, str]] = []
        for fmt in EXPORTER_BY_NAME:
            path = Path(tmp) / f"demo.{fmt}{'.yaml' if fmt == 'yaml' else '.json'}"
            path.write_text(export_catalog(demo, fmt), encoding="utf-8")
            rows.append((f"demo as {fmt} ({path.stat().st_size // 1024} KiB)", str(path)))
        big = Catalog(tools=[t.copy_with(name=f"{t.name}_{i}") for i in range(40) for t in demo.tools])
        path = Path(tmp) / "demo-x40.openai.json"
        path.write_text(export_catalog(big, "openai"), encoding="utf-8")
        rows.append((f"demo x40 as openai ({path.stat().st_size // 1024} KiB)", str(path)))
        rows.append(("helpdesk OpenAPI (YAML, 21 operations)", str(ROOT / "tests" / "data" / "helpdesk_openapi.yaml")))
        if args.mcp:
            server = shlex.quote(str(ROOT / "tests" / "servers" / "weather_server.py"))
            rows.append(("live MCP server over stdio (4 tools)", f"mcp+stdio:{shlex.quote(sys.executable)} {server}"))
        measured = []
        for label, source in rows:
            measured.append((label, *median_ms(source, 3 if source.startswith("mcp+") else args.repeat)))
        baseline = measured[0][1]
        print(f"{'source':<48} {'tools':>5} {'ms':>9} {'x yaml':>8}")
        for label, ms, count in measured:
            print(f"{label:<48} {count:>5} {ms:>9.2f} {ms / baseline:>8.2f}")


if __name__ == "__main__":
    main()
