"""The bounds of one exchange: the events of an event stream are counted in its bytes, however the
chunks are cut; over stdio, only the answer a request waits for starts a new exchange."""

from __future__ import annotations

import pytest

from toolsearch_cli.catalog.mcp_transport import EventCounter, Meter

mcp_types = pytest.importorskip("mcp_types", reason="the MCP SDK (extra toolsearch-cli[mcp]) is not installed")

STREAM = b"event: message\ndata: {}\n\n: tick\n\ndata: x\r\n\r\nretry: 5\r\rdata: y\n\n"


def counted(chunks: list[bytes]) -> int:
    counter = EventCounter()
    for chunk in chunks:
        counter.add(chunk)
    return counter.count


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 64])
def test_every_blank_line_ends_an_event_wherever_the_chunks_are_cut(size):
    chunks = [STREAM[i : i + size] for i in range(0, len(STREAM), size)]
    assert counted(chunks) == 5  # LF, comment, CRLF, CR, LF endings


def test_lines_without_a_blank_line_are_no_event_and_empty_chunks_change_nothing():
    assert counted([b"data: a\n", b"", b"data: b\r\n", b": c\r"]) == 0
    assert counted([b"data: a\r", b"\n", b"\r\n"]) == 1  # a CRLF cut in two, then the blank line


def test_only_an_awaited_answer_starts_a_new_exchange():
    meter = Meter(1000, exchange_bytes=10_000, exchange_messages=3)
    meter.sent(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=7, method="tools/list"))
    note = mcp_types.JSONRPCNotification(jsonrpc="2.0", method="notifications/progress")
    stranger = mcp_types.JSONRPCResponse(jsonrpc="2.0", id=8, result={})  # nobody asked for id 8
    assert [meter.heard(m) for m in (note, stranger, note)] == [None, None, None]
    assert meter.heard(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=7, result={})) is None
    assert meter.unanswered == 0  # the awaited answer: a new exchange
    assert [meter.heard(note) for _ in range(3)] == [None] * 3
    said = meter.heard(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=7, result={}))  # answered already
    assert said is not None and said.startswith("sent more than 3 messages ($TOOLSEARCH_MCP_MAX_MESSAGES)")
    assert meter.refusals == 1
