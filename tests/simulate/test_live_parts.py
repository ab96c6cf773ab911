"""A live run's recorded options and its client come from one builder (``run.live_parts``): every
:class:`LiveSettings` field reaches both, or is listed here as reaching one of them (or neither)
on purpose, and the values both take are the same."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import pytest

from toolsearch_cli.simulate.run import _endpoint, live_parts
from toolsearch_cli.simulate.settings import LiveSettings

pytest.importorskip("openai")

BASE = {"model": "m", "base_url": "http://127.0.0.1:9/v1", "api_key": "sk-base"}
#: A value other than the base's, for every field of LiveSettings.
CHANGED: dict[str, Any] = {
    "prompt": "hello",
    "base_url": "http://127.0.0.1:8/v2",
    "model": "m2",
    "api_key_env": "OTHER_KEY",
    "api_key": "sk-other",
    "max_iterations": 7,
    "temperature": 0.5,
    "tool_choice": "required",
    "timeout": 5.0,
    "retries": 1,
    "retry_backoff": 0.25,
    "record": "run.json",
    "max_tokens": 99,
    "system": "be brief",
    "api": "openai-responses",
    "max_reply_size": "2MB",
}
#: The loop's bound: recorded, the client has no use for it.
RECORDED_ONLY = {"max_iterations"}
#: Never recorded (the key), or transport details of the client alone.
CLIENT_ONLY = {"api_key", "retry_backoff", "max_reply_size"}
#: What the run itself uses (the messages, the recording's file): neither the endpoint's options nor the client.
NEITHER = {"prompt", "record", "system"}


def _parts(**values: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    live = LiveSettings(**{**BASE, **values})
    options, client = live_parts(_endpoint(live), live)
    seen = {k: v for k, v in vars(client).items() if v is None or isinstance(v, str | int | float | bool)}
    return options.to_dict() | {"api": options.api}, seen | {"api": client.api}


def test_every_field_of_live_settings_has_a_changed_value():
    assert set(CHANGED) == {f.name for f in fields(LiveSettings)}  # a new field: add it above


@pytest.mark.parametrize("name", sorted(CHANGED))
def test_a_field_reaches_the_recording_and_the_client_alike(name):
    base_options, base_client = _parts()
    options, client = _parts(**{name: CHANGED[name]})
    reached = (options != base_options, client != base_client)
    expected = (name not in CLIENT_ONLY | NEITHER, name not in RECORDED_ONLY | NEITHER)
    assert reached == expected, f"{name}: recorded {reached[0]}, sent {reached[1]}"


def test_the_values_both_take_are_the_same():
    values = {k: v for k, v in CHANGED.items() if k not in NEITHER}
    options, client = _parts(**values)
    shared = sorted(set(options) & set(client) - {"base_url"})
    assert shared == ["api", "api_key_env", "max_tokens", "model", "retries", "temperature", "timeout", "tool_choice"]
    assert {k: options[k] for k in shared} == {k: client[k] for k in shared}
    assert options["base_url"] == client["shown_url"] == "http://127.0.0.1:8/v2"
    assert client["base_url"] == "http://127.0.0.1:8/v2" and "sk-other" not in str(options)
