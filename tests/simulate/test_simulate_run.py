"""The library entry point of ``toolsearch simulate``: :func:`run_simulation` over typed settings.

Called directly (no CLI): the typed result, its ``to_dict()`` (the very JSON the command prints),
a recording's settings merged under the settings given, the one-line checks of the settings, a
live run through :class:`Progress` callbacks, and the key kept out of reprs, results and recordings.
"""

from __future__ import annotations

import json

import pytest

from toolsearch_cli.errors import ToolsearchError, UsageError
from toolsearch_cli.simulate import (
    LiveSettings,
    Progress,
    SimulateSettings,
    SimulationResult,
    Transcript,
    run_simulation,
)

from ..chat_server import ChatServer, Status, call, say
from ..conftest import ROOT

EN = str(ROOT / "catalogs" / "scenarios" / "weather-email.en.sim.yaml")
DEMO = str(ROOT / "catalogs" / "demo")
FAKE_KEY = "sk-test-FAKE-run-simulation-0123456789"


def test_a_script_run_returns_a_typed_result_whose_dict_is_the_commands_json(run_cli):
    result = run_simulation(SimulateSettings(script=EN))
    assert isinstance(result, SimulationResult)
    assert result.failure is None and result.record is None and result.warnings == []
    [transcript] = result.transcripts
    assert isinstance(transcript, Transcript)
    assert (transcript.kind, transcript.policy, transcript.mode) == ("script", "latest", "chat")
    assert result.ok and transcript.ok and len(transcript.requests) == 5
    data = result.to_dict()
    assert data == transcript.to_dict() and data["format"] == "toolsearch.transcript"
    cli = run_cli("simulate", EN, "--format", "json")
    assert cli.code == 0 and cli.stderr == ""
    assert cli.json() == json.loads(json.dumps(data, ensure_ascii=False))


def test_every_option_of_the_command_is_a_settings_field():
    import inspect
    from dataclasses import fields

    from toolsearch_cli.cli.simulate_cmd import simulate

    # what is done with the result (printed as, checked, drawn as an HTML report), not how it runs
    options = set(inspect.signature(simulate).parameters) - {"output_format", "check", "html_report", "typer_context"}
    options -= {name for name in options if name.startswith("embed_")}  # the eight make the one field 'embed'
    settings = {f.name for f in fields(SimulateSettings)} | {f.name for f in fields(LiveSettings)}
    assert options - settings == set()
    assert settings - options == {"live_settings", "api_key", "embed"}  # the key only from the environment


def test_the_commands_options_become_the_same_settings(run_cli):
    args = ("--policy", "cumulative", "--max-active", "2", "--context", "role=admin", "--counter", "chars4",
            "--max-result-size", "2KB", "--ranker", "classic", "--format", "json")  # fmt: skip
    cli = run_cli("simulate", EN, *args)
    assert cli.code == 0, cli.stderr
    settings = SimulateSettings(script=EN, policy="cumulative", max_active=2, context={"role": "admin"},
                                counter="chars4", max_result_size=2048, ranker="classic")  # fmt: skip
    assert cli.json() == json.loads(json.dumps(run_simulation(settings).to_dict(), ensure_ascii=False))
    assert cli.json()["ranker"] == "classic" and cli.json()["counter"] == "chars4"


def test_several_policies_give_one_transcript_each_and_a_comparison():
    result = run_simulation(SimulateSettings(script=EN, policy="latest, cumulative", max_active=3))
    assert [t.policy for t in result.transcripts] == ["latest", "cumulative"]
    assert all(t.max_active == 3 for t in result.transcripts)
    data = result.to_dict()
    assert data["format"] == "toolsearch.comparison"
    assert [run["policy"] for run in data["runs"]] == ["latest", "cumulative"]


def test_settings_take_context_and_sizes_as_values_or_as_command_line_text():
    given = run_simulation(SimulateSettings(script=EN, context={"role": "admin"}, max_result_size=2048))
    typed = run_simulation(SimulateSettings(script=EN, context=["role=admin"], max_result_size="2KB"))
    assert given.transcripts[0].context == typed.transcripts[0].context == {"role": "admin"}
    assert given.to_dict() == typed.to_dict()


def test_a_failed_expectation_makes_the_result_not_ok(write):
    script = write(
        "fails.sim.yaml",
        f"catalog: {DEMO}\nturns:\n  - user: hi\n    steps:\n      - say: hello\n"
        "        expect: {visible: [getWeather]}\n",
    )
    result = run_simulation(SimulateSettings(script=str(script)))
    assert not result.ok and result.transcripts[0].summary()["failed"] == 1


