"""Make an int8 copy of an ONNX embedding model folder, and measure it against the float model.

    pip install onnx                       # onnxruntime's quantizer needs it (toolsearch does not)
    python -m benchmarks quantize-int8 --source ~/models/all-MiniLM-L6-v2-onnx \
        --out ~/models/all-MiniLM-L6-v2-int8 [--texts catalog.yaml] [--rounds 3]

The weights of every MatMul/Gather are quantised to int8 by onnxruntime's ``quantize_dynamic``,
per output channel (``--per-tensor``: one scale per tensor, which measured clearly worse on
all-MiniLM-L6-v2); activations are quantised at run time. The folder's tokenizer and
sentence-transformers files are copied beside it, so toolsearch uses the copy as it uses the
float model (``--embed-model OUT``). A different model file is a different cache identity:
vectors of the two are never mixed.

Then both are loaded by toolsearch's own loader and compared on the tool texts of ``--texts``
(a catalog; default: the shipped demo catalog): cosine of each text's two vectors, and texts per
CPU-second and per wall second of each, embedding the same texts alternately ``--rounds`` times
(medians). Whether the copy ranks as well is for ``harness.py --part quality --embed-model OUT``.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import time
from pathlib import Path

from benchmarks import options

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def quantize(source: Path, out: Path, *, per_channel: bool = True) -> Path:
    """``out`` holding ``model.onnx`` (int8 weights) and ``source``'s other files; the model file."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = next((p for p in (source / "model.onnx", source / "onnx" / "model.onnx") if p.is_file()), None)
    if model is None or not (source / "tokenizer.json").is_file():
        raise SystemExit(f"error: {source} holds no model.onnx (or onnx/model.onnx) beside tokenizer.json")
    out.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.name in ("model.onnx", "onnx", "model.onnx_data") or item.name.startswith("."):
            continue
        target = out / item.name
        if item.is_dir():
            shutil.copytree(item, target, dirs_exist_ok=True)
        else:
            shutil.copy2(item, target)
    quantize_dynamic(str(model), str(out / "model.onnx"), weight_type=QuantType.QInt8, per_channel=per_channel)
    return out / "model.onnx"


def compare(source: Path, out: Path, texts: list[str], rounds: int) -> None:
    import numpy as np

    from toolsearch_cli.search.embed import load_local

    base, small = load_local(str(source)), load_local(str(out))
    cpu: dict[str, list[float]] = {"float": [], "int8": []}
    wall: dict[str, list[float]] = {"float": [], "int8": []}
    vectors = {}
    base.embed(texts[:2])  # sessions made before timing
    small.embed(texts[:2])
    for r in range(rounds):
        order = [("float", base), ("int8", small)] if r % 2 == 0 else [("int8", small), ("float", base)]
        for name, model in order:
            began_cpu, began = time.process_time(), time.perf_counter()
            vectors[name] = np.asarray(model.embed(texts))
            cpu[name].append(time.process_time() - began_cpu)
            wall[name].append(time.perf_counter() - began)
    cosine = (vectors["float"] * vectors["int8"]).sum(axis=1)
    print(f"{len(texts)} texts, {rounds} alternating rounds (medians)\n")
    print("| model | file MB | texts per CPU-second | texts per wall second |")
    print("|---|---:|---:|---:|")
    for name, folder in (("float", source), ("int8", out)):
        size = next(p for p in (folder / "model.onnx", folder / "onnx" / "model.onnx") if p.is_file()).stat().st_size
        c, w = statistics.median(cpu[name]), statistics.median(wall[name])
        print(f"| {name} | {size / 1e6:.1f} | {len(texts) / c:.1f} | {len(texts) / w:.1f} |")
    print(f"\ncosine int8 vs float per text: mean {cosine.mean():.4f}, min {cosine.min():.4f}")


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--source", required=True, help="an ONNX model folder (model.onnx + tokenizer.json)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--per-tensor", action="store_true", help="one scale per weight tensor, not per channel")
    parser.add_argument("--texts", help="a catalog whose tool texts are compared (default: the demo catalog)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-compare", action="store_true")
    args = parser.parse_args()
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        print(f"error: quantising needs {exc.name}: pip install onnx onnxruntime", file=sys.stderr)
        return 2
    source, out = Path(args.source).expanduser(), Path(args.out).expanduser()
    quantize(source, out, per_channel=not args.per_tensor)
    print(f"wrote {out / 'model.onnx'}")
    if args.no_compare:
        return 0
    from toolsearch_cli import load_catalog
    from toolsearch_cli.search.embed import tool_text

    catalog = load_catalog([args.texts or str(ROOT / "catalogs" / "demo")])
    compare(source, out, [tool_text(t, cjk=False) for t in catalog.searchable()], args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
