"""Issue 32: ranking on real API catalogs.

Three mechanisms of the default ranker, each with a small hand-made catalog on which it decides
the order (the constants are those of ``toolsearch_cli.search.bm25f``; benchmarks/notes/ranking.md,
"Issue 32", has the measurements):

* parameter evidence is capped relative to name / title / description evidence
  (``PARAM_CAP_OWN``, ``PARAM_CAP_BEST``), and ``--explain`` shows the capped points;
* terms of value-like request words (a quoted folder name, a person, a weekday, an id) weigh less
  (``VALUE_WEIGHT``, ``toolsearch_cli.search.values``);
* related words ("money back" -> refund) are added at a lower weight (``RELATED_WEIGHT``,
  ``toolsearch_cli.search.related``).
"""

from __future__ import annotations

import pytest

from toolsearch_cli.model import Catalog, Tool
from toolsearch_cli.search import bm25f
from toolsearch_cli.search.base import SearchRequest
from toolsearch_cli.search.related import expansions
from toolsearch_cli.search.text import analyze
from toolsearch_cli.search.values import value_terms

from .tools import string_tool

op = string_tool


def search(catalog: Catalog, query: str, top_k: int = 10, explain: bool = False):
    """The default ranker's hits (a fresh ranker: no index is shared between the patched constants)."""
    hits = bm25f.BM25FRanker().search(catalog, SearchRequest(query=query, max_results=top_k, explain=explain))
    return [h for h in hits if h.score > 0]


def names(hits) -> list[str]:
    return [h.tool.name for h in hits]


def filler(n: int) -> list[Tool]:
    """Unrelated operations, so that document frequencies look like an API's."""
    nouns = ["invoice", "webhook", "coupon", "payout", "dispute", "token", "balance", "product", "price", "tax"]
    return [op(f"get_{nouns[i % 10]}_{i}", f"Retrieve a {nouns[i % 10]} by its id.") for i in range(n)]


# --- parameter evidence --------------------------------------------------------------------

#: A request body that mentions most of the request's words in its parameters only.
PARAM_HEAVY = op(
    "post_setup_intents",
    "Creates a SetupIntent object.",
    {
        "customer": "ID of the customer this SetupIntent belongs to.",
        "card": "The card the customer paid with.",
        "amount": "The amount of money, in cents.",
        "return_url": "The URL to send your customer back to.",
    },
)
#: The operation asked for, which says one of the request's words in its description.
REFUNDS = op(
    "post_refunds",
    "Create a refund of a charge made earlier, to return the money.",
    {"charge": "The identifier of the charge to act on."},
)
PARAM_CATALOG = Catalog(tools=[PARAM_HEAVY, REFUNDS, *filler(30)])
QUERY = "give the customer their money back for the amount they paid by card"


@pytest.fixture
def no_expansion(monkeypatch):
    monkeypatch.setattr(bm25f, "RELATED_WEIGHT", 0.0)


def test_parameter_only_evidence_does_not_outrank_the_named_tool(no_expansion):
    assert names(search(PARAM_CATALOG, QUERY, top_k=2)) == ["post_refunds", "post_setup_intents"]


def test_without_the_cap_the_parameter_heavy_tool_wins(monkeypatch, no_expansion):
    # the catalog does show the failure: the test above passes because of the cap
    monkeypatch.setattr(bm25f, "PARAM_CAP_OWN", None)
    assert names(search(PARAM_CATALOG, QUERY, top_k=2))[0] == "post_setup_intents"


def test_parameters_still_break_ties_and_add_recall(no_expansion):
    # a request only parameters answer still finds the tool
    assert names(search(PARAM_CATALOG, "customer acceptance mandate", top_k=1)) == ["post_setup_intents"]
    # two tools with the same own words: the one whose parameters match too comes first
    a = op("create_folder_a", "Create a folder.", {"parent": "The parent folder to create it in."})
    b = op("create_folder_b", "Create a folder.", {"color": "A color."})
    catalog = Catalog(tools=[b, a, *filler(10)])
    assert names(search(catalog, "create a folder in the parent", top_k=2)) == ["create_folder_a", "create_folder_b"]


def test_explain_shows_the_capped_parameter_points_and_adds_up(no_expansion):
    hits = search(PARAM_CATALOG, QUERY, top_k=2, explain=True)
    heavy = next(h for h in hits if h.tool.name == "post_setup_intents")
    params = [c for c in heavy.contributions if c.field == "parameters"]
    assert params and all("capped" in c.detail for c in params)
    assert sum(c.points for c in heavy.contributions) == pytest.approx(heavy.score)
    named = next(h for h in hits if h.tool.name == "post_refunds")
    assert not any("capped" in c.detail for c in named.contributions)
    assert sum(c.points for c in named.contributions) == pytest.approx(named.score)


