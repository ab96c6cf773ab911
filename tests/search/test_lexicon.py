"""Requests in another language than the catalog's (issue 32): the cross-lingual lexicon.

German, French, Chinese, … requests against a catalog described in English matched nothing but
names and numbers; :mod:`toolsearch_cli.search.lexicon` gives their words English terms, added
to the request as related terms are (benchmarks/notes/languages.md has the measurements).
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.search import bm25f, hybrid, lexicon
from toolsearch_cli.search.base import SearchRequest
from toolsearch_cli.search.related import GROUPS

from .tools import string_tool

tool = string_tool

#: A small English catalog of an invoicing and messaging API.
ENGLISH = Catalog(
    tools=[
        tool("deleteInvoice", "Deletes an invoice.", {"invoice_id": "The invoice"}),
        tool("createInvoice", "Creates an invoice for a customer.", {"customer_id": "The customer"}),
        tool("listCustomers", "Lists your customers.", {"limit": "How many"}),
        tool("sendMessage", "Sends a message to a channel.", {"channel": "The channel", "text": "The text"}),
        tool("createFolder", "Creates a folder.", {"name": "The folder's name"}),
        tool("deleteFile", "Deletes a file.", {"file_id": "The file"}),
    ]
)


def ranked(catalog: Catalog, query: str, top_k: int = 10) -> list[str]:
    hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=top_k))
    return [h.tool.name for h in hits if h.score > 0]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Rechnung 2026-117 löschen", "deleteInvoice"),
        ("Lösche die Rechnung von gestern", "deleteInvoice"),
        ("créer un nouveau dossier Contrats", "createFolder"),
        ("envía un mensaje al canal de ventas", "sendMessage"),
        ("删除这张发票", "deleteInvoice"),
        ("新建一个文件夹", "createFolder"),
        ("ファイルを削除して", "deleteFile"),
    ],
)
def test_a_request_in_another_language_finds_the_english_tool(query: str, expected: str, monkeypatch) -> None:
    assert ranked(ENGLISH, query)[:1] == [expected]
    # without the lexicon the request has nothing to stand on (or only a number)
    monkeypatch.setattr(bm25f, "TRANSLATED_WEIGHT", 0.0)
    assert ranked(ENGLISH, query)[:1] != [expected]


def test_explanations_say_which_word_brought_an_english_term() -> None:
    hits = bm25f.BM25FRanker().search(ENGLISH, SearchRequest(query="Rechnung löschen", max_results=1, explain=True))
    terms = {c.term for c in hits[0].contributions}
    assert "löschen → delete" in terms
    assert "rechnung → invoice" in terms
    # a related word of the English term says which word of the request brought it
    trash = Catalog(tools=[tool("trashFile", "Moves a file to the trash."), tool("listFiles", "Lists files.")])
    hits = bm25f.BM25FRanker().search(trash, SearchRequest(query="Datei löschen", max_results=1, explain=True))
    assert hits[0].tool.name == "trashFile"
    assert "trash (for 'löschen → delete')" in {c.term for c in hits[0].contributions}


def test_english_requests_get_no_translation() -> None:
    # every English word of the related groups, alone and in a sentence
    words = {w for line in GROUPS for m in line.replace(">", " ").split() for w in m.split("_")}
    for word in sorted(words):
        assert lexicon.translations(word) == {}, word
    for query in (
        "delete the invoice and create a new folder",
        "create a new folder called José",
        "list all invoices from Müller GmbH",
        "schedule a meeting with Renée on Friday at the café",
        "post 'deploy finished ✅' in #releases",
    ):
        assert lexicon.translations(query) == {}, query
        assert lexicon.gloss(query) is None
        assert not bm25f.query_plan(query).translated


#: A Chinese catalog (a tool named in English too): its own words must keep their weight.
CHINESE = Catalog(
    tools=[
        tool("file_delete", "删除指定的文件", {"path": "文件路径"}),
        tool("user_remove", "Remove a user from the team.", {"user": "The user"}),
        tool("file_create", "创建一个新文件", {"path": "文件路径"}),
    ]
)


def test_a_chinese_catalog_keeps_its_own_words_first(monkeypatch) -> None:
    hits = bm25f.BM25FRanker().search(CHINESE, SearchRequest(query="删除文件", max_results=5))
    assert [h.tool.name for h in hits][:1] == ["file_delete"]
    plan = bm25f.query_plan("删除文件")
    assert plan.translated  # the lexicon knows both words
    bm25f.rank_index(bm25f.default_index(CHINESE), plan, 5)
    # the catalog speaks the request's language: its own words are the evidence, not the English terms
    assert plan.weights["delet"] == bm25f.TRANSLATED_SPOKEN_WEIGHT == 0.0
    assert plan.weights.get("删除", 1.0) == 1.0
    monkeypatch.setattr(bm25f, "TRANSLATED_WEIGHT", 0.0)
    before = bm25f.BM25FRanker().search(CHINESE, SearchRequest(query="删除文件", max_results=5))
    assert [(h.tool.name, h.score) for h in hits] == [(h.tool.name, h.score) for h in before]
    # an English catalog has not the word: the English term stands in for it
    monkeypatch.undo()
    plan = bm25f.query_plan("删除文件")
    bm25f.rank_index(bm25f.default_index(ENGLISH), plan, 5)
    assert plan.weights["delet"] == pytest.approx(bm25f.TRANSLATED_WEIGHT)


def test_a_catalog_that_has_the_word_weighs_its_english_term_as_a_related_one() -> None:
    # English descriptions that name the German word "Rechnung" (an invoice's field), not "löschen"
    catalog = Catalog(
        tools=[
            tool("deleteInvoice", "Deletes an invoice (Rechnung).", {"invoice_id": "The invoice"}),
            tool("createInvoice", "Creates an invoice.", {"customer": "The customer"}),
        ]
    )
    plan = bm25f.query_plan("Rechnung löschen")
    bm25f.rank_index(bm25f.default_index(catalog), plan, 5)
    assert plan.weights["invoic"] == pytest.approx(bm25f.TRANSLATED_PRESENT_WEIGHT)
    assert plan.weights["delet"] == pytest.approx(bm25f.TRANSLATED_WEIGHT)
    assert ranked(catalog, "Rechnung löschen")[0] == "deleteInvoice"


def test_a_capitalised_noun_the_lexicon_has_is_no_name(monkeypatch) -> None:
    # German nouns are capitalised as names are: "Rechnung" reads as value-like (0.6), but its
    # English term is vocabulary and weighs as any translation
    plan = bm25f.query_plan("Bitte die Rechnung löschen")
    bm25f.rank_index(bm25f.default_index(ENGLISH), plan, 5)
    assert plan.weights["rechnung"] == pytest.approx(bm25f.VALUE_WEIGHT)
    assert plan.weights["invoic"] == pytest.approx(bm25f.TRANSLATED_WEIGHT)
    monkeypatch.setattr(bm25f, "TRANSLATED_VALUE", True)
    plan = bm25f.query_plan("Bitte die Rechnung löschen")
    bm25f.rank_index(bm25f.default_index(ENGLISH), plan, 5)
    assert plan.weights["invoic"] == pytest.approx(bm25f.TRANSLATED_WEIGHT * bm25f.VALUE_WEIGHT)


def test_inflections_and_compounds() -> None:
    def english(query: str) -> set[str]:
        return {e for _, e in lexicon.translations(query).values()}

    assert "delete" in english("bitte gelöschte Dateien zeigen")  # participle with ge-
    assert "invoice" in english("die Kundenrechnung öffnen")  # the end of a compound
    assert "count" in english("wie viele Kunden haben wir")  # a phrase
    assert "update" in english("mettre à jour le client")


def test_gloss_keeps_names_and_drops_function_words() -> None:
    assert lexicon.gloss("Rechnung RE-17 löschen") == "invoice RE-17 delete"
    assert lexicon.gloss("把 web-07 的服务器删除") == "web-07 server delete"


def test_hybrid_embeds_the_gloss_for_an_english_only_model() -> None:
    assert hybrid.glossed_views("删除服务器", multilingual=False) == ["delete server"]
    assert hybrid.glossed_views("Rechnung löschen", multilingual=False) == ["Rechnung löschen", "invoice delete"]
    assert hybrid.glossed_views("Rechnung löschen", multilingual=True) is None
    assert hybrid.glossed_views("delete the invoice", multilingual=False) is None


@pytest.mark.parametrize(
    "query",
    [
        "löschen " * 50_000,
        "删除文件" * 30_000,
        "e\u0301" * 10_000 + " Rechnung",
        "\u202eRechnung\u202c \u200d\u200d löschen 🙂" * 1000,
        "ß" * 100_000,
        "\x00\x01 supprimer \ufeff le dossier",
    ],
)
def test_hostile_requests_stay_bounded(query: str) -> None:
    found = lexicon.translations(query)
    assert len(found) <= lexicon.MAX_TERMS
    text = lexicon.gloss(query)
    assert text is None or len(text) <= lexicon.MAX_CHARS
    ranked(ENGLISH, query)  # no error


def test_the_tables_are_built_on_first_use_only() -> None:
    code = (
        "import sys, toolsearch_cli.search.bm25f, toolsearch_cli.search.hybrid; "
        "print('toolsearch_cli.search.lexicon' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_catalog_that_speaks_the_request_s_language_keeps_the_request_s_action():
    """Translations of no weight (the catalog speaks the request's language) are taken out of a copy
    of the plan; the copy had lost the action the request asks for, so "delete 文件" on a Chinese
    catalog got no action bonus."""
    from toolsearch_cli.search.bm25f import build_index, query_plan, rank_index

    catalog = [
        Tool(name="deleteFile", description="删除文件"),
        Tool(name="listFiles", description="列出文件 文件 文件"),
        Tool(name="uploadFile", description="上传文件"),
    ]
    plan = query_plan("delete 文件")
    assert plan.action == "delete" and plan.translated  # 文件 -> file, weighed 0 on this catalog
    _, bonuses, _ = rank_index(build_index(catalog), plan, 3, explain=True)
    assert "deleteFile" in bonuses and "action: delete" in bonuses["deleteFile"][1]


def test_the_lexicon_file_is_well_formed() -> None:
    """The data file (toolsearch_cli/search/data/lexicon.txt) parses into concepts whose every
    line is ``lang: words`` of a known language, with no stem too short to be looked up (such a
    stem was silently left out: twelve were, ``pag*`` and ``баз*`` among them)."""
    from toolsearch_cli.search.lexicon import MIN_STEM, concepts, fold

    known = {"de", "fr", "es", "pt", "it", "nl", "ru", "zh", "ja", "ko"}
    found = concepts()
    assert len(found) > 100
    for english, lines in found:
        assert english.split(), "a concept without its English words"
        assert lines, f"{english!r} has no language line"
        for line in lines:
            lang, colon, words = line.partition(":")
            assert colon and lang in known, f"{english!r}: {line!r}"
            for word in words.split():
                if word.endswith("*"):
                    assert len(fold(word[:-1])) >= MIN_STEM, f"{english!r}: stem {word!r} too short"


@pytest.mark.parametrize(
    ("query", "expected", "not_expected"),
    [
        # nombre: a name in Spanish, a number in French (the French sense came first in the file)
        ("cambia el nombre del archivo", {"name", "update", "file"}, {"count"}),
        ("compte le nombre de fichiers", {"count", "file"}, {"name"}),
        # Termine: German appointments; terminé: French done (German first in the file)
        ("la tâche est terminée", {"task", "complete"}, {"meeting"}),
        ("Welche Termine habe ich morgen", {"meeting"}, {"complete"}),
    ],
)
def test_a_word_of_two_languages_takes_the_sense_of_the_requests_language(
    query: str, expected: set[str], not_expected: set[str]
) -> None:
    from toolsearch_cli.search.lexicon import found

    labels = {label for _, _, label, _ in found(query)}
    assert expected <= labels and not labels & not_expected, labels


def test_a_word_with_two_senses_in_one_language_brings_both() -> None:
    """German *Karte* is a map and a card, Chinese 关闭 to close and to disable: the catalog's
    words decide, so both senses' English terms are added; the gloss takes the first."""
    from toolsearch_cli.search.lexicon import found, gloss, translations

    assert {label for _, _, label, _ in found("Karte der Filialen anzeigen")} >= {"map", "card"}
    terms = translations("关闭这个仓库")
    assert {english for _, english in terms.values()} >= {"close", "disable"}, terms
    assert gloss("关闭这个仓库") == "disable repository"


def test_short_stems_are_written_out() -> None:
    """Spanish *pague* and Russian *базу* were dead (their stems ``pag*`` and ``баз*`` were too short)."""
    from toolsearch_cli.search.lexicon import found

    assert [label for _, _, label, _ in found("pague la factura")][0] == "pay"
    assert "database" in {label for _, _, label, _ in found("создай базу")}