def test_a_replay_takes_the_recordings_settings_unless_given(tmp_path):
    recorded = run_simulation(SimulateSettings(script=EN, policy="cumulative", max_active=4)).to_dict()
    recording = tmp_path / "run.json"
    recording.write_text(json.dumps(recorded), encoding="utf-8")

    [replayed] = run_simulation(SimulateSettings(replay=str(recording))).transcripts
    assert (replayed.kind, replayed.policy, replayed.max_active) == ("replay", "cumulative", 4)
    assert replayed.catalog == recorded["catalog"]

    [overridden] = run_simulation(SimulateSettings(replay=str(recording), policy="latest")).transcripts
    assert (overridden.policy, overridden.max_active) == ("latest", 4)


def test_a_bad_setting_read_from_a_recording_names_the_recording(tmp_path):
    recorded = run_simulation(SimulateSettings(script=EN)).to_dict()
    recorded["policy"] = "bogus"
    recording = tmp_path / "run.json"
    recording.write_text(json.dumps(recorded), encoding="utf-8")
    with pytest.raises(ToolsearchError) as caught:
        run_simulation(SimulateSettings(replay=str(recording)))
    assert caught.value.file == str(recording) and caught.value.field == "policy"
    assert str(caught.value).startswith(f"{recording}: field 'policy': unknown policy 'bogus'")


LIVE = {"live": True, "live_settings": LiveSettings(model="m", prompt="hi")}

BAD_SETTINGS = [
    ({}, "give a SCRIPT to simulate, or --replay FILE (not both)"),
    ({"script": EN, "replay": "r.json"}, "give a SCRIPT to simulate, or --replay FILE (not both)"),
    ({"script": EN, "live_settings": LiveSettings(model="m")}, "--model is for live runs: add --live"),
    ({"script": EN, "live_settings": LiveSettings(api="anthropic")}, "--api is for live runs: add --live"),
    ({"script": EN, "policy": "latest,bogus"}, "unknown policy 'bogus'"),
    ({"script": EN, "policy": "latest,cumulative", "state_file": "s.json"}, "--state cannot be shared"),
    ({"script": EN, "max_active": 0}, "--max-active must be at least 1, not 0"),
    ({"script": EN, "mode": "chatty"}, "unknown mode 'chatty'; choose from chat, agent"),
    ({"script": EN, "context": ["role"]}, "--context takes key=value, not 'role'"),
    ({"script": EN, "max_result_size": "lots"}, "--max-result-size takes a size such as 4MB"),
    ({"script": EN, "max_result_size": 0}, "--max-result-size must be at least 1 byte, not 0"),
    ({"live": True, "replay": "r.json"}, "--live asks a model; --replay reads a recording"),
    ({"live": True, "live_settings": LiveSettings(model="m")}, "--live needs the user's message"),
    ({"live": True, "live_settings": LiveSettings(prompt="hi")}, "--live needs --model NAME"),
    ({**LIVE, "policy": "latest,cumulative"}, "--live runs one policy"),
    ({"live": True, "live_settings": LiveSettings(model="m", prompt="hi", api="gemini")}, "unknown API 'gemini'"),
    ({"live": True, "live_settings": LiveSettings(model="m", prompt="hi", temperature=3)}, "between 0 and 2"),
    ({"live": True, "live_settings": LiveSettings(model="m", prompt="hi", tool_choice="any")}, "--tool-choice must"),
    ({"live": True, "live_settings": LiveSettings(model="m", prompt="hi", max_iterations=0)}, "--max-iterations"),
    ({"live": True, "live_settings": LiveSettings(model="m", prompt="hi", max_tokens=0)}, "--max-tokens must"),
    ({"live": True, "live_settings": LiveSettings(model="m", prompt="hi", system=" ")}, "--system is blank"),
    ({"live": True, "live_settings": LiveSettings(model="m", prompt="hi", max_reply_size="x")}, "--max-reply-size"),
]


@pytest.mark.parametrize("given, message", BAD_SETTINGS)
def test_settings_that_cannot_run_are_one_line_usage_errors(given, message):
    with pytest.raises(UsageError) as caught:
        run_simulation(SimulateSettings(**given))
    text = str(caught.value)
    assert message in text and "\n" not in text
    assert caught.value.exit_code == 2