# --- value-like words ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "values"),
    [
        # "called" and "named" introduce a name: words of asking, weighed like values
        ("make a new directory called Contracts inside the Legal folder", {"contract", "legal", "call"}),
        ('create a folder named "Q3 Legal"', {"q3", "legal", "name"}),
        ("schedule a call with the sales team for Monday at 10", {"monday", "10"}),
        ("invite jane@acme.io to the team", set(analyze("jane@acme.io"))),
        ("refund order INV-2041 now", {*analyze("INV-2041"), "now"}),
        ("who attended the meeting last week", {"last", "week"}),
        ("list the events of 3 days ago", {"day", "ago"}),  # "3": one letter, not a term
        ("stop Lena's subscription", {"lena"}),
    ],
)
def test_value_like_words(query, values):
    assert value_terms(query) == values


@pytest.mark.parametrize(
    "query",
    [
        "Create a DNS record",  # a sentence's first word; an acronym
        "convert the video to mp4 and upload it to S3",  # short names of things APIs are about
        "list the files",
        "what may happen in march",  # "may" and "march" as words, not dates
        "bill the customer every month",  # recurring, not a date
    ],
)
def test_words_that_are_not_values(query):
    assert value_terms(query) == frozenset()


def test_a_word_said_as_value_and_as_intent_is_intent():
    assert value_terms("show the Files folder and list its files") == frozenset()


FOLDERS = [
    op("post_folders", "Create folder. Creates a new empty folder within the parent folder."),
    op("get_folders_id", "Get folder. Retrieves a folder."),
    op("delete_folders_id", "Delete folder."),
    op("post_folders_id_copy", "Copy folder."),
    op("post_legal_hold_policies", "Create legal hold policy. Creates a new legal hold policy."),
]
FOLDER_CATALOG = Catalog(tools=[*FOLDERS, *filler(20)])


def test_a_quoted_or_named_folder_does_not_decide_the_operation():
    assert names(search(FOLDER_CATALOG, "make a new directory called 'Contracts' inside the Legal folder"))[0] == (
        "post_folders"
    )


def test_without_the_value_weight_the_name_decides(monkeypatch):
    monkeypatch.setattr(bm25f, "VALUE_WEIGHT", 1.0)
    assert names(search(FOLDER_CATALOG, "make a new directory called 'Contracts' inside the Legal folder"))[0] == (
        "post_legal_hold_policies"
    )


def test_values_still_count_when_a_tool_is_about_them():
    # the request is only about the named thing: the tool about it comes first
    assert names(search(FOLDER_CATALOG, "the Legal hold"))[0] == "post_legal_hold_policies"


# --- related words -------------------------------------------------------------------------


def test_related_words_are_expanded_and_phrases_only_trigger():
    added = expansions("give the customer their money back", analyze("give the customer their money back"))
    assert added.get("refund") == "money back"
    assert "money" not in expansions("create a refund", analyze("create a refund"))
    assert "copi" in expansions("duplicate the file", analyze("duplicate the file"))


def test_money_back_finds_refunds():
    catalog = Catalog(tools=[op("post_refunds", "Create a refund."), op("post_customers", "Create a customer.")])
    assert names(search(catalog, "I want my money back"))[0] == "post_refunds"


def test_related_words_find_what_the_request_does_not_say(monkeypatch):
    catalog = Catalog(tools=[op("copy_file", "Copy a file."), op("read_file", "Read a file."), *filler(10)])
    assert names(search(catalog, "duplicate the report", top_k=1)) == ["copy_file"]
    monkeypatch.setattr(bm25f, "RELATED_WEIGHT", 0.0)
    assert names(search(catalog, "duplicate the report", top_k=1)) == []


def test_the_requests_own_word_beats_a_related_one():
    catalog = Catalog(tools=[op("copy_file", "Copy a file."), op("duplicate_file", "Duplicate a file.")])
    assert names(search(catalog, "duplicate the file")) == ["duplicate_file", "copy_file"]


def test_explain_names_the_word_a_related_term_came_from():
    catalog = Catalog(tools=[op("copy_file", "Copy a file."), *filler(5)])
    hit = search(catalog, "duplicate the report", explain=True)[0]
    assert any(c.term.startswith("copi") and "duplic" in c.term for c in hit.contributions)
    assert sum(c.points for c in hit.contributions) == pytest.approx(hit.score)


# --- the stores agree ----------------------------------------------------------------------


def test_both_stores_split_a_terms_frequency_alike():
    pytest.importorskip("numpy")
    tools = [PARAM_HEAVY, REFUNDS, *FOLDERS, *filler(40)]
    fields = frozenset(i for i, name in enumerate(bm25f.FIELD_SPECS) if name in bm25f.PARAM_FIELDS)
    indexes = [bm25f.build_index(tools, backend=backend) for backend in ("python", "numpy")]
    for index in indexes:  # a change after the build: the numpy store's delta segment
        index.add(op("post_refunds_2", "Refund a customer.", {"customer": "The customer to refund."}))
        index.remove("get_tax_9")
    slots = sorted(indexes[0].slot_of.values())
    terms = [analyze(word)[0] for word in ("customer", "refund", "folder", "money", "absent")]
    python, numpy = (index.param_split(terms, slots, fields) for index in indexes)
    assert [sorted(p) for p in python] == [sorted(n) for n in numpy]
    for p, n in zip(python, numpy, strict=True):
        for i in p:
            assert p[i] == pytest.approx(n[i])
    # in some tool's parameters: customer, refund (post_refunds_2), money (an amount's description)
    assert [bool(p) for p in python] == [True, True, False, True, False]
    heavy = slots.index(indexes[0].slot_of["post_setup_intents"])
    total, part = python[0][heavy]
    assert total == part > 0  # "customer": in its parameters only
    assert heavy not in python[1] or python[1][heavy][0] >= python[1][heavy][1]


