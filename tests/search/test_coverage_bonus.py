"""A request said in a tool's own words against the same words scattered over big request bodies.

In Kubernetes' OpenAPI document "list pods in a namespace" (and "list or watch objects of kind
Pod", the operation's description word for word) ranked the pod list operations below create and
replace operations whose request-body schemas mention lists, watches, kinds, objects and pods.
The coverage bonus (bm25f.COVER_SHARE) rewards a tool whose name and description hold nearly all
of the request; benchmarks/notes/ranking.md has the measurements.
"""

from __future__ import annotations

import pytest

from toolsearch_cli.model import Catalog, Tool, pack_tools, unpacked
from toolsearch_cli.search import bm25f, search


@pytest.fixture(autouse=True)
def _coverage_alone(monkeypatch):
    """These tests are about the coverage bonus alone: round 6's action bonus ("list", "create") off."""
    monkeypatch.setattr(bm25f, "ACTION_SHARE", 0.0)


KINDS = ["Pod", "Service", "Node", "Secret", "ConfigMap", "Deployment", "Job", "Namespace"]
NAMESPACE = {"type": "string", "description": "object name and auth scope, such as for teams and projects"}


def list_op(kind: str) -> Tool:
    selector = "A selector to restrict the list of returned objects by their labels."
    watch = "Watch for changes to the described resources and return them as a stream of notifications."
    return Tool(
        name=f"listCoreV1Namespaced{kind}",
        description=f"list or watch objects of kind {kind}",
        parameters={
            "type": "object",
            "properties": {
                "namespace": NAMESPACE,
                "labelSelector": {"type": "string", "description": selector},
                "watch": {"type": "boolean", "description": watch},
            },
        },
    )


def create_op(kind: str, spec: dict[str, str]) -> Tool:
    """A create operation whose request body is the whole object: kind, metadata, spec."""
    meta = {
        "ownerReferences": {"type": "string", "description": "List of objects depended by this object."},
        "labels": {"type": "string", "description": "Map of string keys and values to organize objects."},
    }
    kind_text = "Kind is a string value representing the REST resource this object represents."
    return Tool(
        name=f"createPolicyV1Namespaced{kind}",
        description=f"create a {kind}",
        parameters={
            "type": "object",
            "properties": {
                "namespace": NAMESPACE,
                "kind": {"type": "string", "description": kind_text},
                "metadata": {"type": "object", "description": "Standard object's metadata.", "properties": meta},
                "spec": {
                    "type": "object",
                    "properties": {k: {"type": "string", "description": v} for k, v in spec.items()},
                },
            },
        },
    )


BUDGET = {"minAvailable": "An eviction is allowed if at least minAvailable pods selected by selector stay available."}


def catalog() -> Catalog:
    tools = [list_op(kind) for kind in KINDS]
    tools += [create_op(kind, {"replicas": f"Desired pods of the {kind}."}) for kind in KINDS if kind != "Pod"]
    tools += [create_op("PodDisruptionBudget", BUDGET), create_op("PodSchedulingContext", BUDGET)]
    return Catalog(tools=tools)


def top(query: str, n: int = 3, packed: bool = False) -> list[str]:
    cat = catalog()
    if packed:
        pack_tools(cat.tools)
    return [hit.name for hit in search(cat, query, max_results=n)]


def test_a_request_in_a_tools_own_words_beats_the_same_words_in_request_bodies(monkeypatch):
    assert top("list pods in a namespace", 1) == ["listCoreV1NamespacedPod"]
    assert top("list pods in a namespace", 1, packed=True) == ["listCoreV1NamespacedPod"]
    monkeypatch.setattr(bm25f, "COVER_SHARE", 0.0)  # the failure the bonus fixes
    assert top("list pods in a namespace", 1) == ["createPolicyV1NamespacedPodDisruptionBudget"]


def test_the_bonus_is_explained_and_the_explanation_adds_up():
    hits = search(catalog(), "list pods in a namespace", max_results=5)
    first = hits[0]
    bonus = [c for c in first.contributions if c.term == "(the query)"]
    assert len(bonus) == 1 and bonus[0].points > 0
    assert bonus[0].detail == "coverage: 100% of the query's weight in the tool's own words"
    assert "description" in first.matched_fields
    for hit in hits:
        assert sum(c.points for c in hit.contributions) == pytest.approx(hit.score)
        assert set(hit.matched_fields) == {c.field for c in hit.contributions}


def test_one_word_requests_and_weak_coverage_earn_no_bonus():
    # one indexed term: its match is already the whole score
    hits = search(catalog(), "pods", max_results=5)
    assert hits and not any(c.term == "(the query)" for h in hits for c in h.contributions)
    # the create operations hold "create" but not "secret" or "rotate" in their own words
    hits = search(catalog(), "create secret rotate", max_results=20)
    rewarded = {h.name for h in hits if any(c.term == "(the query)" for c in h.contributions)}
    assert "createPolicyV1NamespacedSecret" in rewarded
    assert "createPolicyV1NamespacedService" not in rewarded


def own_terms(tool: Tool) -> frozenset[str]:
    """What a tool says about itself, analysed from its fields (the reference the postings of
    bm25f.OWN_FIELDS are checked against)."""
    tool = unpacked(tool)
    native = bm25f._openapi_native(tool)
    description = "" if tool.title or bm25f.generated_description(tool) else tool.description
    if native is not None:
        terms = set(bm25f._method_name_terms(tool.name, str(native["method"]), str(native.get("path") or "")))
    else:
        terms = set(bm25f._token_terms(tool.name))
    terms.update(bm25f._token_terms(bm25f._plain(tool.title)))
    terms.update(bm25f._token_terms(bm25f._plain(description)))
    return frozenset(terms)


@pytest.mark.parametrize("backend", ["python", "numpy"])
def test_own_words_from_the_postings_are_the_tools_own_terms(backend):
    """The bonus reads the name / title / description postings; both stores agree with own_terms."""
    if backend == "numpy":
        pytest.importorskip("numpy")
    cat = catalog()
    titled = Tool(
        name="ops_rotate", description="Rotate the signing key. " * 40, metadata={"mcp": {"title": "Rotate a key"}}
    )
    tools = [*cat.tools, titled]
    index = bm25f.build_index(tools, backend=backend)
    own = frozenset(i for i, name in enumerate(bm25f.FIELD_SPECS) if name in bm25f.OWN_FIELDS)
    slots = [index.slot_of[t.name] for t in tools]
    for term in ["pod", "list", "namespac", "object", "watch", "creat", "rotat", "sign", "key", "kind"]:
        held = index.held_in(term, slots, own)
        assert held == [term in own_terms(t) for t in tools], term
    assert "sign" not in own_terms(titled)  # the long text under a title is not its own words
    assert "rotat" in own_terms(titled)
