"""Hostile --embed-* values (issue 19 audit): a model path the OS refuses (too long, ``~user`` of no user)
was an ``internal error: OSError`` / ``RuntimeError``; a 20,000-character timeout or base URL was echoed
whole into the one-line error. Each is one bounded line, exit 2, and from the library an ``EmbedError``."""

from __future__ import annotations

import pytest

from toolsearch_cli import EmbedError, EmbedSettings, load_catalog, search
from toolsearch_cli.search import embed_settings

from ..conftest import DEMO

LONG = "9" * 20_000

#: what the model name is, and why the OS cannot take it as a path
BAD_MODELS = {
    "name-too-long": LONG,
    "component-too-long": "a/" + "b" * 5_000,
    "home-of-no-user": "~no-such-user-toolsearch/model",
}


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for name in ("MODEL_VAR", "BASE_URL_VAR", "WEIGHT_VAR", "TIMEOUT_VAR"):
        monkeypatch.delenv(getattr(embed_settings, name), raising=False)
    yield


def _one_bounded_line(result, field):
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr[:500]
    assert lines[0].startswith(f"error: field '{field}': "), lines[0][:300]
    assert "internal error" not in lines[0]
    assert len(lines[0]) < 1_000
    return lines[0]


@pytest.mark.parametrize("model", BAD_MODELS.values(), ids=BAD_MODELS.keys())
def test_a_model_path_the_os_refuses_is_one_line(run_cli, model):
    line = _one_bounded_line(
        run_cli("search", "weather in Paris", "-r", "hybrid", "--embed-model", model), "embed-model"
    )
    assert "embedding model" in line


@pytest.mark.parametrize("model", BAD_MODELS.values(), ids=BAD_MODELS.keys())
def test_a_model_path_the_os_refuses_is_an_embed_error_in_the_library(model):
    catalog = load_catalog([str(DEMO)])
    with pytest.raises(EmbedError) as caught:
        search(catalog, "weather in Paris", ranker="hybrid", embed=EmbedSettings(model=model))
    assert caught.value.field == "embed-model"
    assert len(str(caught.value)) < 1_000


@pytest.mark.parametrize(
    ("option", "field"), [("--embed-timeout", "embed-timeout"), ("--embed-base-url", "embed-base-url")]
)
def test_a_huge_value_is_not_echoed_whole(run_cli, option, field):
    result = run_cli("search", "weather in Paris", "-r", "hybrid", "--embed-model", "m", option, LONG)
    line = _one_bounded_line(result, field)
    assert "9" * 30 in line  # its start is shown, so the user sees which value


def test_a_huge_base_url_is_not_echoed_whole_by_the_library():
    with pytest.raises(EmbedError) as caught:
        EmbedSettings(base_url="ftp://" + LONG, model="m")
    assert caught.value.field == "embed.base_url"
    assert len(str(caught.value)) < 1_000


@pytest.mark.parametrize("value", [-0.0, "-0", "-0.0"])
def test_a_weight_of_minus_zero_is_zero(value):
    import math

    weight = EmbedSettings(model="m", weight=value).weight
    assert weight == 0 and math.copysign(1, weight) == 1  # shown as "weight 0", not "weight -0"


@pytest.mark.parametrize("damage", ["not json", "json of another shape"])
def test_a_damaged_tokenizer_is_one_line_naming_the_file(run_cli, tmp_path, damage):
    pytest.importorskip("onnxruntime")
    from ..tiny_models import one_hot_model

    folder = tmp_path / "model"
    one_hot_model(folder, ["weather", "city", "paris"])
    (folder / "tokenizer.json").write_text('{"broken": ' if damage == "not json" else '{"model": 5}')
    result = run_cli("search", "weather in Paris", "-c", str(DEMO), "-r", "hybrid", "--embed-model", str(folder))
    line = _one_bounded_line(result, "embed-model")
    assert str(folder / "tokenizer.json") in line  # the file to replace, not only its folder


def test_an_endpoint_error_from_the_library_carries_no_control_characters(monkeypatch):
    """The CLI escapes what it prints; an app logging ``str(EmbedError)`` got the server's ESC raw."""
    pytest.importorskip("openai")
    from toolsearch_cli.search.embed import load_local

    from ..embed_server import EmbeddingServer
    from .conftest import STATIC as static

    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-a-real-key-1234")
    with EmbeddingServer(load_local(str(static))) as server:
        server.fail_with = (500, {"error": {"message": "boom \x1b[2J\x1b]0;owned\x07 \u202etxt.exe"}})
        with pytest.raises(EmbedError) as caught:
            search(
                load_catalog([str(DEMO)]),
                "weather in Paris",
                ranker="hybrid",
                embed=EmbedSettings(base_url=server.base_url, model="m", timeout=5),
            )
    text = str(caught.value)
    assert "boom" in text and "\\x1b[2J" in text
    assert not any(ord(ch) < 32 or ch == "\x7f" or ch == "\u202e" for ch in text), repr(text)
