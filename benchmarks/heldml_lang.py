"""Issue 19's held-out check by language: ``default`` vs ``hybrid`` on the held-out real catalogs,
English and Chinese requests apart.

Usage (an embedding model as for weight_sweep.py; the vector cache makes re-runs cheap):

    python benchmarks/heldml_lang.py --embed-base-url http://127.0.0.1:8767/v1 \\
        --embed-model use-multilingual-v3-onnx --embed-multilingual --weights 0.5,0.4
    python benchmarks/heldml_lang.py --embed-model ~/models/all-MiniLM-L6-v2-onnx --weights 0.5

A request is Chinese when its text has a CJK character, English otherwise (the held-out files have
no language key). Prints R@5 / MRR (depth 10) per catalog and language, then pooled over requests:
the issue-19 catalogs (Docker Engine, Mastodon, Hetzner) by language, and every held-out request.
Same scoring as weight_sweep.py: ``default``'s list once per request, ``hybrid`` through its own
``search`` with ``EmbedSettings(weight=W)``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "real_catalogs"))

import dataset  # noqa: E402
from multiq import _MemoLexical  # noqa: E402
from weight_sweep import add_model_arguments, model_settings, per_request  # noqa: E402

from toolsearch_cli.search.embed import has_cjk  # noqa: E402

ISSUE_19 = ("docker-engine", "mastodon", "hetzner")


def language(text: str) -> str:
    return "zh" if has_cjk(text) else "en"


def cells(runs: list[list[tuple[float, float]]]) -> str:
    return " | ".join(
        f"{statistics.fmean(m[0] for m in run):.3f} / {statistics.fmean(m[1] for m in run):.3f}" for run in runs
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_model_arguments(parser, "0.5,0.4")
    args = parser.parse_args()
    embed, weights = model_settings(args)
    lexical = _MemoLexical()
    header = "| default | " + " | ".join(f"hybrid w={w:g}" for w in weights) + " |"
    print("| catalog | language | requests " + header)
    print("|---|---|---:|" + "---|" * (len(weights) + 1))
    # (catalog, language) -> one list of per-request (R@5, MRR) per run: default, then each weight
    found: dict[tuple[str, str], list[list[tuple[float, float]]]] = {}
    for entry in dataset.load(heldout=True):
        for lang in ("en", "zh"):
            queries = [(q, set(r)) for q, r in entry.queries if language(q) == lang]
            if not queries:
                continue
            runs = per_request(entry.catalog, queries, embed, weights, lexical)
            found[entry.id, lang] = runs
            print(f"| {entry.id} | {lang} | {len(queries)} | {cells(runs)} |", flush=True)
    print("\n| pooled over requests | requests " + header)
    print("|---|---:|" + "---|" * (len(weights) + 1))
    pools = [
        ("issue-19 catalogs, English", [k for k in found if k[0] in ISSUE_19 and k[1] == "en"]),
        ("issue-19 catalogs, Chinese", [k for k in found if k[0] in ISSUE_19 and k[1] == "zh"]),
        ("issue-19 catalogs, all", [k for k in found if k[0] in ISSUE_19]),
        ("every held-out request, English", [k for k in found if k[1] == "en"]),
        ("every held-out request", list(found)),
    ]
    for label, keys in pools:
        if not keys:
            continue
        runs = [[m for k in keys for m in found[k][i]] for i in range(len(weights) + 1)]
        print(f"| {label} | {len(runs[0])} | {cells(runs)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
