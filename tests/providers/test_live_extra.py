"""The ``[live]`` extra installs every live client's SDK: the one-line error of a missing SDK
tells the user to ``pip install 'toolsearch-cli[live]'``, which must then bring it (the extra
had only ``openai``, so ``--api anthropic`` could not be set up by following the message)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from toolsearch_cli.providers import CLIENT_BY_API
from toolsearch_cli.providers.client import LiveError

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_live_extra_installs_every_live_clients_sdk():
    extras = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    sdks = {client.sdk for client in CLIENT_BY_API.values()}
    assert sdks == {"openai", "anthropic"}
    assert sdks <= _names(extras["live"])


@pytest.mark.parametrize("api", sorted(CLIENT_BY_API))
def test_a_missing_sdk_names_the_live_extra(api, monkeypatch):
    import sys

    client = CLIENT_BY_API[api]
    monkeypatch.setitem(sys.modules, client.sdk, None)  # importing it now raises ImportError
    with pytest.raises(LiveError) as caught:
        client(base_url="http://127.0.0.1:9/v1", model="m", api_key=None)
    assert f"needs the {client.sdk_title} SDK" in str(caught.value)
    assert str(caught.value).endswith("pip install 'toolsearch-cli[live]'")
