"""Scale of the dense rankers at 100,000 tools: build, query latency, memory; numpy brute force vs usearch.

    pip install -e ".[embed]" usearch
    python -m benchmarks embed-scale --embed-model ~/models/all-MiniLM-L6-v2-onnx [--size 100000]

The catalog is scale.py's synthetic seal_tools replica (perturbed copies). Embedding 100,000
tool texts with a transformer on a 2-core machine takes long, so:

* the model's throughput is measured on a sample of the replicas' texts, and the build time
  *with* embedding is that rate times the catalog (extrapolated, and said so);
* the index itself is built by the real code path from the on-disk vector cache, filled
  beforehand with stand-in vectors: each original tool's real vector, and for every copy that
  vector plus a little Gaussian noise, renormalised (what is timed, loading and searching
  float32 rows of the model's dimension, does not depend on the values);
* queries are seal_tools' own; their vectors are computed first (one query at a time, timed
  separately: that is the per-query cost of the model), so the search latencies below are the
  ranking alone; a query's total is the sum.

Memory is the growth of the resident set over building the vector index (the lexical index of
``hybrid`` is measured in scale.py). usearch (HNSW, cosine, float32) is built over the same
matrix for comparison; its recall@5 is against the exact brute-force top 5.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import options

HERE = Path(__file__).resolve().parent
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one thread, as scale.py measures (set before numpy loads)


def percentiles(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]


def main() -> int:
    parser = options.parser(__doc__)
    options.add_shared(parser)
    options.add_embed(parser, extras=False)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--sample", type=int, default=256, help="replica texts embedded to measure throughput")
    parser.add_argument(
        "--reuse-cache",
        help="a cache folder that may already hold the model's vectors of seal_tools (e.g. from harness.py)",
    )
    parser.add_argument(
        "--embed-all", action="store_true", help="embed every tool with the model (a real first build), not stand-ins"
    )
    parser.add_argument("--skip-usearch", action="store_true", help="leave out the HNSW comparison (a long build)")
    args = parser.parse_args()
    reuse = Path(args.reuse_cache) / "vectors" if args.reuse_cache else None
    os.environ["TOOLSEARCH_CACHE_DIR"] = tempfile.mkdtemp(prefix="embed-scale-")

    import numpy as np

    from benchmarks.scale import rss_mib, synthetic_tools
    from toolsearch_cli.evaluate import load_queries
    from toolsearch_cli.model import Catalog
    from toolsearch_cli.search import SearchRequest
    from toolsearch_cli.search.embed import current_embedder, tool_text
    from toolsearch_cli.search.embed_settings import EmbedSettings, configure
    from toolsearch_cli.search.hybrid import EmbeddingRanker, HybridRanker, query_vectors, query_views, vector_index
    from toolsearch_cli.search.vectors import VectorStore

    seal = Path(args.shared) / "eval" / "seal_tools"
    configure(EmbedSettings(model=args.embed_model))
    embedder = current_embedder()
    tools = synthetic_tools(seal, args.size)
    texts = [tool_text(t) for t in tools]
    print(f"model: {embedder.label}; {len(tools):,} tools", file=sys.stderr)

    # 1. the model's throughput on replica texts: one call (batches of similar length), against
    #    the same texts in batches of their own order (one call per batch: padded to the longest)
    import random

    from toolsearch_cli.search.embed import LOCAL_BATCH

    sample = random.Random(7).sample(texts, min(args.sample, len(texts)))
    start = time.perf_counter()
    arrival = np.concatenate([embedder.embed(sample[i : i + LOCAL_BATCH]) for i in range(0, len(sample), LOCAL_BATCH)])
    rate_arrival = len(sample) / (time.perf_counter() - start)
    start = time.perf_counter()
    sorted_vectors = embedder.embed(sample)
    rate = len(sample) / (time.perf_counter() - start)
    drift = float(np.abs(arrival - sorted_vectors).max())

    # 2. the on-disk cache: with --embed-all the real path of a first run (every tool embedded by
    #    the model, timed); otherwise stand-in vectors: real vectors of the originals, noisy copies
    first_build = None
    if args.embed_all:
        start = time.perf_counter()
        first = vector_index(Catalog(tools=list(tools)), embedder)
        first_build = time.perf_counter() - start
        assert first.embedded == len(tools)
        del first
    else:
        base_count = min(len(tools), 4076)
        if reuse is not None:
            base = VectorStore(embedder.model_id, folder=reuse).vectors(embedder, texts[:base_count])
        else:
            base = np.asarray(embedder.embed(texts[:base_count]), dtype=np.float32)
        rng = np.random.default_rng(7)
        dim = base.shape[1]
        vectors = base[np.arange(len(tools)) % base_count] + rng.normal(0, 0.02, (len(tools), dim)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)

        class Prefilled:
            model_id = embedder.model_id
            label = embedder.label
            multilingual = False
            rows = {t: v for t, v in zip(texts, vectors, strict=True)}

            def embed(self, batch):
                return np.stack([self.rows[t] for t in batch])

        VectorStore(embedder.model_id).vectors(Prefilled(), texts)  # writes the cache file
        del vectors
    gc.collect()

    # 3. the index from the cache (embedding excluded): the real path of a second run
    builds = []
    before = rss_mib()
    catalog = None
    for _ in range(3):
        catalog = Catalog(tools=list(tools))
        start = time.perf_counter()
        index = vector_index(catalog, embedder)
        builds.append(time.perf_counter() - start)
        assert index.embedded == 0
        if len(builds) == 1:
            memory = rss_mib() - before
    build = min(builds)
    assert catalog is not None

    # 4. queries: the model's cost per query, then ranking alone
    queries = [q.query for q in load_queries(seal / "queries.yaml")][: args.queries]
    single = []
    for q in queries[:100]:  # hybrid embeds a request whole and, if it has several, each sentence
        start = time.perf_counter()
        embedder.embed(query_views(q))
        single.append(1000 * (time.perf_counter() - start))
    query_vectors(embedder, [v for q in queries for v in query_views(q)])
    rows = []
    for name, ranker in (("embedding", EmbeddingRanker()), ("hybrid", HybridRanker())):
        for q in queries[:20]:  # warm-up (the lexical index builds here for hybrid)
            ranker.search(catalog, SearchRequest(query=q, max_results=5, explain=False))
        times = []
        for q in queries:
            start = time.perf_counter()
            ranker.search(catalog, SearchRequest(query=q, max_results=5, explain=False))
            times.append(1000 * (time.perf_counter() - start))
        rows.append((name, *percentiles(times)))

    # 5. usearch over the same matrix
    matrix = index.matrix
    qmat = np.stack(query_vectors(embedder, queries))
    usearch_row = None
    Index = None
    if not args.skip_usearch:
        try:
            from usearch.index import Index
        except ImportError:
            print("usearch not installed: pip install usearch", file=sys.stderr)
    if Index is not None:
        before_u = rss_mib()
        start = time.perf_counter()
        hnsw = Index(ndim=matrix.shape[1], metric="cos", dtype="f32")
        hnsw.add(np.arange(len(matrix)), matrix)
        u_build = time.perf_counter() - start
        u_memory = rss_mib() - before_u
        u_times, hits = [], 0
        for qv in qmat:
            start = time.perf_counter()
            found = hnsw.search(qv, 5)
            u_times.append(1000 * (time.perf_counter() - start))
            exact = set(np.argpartition(-(matrix @ qv), 5)[:5].tolist())
            hits += len(exact & set(int(k) for k in found.keys))
        usearch_row = (u_build, *percentiles(u_times), u_memory, hits / (5 * len(qmat)))
    np_times = []
    for qv in qmat:
        start = time.perf_counter()
        sims = matrix @ qv
        np.argpartition(-sims, 5)[:5]
        np_times.append(1000 * (time.perf_counter() - start))

    q50, q95 = percentiles(single)
    dim = sorted_vectors.shape[1]
    print(f"\n### Dense rankers at {len(tools):,} tools ({embedder.label}, {dim} dimensions)\n")
    print(
        f"- embedding the catalog: {rate:.0f} tools/s measured on {len(sample)} texts → {len(tools) / rate:,.0f} s"
        f" (batches in arrival order: {rate_arrival:.0f} tools/s, ratio {rate / rate_arrival:.2f}x;"
        f" largest difference between the two's vectors {drift:.1e})"
    )
    print("  for the whole catalog (extrapolated; done once, then cached on disk)")
    if first_build is not None:
        print(f"- first build, every tool embedded (measured, not extrapolated): {first_build:,.1f} s")
    print(f"- build from the on-disk cache (embedding excluded): {build:.2f} s; vector index memory {memory:.0f} MiB")
    print(f"- embedding one request (whole, and each sentence if several): p50 {q50:.1f} ms, p95 {q95:.1f} ms\n")
    print("| ranking (query vector given) | p50 ms | p95 ms |")
    print("|---|---:|---:|")
    for name, p50, p95 in rows:
        print(f"| {name} ranker | {p50:.2f} | {p95:.2f} |")
    n50, n95 = percentiles(np_times)
    print(f"| numpy brute force alone (exact) | {n50:.2f} | {n95:.2f} |")
    if usearch_row:
        u_build, u50, u95, u_mem, recall = usearch_row
        print(f"| usearch HNSW alone (recall@5 {recall:.3f} vs exact) | {u50:.2f} | {u95:.2f} |")
        print(f"\nusearch build: {u_build:.1f} s, +{u_mem:.0f} MiB (brute force needs no build beyond loading)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
