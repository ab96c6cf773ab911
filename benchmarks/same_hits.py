"""The hits of a sample of queries on a catalog loaded as the CLI loads it (no cache), as JSON lines.

For a change to loading or indexing that must not change what a search returns: run it with one
checkout's package first on the path, then another's, and compare the two files (``cmp``). Each
line: the query, its top ``--depth`` hits with score (``repr``, so every bit counts), matched
fields and explained contributions, the hit tools' fields as JSON (a packed tool must read back
the same), and the query's unmatched words with their suggestions.

Usage (issue 20, 1,000,000 tools):
``PYTHONPATH=. python -m benchmarks same-hits ~/.cache/toolsearch-bench/scale/tools-1000000
../shared/eval/seal_tools/queries.yaml --queries 200 > new.jsonl``
"""

from __future__ import annotations

import json
import sys

from benchmarks import options


def main() -> None:
    parser = options.parser(__doc__)
    parser.add_argument("catalog")
    parser.add_argument("queries", help="a query set (YAML) whose queries are searched")
    parser.add_argument("--queries", dest="count", type=int, default=200, help="the first N queries")
    parser.add_argument("--depth", type=int, default=10)
    args = parser.parse_args()

    from toolsearch_cli.catalog import load_catalog_result
    from toolsearch_cli.evaluate import load_queries
    from toolsearch_cli.search.base import SearchRequest
    from toolsearch_cli.search.bm25f import BM25FRanker
    from toolsearch_cli.search.names import unmatched_words

    catalog = load_catalog_result([args.catalog]).catalog
    queries = [q.query for q in load_queries(args.queries)][: args.count]
    ranker = BM25FRanker()
    for query in queries:
        hits = ranker.search(catalog, SearchRequest(query=query, max_results=args.depth, explain=True))
        row = {
            "query": query,
            "hits": [
                {
                    "name": hit.tool.name,
                    "score": repr(hit.score),
                    "fields": hit.matched_fields,
                    "contributions": [(c.term, c.field, repr(c.points), c.detail) for c in hit.contributions],
                    "tool": json.dumps(
                        [
                            hit.tool.description,
                            hit.tool.parameters,
                            hit.tool.category,
                            hit.tool.tags,
                            hit.tool.examples,
                            hit.tool.metadata,
                            str(hit.tool.source),
                            hit.tool.requires,
                            hit.tool.lint,
                            hit.tool.mock,
                        ],
                        sort_keys=True,
                    ),
                }
                for hit in hits
            ],
            "unmatched": [w.to_dict() for w in unmatched_words(catalog, query)],
        }
        sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
