"""Fixtures of the live-run tests that run once per provider API: ``api`` (the ``--api`` value)
and ``server`` (a loopback Chat server speaking that API's protocol). A test module's own
``server`` fixture, where it has one, takes precedence."""

from __future__ import annotations

import pytest

from ..chat_server import ChatServer

#: ``--api`` value -> the loopback server's protocol
PROTOCOLS = {"openai-chat": "openai", "openai-responses": "openai-responses", "anthropic": "anthropic"}


@pytest.fixture(params=list(PROTOCOLS))
def api(request):
    return request.param


@pytest.fixture
def server(api):
    srv = ChatServer(protocol=PROTOCOLS[api])
    yield srv
    srv.close()
