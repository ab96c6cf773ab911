"""Issue 11.1: a registered secret never survives redaction, whatever surrounds it or how it is written."""

from __future__ import annotations

import io
import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolsearch_cli import redaction

SECRET = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), min_size=4, max_size=40)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=60)


@settings(max_examples=300, deadline=None)
@given(secret=SECRET, before=TEXT, after=TEXT, cuts=st.lists(st.integers(0, 200), max_size=6))
@example(secret="a***", before="a", after="", cuts=[])  # masking once leaves "a" + "***": the secret again
def test_a_secret_written_in_any_pieces_never_comes_out(secret, before, after, cuts):
    redaction.forget_all()
    try:
        redaction.register(secret)
        text = f"{before}{secret}{after}\n{secret}"
        sink = io.StringIO()
        stream = redaction.RedactingStream(sink)
        points = sorted({min(c, len(text)) for c in cuts})
        for start, end in zip([0, *points], [*points, len(text)], strict=True):
            stream.write(text[start:end])
        stream.flush()
        assert secret not in sink.getvalue()
    finally:
        redaction.forget_all()


@settings(max_examples=300, deadline=None)
@given(secret=SECRET, before=TEXT, after=TEXT, ascii_only=st.booleans())
def test_a_secret_in_json_output_never_comes_out_escaped_or_not(secret, before, after, ascii_only):
    redaction.forget_all()
    try:
        redaction.register(secret)
        out = redaction.redact(json.dumps({"reply": f"{before}{secret}{after}"}, ensure_ascii=ascii_only))
        assert secret not in out and json.dumps(secret, ensure_ascii=ascii_only)[1:-1] not in out
        data = redaction.redact_data({"k": [f"{before}{secret}{after}"], secret: 1})
        assert all(secret not in text for text in (*data, *data["k"]))  # (escaping may then spell it: streams mask)
    finally:
        redaction.forget_all()