def test_the_numpy_store_splits_alike_by_search_and_by_slot(monkeypatch):
    # issue 32 at 100,000 tools: after FORWARD_AFTER weighings the store reads the candidates'
    # entries from its entries by slot instead of searching each term's postings; the same
    # frequencies, bit for bit (the same sums in the same order), and the Python store's
    pytest.importorskip("numpy")
    from toolsearch_cli.search.numpy_store import NumpyStore

    tools = [PARAM_HEAVY, REFUNDS, *FOLDERS, *filler(40)]
    fields = frozenset(i for i, name in enumerate(bm25f.FIELD_SPECS) if name in bm25f.PARAM_FIELDS)
    terms = [analyze(word)[0] for word in ("customer", "refund", "folder", "money", "absent", "invoice", "card")]
    python, numpy = (bm25f.build_index(tools, backend=backend) for backend in ("python", "numpy"))
    store = numpy._store
    slots = sorted(python.slot_of.values())[::-1]  # candidates in any order
    monkeypatch.setattr(NumpyStore, "FORWARD_AFTER", 10**9)
    searched = numpy.param_split(terms, slots, fields)
    assert store.forward is None
    monkeypatch.setattr(NumpyStore, "FORWARD_AFTER", 0)
    by_slot = numpy.param_split(terms, slots, fields)
    assert store.forward is not None
    assert by_slot == searched
    assert [list(split.items()) for split in by_slot] == [list(split.items()) for split in searched]
    expected = python.param_split(terms, slots, fields)
    assert [sorted(split) for split in by_slot] == [sorted(split) for split in expected]
    assert any(by_slot)
    # a tool added after the entries by slot were made: its slot is past them (searched), its
    # terms in the delta segment; a removed tool's entries stay until a merge and are still read
    for index in (python, numpy):
        index.add(op("post_refunds_2", "Refund a customer.", {"customer": "The customer to refund."}))
        index.remove("get_tax_9")
    slots = sorted(python.slot_of.values())
    after = numpy.param_split(terms, slots, fields)
    assert [sorted(split) for split in after] == [sorted(split) for split in python.param_split(terms, slots, fields)]
    assert after[0][slots.index(numpy.slot_of["post_refunds_2"])][1] > 0


def test_the_cap_window_gives_the_pools_order_with_and_without_explanations(monkeypatch):
    # thirty parameter-heavy tools above the named one: the cap is weighed on the first
    # PARAM_WINDOW, then on the whole pool, as a tool past the window could still reach the top
    heavy = [
        Tool(name=f"post_setup_intents_{i}", description=PARAM_HEAVY.description, parameters=PARAM_HEAVY.parameters)
        for i in range(30)
    ]
    catalog = Catalog(tools=[*heavy, REFUNDS, *filler(20)])
    plain = names(search(catalog, QUERY, top_k=5))
    explained = names(search(catalog, QUERY, top_k=5, explain=True))
    assert plain == explained
    assert plain[0] == "post_refunds"
    monkeypatch.setattr(bm25f, "PARAM_WINDOW", 1000)  # the whole pool at once
    assert names(search(catalog, QUERY, top_k=5)) == plain
    monkeypatch.setattr(bm25f, "PARAM_CAP_OWN", None)  # uncapped, the named tool is past the window
    assert "post_refunds" not in names(search(catalog, QUERY, top_k=25))


def test_a_tie_with_the_tool_past_the_cap_window_is_ordered_by_name(monkeypatch):
    # 30 tools alike, slots in the reverse of name order: the window's 5th score ties the tool
    # after the window, so the pool past it is ranked too; ties go by name, as with the whole pool
    alike = [op(f"post_intent_{i:02}", "Refund a charge.", {"refund": "The refund's reason."}) for i in range(30)]
    catalog = Catalog(tools=[*alike[::-1], *filler(100)])
    query = "the refund"  # one word: no coverage bonus, so the window is ranked first
    expected = [f"post_intent_{i:02}" for i in range(5)]
    calls = []
    ranked_slots = bm25f.BM25FIndex.ranked_slots

    def spy(self, plan, k, *args, **kwargs):
        calls.append(k)
        return ranked_slots(self, plan, k, *args, **kwargs)

    monkeypatch.setattr(bm25f.BM25FIndex, "ranked_slots", spy)
    assert names(search(catalog, query, top_k=5)) == expected
    assert calls == [bm25f.PARAM_WINDOW + 1, bm25f.PARAM_POOL]
    assert names(search(catalog, query, top_k=5, explain=True)) == expected
    monkeypatch.setattr(bm25f, "PARAM_WINDOW", 1000)  # the whole pool at once
    assert names(search(catalog, query, top_k=5)) == expected
