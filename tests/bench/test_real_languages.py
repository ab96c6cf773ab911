"""The real-catalog harness splits MRR by the request's language (English or another)."""

from __future__ import annotations

import pytest

from benchmarks.real_quality import by_language, english


@pytest.mark.parametrize(
    "query",
    [
        "move this card over to the Done column",
        "how many email credits do we have left?",
        "total deal value per pipeline stage",
        "how do I drive from the office on Friedrichstraße 43 to Berlin Tegel?",
        "Bluebird Café paid invoice 1043 in full this morning, record it",
    ],
)
def test_english_requests(query: str) -> None:
    assert english(query)


@pytest.mark.parametrize(
    "query",
    [
        "删除一个容器",
        "チーム mobile-qa に ken@example.jp を追加して",
        "supprime le message de spam dans #général",
        "Rechnung RE-2026-117 als PDF herunterladen",
        "crea un tablero nuevo llamado Eventos en el espacio de trabajo",
        "Неоплаченные счета удалить",
    ],
)
def test_requests_in_other_languages(query: str) -> None:
    assert not english(query)


def test_the_split_counts_each_request_once() -> None:
    class Entry:
        id = "c"
        queries = [("delete the invoice", ["a"]), ("删除发票", ["a"]), ("list the invoices", ["b"])]

    results = {"c": {"default": {"ranks": [1, 2, 0]}}}
    lines = by_language([Entry()], results, ["default"])
    assert "| default | 0.500 (2) | 0.500 (1) |" in lines
