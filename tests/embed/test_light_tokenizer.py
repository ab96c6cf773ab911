"""A light session's tokenizer (search/light_tokenizer.py): only the words a few texts can use, and
exactly the encodings of the whole tokenizer; tokenizers of another shape and a damaged cache
file fall back to the whole one."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("tokenizers")

from tokenizers import Tokenizer  # noqa: E402

from toolsearch_cli.search import file_hashes, light_tokenizer  # noqa: E402

from ..conftest import DATA  # noqa: E402

#: a real BERT-style WordPiece tokenizer (all-MiniLM-L6-v2's, 29,525 words; no post-processor)
STATIC = DATA / "minilm-static" / "tokenizer.json"

TEXTS = [
    "remember that Alice works at Acme",
    "Send an e-mail to bob@example.com about the Q3 report!!",
    "天气 weather in 北京 today",
    "Déjà vu: café, naïve résumé — ÅNGSTRÖM",
    "[CLS] hello [SEP] world [MASK] [UNK][PAD]x[cls]",
    "a" * 101 + " short " + "b" * 99,  # over and under max_input_chars_per_word
    "supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopic",
    "emoji 😀 test \u200b zero\u00adwidth \u0301accent first, ＦＵＬＬ ｗｉｄｔｈ",
    "  tabs\tand\nnew\r\nlines\x00 and control\x07 chars  ",
    "İstanbul ǅemal ß straße ﬁne ligatures",
    "",
    "   ",
    "list_files(path='/tmp') -> returns JSON {\"ok\": true}",
    "the the the " * 120,  # longer than the truncation
    "ქართული ελληνικά русский العربية हिन्दी",
]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("TOOLSEARCH_CACHE_DIR", str(folder))
    monkeypatch.delenv("TOOLSEARCH_NO_CACHE", raising=False)
    file_hashes.forget()
    light_tokenizer._ready.clear()
    yield folder
    file_hashes.forget()
    light_tokenizer._ready.clear()


def _with_bert_specials(tmp_path):
    """The static model's tokenizer as a transformer's is: [CLS] text [SEP], special tokens added."""
    data = json.loads(STATIC.read_text(encoding="utf-8"))
    vocab = data["model"]["vocab"]
    specials = ["[CLS]", "[SEP]", "[MASK]"]
    for token in specials:
        vocab.setdefault(token, len(vocab))
    data["added_tokens"] += [
        {"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False}
        | {"normalized": False, "special": True}
        for t in specials
    ]
    data["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}]
        + [{"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {t: {"id": t, "ids": [vocab[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")},
    }
    path = tmp_path / "bert" / "tokenizer.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _tokenizers(tmp_path):
    paths = [STATIC, _with_bert_specials(tmp_path)]
    model = os.environ.get("TOOLSEARCH_TEST_ONNX_MODEL")  # e.g. an exported all-MiniLM-L6-v2 folder
    if model and os.path.isfile(os.path.join(model, "tokenizer.json")):
        from pathlib import Path

        paths.append(Path(model) / "tokenizer.json")
    return paths


def _encodings(tokenizer, texts):
    tokenizer.enable_truncation(256)
    tokenizer.no_padding()
    return [(e.ids, e.type_ids, e.attention_mask, e.tokens, e.offsets) for e in tokenizer.encode_batch(texts)]


def test_a_few_texts_get_exactly_the_whole_tokenizer_s_encodings(cache, tmp_path):
    paths = _tokenizers(tmp_path)
    for path in paths:
        whole = Tokenizer.from_file(str(path))
        for texts in [[t] for t in TEXTS] + [TEXTS[:4], TEXTS[4:9]]:
            light = light_tokenizer.tokenizer_for(path, texts)
            assert light is not None, path
            assert light.get_vocab_size() < whole.get_vocab_size() // 10  # only the words these texts use
            assert _encodings(light, texts) == _encodings(whole, texts), (path, texts)
    assert len(list((cache / "tokenizers").glob("*.json"))) == len(paths)


def test_the_demo_catalog_s_tool_texts_and_pieces_of_words_agree(cache, tmp_path):
    """Words split into several pieces (##...) and every tool text of the demo catalog."""
    from toolsearch_cli.catalog import load_catalog
    from toolsearch_cli.search.embed import tool_text

    from ..conftest import ROOT

    texts = [tool_text(t) for t in load_catalog(str(ROOT / "catalogs" / "demo")).searchable()]
    texts += ["unbelievably tokenisation preprocessing microservices kubernetes", "xyzzyplugh qwertzuiop"]
    path = _with_bert_specials(tmp_path)
    whole = Tokenizer.from_file(str(path))
    assert any(len(e.tokens) > 4 and any(t.startswith("##") for t in e.tokens) for e in whole.encode_batch(texts))
    for text in texts:
        light = light_tokenizer.tokenizer_for(path, [text])
        assert light is not None
        assert _encodings(light, [text]) == _encodings(whole, [text]), text


def test_texts_too_long_together_get_the_whole_tokenizer(cache):
    assert light_tokenizer.tokenizer_for(STATIC, ["word " * (light_tokenizer.MAX_TEXT_CHARS // 5 + 1)]) is None


def test_a_tokenizer_of_another_shape_is_not_served(cache, tmp_path):
    from ..tiny_models import write_tokenizer

    write_tokenizer(tmp_path / "wordlevel", ["send", "mail"])  # WordLevel, Lowercase, Whitespace
    assert light_tokenizer.tokenizer_for(tmp_path / "wordlevel" / "tokenizer.json", ["send mail"]) is None
    data = json.loads(STATIC.read_text(encoding="utf-8"))
    data["normalizer"] = {"type": "Replace", "pattern": {"String": "a"}, "content": "b"}
    (tmp_path / "replace.json").write_text(json.dumps(data), encoding="utf-8")
    assert light_tokenizer.tokenizer_for(tmp_path / "replace.json", ["a cat"]) is None
    data = json.loads(STATIC.read_text(encoding="utf-8"))
    data["added_tokens"].append(
        {"id": 5, "content": "cat", "single_word": False, "lstrip": False, "rstrip": False}
        | {"normalized": True, "special": False}
    )
    (tmp_path / "added.json").write_text(json.dumps(data), encoding="utf-8")
    assert light_tokenizer.tokenizer_for(tmp_path / "added.json", ["a cat"]) is None
    light_tokenizer._ready.clear()
    assert light_tokenizer.tokenizer_for(tmp_path / "added.json", ["a cat"]) is None  # the record says so


def test_the_cache_off_means_no_light_tokenizer(cache, monkeypatch):
    monkeypatch.setenv("TOOLSEARCH_NO_CACHE", "1")
    assert light_tokenizer.tokenizer_for(STATIC, ["send mail"]) is None
    assert not cache.exists()


def _record(cache):
    (path,) = (cache / "tokenizers").glob("*.json")
    return path


@pytest.mark.parametrize(
    "damage",
    ["truncated", "not-json", "deep", "a-word-changed", "longest-changed", "other-source", "symlink"],
)
def test_a_damaged_cache_file_is_made_again(cache, tmp_path, damage):
    path = _with_bert_specials(tmp_path)
    text = ["remember that Alice works at Acme"]
    expected = _encodings(light_tokenizer.tokenizer_for(path, text), text)
    record_path = _record(cache)
    record = json.loads(record_path.read_text(encoding="utf-8"))
    if damage == "truncated":
        record_path.write_bytes(record_path.read_bytes()[:1000])
    elif damage == "not-json":
        record_path.write_bytes(b"\xff\xfe garbage")
    elif damage == "deep":
        record_path.write_text("[" * 100_000, encoding="utf-8")
    elif damage == "a-word-changed":  # "remember" given another word's id: caught by the hash
        words = record["words"].split("\n")
        i, j = words.index("remember"), words.index("forget")
        words[i], words[j] = words[j], words[i]
        record["words"] = "\n".join(words)
        record_path.write_text(json.dumps(record), encoding="utf-8")
    elif damage == "longest-changed":
        record["longest"] = 2
        record_path.write_text(json.dumps(record), encoding="utf-8")
    elif damage == "other-source":
        record["source"] = "0" * 64
        record_path.write_text(json.dumps(record), encoding="utf-8")
    elif damage == "symlink":
        elsewhere = tmp_path / "elsewhere.json"
        os.replace(record_path, elsewhere)
        record_path.symlink_to(elsewhere)
    light_tokenizer._ready.clear()  # as a new process
    again = light_tokenizer.tokenizer_for(path, text)
    assert again is not None and _encodings(again, text) == expected
    assert not record_path.is_symlink()
    assert json.loads(record_path.read_text(encoding="utf-8"))["words_sha256"] == record["words_sha256"]


def test_a_changed_tokenizer_file_is_read_again(cache, tmp_path):
    path = _with_bert_specials(tmp_path)
    light_tokenizer.tokenizer_for(path, ["alice"])
    data = json.loads(path.read_text(encoding="utf-8"))
    data["model"]["vocab"]["alice"], data["model"]["vocab"]["bob"] = (
        data["model"]["vocab"]["bob"],
        data["model"]["vocab"]["alice"],
    )
    path.write_text(json.dumps(data), encoding="utf-8")
    light = light_tokenizer.tokenizer_for(path, ["alice"])
    assert _encodings(light, ["alice"]) == _encodings(Tokenizer.from_file(str(path)), ["alice"])
    assert len(list((cache / "tokenizers").glob("*.json"))) == 2


def _wordpiece_model(folder):
    """A model folder with a BERT-style WordPiece tokenizer and a one-hot ONNX stand-in."""
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    import numpy as np
    from tokenizers import normalizers, pre_tokenizers
    from tokenizers.models import WordPiece

    from ..tiny_models import write_onnx

    words = ["[PAD]", "[UNK]", "send", "mail", "to", "alice", "acme", "##s", "##ing", "ac", "##me", "list", "file"]
    vocab = {w: i for i, w in enumerate(words)}
    tokenizer = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.add_special_tokens(["[PAD]", "[UNK]"])
    folder.mkdir(parents=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    write_onnx(folder / "model.onnx", np.eye(len(vocab), dtype=np.float32))


def test_a_search_s_new_request_is_embedded_with_the_light_tokenizer_and_the_same_vectors(cache, tmp_path, monkeypatch):
    import numpy as np

    from toolsearch_cli.search.embed import load_local

    _wordpiece_model(tmp_path / "model")
    served = []
    real = light_tokenizer.tokenizer_for
    monkeypatch.setattr(
        light_tokenizer, "tokenizer_for", lambda path, texts: served.append(real(path, texts)) or served[-1]
    )
    texts = ["Send mails to Alice at ACME", "listing files", "zebra"]
    with monkeypatch.context() as m:
        m.setenv("TOOLSEARCH_NO_CACHE", "1")
        whole = load_local(str(tmp_path / "model")).embed(texts)  # no cache: the whole tokenizer
    assert served == [None]
    embedder = load_local(str(tmp_path / "model"))
    light = np.concatenate([embedder.embed([t]) for t in texts])  # a light session, text by text
    assert len(served) == 1 + len(texts) and all(t is not None for t in served[1:])
    assert embedder.tokenizer is None  # the whole one was never loaded
    assert np.array_equal(light, whole)
    many = embedder.embed(texts * 4)  # the full session loads the whole tokenizer
    assert embedder.tokenizer is not None and len(served) == 1 + len(texts)
    assert np.array_equal(many[: len(texts)], whole)
