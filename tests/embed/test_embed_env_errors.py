"""A bad value in a ``$TOOLSEARCH_EMBED_*`` variable is named as that variable, not as an option the user
never typed (issue 19 audit: ``TOOLSEARCH_EMBED_WEIGHT=7`` said ``--embed-weight must be ...``).

Each case: exit 2, one line on stderr naming ``$VAR`` and the field, nothing on stdout; the same value given
as the option still names the option."""

from __future__ import annotations

import pytest

from toolsearch_cli.search import embed_settings

CASES = [
    # (variable, option, bad value, field)
    (embed_settings.WEIGHT_VAR, "--embed-weight", "7", "embed-weight"),
    (embed_settings.TIMEOUT_VAR, "--embed-timeout", "-3", "embed-timeout"),
    (embed_settings.BASE_URL_VAR, "--embed-base-url", "gopher://x", "embed-base-url"),
    (embed_settings.KEY_ENV_VAR, "--embed-api-key-env", " ", "embed-api-key-env"),
]


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for name in ("MODEL_VAR", "BASE_URL_VAR", "WEIGHT_VAR", "TIMEOUT_VAR", "KEY_ENV_VAR"):
        monkeypatch.delenv(getattr(embed_settings, name), raising=False)
    yield


@pytest.mark.parametrize(("variable", "option", "value", "field"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_variable_is_named_as_the_variable(run_cli, monkeypatch, variable, option, value, field):
    monkeypatch.setenv(variable, value)
    monkeypatch.setenv(embed_settings.MODEL_VAR, "some-model")  # --embed-base-url needs a model
    result = run_cli("search", "weather in Paris", "-r", "hybrid")
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"field '{field}'" in lines[0]
    assert f"${variable}" in lines[0]
    assert option not in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("variable", "option", "value", "field"), CASES, ids=[c[0] for c in CASES])
def test_the_same_value_as_an_option_names_the_option(run_cli, variable, option, value, field):
    result = run_cli("search", "weather in Paris", "-r", "hybrid", "--embed-model", "some-model", option, value)
    assert result.code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"field '{field}'" in lines[0] and option in lines[0]
    assert f"${variable}" not in lines[0]
