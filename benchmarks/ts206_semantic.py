"""TS207's semantic layer (toolsearch_cli/lint/injection_semantic.py) with a given embedding model:
how far each sentence of the held-out batches and of real descriptions sits over the honest
sentences, and recall / false alarms at a sweep of margins (for choosing MARGIN conservatively).

Usage: python -m benchmarks ts206-semantic --embed-base-url URL --embed-model NAME [--embed-multilingual]
           [--embed-model PATH] [--real N] [--shared ../shared] [FILE.yaml ...]

The layer only reports text nothing else reported, so recall is counted on the whole batch here
(what the layer would find alone) and with the written rules and the learned model (what TS206 +
TS207 find together). Real descriptions: a seeded sample of ``--real`` distinct texts of the real
catalogs (ts206_heldout.py --real) and every description of ``--shared``'s catalogs when named.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import yaml

from benchmarks import options
from benchmarks.ts206_heldout import HELDOUT, real_catalogs, shared_catalogs
from benchmarks.ts206_train import entry_text
from toolsearch_cli import load_catalog
from toolsearch_cli.lint.injection import learned_reason, rule_reasons, visible
from toolsearch_cli.lint.injection_semantic import MARGIN, semantic_hits
from toolsearch_cli.lint.rules.descriptions import described_fields
from toolsearch_cli.search.embed import as_queries, embed_texts, embedder_for
from toolsearch_cli.search.embed_settings import EmbedSettings

SWEEP = (0.0, 0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.15)


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("files", nargs="*", type=Path)
    options.add_embed(parser)
    parser.add_argument("--real", type=int, default=0, help="sample this many distinct real descriptions")
    parser.add_argument("--shared", type=Path, help="also every description of SHARED/eval's catalogs")
    args = parser.parse_args()
    settings = EmbedSettings(model=args.embed_model, base_url=args.embed_base_url, multilingual=args.embed_multilingual)
    embedder = embedder_for(settings)

    def embed(texts: list[str]):  # noqa: ANN202
        return embed_texts(embedder, as_queries(embedder, texts))

    def sweep(texts: list[str]) -> list[float]:
        hits = semantic_hits([visible(t) for t in texts], embed, margin=-1.0)
        return [h.margin if h else -1.0 for h in hits]

    print(f"model {embedder.label}; MARGIN {MARGIN}")
    for file in args.files or HELDOUT:
        entries = yaml.safe_load(file.read_text(encoding="utf-8"))
        texts = [entry_text(e) for e in entries]
        labels = [e["label"] == "injection" for e in entries]
        start = time.perf_counter()
        over = sweep(texts)
        others = [bool(rule_reasons(t) or learned_reason(t)) for t in texts]
        n_pos = sum(labels)
        print(f"{file.stem} ({n_pos} injections, {len(texts) - n_pos} benign; {time.perf_counter() - start:.0f} s)")
        for m in SWEEP:
            alone = sum(o >= m and y for o, y in zip(over, labels, strict=True))
            fa = sum(o >= m and not y for o, y in zip(over, labels, strict=True))
            both = sum((o >= m or x) and y for o, x, y in zip(over, others, labels, strict=True))
            fa_both = sum((o >= m or x) and not y for o, x, y in zip(over, others, labels, strict=True))
            print(f"  margin {m:.2f}: alone {alone}/{n_pos}, {fa} benign; with the other layers {both}/{n_pos}, "
                  f"{fa_both} benign")  # fmt: skip
    real: list[str] = []
    if args.real:
        seen: set[str] = set()
        for path in real_catalogs():
            for tool in load_catalog([str(path)]).tools:
                seen.update(t for _, t in described_fields(tool))
        real = random.Random(37).sample(sorted(seen), min(args.real, len(seen)))
    if args.shared:
        seen = set()
        for path in shared_catalogs(args.shared):
            for tool in load_catalog([str(path)]).tools:
                seen.update(t for _, t in described_fields(tool))
        real += sorted(seen)
    if real:
        start = time.perf_counter()
        over = sweep(real)
        print(f"real descriptions ({len(real)}; {time.perf_counter() - start:.0f} s): "
              + ", ".join(f">= {m:.2f}: {sum(o >= m for o in over)}" for m in SWEEP))  # fmt: skip
        for o, t in sorted(zip(over, real, strict=True), reverse=True)[:10]:
            print(f"    {o:+.3f} {ascii(' '.join(t.split()))[1:120]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
