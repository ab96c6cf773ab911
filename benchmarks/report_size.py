"""HTML reports (issue 36): the size of ``eval --report`` on a 500-query eval and the time headless
Chromium takes to load and paint it, against a blank page loaded the same way.

The eval is ``ultratool_en`` of ``../shared/eval`` (436 tools, 500 queries) under the rankers
given (default ``default,classic``: two recall curves, two misses tables of up to 200 rows);
without ``../shared``, the shipped demo catalog's 186 examples repeated to 500 queries (said in
the output). The report is written with ``toolsearch eval --report`` in this process's library
(:func:`toolsearch_cli.htmlreport.eval_html`), then opened ``--runs`` times in one headless
Chromium (Debian's ``chromium``; tests/browser.py drives it over the DevTools pipe): the time
from navigation to the load event, and to the second animation frame after it (laid out and
painted). The blank page is a one-line HTML file, loaded the same number of times, alternating.
Also the ``simulate --report`` of the shipped English scenario under both policies.

Targets: the eval report under 2 MB and painted in under 2 s here.

Run: ``python -m benchmarks report-size [--rankers default,classic] [--runs 5]``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from benchmarks import options

ROOT = options.ROOT
SIZE_TARGET = 2 * 1024 * 1024
SECONDS_TARGET = 2.0


def _eval_report(shared: Path, rankers: str, folder: Path) -> tuple[Path, str, float]:
    from toolsearch_cli.evaluate import EvalSettings, run_eval
    from toolsearch_cli.htmlreport import eval_html, write_report

    ultratool = shared / "eval" / "ultratool_en"
    if (ultratool / "queries.yaml").is_file():
        settings = EvalSettings.from_options(
            ranker=rankers, catalog=[str(ultratool / "catalog.yaml")], queries=ultratool / "queries.yaml"
        )
        what = "ultratool_en (../shared/eval): 436 tools, 500 queries"
    else:
        import yaml

        from toolsearch_cli import load_catalog

        catalog = load_catalog([str(ROOT / "catalogs" / "demo")])
        examples = [(t.name, e) for t in catalog.searchable() for e in t.examples]
        queries = [
            {"id": f"q{i}", "query": examples[i % len(examples)][1], "relevant": [examples[i % len(examples)][0]]}
            for i in range(500)
        ]
        path = folder / "queries.yaml"
        path.write_text(yaml.safe_dump(queries, allow_unicode=True), encoding="utf-8")
        settings = EvalSettings.from_options(ranker=rankers, catalog=[str(ROOT / "catalogs" / "demo")], queries=path)
        what = f"no ../shared: the demo catalog's {len(examples)} examples repeated to 500 queries"
    report = run_eval(settings)
    started = time.perf_counter()
    document = eval_html(report)
    seconds = time.perf_counter() - started
    out = folder / "eval.html"
    write_report(out, document)
    return out, f"{what}; rankers {rankers}", seconds


def _simulate_report(folder: Path) -> Path:
    from toolsearch_cli.htmlreport import simulate_html, write_report
    from toolsearch_cli.simulate import SimulateSettings, run_simulation

    script = str(ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml")
    result = run_simulation(SimulateSettings(script=script, policy="latest,cumulative"))
    out = folder / "simulate.html"
    write_report(out, simulate_html(result))
    return out


def main() -> None:
    p = options.parser(__doc__)
    options.add_shared(p)
    options.add_rankers(p, "default,classic")
    p.add_argument("--runs", type=int, default=5, help="loads of each page (default 5)")
    args = p.parse_args()
    from tests.browser import DevTools, chromium_binary

    with tempfile.TemporaryDirectory(prefix="report-size-") as tmp:
        folder = Path(tmp)
        report, what, build_seconds = _eval_report(Path(args.shared), args.rankers, folder)
        sim = _simulate_report(folder)
        blank = folder / "blank.html"
        blank.write_text("<!DOCTYPE html><title>blank</title><p>blank</p>\n", encoding="utf-8")
        size = report.stat().st_size
        print(f"\n### HTML report of a 500-query eval ({what})\n")
        print(f"- eval report: {size:,} bytes ({size / 1024 / 1024:.2f} MB; target under 2 MB) — "
              f"{'met' if size < SIZE_TARGET else 'NOT met'}; built in {build_seconds * 1000:.0f} ms")  # fmt: skip
        print(f"- simulate report (weather-email.en, latest + cumulative): {sim.stat().st_size:,} bytes")
        binary = chromium_binary()
        if binary is None:
            print("- no Chromium installed: load and paint times not measured (apt-get install chromium)")
            return
        loads: dict[str, list[tuple[float, float]]] = {"blank": [], "eval": [], "simulate": []}
        errors: list[str] = []
        with DevTools(binary) as browser:
            browser.load(blank)  # warm the browser (its first tab)
            for _ in range(args.runs):
                for name, path in (("blank", blank), ("eval", report), ("simulate", sim)):
                    page = browser.load(path)
                    errors += page.errors
                    loads[name].append((page.load_seconds, page.painted_seconds))
        print(f"\n| page | median load ms | median painted ms | max painted ms | ({args.runs} loads each, alternating)")
        print("|---|---:|---:|---:|")
        for name, runs in loads.items():
            load = statistics.median(r[0] for r in runs)
            painted = statistics.median(r[1] for r in runs)
            print(f"| {name} | {load * 1000:.0f} | {painted * 1000:.0f} | {max(r[1] for r in runs) * 1000:.0f} |")
        worst = max(r[1] for r in loads["eval"])
        blank_painted = statistics.median(r[1] for r in loads["blank"])
        eval_painted = statistics.median(r[1] for r in loads["eval"])
        print(
            f"\n- eval report painted in {eval_painted * 1000:.0f} ms median, {worst * 1000:.0f} ms at worst "
            f"({eval_painted / blank_painted:.1f}x the blank page; target under 2 s) — "
            f"{'met' if worst < SECONDS_TARGET else 'NOT met'}"
        )
        print(f"- console and log errors over all loads: {len(errors)}" + (f": {errors[:3]}" if errors else ""))


if __name__ == "__main__":
    main()
