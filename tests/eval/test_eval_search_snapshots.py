"""``toolsearch eval`` and ``search`` on the demo catalog: exit code, stdout and stderr pinned.

The snapshots were written by the commands as they were before they became options -> settings ->
``run_eval``/``run_search`` -> render (issue 21), so the refactoring is held to the same bytes.
The clock is frozen (``ms/q`` 0.00) and paths are replaced by placeholders.
Set TOOLSEARCH_UPDATE_SNAPSHOTS=1 to rewrite the snapshot files after an intended change.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

SNAPSHOTS = Path(__file__).parent.parent / "snapshots" / "eval_search"
ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "catalogs" / "demo")

LOG = """\
{"event":"search","session":"s1","query":"refund an order"}
{"event":"call","session":"s1","tool":"cancelOrder","rank":2}
{"event":"search","session":"s1","query":"weather tomorrow in Paris"}
{"event":"call","session":"s1","tool":"getForecast","rank":1}
{"event":"search","session":"s2","query":"tell the team"}
{"event":"call","session":"s2","tool":"noSuchTool"}
"""

QUERIES = """\
- id: a
  query: weather forecast for Paris
  relevant: [getForecast]
  subset: w
- id: b
  query: send the team a message
  relevant: [notAToolHere]
- id: c
  query: cancel my order
  relevant: [cancelOrder]
  kind: shop
"""

CASES: dict[str, list[str]] = {
    "eval_examples": ["eval", "-c", DEMO],
    "eval_json_by_failures": ["eval", "-c", DEMO, "-f", "json", "--by", "subset", "--failures", "2"],
    "eval_table_category_failures": [
        *("eval", "-c", DEMO, "--category-field", "category", "-r", "default,classic"),
        *("--by", "category", "--failures", "1", "--k", "1,3"),
    ],
    "eval_save": ["eval", "-c", DEMO, "-r", "classic", "--k", "1,5", "--save", "{tmp}/run.json"],
    "eval_baseline_gates": [
        *("eval", "-c", DEMO, "-r", "default,classic", "--baseline", "{tmp}/run.json"),
        *("--min", "recall@5=0.5", "--min", "classic:mrr=0.99"),
    ],
    "eval_baseline_json": [
        *("eval", "-c", DEMO, "-r", "default,classic", "--baseline", "{tmp}/run.json"),
        *("--diff-k", "1", "-f", "json", "--min", "mrr=0.1"),
    ],
    "eval_from_log": ["eval", "-c", DEMO, "--from-log", "{tmp}/log.jsonl", "-f", "json", "--k", "1,5"],
    "eval_skipped": ["eval", "-c", DEMO, "-q", "{tmp}/queries.yaml", "--by", "kind"],
    "eval_both_sources": ["eval", "-c", DEMO, "--from-log", "{tmp}/log.jsonl", "-q", "{tmp}/queries.yaml"],
    "eval_diff_k_alone": ["eval", "-c", DEMO, "--diff-k", "3"],
    "search_explain": ["search", "send an email to bob", "-c", DEMO, "--explain", "-n", "3"],
    "search_json_context": ["search", "create user", "-c", DEMO, "--context", "role=admin", "-f", "json"],
    "search_nothing": ["search", "zzzqqq frobnicate", "-c", DEMO],
    "search_unmatched": ["search", "weather quokka", "-c", DEMO],
    "search_bad_category": ["search", "list", "-c", DEMO, "--category", "wether"],
    "search_zero": ["search", "x", "-c", DEMO, "-n", "0"],
}


@pytest.fixture
def frozen_clock(monkeypatch):
    """Every ``time.perf_counter()`` the commands read is 0: timings print as 0.00."""
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)


def _run_case(run_cli, tmp_path: Path, args: list[str]) -> str:
    (tmp_path / "log.jsonl").write_text(LOG, encoding="utf-8")
    (tmp_path / "queries.yaml").write_text(QUERIES, encoding="utf-8")
    result = run_cli(*(a.replace("{tmp}", str(tmp_path)) for a in args))
    text = f"exit {result.code}\n--- stdout\n{result.stdout}--- stderr\n{result.stderr}"
    return text.replace(str(tmp_path), "TMP").replace(DEMO, "DEMO")


def _check(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("TOOLSEARCH_UPDATE_SNAPSHOTS"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_each_case_matches_its_snapshot(run_cli, tmp_path, frozen_clock):
    """In order: the save case writes the run the baseline cases read."""
    for name, args in CASES.items():
        _check(name, _run_case(run_cli, tmp_path, args))


def test_the_saved_run_matches_its_snapshot(run_cli, tmp_path, frozen_clock):
    import json

    _run_case(run_cli, tmp_path, CASES["eval_save"])
    doc = json.loads((tmp_path / "run.json").read_text(encoding="utf-8"))
    assert doc.pop("created").endswith("Z")
    _check("saved_run.json", json.dumps(doc, ensure_ascii=False, indent=1).replace(DEMO, "DEMO") + "\n")