@pytest.mark.parametrize(
    "args, message",
    [
        ((EN, "--max-active", "0"), "error: field 'max_active': --max-active must be at least 1, not 0"),
        ((EN, "--model", "m"), "error: field 'model': --model is for live runs: add --live"),
        (("--live", "--prompt", "hi"),
         "error: field 'model': --live needs --model NAME (the model the server should run)"),
        (("--live", "--model", "m", "--prompt", "hi", "--tool-choice", "any"),
         "error: field 'tool_choice': --tool-choice must be auto, required, none or omit, not 'any'"),
        ((EN, "--max-result-size", "0"),
         "error: field '--max-result-size': --max-result-size takes a size such as 4MB, 512KB or 1000 (bytes), "
         "not '0'"),
    ],
)  # fmt: skip
def test_the_command_prints_the_settings_error_on_one_line_and_exits_2(run_cli, args, message):
    result = run_cli("simulate", *args)
    assert (result.code, result.stdout, result.stderr) == (2, "", message + "\n")


def test_a_key_variable_holding_a_key_is_refused_without_showing_it(run_cli):
    settings = SimulateSettings(**{**LIVE, "live_settings": LiveSettings(model="m", prompt="hi", api_key_env=FAKE_KEY)})
    with pytest.raises(UsageError) as caught:
        run_simulation(settings)
    assert "--api-key-env takes the name of an environment variable" in str(caught.value)
    assert FAKE_KEY not in str(caught.value)


def test_reprs_never_show_the_key_nor_the_urls_credentials():
    live = LiveSettings(model="m", prompt="hi", api_key=FAKE_KEY, base_url="https://alice:pa55word-xyz@llm.test/v1")
    settings = SimulateSettings(script=EN, live=True, live_settings=live)
    for text in (repr(live), repr(settings), str(settings)):
        assert FAKE_KEY not in text and "pa55word-xyz" not in text and "alice" not in text
        assert "api_key=<set>" in text and "model='m'" in text and "llm.test/v1" in text
    assert "api_key=None" in repr(LiveSettings())


@pytest.fixture
def server():
    srv = ChatServer()
    yield srv
    srv.close()


def test_a_live_run_reports_through_progress_and_keeps_the_key_out_of_its_result(server, tmp_path, monkeypatch):
    pytest.importorskip("openai")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.add(Status(503), call("toolSearch", {"query": "weather"}), say("sunny"))
    record = tmp_path / "live.json"
    live = LiveSettings(
        prompt="weather?", base_url=server.url, model="m", api_key=FAKE_KEY, retry_backoff=0.001, record=str(record)
    )
    seen: dict[str, list] = {"start": [], "request": [], "retry": [], "warning": []}
    progress = Progress(
        warning=seen["warning"].append,
        live_start=lambda name, run, options, has_key: seen["start"].append((name, run.policy, options.model, has_key)),
        request=lambda r: seen["request"].append(r.index),
        retry=lambda number, status, attempt, retries, delay: seen["retry"].append((number, status, attempt, retries)),
    )
    result = run_simulation(SimulateSettings(catalog=[DEMO], live=True, live_settings=live), progress)
    assert seen == {"start": [("--prompt", "latest", "m", True)], "request": [1, 2], "retry": [(1, 503, 1, 3)],
                    "warning": []}  # fmt: skip
    [transcript] = result.transcripts
    assert transcript.kind == "live" and result.ok and result.record == str(record)
    assert server.requests[0].headers["authorization"] == f"Bearer {FAKE_KEY}"  # the key given was sent ...
    assert FAKE_KEY not in json.dumps(result.to_dict())  # ... and is nowhere in the result
    assert FAKE_KEY not in record.read_text(encoding="utf-8")
    assert result.to_dict()["live"]["api_key_env"] == "OPENAI_API_KEY"


def test_a_live_run_the_server_ends_returns_what_was_done_with_the_failure(server, monkeypatch):
    pytest.importorskip("openai")
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    server.add(call("toolSearch", {"query": "weather"}), Status(400, {"error": {"message": "bad request"}}))
    live = LiveSettings(prompt="weather?", base_url=server.url, model="m")
    result = run_simulation(SimulateSettings(catalog=[DEMO], live=True, live_settings=live))
    assert result.failure is not None and not result.ok
    assert "400" in str(result.failure)
    assert len(result.transcripts[0].requests) == 1 and result.transcripts[0].error
