"""Small real model folders made in a test: a word-level tokenizer and an ONNX transformer stand-in.

The ONNX graph is one ``Gather``: token ids -> rows of a table chosen by the test, output as
``last_hidden_state`` (batch, tokens, dim), the shape a transformer export has. With one-hot rows
the pooled vector says exactly which tokens the model saw and how they were pooled. Needs the
``onnx`` package to write the graph and ``tokenizers`` to write ``tokenizer.json``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def write_tokenizer(folder: Path, words: Sequence[str]) -> dict[str, int]:
    """A word-level ``tokenizer.json`` (whitespace and punctuation split, lower-cased); id 0 is [UNK]."""
    from tokenizers import Tokenizer, normalizers, pre_tokenizers
    from tokenizers.models import WordLevel

    vocab = {"[UNK]": 0}
    for word in words:
        vocab.setdefault(word, len(vocab))
    tokenizer = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    return vocab


def write_onnx(path: Path, table: Any) -> None:
    """An ONNX model mapping ``input_ids`` to ``table``'s rows (``last_hidden_state``)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    table = np.asarray(table, dtype=np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"], axis=0)],
        "tiny-encoder",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", table.shape[1]])],
        [numpy_helper.from_array(table, "table")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # readable by every onnxruntime the embed extra allows
    onnx.checker.check_model(model)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(path))


def one_hot_model(
    folder: Path,
    words: Sequence[str],
    *,
    pooling: str | None = "mean",
    normalize: bool = True,
    prompts: Mapping[str, str] | None = None,
    default_prompt_name: str | None = None,
    similarity: str | None = None,
    onnx_path: str = "onnx/model.onnx",
) -> dict[str, int]:
    """A model folder whose token ``i`` has the one-hot vector ``e_i``, with sentence-transformers
    files saying ``pooling`` (``None``: no pooling files), ``normalize`` (a Normalize module) and
    ``prompts``. Returns the vocabulary (word -> id = vector axis)."""
    import numpy as np

    vocab = write_tokenizer(folder, words)
    write_onnx(folder / onnx_path, np.eye(len(vocab), dtype=np.float32))
    if pooling is not None:
        modules = [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        ]
        if normalize:
            normal = {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
            modules.append(normal)
        (folder / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
        flags = {
            "pooling_mode_cls_token": "cls",
            "pooling_mode_mean_tokens": "mean",
            "pooling_mode_max_tokens": "max",
            "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len",
            "pooling_mode_weightedmean_tokens": "weightedmean",
            "pooling_mode_lasttoken": "lasttoken",
        }
        config = {"word_embedding_dimension": len(vocab), **{k: v == pooling for k, v in flags.items()}}
        (folder / "1_Pooling").mkdir(exist_ok=True)
        (folder / "1_Pooling" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    st: dict[str, Any] = {}
    if prompts is not None:
        st["prompts"] = dict(prompts)
        st["default_prompt_name"] = default_prompt_name
    if similarity is not None:
        st["similarity_fn_name"] = similarity
    if st:
        (folder / "config_sentence_transformers.json").write_text(json.dumps(st), encoding="utf-8")
    return vocab
