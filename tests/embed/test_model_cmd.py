"""``toolsearch model pull/list/show/rm``, through the real ``huggingface_hub`` client.

The Hub is a loopback server (tests/hub_server.py) set through ``HF_ENDPOINT``; it serves a
tiny real model repository made here: an ONNX graph (one-hot token vectors), a word-level
tokenizer and sentence-transformers config files (CLS pooling, E5-style prompts), beside files
a pull must leave alone (PyTorch weights, a quantised ONNX variant, a README).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import DEMO

pytest.importorskip("huggingface_hub", reason="model pull needs the hub extra (huggingface_hub)")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx", reason="the test's ONNX model is written with the onnx package (test extra)")

NAME = "tiny-org/tiny-embedder"
WORDS = ["query", ":", "passage", "weather", "forecast", "city", "send", "email", "note", "colleague", "get"]
WANTED = {
    "onnx/model.onnx",
    "tokenizer.json",
    "modules.json",
    "1_Pooling/config.json",
    "config_sentence_transformers.json",
}


@pytest.fixture(scope="module")
def repo_files(tmp_path_factory) -> dict[str, bytes]:
    from ..tiny_models import one_hot_model

    folder = tmp_path_factory.mktemp("tiny-repo")
    one_hot_model(folder, WORDS, pooling="cls", prompts={"query": "query: ", "passage": "passage: "})
    files = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert set(files) == WANTED
    files["pytorch_model.bin"] = b"\0" * 50_000  # what a pull of the ONNX export must not fetch
    files["onnx/model_qint8_avx512.onnx"] = b"not fetched either"
    files["README.md"] = b"# tiny embedder\n"
    return files


@pytest.fixture(autouse=True)
def _fresh_process_models():
    """Each in-process command loads its model as a new `toolsearch` process would (models stay
    loaded per settings within a process, which a real command line never shares)."""
    from toolsearch_cli.search import embed

    embed._embedders.clear()
    yield
    embed._embedders.clear()


@pytest.fixture
def hub(repo_files, monkeypatch, tmp_path):
    from ..hub_server import HubServer

    broken = dict(repo_files)
    broken["onnx/model.onnx"] = b"this is not an ONNX model"
    no_onnx = {k: v for k, v in repo_files.items() if not k.endswith(".onnx")}
    with HubServer({NAME: repo_files, "tiny-org/broken": broken, "tiny-org/torch-only": no_onnx}) as server:
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
        monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.delenv("HF_TOKEN", raising=False)
        for var in ("TOOLSEARCH_EMBED_MODEL", "TOOLSEARCH_EMBED_BASE_URL"):
            monkeypatch.delenv(var, raising=False)
        yield server


def _one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_pull_fetches_the_onnx_export_and_its_config_then_search_runs_offline(run_cli, hub, tmp_path):
    result = run_cli("model", "pull", NAME, "--format", "json")
    assert result.code == 0, result.stderr
    info = result.json()
    assert set(hub.fetched()) == WANTED  # the ONNX export, tokenizer and config: nothing else
    assert info["dimensions"] == len(WORDS) + 1  # the model was loaded and run: its vectors' size
    assert info["pooling"] == ["cls"] and info["query_prefix"] == "query: " and info["document_prefix"] == "passage: "
    folder = Path(info["folder"])
    assert folder.is_relative_to(tmp_path / "hf-cache") and (folder / "onnx" / "model.onnx").is_file()
    assert not (folder / "pytorch_model.bin").exists()
    # pulling ran the model, so its prepared copy (weights memory-mapped) is in toolsearch's cache
    import os

    from toolsearch_cli.search import prepared

    copy = Path(os.environ["TOOLSEARCH_CACHE_DIR"]) / "models" / prepared.identity(folder / "onnx" / "model.onnx")
    assert prepared._intact(copy, copy.name)

    # the Hub id now resolves from the cache alone: searching sends nothing to the Hub
    before = len(hub.requests)
    search = run_cli("search", "weather forecast", "-c", str(DEMO), "-r", "hybrid", "--embed-model", NAME, "-f", "json")
    assert search.code == 0, search.stderr
    assert search.json()["hits"]
    assert len(hub.requests) == before

    # and the same in the library, the model named per instance
    from toolsearch_cli import EmbedSettings, load_catalog
    from toolsearch_cli import search as library_search

    hits = library_search(
        load_catalog([str(DEMO)]), "weather forecast", ranker="hybrid", embed=EmbedSettings(model=NAME)
    )
    assert [h.name for h in hits] == [h["name"] for h in search.json()["hits"]]
    assert len(hub.requests) == before


def test_list_show_and_rm(run_cli, hub):
    assert run_cli("model", "pull", NAME).code == 0
    listed = run_cli("model", "list", "--format", "json")
    assert listed.code == 0 and [m["name"] for m in listed.json()] == [NAME]
    table = run_cli("model", "list")
    assert NAME in table.stdout and "cls" in table.stdout
    shown = run_cli("model", "show", NAME)
    assert shown.code == 0 and "dimensions:" in shown.stdout and str(len(WORDS) + 1) in shown.stdout
    assert '"query: "' in shown.stdout
    from toolsearch_cli.search import embed

    embed._embedders.clear()  # the next command is a new process
    import os

    from toolsearch_cli.search import prepared

    model_file = Path(run_cli("model", "show", NAME, "--format", "json").json()["folder"]) / "onnx" / "model.onnx"
    copy = Path(os.environ["TOOLSEARCH_CACHE_DIR"]) / "models" / prepared.identity(model_file)
    assert prepared._intact(copy, copy.name)
    embed._embedders.clear()
    removed = run_cli("model", "rm", NAME)
    assert removed.code == 0 and "removed" in removed.stderr
    assert not copy.exists()  # the model's prepared copy went with it
    assert run_cli("model", "list", "--format", "json").json() == []
    gone = run_cli("search", "weather", "-c", str(DEMO), "-r", "hybrid", "--embed-model", NAME)
    assert gone.code == 2 and f"run `toolsearch model pull {NAME}`" in _one_line(gone)
    again = run_cli("model", "rm", NAME)
    assert again.code == 2 and "not in the model cache" in _one_line(again)


def test_an_unknown_hub_id_is_one_line_saying_to_pull_it_and_never_downloads(run_cli, hub):
    result = run_cli("search", "weather", "-c", str(DEMO), "-r", "hybrid", "--embed-model", "nobody/unknown-model")
    assert result.code == 2
    assert _one_line(result).endswith("run `toolsearch model pull nobody/unknown-model`")
    assert hub.requests == []  # searching never asks the Hub


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("nobody/unknown-model", "there is no model 'nobody/unknown-model'"),
        ("tiny-org/torch-only", "has no ONNX export"),
        ("tiny-org/broken", "does not work, so it was removed again"),
        ("not a hub id", "is not a Hub model id"),
    ],
)
def test_a_pull_that_cannot_give_a_working_model_is_one_line(run_cli, hub, name, said, tmp_path):
    result = run_cli("model", "pull", name)
    assert result.code == 2 and said in _one_line(result)
    assert _one_line(result).count("field '") == 1  # the check's own error inside, without a second field label
    assert run_cli("model", "list", "--format", "json").json() == []
    cache = tmp_path / "hf-cache"
    assert not any(cache.glob("models--*/snapshots/*/*")) if cache.exists() else True  # nothing half-pulled is left


def test_an_unknown_revision_is_one_line_naming_it(run_cli, hub):
    result = run_cli("model", "pull", NAME, "--revision", "v9")
    assert result.code == 2 and "no revision 'v9'" in _one_line(result)


def test_offline_pull_uses_the_cache_or_says_why_not(run_cli, hub, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    first = run_cli("model", "pull", NAME)
    assert first.code == 2 and "HF_HUB_OFFLINE" in _one_line(first)
    assert hub.requests == []
    monkeypatch.delenv("HF_HUB_OFFLINE")
    assert run_cli("model", "pull", NAME).code == 0
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = len(hub.requests)
    again = run_cli("model", "pull", NAME, "--format", "json")
    assert again.code == 0 and again.json()["dimensions"] == len(WORDS) + 1
    assert len(hub.requests) == before


def test_the_token_goes_to_the_hub_and_nowhere_else(run_cli, hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_secretTOKEN1234567890")
    result = run_cli("model", "pull", NAME, "--format", "json")
    assert result.code == 0, result.stderr
    assert any(r["headers"].get("authorization") == "Bearer hf_secretTOKEN1234567890" for r in hub.requests)
    assert "hf_secretTOKEN" not in result.stdout + result.stderr


def test_nothing_of_the_hub_is_imported_without_a_hub_model():
    code = (
        "import sys\n"
        "from toolsearch_cli.cli.app import main\n"
        "for args in (['search', 'weather'], ['model', '-h']):\n"
        "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
        "heavy = ('huggingface_hub', 'onnxruntime', 'onnx', 'tokenizers', 'model2vec', 'httpx2', 'numpy')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_model_pull_help_names_the_hub_settings(run_cli):
    result = run_cli("model", "pull", "-h")
    assert result.code == 0 and "HF_ENDPOINT" in result.stdout and "HF_HUB_OFFLINE" in result.stdout
    assert json.dumps(sorted(WANTED))  # the files a pull takes are the ones the README lists


def _text_of(info: dict) -> str:
    """What ``model pull``/``show`` print for a model, from its JSON document (the same to_dict())."""
    size = info["bytes"]
    lines = [
        ("model", info["name"]),
        ("revision", info["revision"][:12]),
        ("folder", info["folder"]),
        ("size", f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.1f} kB"),
        ("dimensions", str(info["dimensions"])),
        ("pooling", "cls"),
        ("query prompt", '"query: "'),
        ("document prompt", '"passage: "'),
        ("max tokens", "256"),
        ("config from", "modules.json, 1_Pooling/config.json, config_sentence_transformers.json"),
        ("files", ", ".join(sorted(WANTED))),
    ]
    return "".join(f"{key + ':':<17}{value}\n" for key, value in lines)


def test_every_model_command_prints_its_result_as_text_or_as_json_from_one_document(run_cli, hub, tmp_path):
    # pinned from the commands before they became thin (settings -> one hub function -> render)
    empty = run_cli("model", "list")
    assert (empty.code, empty.stdout) == (0, "")
    assert empty.stderr == f"no models in {tmp_path / 'hf-cache'}; get one with `toolsearch model pull NAME`\n"
    assert run_cli("model", "list", "-f", "json").stdout == "[]\n"

    pulled = run_cli("model", "pull", NAME, "--format", "json")
    assert pulled.code == 0 and pulled.stderr == ""
    info = pulled.json()
    assert info["dimensions"] == len(WORDS) + 1 and info["files"] == sorted(WANTED)
    text = run_cli("model", "pull", NAME)
    assert (text.code, text.stdout) == (0, _text_of(info))
    assert text.stderr == f"ready: --embed-model {NAME} (offline from now on)\n"

    shown = run_cli("model", "show", f" {NAME} ", "-f", "json")
    assert (shown.code, shown.json(), shown.stderr) == (0, info, "")
    assert run_cli("model", "show", NAME).stdout == _text_of(info)

    listed = run_cli("model", "list", "-f", "json")
    assert listed.json() == [{**info, "dimensions": None}]  # listed unchecked: not run
    table = run_cli("model", "list")
    assert table.code == 0 and table.stderr == ""
    row = table.stdout.splitlines()[2].split("│")
    assert [cell.strip() for cell in row] == [NAME, info["revision"][:12], _text_of(info).split("\n")[3][17:], "cls",
                                              '"query: "']  # fmt: skip

    removed = run_cli("model", "rm", NAME, "-f", "json")
    assert (removed.code, removed.stderr) == (0, "")
    assert removed.json() == {
        "name": NAME,
        "bytes_freed": removed.json()["bytes_freed"],
        "cache": str(tmp_path / "hf-cache"),
    }
    assert removed.json()["bytes_freed"] >= info["bytes"]
    assert run_cli("model", "pull", NAME).code == 0
    again = run_cli("model", "rm", NAME)
    assert (again.code, again.stdout) == (0, "")
    assert again.stderr == f"removed {NAME} ({_text_of(info).split(chr(10))[3][17:]} freed)\n"


@pytest.mark.parametrize("command", ["pull", "show", "rm"])
@pytest.mark.parametrize("name", ["not a hub id", "", "a/../b"])
def test_a_bad_model_id_is_the_same_one_line_error_in_every_command(run_cli, hub, command, name):
    result = run_cli("model", command, name)
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: field 'model': {name!r} is not a Hub model id: give OWNER/NAME, "
        "e.g. sentence-transformers/all-MiniLM-L6-v2\n"
    )
    assert hub.requests == []


@pytest.mark.parametrize("command", [["pull", NAME], ["show", NAME], ["rm", NAME], ["list"]])
def test_an_unknown_output_format_is_refused_before_anything_runs(run_cli, hub, command):
    result = run_cli("model", *command, "--format", "xml")
    assert (result.code, result.stdout) == (2, "")
    assert result.stderr == "error: unknown format 'xml'; choose from table, json\n"
    assert hub.requests == []


def test_a_token_bound_for_plain_http_elsewhere_is_warned_of_before_the_pull(run_cli, hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_secretTOKEN1234567890")
    monkeypatch.setenv("HF_ENDPOINT", "http://hub.invalid:1")  # another machine (.invalid never resolves)
    result = run_cli("model", "pull", NAME)
    assert result.code == 2 and result.stdout == ""
    warning, error = result.stderr.splitlines()
    assert warning == (
        "warning: $HF_TOKEN will travel to hub.invalid over plain http://, readable by anyone on the network path; "
        "use https:// (plain http is for servers on this machine)"
    )
    assert error.startswith(f"error: field 'model': cannot pull '{NAME}' from http://hub.invalid:1: ")
    refused = run_cli("model", "pull", "not a hub id")  # refused before anything would be sent: no warning
    assert refused.stderr.startswith("error: field 'model': 'not a hub id' is not a Hub model id")
    assert "hf_secretTOKEN" not in result.stderr + refused.stderr


def test_the_library_takes_settings_and_returns_typed_results(hub):
    from toolsearch_cli.errors import EmbedError
    from toolsearch_cli.search.hub import ModelListing, ModelSettings, list_models, pull_model, remove_model, show_model

    assert ModelSettings(f" {NAME} ", "  ") == ModelSettings(NAME)  # the id stripped, a blank revision the default
    with pytest.raises(EmbedError, match="is not a Hub model id") as caught:
        ModelSettings("nobody")
    assert caught.value.field == "model"
    warnings: list[str] = []
    pulled = pull_model(ModelSettings(NAME), warn=warnings.append)
    assert warnings == [] and pulled.dimensions == len(WORDS) + 1  # loopback: the token would not be in clear text
    assert show_model(ModelSettings(NAME)).to_dict() == pulled.to_dict()
    listing = list_models()
    assert isinstance(listing, ModelListing) and [m.name for m in listing.models] == [NAME]
    assert listing.to_dict()["cache"] == str(listing.cache) and listing.to_dict()["models"][0]["name"] == NAME
    removed = remove_model(ModelSettings(NAME))
    assert removed.name == NAME and removed.freed >= pulled.size and list_models().models == ()


@pytest.mark.parametrize("command", ["show", "rm"])
def test_a_model_that_was_not_pulled_is_one_line_about_the_argument(run_cli, hub, command):
    """`model show` named the field 'embed-model', an option it does not have (issue 19 audit)."""
    result = run_cli("model", command, NAME)
    assert (result.code, result.stdout) == (2, "")
    line = _one_line(result)
    assert line.startswith("error: field 'model': ") and f"{NAME!r} is not in the model cache" in line
    assert hub.requests == []


def test_a_model_pulled_at_a_commit_is_found_by_its_name_offline(run_cli, hub, monkeypatch):
    """`model pull NAME --revision SHA` writes no refs/main: `--embed-model NAME` and `model show NAME` said
    "not in the model cache" while `model list` listed it (issue 19 audit). They now take the pulled
    snapshot, the one `model list` shows."""
    sha = hub.sha(NAME)
    pulled = run_cli("model", "pull", NAME, "--revision", sha, "--format", "json")
    assert pulled.code == 0, pulled.stderr
    assert pulled.json()["revision"] == sha
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    listed = run_cli("model", "list", "--format", "json").json()
    assert [(m["name"], m["revision"]) for m in listed] == [(NAME, sha)]
    shown = run_cli("model", "show", NAME, "--format", "json")
    assert shown.code == 0, shown.stderr
    assert shown.json()["revision"] == sha
    found = run_cli("search", "weather forecast", "-c", str(DEMO), "-r", "hybrid", "--embed-model", NAME)
    assert found.code == 0, found.stderr
    assert "getForecast" in found.stdout or "getWeather" in found.stdout
