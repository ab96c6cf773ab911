"""Where the default ranker puts the right operation of GitHub's REST API for plain requests.

Usage:
    npm pack @octokit/openapi@23.0.2 && tar xzf octokit-openapi-23.0.2.tgz   # GitHub's own OpenAPI document
    python benchmarks/github_queries.py package/generated/api.github.com.json [--variants current,no-title]
        [--embed-model FOLDER]   # adds the embedding and hybrid rankers as columns

The requests below were written for this probe (by this project, from the GitHub REST docs'
vocabulary, not from the operations' summaries); each names the operation a user means. Prints
the rank of that operation (1 = first; "-" = not in the top 20) per variant of
benchmarks/ablate.py, and the mean reciprocal rank.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ablate  # noqa: E402

from toolsearch_cli import load_catalog  # noqa: E402

REQUESTS = [
    ("create an issue", "issues_create"),
    ("add a comment to an issue", "issues_create-comment"),
    ("list pull requests", "pulls_list"),
    ("merge a pull request", "pulls_merge"),
    ("star a repository", "activity_star-repo-for-authenticated-user"),
    ("publish a new release", "repos_create-release"),
    ("list the commits of a repository", "repos_list-commits"),
    ("fork a repository", "repos_create-fork"),
    ("get the readme of a repository", "repos_get-readme"),
    ("create a gist", "gists_create"),
    ("add labels to an issue", "issues_add-labels"),
    ("ask someone to review my pull request", "pulls_request-reviewers"),
    ("lock an issue conversation", "issues_lock"),
    ("create a webhook for a repository", "repos_create-webhook"),
    ("who am I (the authenticated user)", "users_get-authenticated"),
    ("list the collaborators of a repository", "repos_list-collaborators"),
    ("download a repository archive as a zip", "repos_download-zipball-archive"),
    ("list the branches of a repository", "repos_list-branches"),
    ("search code on GitHub", "search_code"),
    ("cancel a workflow run", "actions_cancel-workflow-run"),
]

VARIANTS = {
    **ablate.VARIANTS,
    # the description of a titled tool back in the description field (as if there were no title)
    "no title field": {"spec_title": (0.0, 1.0), "spec_details": (1.0, 0.75, math.inf)},
    "before (no title field)": {
        **ablate.VARIANTS["before"],
        "spec_title": (0.0, 1.0),
        "spec_details": (1.0, 0.75, math.inf),
    },
    "title 2": {"spec_title": (2.0, 1.0)},
    "title b 0.75": {"spec_title": (3.0, 0.75)},
    "details uncapped": {"spec_details": (1.0, 0.75, math.inf)},
}


def rank_of(expected: str, found: list[str]) -> int | None:
    """1 for the first place; ``None`` when not found."""
    return found.index(expected) + 1 if expected in found else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("document")
    parser.add_argument("--variants", default="before (no title field),no title field,details uncapped,title 2,current")
    parser.add_argument("--embed-model", help="a local embedding model folder: adds the embedding and hybrid rankers")
    args = parser.parse_args()
    catalog = load_catalog([args.document])
    missing = [name for _, name in REQUESTS if name not in {t.name for t in catalog.tools}]
    if missing:
        print(f"not in this document: {', '.join(missing)}", file=sys.stderr)
        return 2
    variants = args.variants.split(",")
    dense = ["embedding", "hybrid"] if args.embed_model else []
    print(f"{len(catalog)} operations\n")
    ranks: dict[str, list[int | None]] = {v: [] for v in variants + dense}
    for variant in variants:
        with ablate.patched(**VARIANTS[variant]):
            run = ablate.default_run(catalog, depth=20)
            ranks[variant] += [rank_of(expected, run(query)) for query, expected in REQUESTS]
    if dense:
        from common import ranked_names

        from toolsearch_cli.search import get_ranker
        from toolsearch_cli.search.embed_settings import EmbedSettings

        settings = EmbedSettings(model=args.embed_model)
        for name in dense:
            run = ranked_names(get_ranker(name, settings), catalog, 20)
            ranks[name] += [rank_of(expected, run(query)) for query, expected in REQUESTS]
        variants += dense
    print("| request | " + " | ".join(variants) + " |")
    print("|---|" + "---:|" * len(variants))
    for i, (query, expected) in enumerate(REQUESTS):
        cells = [str(ranks[v][i] or "-") for v in variants]
        print(f"| {query} (`{expected}`) | " + " | ".join(cells) + " |")
    mrr = [sum(1 / r for r in ranks[v] if r) / len(REQUESTS) for v in variants]
    top1 = [sum(1 for r in ranks[v] if r == 1) for v in variants]
    print("| **MRR** | " + " | ".join(f"**{m:.3f}**" for m in mrr) + " |")
    print("| first | " + " | ".join(f"{t}/{len(REQUESTS)}" for t in top1) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
