"""The default ranker: BM25F over the tool's fields, with an inverted index built once per catalog.

Why this model (figures in benchmarks/notes/ranking.md):

* field weighting: a term in the name or tags says more about what a tool does than the same
  term in a parameter description;
* rarity (IDF): ``get`` or ``data`` in every tool earns little, ``invoice`` earns a lot;
* saturation (k1, and at most three counted repeats per field): repeating a term in ten tags
  or twenty parameters cannot inflate a score without bound;
* per-field length normalisation: a short name that matches beats a long description that
  happens to mention the word;
* the analyser (:func:`toolsearch_cli.search.text.analyze`): identifiers split, stop words and
  one-letter tokens dropped, light stemming, CJK bigrams.

The index (:mod:`toolsearch_cli.search.index`) keeps only per-field term counts and applies the
catalog-wide statistics when a term is scored, so tools can be added and removed without a
rebuild; a term's scores are cached until the catalog changes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from typing import Any, ClassVar

from ..errors import SearchError
from ..indexes import cached_index
from ..markup import plain_text
from ..model import _MAX_DEPTH, Catalog, Tool, _resolve_ref, first_expansion, unpacked
from .base import FIELDS, Contribution, Hit, SearchRequest
from .index import Analysed, BM25FIndex, FieldModel, QueryPlan
from .name_lookup import named_tool, put_named_first
from .scoring import by_score_then_name
from .text import analyze, analyze_lazy, classic_normalize, is_cjk, normalized, split_sentences, text_terms, token_terms

try:
    from collections import _count_elements  # type: ignore[attr-defined]  # C helper behind Counter.update
except ImportError:  # pragma: no cover - other Pythons

    def _count_elements(mapping: dict[str, int], iterable: Iterable[str]) -> None:
        for element in iterable:
            mapping[element] = mapping.get(element, 0) + 1


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One indexed field: the weight of a term there, how much field length matters (b), and the
    length (in multiples of the field's average) past which a longer field is not penalised more."""

    weight: float
    b: float
    reported_as: str
    max_ratio: float = math.inf


#: Index fields. ``params`` holds parameter names (nested ones and array items included);
#: ``param_text`` their descriptions; ``param_values`` their string ``enum`` values; ``generated``
#: a description the loader made up (an OpenAPI operation with neither summary nor description:
#: its method and path).
FIELD_SPECS: dict[str, FieldSpec] = {
    # Name 1.5 (was 3, b 0.3) and parameters near the description's weight: requests that do not
    # use a tool's own words ("implicit" ones) match its description and parameters, and a heavy
    # name let other tools whose names share a word of the request crowd it out (benchmarks/notes/ranking.md).
    "name": FieldSpec(1.5, 0.75, "name"),
    # An OpenAPI summary / MCP title: a few words saying what the tool does, so weighted above
    # the description (which, in OpenAPI, starts with the summary and can run to pages).
    "title": FieldSpec(3.0, 1.0, "description"),
    "description": FieldSpec(1.0, 0.75, "description"),
    # The description of a tool that has a title: often pages of notes (GitHub's "create an
    # issue" runs to 1,500 characters), compared with other such descriptions, and past twice
    # their average length verbose rather than about more things.
    "details": FieldSpec(1.0, 0.75, "description", 2.0),
    # Method and path words, when that is all an operation says: weak evidence, and the same
    # words are usually in its name already.
    "generated": FieldSpec(0.3, 0.5, "description"),
    "category": FieldSpec(0.3, 0.0, "category"),
    "tags": FieldSpec(0.5, 0.5, "tags"),
    "params": FieldSpec(1.0, 0.5, "parameters"),
    "param_text": FieldSpec(0.85, 0.4, "parameters"),
    # Allowed values (``enum``): a list of formats or codes, matched by a file name or a code in
    # the request rather than by what the tool does; kept at the weight they had in param_text.
    "param_values": FieldSpec(0.4, 0.3, "parameters"),
}
K1 = 1.5
#: A term counts at most this many times per field: repeating a tag fifty times is stuffing,
#: not evidence (measured neutral to slightly positive on the dev sets).
MAX_FIELD_COUNT = 3
#: Query term frequency saturation (BM25's k3): a term the query repeats weighs
#: ``qtf * (k3 + 1) / (k3 + qtf)`` (twice: 1.33 with k3 = 1); 0 turns it off. Long requests
#: repeat what they are about ("... videos on Vimeo ... the video with ID ...").
QUERY_K3 = 1.0
#: Share of a query's best-fitting sentence in a tool's score (QueryPlan.clause_share); 0 turns
#: sentence splitting off. See benchmarks/notes/ranking.md for the measurements behind both values.
CLAUSE_SHARE = 0.5
#: Queries with more sentences than this are scored as a whole only (bounded work per query).
MAX_CLAUSES = 16
#: Coverage bonus: a tool whose own words (name, title, and the description when it is not the
#: long text of a titled tool) hold the share ``c`` of the query's IDF mass earns COVER_SHARE ×
#: the best score × ``c ** COVER_POWER``: nearly all of a short request said in a tool's own
#: words ("list pods in a namespace" for ``listCoreV1NamespacedPod``) is not outscored by the same
#: words scattered over another tool's request-body schema. 0 turns it off. Measured in
#: benchmarks/notes/ranking.md ("Ranking on big OpenAPI documents: Kubernetes").
COVER_SHARE = 0.2
COVER_POWER = 8.0
#: The bonus is weighed for this many of the best tools (or the number asked for, if more).
COVER_POOL = 100
#: Queries with fewer indexed terms than this get no bonus (one word covered is just a match).
COVER_MIN_TERMS = 2
#: Nor do queries with more than this many: a name and a short description cannot say a long request
#: whole, and weighing the bonus costs a postings look-up per query term and candidate.
COVER_MAX_TERMS = 8
#: Below this share there is no bonus (at most 0.2 × 0.5 ** 8 of the best score: nothing to explain).
COVER_MIN_SHARE = 0.5

# --- Real API catalogs (issue 32). Every weight of this block was chosen with benchmarks/
# ablate_real.py: MRR on the real catalogs (benchmarks/real_catalogs, "project"; ../shared/eval/
# realworld-dev, "shared") first, R@5 on the six dev sets beside it (at most 0.01 lower each);
# benchmarks/notes/ranking.md, "Issue 32", has the tables.
#: The index fields that hold parameter evidence (names, descriptions and ``enum`` values of
#: parameters, nested ones included).
PARAM_FIELDS = ("params", "param_text", "param_values")
#: Parameter evidence is capped: a tool's parameter points count at most PARAM_CAP_OWN × its own
#: (non-parameter) points plus PARAM_CAP_BEST × the best own points of any candidate, so a tool
#: matched on parameters only never outscores the tool best matched in its name, title or
#: description; parameters still break ties and add recall. ``None`` turns the cap off.
#: 2 / 1 against 1 / 0.5: shared OpenAPI MRR 0.208 vs 0.172, but ultratool_zh R@5 0.762 vs 0.716
#: (the tighter cap cost ultratool 0.05, the looser 0.004); 1 / 1: 0.203 and 0.750.
PARAM_CAP_OWN: float | None = 2.0
PARAM_CAP_BEST = 1.0
#: Before the cap, the parameter points of a term a tool has in its parameters only (not in its
#: name, title, description, category or tags) are multiplied by this. Off (1.0): 0.6 cut shared
#: OpenAPI MRR 0.216 -> 0.163, 0.35 to 0.178, and ultratool_zh R@5 by 0.007 / 0.034.
PARAM_ONLY_TERM = 1.0
#: The cap is weighed on this many of the best tools (or the number asked for, if more); 100 as
#: COVER_POOL (benchmarks/notes/ranking.md, "Issue 32": figures and cost of 100 and 200).
PARAM_POOL = 100
#: The cap is weighed on the best PARAM_WINDOW tools first (or the number asked for, if more), and
#: on the whole pool only when a tool past them could still reach the best asked for: the term
#: weights and splits of 100 tools cost 8 ms a query at 100,000 tools.
PARAM_WINDOW = 20
#: Weight of a query term that comes only from value-like words of the request (a named folder,
#: a person, a day, a number, a quoted name, an id: :mod:`.values`), when the request has other
#: terms too; 1.0 turns it off. 0.6 against 0.4: toolbench_g3 R@5 0.677 vs 0.656 (0.4 cost it
#: 0.012), shared OpenAPI MRR equal (0.171 / 0.172); 0.5: toolbench 0.662.
VALUE_WEIGHT = 0.6
#: Weight of a related term the request does not say (:mod:`.related`: "money back" adds
#: "refund"), relative to the word that brought it; 0 turns expansion off. Expansion at 0.4 took
#: shared MCP MRR 0.523 -> 0.754, project MCP 0.627 -> 0.686, project OpenAPI 0.544 -> 0.564,
#: ultratool_en R@5 +0.021; 0.25: shared MCP 0.715; 0.55-0.6: dev sets and project no better,
#: toolbench_g3 -0.009 (0.5).
RELATED_WEIGHT = 0.4
#: Label bonus (round 3): a tool whose label (its title, else its name with the meaning of an
#: OpenAPI method verb: :func:`label_terms`) is said by the request for the share ``c`` of the
#: label's IDF mass earns LABEL_SHARE x the best score x ``c ** LABEL_POWER`` (a term counts at its
#: query weight, at most 1: a value-like word in part). "Create folder" is all said by "make a new
#: directory called Contracts inside the Legal folder"; "Create legal hold policy" is not. 0 turns
#: it off. Figures: benchmarks/notes/ranking-round3.md (python -m benchmarks ablate-groups). Off -> 0.5: shared
#: OpenAPI MRR 0.262 -> 0.548, shared MCP 0.715 -> 0.724, project OpenAPI 0.559 -> 0.613, project
#: MCP 0.686 -> 0.696, blind 0.496 -> 0.666, held-out 0.427 -> 0.455; dev R@5 bfcl -0.003, the rest
#: up. 0.3: shared OpenAPI 0.480, held-out 0.439; 0.7: shared 0.594 but toolbench_g3 R@5 -0.034.
LABEL_SHARE = 0.5
#: 1: shared OpenAPI 0.498, held-out 0.442; 3: 0.471 / 0.444 (at LABEL_SHARE 0.3).
LABEL_POWER = 2.0
#: What a related term the request does not say (:mod:`.related`: "make" -> create) counts for in
#: the label's share, relative to the word that brought it. 1.0 against 0.4 (its weight in the
#: search), at LABEL_SHARE 0.3: shared OpenAPI 0.480 vs 0.347, blind 0.665 vs 0.522; 0.7: 0.375 / 0.605.
LABEL_RELATED = 1.0
#: No bonus below this share. 0.4: shared MCP 0.701 (0.707 at 0.5), held-out 0.432 (0.439);
#: 0.6: shared OpenAPI 0.492 but project OpenAPI 0.603 (0.610).
LABEL_MIN_SHARE = 0.5
#: Labels of fewer distinct terms than this earn no bonus (2: shared OpenAPI equal, project -0.003).
LABEL_MIN_TERMS = 1
#: The bonus is weighed for this many of the best tools (or the number asked for, if more): the
#: cap window (PARAM_WINDOW), so that the window's short path stays (100,000 tools: +4% query CPU
#: time at p50). 20, 30, 50 and 100 give the same figures to the third decimal (+-0.002).
LABEL_POOL = 20
#: A tool whose label is its name (no title, not an OpenAPI operation: an MCP tool's ``worker_put``)
#: earns the label bonus times LABEL_LONG_TERMS / the request's own terms (not related or translated
#: ones) when it has more: a long request says a two-word name by chance ("... put the checkout
#: worker back to the version that was live yesterday" says ``worker_put``). ``None`` turns it off.
#: None -> 8: blind set 5 MCP 0.554 -> 0.567, blind set 6 MCP 0.549 -> 0.566, every other group
#: equal (5 requests up, none down); 5 and 7 the same, 9: blind set 6 MCP 0.563, 10: 0.554.
#: Scaling every label so: blind set 5 OpenAPI -0.009, project OpenAPI -0.007.
LABEL_LONG_TERMS: int | None = 8
#: In the label share of a tool whose label is its name (no title, not an OpenAPI operation: MCP's
#: ``get-group``, ``create-group``), a verb among the name's first NAME_WORDS terms (an action word
#: of :data:`.actions.TOOL_VERBS`) that the request does not say weighs the mean IDF of the name's
#: other terms instead of its own (round 9, lex9). A verb's IDF says how common the action is in the
#: catalog, not how much of the name it is: among siblings that differ only by their verb, the
#: commonest one (``get``, in a third of a server's names) cost least when unsaid, so a request that
#: says no verb of theirs (*refund 15 dollars on order ...*, *wrap the stickies in one group*, *file a
#: bug: ...*) took the reader. False: every term at its own IDF. Figures (ablate-groups, MRR; dev
#: R@5; benchmarks/notes/ranking-round9.md): off -> on: blind set 4 MCP 0.668 -> 0.689, blind set 8
#: MCP 0.559 -> 0.568, blind set 6 MCP 0.612 -> 0.611, project MCP 0.789 -> 0.788, the rest equal;
#: dev R@5 ultratool_en -0.005, seal_tools -0.002. Said verbs at the mean too: ultratool_en -0.010,
#: toolbench_g3 -0.016 (a verb the request says lifted every tool that only shares it); trailing verbs
#: too (``balance_query``, ``flight_search``: UltraTool's names): ultratool_en -0.009, MCP groups within
#: 0.001. Before *take a/an* (blind set 8 MCP 0.551): the mean 0.557, bounded by the verb's own IDF
#: (max) 0.559 but blind set 4 MCP 0.668 (mean 0.689), their geometric mean 0.556 and 0.668; on every
#: MCP tool's label (titles too): blind set 6 MCP -0.010, blind set 7 MCP -0.016.
LABEL_VERB_MEAN = True
#: A related term (:mod:`.related`) stands in for the request's word that brought it, so it weighs
#: at most what that word would: its weight is multiplied by idf(word) / idf(related term) when
#: that is below 1 (round 4). In a catalog where "delete" names a hundred operations, "drop"
#: (brought by "delete", found in one request body) is no rarer evidence than "delete" itself.
#: Phrases ("money back") have no IDF of their own and are left as they are. The ratio is raised
#: to this power; 0 turns it off. 1 against 0 (benchmarks/notes/ranking-round4.md, ablate-groups):
#: held-out MRR 0.450 -> 0.457, project OpenAPI 0.618 -> 0.619, project MCP 0.738 -> 0.739, other
#: groups equal; dev R@5 toolbench_g3 0.683 -> 0.674 (one request), seal_tools 0.923 -> 0.926.
#: 0.5: every group within 0.001 of 1.
RELATED_SOURCE_IDF = 1.0
#: The weight of a related term whose source word is in no tool of the catalog, relative to that
#: word's weight (instead of RELATED_WEIGHT): there the related term is the only way the request's
#: word can be matched, not a second opinion beside it ("restart" in a catalog that only says
#: "reboot"; round 5). Phrases ("money back") keep RELATED_WEIGHT. Equal to RELATED_WEIGHT turns
#: it off. 0.8 against 0.4 (benchmarks/notes/ranking-round5.md, ablate-groups): shared MCP MRR
#: 0.760 -> 0.790, blind 0.666 -> 0.678, project OpenAPI 0.620 -> 0.621, blind set 4 MCP 0.566 ->
#: 0.564 (one request), the other groups equal; dev R@5 metatool -0.001, seal_tools -0.002.
#: 0.6: shared MCP 0.774, blind 0.666, project MCP 0.764; 1.0: blind 0.669, blind set 4 OpenAPI 0.441.
#: One absent word is one piece of evidence: when the catalog has several of its related terms
#: they share this weight, each at least RELATED_WEIGHT ("tell" -> send, message, notify: 0.4 each,
#: not 0.8 each, which ranked every sender above "decline Friday's sync and tell them I'm on
#: leave"'s respondToInvite and failed the demo's lint). Shared against 0.8 each (ablate-groups,
#: lead): shared MCP 0.790 -> 0.774, project MCP 0.766 -> 0.770, blind 0.678 -> 0.672, project
#: OpenAPI 0.621 -> 0.619, blind set 4 MCP 0.564 -> 0.568, dev R@5 as before round 5 (metatool
#: +0.001, seal_tools +0.002); blind set 5 (unseen) default 0.432 / 0.473 -> 0.439 / 0.476.
RELATED_ABSENT_WEIGHT = 0.8
#: Action agreement (round 6, :mod:`.actions`): when the request asks for an action (create, read,
#: update or delete: the first clause that opens with an action word, or a question), each of the
#: best tools earns ACTION_SHARE x the best score unless it does another action (an OpenAPI
#: method's meaning, else the first verb of its name); one whose action is unknown earns
#: ACTION_UNKNOWN x that. The verb that tells *add* a reminder from *find* reminders is in a third
#: of the catalog, and its IDF gives it almost no say. 0 turns it off. Figures: benchmarks/notes/
#: ranking-round6.md (ablate-groups, MRR; dev R@5). Off -> 0.4: shared OpenAPI 0.548 -> 0.671,
#: shared MCP 0.774 -> 0.778, project OpenAPI 0.619 -> 0.635, project MCP 0.770 -> 0.777, blind
#: 0.672 -> 0.688, held-out 0.466 -> 0.474, blind set 4 0.447 / 0.568 -> 0.451 / 0.616, blind set 5
#: 0.439 / 0.476 -> 0.465 / 0.509; dev mean 0.782 -> 0.781 (ultratool_en -0.002, the largest).
#: Before the last four request verbs (log import upload invite), 0.3: shared OpenAPI 0.621, blind
#: set 4 MCP 0.587, blind set 5 MCP 0.496; 0.5: blind set 4 OpenAPI 0.441 (-0.010 against 0.4);
#: with the first word lists, 0.7: blind set 4 OpenAPI 0.405.
ACTION_SHARE = 0.4
#: 1.0 (only a tool that does another action is left out) against 0.5 and 0.75 (first word lists):
#: at 0.4 blind set 5 MCP 0.509 vs 0.498 (0.75); at 0.2: 0.491 vs 0.476 (0.5), held-out 0.479 vs 0.473.
ACTION_UNKNOWN = 1.0
#: Longer requests (words) get no action: they ask for several things, each of several tools
#: (ToolBench's and UltraTool's dev requests), and the bonus pushed the others out of the first
#: five. At 0.25 without a limit: toolbench_g3 R@5 0.674 -> 0.635, ultratool_en 0.762 -> 0.737;
#: 16: 0.674 / 0.761; 12: the same dev figures, blind set 5 MCP 0.491 (0.495); 20: ultratool_en 0.756.
ACTION_MAX_WORDS = 16
#: CJK characters per word when a request's words are counted (ACTION_MAX_WORDS): a Chinese word is
#: one or two characters. Without it (once ACTION_GLOSS gave Chinese requests an action) a long
#: Chinese request was one word: ultratool_zh R@5 0.761 -> 0.672; 2.0: 0.742; 1.5: 0.756; 1.0: 0.761,
#: every real group the same with 1.0, 1.5 and 2.0.
CJK_WORD_CHARS = 1.0
#: Whether a request none of whose clauses opens with an action word takes the class of its first
#: action word anywhere ("we get purchase orders from suppliers ...": mostly not what it asks). At
#: 0.2: blind set 5 OpenAPI 0.439 vs 0.447, project OpenAPI 0.629 vs 0.633.
ACTION_ANYWHERE = False
#: The bonus is weighed for this many of the best tools (or the number asked for, if more), as the
#: label bonus (LABEL_POOL). 10: shared OpenAPI 0.644, blind set 5 MCP 0.506; 50: within 0.002 of 20.
ACTION_POOL = 20
#: A request of another language (:func:`.lexicon.gloss`) asks for the action of its English gloss
#: ("Zeig mir alle Feature-Flags" reads "show ...", "Neues Produkt ... anlegen" reads "create ...").
ACTION_GLOSS = True
#: A tool whose name has no verb among its first words: the class of its name's last word when that
#: is a verb (``kv_namespace_get``, ``env_var_set``).
ACTION_NAME_LAST = True
#: ... else of its description's first verb ("Add a secret to a Worker", "This tool will create ...").
ACTION_DESCRIPTION = True
#: ... else READ when its MCP annotations say ``readOnlyHint: true``.
ACTION_READ_ONLY = True
#: A tool that does several operations chosen by an enum parameter (``n8n_executions``'s ``action``:
#: get / list / delete; :func:`.actions.multiplexed_actions`) agrees with a request that asks for
#: any of their actions (or its name's). Figures: benchmarks/notes/ranking-round8.md, "multiplexed tools".
MULTIPLEX_ACTIONS = True
#: The share of the action bonus of a multiplexed tool none of whose operations is the one asked
#: (0.0: as a tool that does another action).
MULTIPLEX_MISS = 0.0
#: Whether a tool whose name says its action (``update_form``, whose ``action`` enum has createTag,
#: deleteTag, setFormPassword: kinds of update) takes its operations' actions too.
MULTIPLEX_NAMED = False
#: How many of a multiplexed tool's operations an explanation names.
MULTIPLEX_SHOWN = 6
#: An OpenAPI PUT to a collection under an item (``PUT /boards/{id}/members``, ``PUT
#: /users/{id}/groups/{groupId}``, ``PUT /projects/{id}/targetLanguages``: :func:`_openapi_adds`)
#: puts something into that item's list: it agrees with a request to add (create) at this share of
#: the action bonus, as well as with one to update. 0 turns it off. `ablate-groups --no-dev`, 1.0
#: against 0: blind set 8 OpenAPI 0.541 -> 0.568, project 0.641 -> 0.642, blind set 4 0.459 -> 0.461,
#: no group lower; 0.5: blind set 8 0.543 (benchmarks/notes/ranking-round9.md, "oa9: OpenAPI").
OPENAPI_ADD_SHARE = 1.0
#: The HTTP methods of such operations. PATCH too: the same figures to three decimals (kept out).
OPENAPI_ADD_METHODS = ("put",)
#: The action bonus of an OpenAPI operation (ACTION_SHARE for other tools): its action is its HTTP
#: method's, declared by the document, where an MCP tool's is read from its name or description.
#: `ablate-groups --no-dev` against 0.4 (ACTION_SHARE): 0.45 shared OpenAPI 0.671 -> 0.687, project
#: 0.642 -> 0.645, blind set 5 0.543 -> 0.548, no group lower; 0.5 blind set 4 0.461 -> 0.451 (and
#: blind set 5 0.562); 0.6 blind set 4 0.420, blind set 7 0.638 (benchmarks/notes/ranking-round9.md).
OPENAPI_ACTION_SHARE = 0.45
#: A request clause that opens with a phrasal verb the action lists lack asks for the action of its
#: first WordNet synonym or hypernym that they have (*tear down the app* -> destroy: delete;
#: :func:`.actions._phrasal_action`). Off -> on: blind set 5 MCP 0.622 -> 0.629 (*put Dentist on my
#: calendar* 3 -> 2, *put her plan on hold* none -> 9), every other group equal.
ACTION_WORDNET = True
#: Weight of the English term of a word of another language (:mod:`.lexicon`: "löschen" brings
#: "delete"), relative to that word's weight, when the catalog has not the word itself (an English
#: catalog); a catalog that has it (a Chinese or bilingual one) weighs the term as a related one
#: (RELATED_WEIGHT), so its own word still ranks first. 0 turns translation off. Figures:
#: benchmarks/notes/languages.md.
TRANSLATED_WEIGHT = 0.8
#: The same when the catalog has the word itself (all its terms), relative to the word's weight:
#: its own word ranks first, the English term is a second opinion.
TRANSLATED_PRESENT_WEIGHT = RELATED_WEIGHT
#: The same when the catalog speaks the request's language (has at least SPOKEN_TERMS of the
#: request's own terms of two or more letters outside ASCII, "删除" or "löschen": a Chinese or
#: bilingual catalog), whether or not it has the word: its own words are the evidence.
TRANSLATED_SPOKEN_WEIGHT = 0.0
SPOKEN_TERMS = 1
#: Whether a translated word read as value-like (:mod:`.values`: German nouns are capitalised)
#: passes its lower weight on to its English terms; a word the lexicon has is vocabulary, not a
#: name. Off: hybrid's non-English MRR on blind set 5 0.409 -> 0.442 (MCP group 0.643 -> 0.655),
#: default and the other sets equal (benchmarks/notes/languages.md).
TRANSLATED_VALUE = False
#: Whether the English terms of a translated word bring their related words too (:mod:`.related`).
TRANSLATED_EXPAND = True
#: WordNet (round 8, :mod:`.wordnet`): a request's word that no tool of the catalog has, and that
#: :mod:`.related` and :mod:`.lexicon` do not expand, brings its WordNet synonyms that the catalog
#: has, sharing WORDNET_WEIGHT times the word's weight (each at least WORDNET_MIN_WEIGHT times it);
#: a phrasal verb of the request (*turn the meeting down*) brings its own whether or not the catalog
#: has its verb. Requests with letters outside ASCII are not looked up (WordNet is English: German
#: *die* is no verb). 0 turns it off. Figures (benchmarks/notes/ranking-round8.md, ablate-groups,
#: MRR; with the data's polysemy limits below): off -> 0.4: project OpenAPI 0.635 -> 0.641, project
#: MCP 0.780 -> 0.789, blind set 5 OpenAPI 0.530 -> 0.546, blind set 5 MCP 0.628 -> 0.622, blind set
#: 6 MCP 0.597 -> 0.612, blind set 7 MCP 0.663 -> 0.668, blind set 4 OpenAPI -0.002, blind set 7
#: OpenAPI -0.001, the rest equal (MCP mean of six 0.689 -> 0.693); dev R@5 metatool +0.005, bfcl
#: -0.001. 0.3: project MCP 0.784, blind set 7 MCP 0.666; 0.6 (0.3 each at least): blind set 4 MCP
#: 0.655 (-0.013), blind set 7 OpenAPI 0.648.
WORDNET_WEIGHT = 0.4
WORDNET_MIN_WEIGHT = 0.2
#: The first senses of a word read (WordNet orders them by frequency). 3 against 2: project OpenAPI
#: 0.641 vs 0.639, project MCP 0.789 vs 0.787, blind set 5 OpenAPI 0.546 vs 0.543; 1: project MCP
#: 0.780, blind set 5 MCP 0.617.
WORDNET_SENSES = 3
#: At most this many stand-ins per word (the first in sense order, synonyms before hypernyms). 2:
#: blind set 6 MCP 0.615 (+0.003), metatool R@5 -0.001, the rest equal.
WORDNET_TERMS = 4
#: A synonym is kept only when the synset it shares with the word is among its own first
#: WORDNET_TARGET_RANK senses too (*tear down* -> *level* is level's second sense); 10 turns it
#: off (the file's ranks are 0-9). 2 against off: project MCP -0.002, blind set 6 MCP -0.015,
#: blind set 7 MCP -0.007; 1: blind set 5 MCP +0.012, blind set 6 MCP -0.012, project MCP -0.004.
WORDNET_TARGET_RANK = 10
#: Whether a verb's direct hypernyms (``^``: *tear down* -> destroy) and an adjective's attribute
#: nouns (``=``: *far* -> distance) count. Off: blind set 5 OpenAPI 0.533, blind set 5 MCP 0.617.
WORDNET_HYPERNYMS = True
#: Whether phrasal verbs are read. Off: blind set 5 OpenAPI 0.530, project OpenAPI 0.636.
WORDNET_PHRASES = True
#: Words of fewer letters than this are not looked up.
WORDNET_MIN_LETTERS = 3


def tool_fields(tool: Tool) -> dict[str, list[str]]:
    """The analysed terms of each indexed field of a tool, by field name (repeats kept)."""
    return {name: list(stream) for name, stream in zip(FIELD_SPECS, tool_streams(tool), strict=True)}


@lru_cache(maxsize=131072)
def _analyze_short(text: str) -> tuple[str, ...]:
    """Names, tags and categories repeat across tools: analyse each distinct one once."""
    return tuple(analyze(text))


#: Parameters that steer how an API answers rather than what it does: pagination, expansion,
#: field selection, sorting, output format and transport. Their names and descriptions ("A cursor
#: for use in pagination", "Specifies which fields in the response should be expanded") are in
#: most operations of an API and match requests about none of them ("the login *page*").
#: Compared by :func:`param_key` (case and separators ignored).
BOILERPLATE_PARAMS = frozenset(
    """
    limit offset page perpage pagesize pagenumber pagenum pageindex pagetoken nextpagetoken nexttoken
    continuationtoken cursor startingafter endingbefore startcursor nextcursor maxresults maxitems
    expand fields select sort sortby sortorder orderby order direction count skip top
    pretty prettyprint callback alt quotauser userip uploadtype uploadprotocol oauthtoken accesstoken
    xgafields
    """.split()
)


#: Switches of the changes of issue 18, for the ablations of benchmarks/ablate_real.py: markup
#: stripped before indexing (addresses too with STRIP_URLS), generated descriptions in their own
#: field (else as descriptions).
STRIP_MARKUP = True
STRIP_URLS = False
GENERATED_FIELD = True
#: OpenAPI header and cookie parameters are not indexed (see _transport_params).
SKIP_TRANSPORT_PARAMS = True


@lru_cache(maxsize=65536)
def param_key(name: str) -> str:
    """A parameter name compared without case or separators (``page_size`` = ``pageSize`` = ``$top``)."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())


def _parameter_strings(
    schema: dict[str, Any],
    root: dict[str, Any],
    depth: int,
    enums: list[str],
    seen: set[str],
    skip: frozenset[str] = frozenset(),
) -> Iterator[tuple[str, str]]:
    """(name, description) of every parameter, nested ones and array items included, in tree order;
    string ``enum`` values of parameters (and of array items) are appended to ``enums``.
    Boilerplate parameters (:data:`BOILERPLATE_PARAMS`) and the top-level ones named in ``skip``
    are left out with everything under them.

    The same walk as :meth:`Tool.parameter_tree` (local ``$ref`` resolved, each target once,
    depth-bounded), without building Parameter objects: indexing 100,000 tools needs the speed.
    """
    if depth > _MAX_DEPTH or not first_expansion(schema, seen):
        return
    schema = _resolve_ref(schema, root)
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, raw in properties.items():
        if not isinstance(raw, dict) or param_key(str(name)) in BOILERPLATE_PARAMS or name in skip:
            continue
        prop = _resolve_ref(raw, root) if "$ref" in raw else raw
        yield str(name), str(prop.get("description") or "")
        enum = prop.get("enum")
        if isinstance(enum, list):
            enums.extend(v for v in enum if isinstance(v, str))
        items = prop.get("items")
        if isinstance(items, dict):
            resolved = _resolve_ref(items, root)
            enum = resolved.get("enum")
            if isinstance(enum, list):
                enums.extend(v for v in enum if isinstance(v, str))
            if prop.get("type") == "array":
                yield from _parameter_strings(items, root, depth + 1, enums, seen)
                continue
        if "properties" in prop or "$ref" in raw:
            yield from _parameter_strings(raw, root, depth + 1, enums, seen)


#: What the HTTP method at the start of an OpenAPI operation's name (``PostCustomers``,
#: ``get_users``) means, by the shape of its path: a collection (last segment a plural noun), an
#: item (last segment a ``{parameter}``) or an action (``/payment_intents/{id}/cancel``: the verb
#: is in the name already). ``None``: the method word is dropped. DELETE stays "delete": adding
#: "remove" cost the real OpenAPI set 0.003 MRR (benchmarks/notes/ranking.md).
METHOD_VERBS: dict[tuple[str, str], str | None] = {
    ("get", "collection"): "list get",
    ("get", "item"): "get",
    ("get", "action"): "get",
    ("post", "collection"): "create",
    ("post", "item"): "update",
    ("post", "action"): None,
    ("put", "collection"): "update",
    ("put", "item"): "update",
    ("put", "action"): "update",
    ("patch", "collection"): "update",
    ("patch", "item"): "update",
    ("patch", "action"): "update",
    ("delete", "collection"): "delete",
    ("delete", "item"): "delete",
    ("delete", "action"): "delete",
}
_GENERATED_DESCRIPTION = re.compile(r"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE) /\S*")
_PATH_NOISE = re.compile(r"\{[^}]*\}|\.(?:json|xml|yaml|csv)\b|\bv\d+(?:\.\d+)*\b|\b\d[\d.-]*\b")


def _path_shape(path: str) -> str:
    segments = [s for s in path.split("/") if s]
    if not segments:
        return "collection"
    last = segments[-1]
    if last.startswith("{"):
        return "item"
    word = last.rsplit(".", 1)[0].replace("-", "_").split("_")[-1]
    return "collection" if word.endswith("s") and not word.endswith("ss") else "action"


def _transport_params(tool: Tool) -> frozenset[str]:
    """An OpenAPI operation's header and cookie parameters (``X-Request-Id``, ``User-Agent``,
    ``Accept-Language``): the same on every operation of an API, they say how to call it, not what
    it does (in one banking API they made "request" a word of every operation)."""
    native = tool.metadata.get("openapi")
    where = native.get("parameters") if isinstance(native, dict) and SKIP_TRANSPORT_PARAMS else None
    if not isinstance(where, dict):
        return frozenset()
    return frozenset(name for name, place in where.items() if place in ("header", "cookie"))


def _openapi_native(tool: Tool) -> dict[str, Any] | None:
    native = tool.metadata.get("openapi")
    return native if isinstance(native, dict) and isinstance(native.get("method"), str) else None


def generated_description(tool: Tool) -> bool:
    """Whether the tool's description is only its HTTP method and path (made up by a loader)."""
    native = _openapi_native(tool)
    if native is not None and native.get("generatedDescription") is True:
        return True
    return bool(tool.description) and _GENERATED_DESCRIPTION.fullmatch(tool.description.strip()) is not None


def _method_name_terms(name: str, method: str, path: str) -> list[str]:
    method = method.casefold()
    terms = list(_token_terms(name))
    # compared as analysed: "Delete" is the term "delet"
    if not terms or (method, "item") not in METHOD_VERBS or terms[0] not in _analyze_short(method):
        return terms
    verbs = METHOD_VERBS[(method, _path_shape(path))]
    return [*(_analyze_short(verbs) if verbs else ()), *terms[1:]]


def field_model() -> FieldModel:
    """The BM25F model of FIELD_SPECS and the constants above (rebuilt by ablations that change them)."""
    specs = FIELD_SPECS.values()
    return FieldModel(
        [spec.weight for spec in specs],
        [spec.b for spec in specs],
        K1,
        MAX_FIELD_COUNT,
        [spec.max_ratio for spec in specs],
    )


FIELD_MODEL = field_model()


def tool_texts(tool: Tool) -> tuple[str | tuple[str, ...], ...]:
    """Per index field (in FIELD_SPECS order), what its terms are made of: a text whose
    white-space separated tokens are analysed one by one (:func:`~.text.token_terms`), already
    normalised as the analyser would (NFKC when not ASCII), or, for the name only, the terms
    themselves (a tuple: an OpenAPI name with the meaning of its method verb). Lists (tags,
    parameter names, ``enum`` values) are joined with spaces after each is normalised: a token
    never runs across white space, so the terms are those of each item analysed alone, in order.

    Text fields are indexed as plain text (:func:`~toolsearch_cli.markup.plain_text`: no HTML
    tags, Markdown syntax or addresses). A packed tool (:func:`~toolsearch_cli.model.pack_tools`)
    is read through a transient copy: it stays packed.
    """
    tool = unpacked(tool)
    enums: list[str] = []
    schema = tool.parameters
    pairs = (
        list(_parameter_strings(schema, schema, 0, enums, set(), _transport_params(tool)))
        if schema.get("properties")
        else []
    )
    param_text = " ".join([description for _, description in pairs if description])
    title = tool.title
    description = tool.description
    generated = ""
    if description and GENERATED_FIELD and generated_description(tool):
        generated, description = _PATH_NOISE.sub(" ", description.split(" ", 1)[-1]).replace("/", " "), ""
    description = normalized(_plain(description))
    native = _openapi_native(tool)
    return (
        normalized(tool.name)
        if native is None
        else tuple(_method_name_terms(tool.name, str(native["method"]), str(native.get("path") or ""))),
        normalized(_plain(title)),
        "" if title else description,
        description if title else "",
        normalized(generated),
        normalized(tool.category) if tool.category else "",
        _joined(tool.tags),
        _joined([name for name, _ in pairs]),
        normalized(_plain(param_text)),
        _joined(enums),
    )


def _joined(items: list[str]) -> str:
    """Items as one text of tokens: each normalised alone, then joined with spaces."""
    if not items:
        return ""
    if len(items) == 1:
        return normalized(items[0])
    return " ".join(map(normalized, items))


def tool_streams(tool: Tool) -> tuple[Iterable[str], ...]:
    """Per index field (in FIELD_SPECS order), the tool's terms as an iterable (repeats kept):
    :func:`tool_texts` analysed."""
    return tuple(text if isinstance(text, tuple) else text_terms(text) for text in tool_texts(tool))


def _plain(text: str) -> str:
    return plain_text(text, urls=not STRIP_URLS) if text and STRIP_MARKUP else text


def analyse_tool(tool: Tool) -> Analysed:
    """Per index field (in FIELD_SPECS order): term counts and field length."""
    out: Analysed = []
    for stream in tool_streams(tool):
        counts: dict[str, int] = {}
        _count_elements(counts, stream)
        out.append((counts, sum(counts.values())))
    return out


def query_plan(query: str) -> QueryPlan:
    """The analysed terms of a query with their weights and, for several sentences, each sentence's;
    the terms of value-like words weigh :data:`VALUE_WEIGHT` (see :func:`_value_weighted`); and
    the action the request asks for (see ACTION_SHARE)."""
    plan = _with_related(query, _value_weighted(query, _plain_plan(query)))
    if plan.terms:
        plan.action = asked_action(query)
        plan.text = query
    return plan


def asked_action(query: str) -> str | None:
    """The action ``query`` asks for (:func:`.actions.request_action`), as the default ranker reads
    it: none for a request over ACTION_MAX_WORDS words, or with ACTION_SHARE at 0."""
    if not ACTION_SHARE or request_words(query) > ACTION_MAX_WORDS:
        return None
    from .actions import request_action

    action = request_action(query, ACTION_ANYWHERE, ACTION_WORDNET and _english_letters(query))
    if action is None and ACTION_GLOSS:
        from .lexicon import gloss

        english = gloss(query)
        if english is not None:
            action = request_action(english, True)  # its verb anywhere: German puts it last
    return action


def request_words(query: str) -> int:
    """How many words a request has: its white-space separated tokens, a run of Chinese, Japanese or
    Korean characters counting one word per CJK_WORD_CHARS of them (those scripts put no spaces
    between words: a long Chinese request is one token)."""
    words = len(query.split())
    if query.isascii():
        return words
    cjk = sum(1 for ch in query if is_cjk(ch))
    return words + int(cjk / CJK_WORD_CHARS)


def _with_related(query: str, plan: QueryPlan) -> QueryPlan:
    """``plan`` with the related terms of its words (:mod:`.related`) at RELATED_WEIGHT times the
    weight of the word that brought them (whole query only: sentences keep their own words)."""
    if not RELATED_WEIGHT or not plan.terms:
        return plan
    from .related import expansions

    translated = _translated(query, plan) if TRANSLATED_WEIGHT else {}
    added = expansions(query, plan.terms if TRANSLATED_EXPAND else plan.terms[: len(plan.terms) - len(translated)])
    if not added and not translated:
        return plan
    for term, source in added.items():
        plan.terms.append(term)
        plan.weights[term] = RELATED_WEIGHT * plan.weights.get(source, 1.0)
    plan.related = {**translated, **added}
    return plan


def _translated(query: str, plan: QueryPlan) -> dict[str, str]:
    """Add to ``plan`` the English terms of the request's words of another language
    (:func:`.lexicon.translations`) that it does not have, at TRANSLATED_WEIGHT times the weight
    of the word that brought them (set again per catalog by :func:`_related_at_source_idf`);
    return them, each with that word."""
    from .lexicon import translations

    out: dict[str, str] = {}
    own = set(plan.terms)
    for term, (word, english) in translations(query).items():
        if term in own:
            continue
        sources = tuple(t for t in dict.fromkeys(analyze(word)) if t in own)
        plan.terms.append(term)
        plan.weights[term] = TRANSLATED_WEIGHT * max((plan.weights.get(t, 1.0) for t in sources), default=1.0)
        plan.translated[term] = (f"{word} → {english}", sources)
        out[term] = word
    return out


def _value_weighted(query: str, plan: QueryPlan) -> QueryPlan:
    """``plan`` with each term that comes only from value-like words of ``query`` (:mod:`.values`)
    weighed VALUE_WEIGHT times as much, unless every term does (then nothing changes the order)."""
    if VALUE_WEIGHT == 1.0 or len(plan.terms) < 2:
        return plan
    from .values import value_terms

    valued = value_terms(query) & set(plan.terms)
    if not valued or len(valued) == len(plan.terms):
        return plan
    for term in valued:
        plan.weights[term] = plan.weights.get(term, 1.0) * VALUE_WEIGHT
    for clause in plan.clauses:
        for term in valued & clause.keys():
            clause[term] *= VALUE_WEIGHT
    return plan


def _plain_plan(query: str) -> QueryPlan:
    if not CLAUSE_SHARE:
        return QueryPlan(*_weighted(analyze(query)))
    # Each sentence is analysed once; the query's terms are theirs joined (a sentence ends at
    # white space or punctuation, where terms end anyway).
    sentences = [sentence for sentence in map(analyze, split_sentences(query)) if sentence]
    terms, weights = _weighted(list(chain.from_iterable(sentences)))
    clauses: list[dict[str, float]] = []
    if 1 < len(sentences) <= MAX_CLAUSES:
        for sentence in sentences:
            distinct, repeated = _weighted(sentence)
            clauses.append({term: repeated.get(term, 1.0) for term in distinct})
    return QueryPlan(terms, weights, clauses, CLAUSE_SHARE)


def _weighted(terms: list[str]) -> tuple[list[str], dict[str, float]]:
    """Distinct terms in order, and the weight of each repeated one (see QUERY_K3)."""
    counts: dict[str, int] = {}
    _count_elements(counts, terms)
    k3 = QUERY_K3
    weights = {t: c * (k3 + 1.0) / (k3 + c) for t, c in counts.items() if c > 1} if k3 else {}
    return list(counts), weights


def _token_terms(text: str) -> Iterable[str]:
    return analyze_lazy(text) if text else ()


def build_index(tools: Iterable[Tool], *, backend: str | None = None) -> BM25FIndex:
    """An index of the default ranker over ``tools`` (updatable with ``add`` / ``remove``)."""
    return BM25FIndex(tools, analyse_tool, tool_texts, FIELD_MODEL, backend=backend, token_terms=token_terms)


def explain(
    index: BM25FIndex, tool: Tool, terms: list[str], originals: dict[str, str], weights: dict[str, float] | None = None
) -> tuple[list[str], list[Contribution]]:
    """Split each term's score over the fields it occurred in, in proportion to their share."""
    fields = analyse_tool(tool)
    avgs = index.averages()
    model = index.model
    names = list(FIELD_SPECS)
    parts: list[Contribution] = []
    matched: dict[str, None] = {}
    for term in terms:
        shares = {
            fid: model.field_tf(fid, counts[term], length, avgs[fid])
            for fid, (counts, length) in enumerate(fields)
            if term in counts
        }
        tf = 0.0
        for share in shares.values():
            tf += share
        if not tf:
            continue
        idf = index.idf(term)
        weight = (weights or {}).get(term, 1.0)
        term_score = model.saturate(idf, tf) * weight
        merged: dict[str, float] = {}
        for fid, share in shares.items():
            reported = FIELD_SPECS[names[fid]].reported_as
            merged[reported] = merged.get(reported, 0.0) + term_score * share / tf
            matched.setdefault(reported, None)
        label = originals.get(term, term)
        for reported, points in merged.items():
            detail = f"idf {idf:.2f}" + (f", stem {term!r}" if label != term else "")
            if weight != 1.0:
                detail += f", weight {weight:.2f}"
            parts.append(Contribution(term=label, field=reported, points=points, detail=detail))
    return sorted(matched, key=FIELDS.index), parts


class BM25FRanker:
    """Field-weighted BM25 with CJK bigrams, identifier splitting and light stemming."""

    name: ClassVar[str] = "default"
    description: ClassVar[str] = "BM25F over name, description, category, tags and parameters"

    def search(self, catalog: Catalog, request: SearchRequest) -> list[Hit]:
        plan = query_plan(request.query)
        if not plan.terms:
            if named_tool(catalog, request.query) is not None:
                return put_named_first(catalog, request, [])
            if not classic_normalize(request.query):
                raise SearchError("the query is blank or only punctuation; say what the tool should do", field="query")
            raise SearchError(
                f"the query {request.query!r} has only stop words or one-letter words; "
                "use words that describe the task",
                field="query",
            )
        index = default_index(catalog)
        allowed: set[int] | None = None
        if request.category is not None:
            if not classic_normalize(request.category):
                raise SearchError("the category is blank or only punctuation", field="category")
            allowed = index.category_slots(request.category)
        best, bonuses, capped = rank_index(index, plan, request.max_results, allowed, explain=request.explain)
        if not request.explain:
            return put_named_first(catalog, request, [Hit(tool=tool, score=score) for tool, score, _ in best])
        originals = _originals(request.query)
        for term, source in plan.related.items():
            translated = plan.translated.get(term)
            # a related word of an English term of a translated word: say which word ("löschen → delete")
            said = plan.translated[source][0] if source in plan.translated else source
            originals[term] = translated[0] if translated else f"{term} (for {said!r})"
            if term in plan.wordnet:
                originals[term] = f"{term} (WordNet, for {said!r})"
        hits = []
        for tool, score, weights in best:
            fields, parts = explain(index, tool, list(weights), originals, weights)
            if tool.name in capped:
                parts = _capped_parts(parts, *capped[tool.name], originals)
            if tool.name in bonuses:
                points, detail = bonuses[tool.name]
                parts.append(Contribution(term="(the query)", field="description", points=points, detail=detail))
                fields = sorted({*fields, "description"}, key=FIELDS.index)
            hits.append(Hit(tool=tool, score=score, matched_fields=fields, contributions=parts))
        return put_named_first(catalog, request, hits)


def default_index(catalog: Catalog) -> BM25FIndex:
    """The default ranker's index of ``catalog``, built on first use (see :func:`cached_index`)."""
    index: BM25FIndex = cached_index(catalog, "default", lambda: build_index(catalog.searchable()), of_searchable=True)
    return index


def rank_index(
    index: BM25FIndex, plan: QueryPlan, k: int, allowed: set[int] | None = None, *, explain: bool = False
) -> tuple[
    list[tuple[Tool, float, dict[str, float]]], dict[str, tuple[float, str]], dict[str, tuple[dict[str, float], str]]
]:
    """The ``k`` best tools of ``index`` for ``plan`` as the default ranker orders them: BM25F, the
    parameter cap (:func:`_with_param_cap`) and the coverage bonus (:func:`_with_coverage`).
    Returns the tools with scores and term weights (empty without ``explain``), the coverage
    bonuses and the reduced parameter points by tool name (for explanations)."""
    if WORDNET_WEIGHT or plan.wordnet:
        _with_wordnet(index, plan)
    if plan.related and (RELATED_SOURCE_IDF or RELATED_ABSENT_WEIGHT != RELATED_WEIGHT):
        _related_at_source_idf(index, plan)
        if plan.translated and any(plan.weights.get(t) == 0.0 for t in plan.translated):
            plan = _without_unweighed(plan)
    indexed = sum(1 for t in plan.terms if t in index.df and t not in plan.related)
    covering = COVER_SHARE > 0 and COVER_MIN_TERMS <= indexed <= COVER_MAX_TERMS
    bonuses: dict[str, tuple[float, str]] = {}
    capping = PARAM_CAP_OWN is not None
    labelling = LABEL_SHARE > 0
    acting = ACTION_SHARE > 0 and plan.action is not None
    capped: dict[str, tuple[dict[str, float], str]] = {}
    if not (covering or capping or labelling or acting):
        return index.rank(plan, k, allowed, weights=explain), bonuses, capped
    label_pool = max(k, LABEL_POOL if labelling else 0, ACTION_POOL if acting else 0)
    pool = max(k, COVER_POOL if covering else 0, PARAM_POOL if capping else 0, label_pool)
    window = max(k, PARAM_WINDOW)  # the same with and without an explanation: the same order
    weighed = None if explain else window
    if not capping:
        ranked = index.ranked_slots(plan, pool, allowed, weights=explain, weighed=weighed)
    else:
        # Without the coverage bonus only the window and the one tool after it are ranked first:
        # the cap only lowers scores, so when the window's k-th capped score is above that tool's
        # score, no tool past the window can be in the best k (a pool of 100 ordered and weighed
        # for nothing cost ~0.3 ms a query at 100,000 tools); on a tie it can (ties go by name).
        short = not covering and label_pool <= window < pool
        ranked = index.ranked_slots(plan, window + 1 if short else pool, allowed, weights=True, weighed=weighed)
        head, capped = _with_param_cap(index, ranked[:window])
        past = ranked[window][2] if len(ranked) > window else None
        kth = head[min(k, len(head)) - 1][2] if head else 0.0
        if past is not None and kth < past:
            # a tool past the window could still be in the best k: weigh the whole pool
            ranked = index.ranked_slots(plan, pool, allowed, weights=True)
            ranked, capped = _with_param_cap(index, ranked)
        elif short and (past is None or kth > past):
            ranked = head
        else:
            if short:  # a tie with the tool past the window: the pool's first window tools are the same
                ranked = index.ranked_slots(plan, pool, allowed, weights=True, weighed=weighed)
            ranked = head + ranked[window:]
            _by_score_then_name(ranked)
        if not explain:
            ranked = [(slot, tool, score, {}) for slot, tool, score, _ in ranked]
    if labelling:
        ranked, bonuses = _with_label(index, plan, ranked, label_pool, k)
    if acting:
        ranked, acted = _with_action(plan, ranked, max(k, ACTION_POOL), k)
        _add_bonuses(bonuses, acted)
    if covering:
        best, covered = _with_coverage(index, plan, ranked, k)
        _add_bonuses(bonuses, covered)
    else:
        best = [(tool, score, weights) for _, tool, score, weights in ranked[:k]]
    return best, bonuses, capped


def _related_at_source_idf(index: BM25FIndex, plan: QueryPlan) -> None:
    """Set the weight of each related term of ``plan`` for ``index``, in place: RELATED_ABSENT_WEIGHT
    times its source word's weight, shared among the word's related terms the catalog has (each at
    least RELATED_WEIGHT times it), when no tool has that word; else RELATED_WEIGHT times it, lowered
    when the related term is rarer than the word (see RELATED_SOURCE_IDF). Each weight is set from
    the source word's, as :func:`_with_related` set it: a plan ranked twice (or on two catalogs)
    gets the same weights as one ranked once on the last."""
    stand_ins: dict[str, int] = {}  # per absent word: how many of its related terms the catalog has
    for term, source in plan.related.items():
        if (
            source in plan.terms
            and source not in index.df
            and term in index.df
            and term not in plan.translated
            and term not in plan.wordnet
        ):
            stand_ins[source] = stand_ins.get(source, 0) + 1
    if plan.translated:
        # the request's own words outside ASCII (its other language): does the catalog speak it?
        own = [t for t in plan.terms if t not in plan.related and len(t) > 1 and not t.isascii()]
        spoken = sum(1 for t in own if t in index.df) >= SPOKEN_TERMS
        for term, (_, sources) in plan.translated.items():
            # the catalog has the word itself (all its terms): a second opinion beside it; else its stand-in
            present = bool(sources) and all(t in index.df for t in sources)
            weight = max((plan.weights.get(t, 1.0) for t in sources), default=1.0)
            if not TRANSLATED_VALUE:
                weight = max(weight, 1.0)
            share = TRANSLATED_SPOKEN_WEIGHT if spoken else TRANSLATED_PRESENT_WEIGHT if present else TRANSLATED_WEIGHT
            plan.weights[term] = share * weight
    for term, source in plan.related.items():
        if source not in plan.terms or term in plan.translated or term in plan.wordnet:
            continue  # a phrase, a translation (weighed above) or a WordNet synonym (_with_wordnet)
        weight = plan.weights.get(source, 1.0)
        if source not in index.df:
            plan.weights[term] = max(RELATED_WEIGHT, RELATED_ABSENT_WEIGHT / max(1, stand_ins.get(source, 0))) * weight
            continue
        plan.weights[term] = RELATED_WEIGHT * weight
        rarity = index.idf(term)
        if rarity <= 0 or not RELATED_SOURCE_IDF:
            continue
        ratio = index.idf(source) / rarity
        if ratio < 1.0:
            plan.weights[term] = RELATED_WEIGHT * weight * ratio**RELATED_SOURCE_IDF


def _with_wordnet(index: BM25FIndex, plan: QueryPlan) -> None:
    """Add to ``plan``, in place, the WordNet synonyms (:mod:`.wordnet`) the catalog of ``index``
    has of the request's words it has not, and of its phrasal verbs (read from ``plan.text``; see
    WORDNET_WEIGHT), after taking out those added for another catalog; each in ``plan.related``
    and ``plan.wordnet``."""
    for term in plan.wordnet:
        plan.terms.remove(term)
        plan.related.pop(term, None)
        plan.weights.pop(term, None)
    plan.wordnet = {}
    if not WORDNET_WEIGHT or plan.translated or not _english_letters(plan.text):
        return  # a request in another language: WordNet is English
    expanded = set(plan.related.values())  # words related.py or the lexicon expand already
    for _, sources in plan.translated.values():
        expanded.update(sources)
    df = index.df
    wanted: list[tuple[str, float]] = []  # (word or phrase, its weight)
    if WORDNET_PHRASES and plan.text.isascii():
        from .wordnet import phrases

        found_phrases = [p for p in phrases(plan.text) if p not in expanded]
        wanted += [(p, 1.0) for p in found_phrases]
        expanded.update(p.split()[0] for p in found_phrases)  # their verbs mean what the phrase does
    for term in plan.terms:
        if (
            term not in df
            and term not in plan.related
            and term not in expanded
            and len(term) >= WORDNET_MIN_LETTERS
            and term.isascii()
            and term.isalpha()
            and plan.weights.get(term, 1.0) >= 1.0  # value-like words (names) are not vocabulary
        ):
            wanted.append((term, 1.0))
    if not wanted:
        return
    from .wordnet import senses

    for source, weight in wanted:
        found: list[str] = []
        for sense in senses(source, WORDNET_SENSES):
            for token, rank in sense:
                mark = token[:1] in "^="
                if (mark and not WORDNET_HYPERNYMS) or rank >= WORDNET_TARGET_RANK:
                    continue
                term = token[1:] if mark else token
                if term in df and term not in plan.terms and term not in found:
                    found.append(term)
        found = found[:WORDNET_TERMS]
        for term in found:
            plan.terms.append(term)
            plan.weights[term] = max(WORDNET_MIN_WEIGHT, WORDNET_WEIGHT / len(found)) * weight
            plan.related[term] = source
            plan.wordnet[term] = source


def _english_letters(text: str) -> bool:
    """Whether every letter of ``text`` is ASCII (*Übertrage die App*: German *die* is no verb)."""
    return text.isascii() or not any(ch.isalpha() and not ch.isascii() for ch in text)


def _add_bonuses(bonuses: dict[str, tuple[float, str]], more: dict[str, tuple[float, str]]) -> None:
    """Add ``more`` (tool name -> points, explanation) to ``bonuses`` in place: a tool in both gets
    the sum and both explanations."""
    for name, (points, detail) in more.items():
        if name in bonuses:
            points, detail = points + bonuses[name][0], f"{bonuses[name][1]}; {detail}"
        bonuses[name] = (points, detail)


def _without_unweighed(plan: QueryPlan) -> QueryPlan:
    """A copy of ``plan`` without the translated terms of weight 0 (TRANSLATED_SPOKEN_WEIGHT): a
    term of no weight would still make a tool a hit of no points."""
    dropped = {t for t in plan.translated if plan.weights.get(t) == 0.0}
    out = QueryPlan(
        [t for t in plan.terms if t not in dropped],
        plan.weights,
        plan.clauses,
        plan.clause_share,
        {t: s for t, s in plan.related.items() if t not in dropped},
    )
    out.translated = {t: v for t, v in plan.translated.items() if t not in dropped}
    out.wordnet = plan.wordnet
    out.action = plan.action
    out.text = plan.text
    return out


@lru_cache(maxsize=65536)
def _label_of(name: str, title: str, method: str, path: str) -> frozenset[str]:
    if title:
        return frozenset(analyze(normalized(_plain(title))))
    if method:
        return frozenset(_method_name_terms(name, method, path))
    return frozenset(analyze(normalized(name)))


#: Labels of packed tools (:func:`~toolsearch_cli.model.pack_tools`) by name and packed bytes:
#: reading a packed tool's title would unpack it for good (bounded: cleared when full).
_PACKED_LABELS: dict[tuple[str, bytes], frozenset[str]] = {}
_PACKED_LABELS_MAX = 65536


def label_terms(tool: Tool) -> frozenset[str]:
    """The analysed terms of a tool's label: its title (an OpenAPI summary, an MCP title), else its
    name (an OpenAPI name with the meaning of its method verb, see METHOD_VERBS). A packed tool
    stays packed (its label is read from a transient copy, once)."""
    return _of_packed(_PACKED_LABELS, tool, _label_from)


def _of_packed(memo: dict[tuple[str, bytes], Any], tool: Tool, derive: Callable[[Tool], Any]) -> Any:
    """``derive(tool)``; for a packed tool, from a transient unpacked copy, once, kept in ``memo``
    by name and packed bytes (cleared when it holds _PACKED_LABELS_MAX), so the tool stays packed."""
    packed = tool.__dict__.get("_packed")
    if packed is None:
        return derive(tool)
    key = (tool.name, packed)
    if key not in memo:
        if len(memo) >= _PACKED_LABELS_MAX:
            memo.clear()
        memo[key] = derive(unpacked(tool))
    return memo[key]


def _name_label(tool: Tool) -> bool:
    """Whether a tool's label is its name (:func:`label_terms`: no title, not an OpenAPI operation);
    a packed tool stays packed (as :func:`label_terms`)."""
    named: bool = _of_packed(_PACKED_NAME_LABELS, tool, _is_name_label)
    return named


#: Whether the label of a packed tool is its name, by name and packed bytes (as _PACKED_LABELS).
_PACKED_NAME_LABELS: dict[tuple[str, bytes], bool] = {}


def _is_name_label(tool: Tool) -> bool:
    return not tool.title and _openapi_native(tool) is None


def _label_from(tool: Tool) -> frozenset[str]:
    native = _openapi_native(tool)
    method, path = (str(native["method"]), str(native.get("path") or "")) if native is not None else ("", "")
    return _label_of(tool.name, tool.title or "", method, path)


def _with_label(
    index: BM25FIndex,
    plan: QueryPlan,
    ranked: list[tuple[int, Tool, float, dict[str, float]]],
    pool: int,
    k: int,
) -> tuple[list[tuple[int, Tool, float, dict[str, float]]], dict[str, tuple[float, str]]]:
    """``ranked`` (sorted) with the label bonus (see LABEL_SHARE) added to those of its ``pool``
    best tools that the largest bonus could lift into the ``k`` best, sorted again (ties by name),
    and each rewarded tool's bonus with its explanation."""
    if len(ranked) <= 1 or k <= 0:
        return ranked, {}
    said = {t: min(1.0, plan.weights.get(t, 1.0)) for t in plan.terms}
    if RELATED_WEIGHT:
        for t in plan.related:
            said[t] = min(1.0, LABEL_RELATED * said[t] / RELATED_WEIGHT)
    reach = LABEL_SHARE * ranked[0][2]
    own = len(plan.terms) - len(plan.related)
    chance = LABEL_LONG_TERMS / own if LABEL_LONG_TERMS is not None and own > LABEL_LONG_TERMS else 1.0
    floor = ranked[min(k, len(ranked)) - 1][2] - reach
    weighed = 0
    while weighed < min(pool, len(ranked)) and ranked[weighed][2] >= floor:
        weighed += 1
    out = ranked[weighed:]
    bonuses: dict[str, tuple[float, str]] = {}
    idfs: dict[str, float] = {}
    for item in ranked[:weighed]:
        label = label_terms(item[1])
        if len(label) < LABEL_MIN_TERMS:
            out.append(item)
            continue
        total = covered = 0.0
        unsaid: frozenset[str] = frozenset()
        verb_idf = 0.0
        if LABEL_VERB_MEAN:
            lead = _lead_verbs(item[1].name) & label
            unsaid = frozenset(v for v in lead if not said.get(v))
            if unsaid and len(lead) < len(label) and _name_label(item[1]):
                verb_idf = _mean_idf(index, label - lead, idfs)
            else:
                unsaid = frozenset()
        # in a fixed order: a sum over a set's order would change in its last digits with the hash seed
        for term in sorted(label):
            idf = idfs.get(term)
            if idf is None:
                idf = idfs[term] = index.idf(term)
            if term in unsaid:
                idf = verb_idf
            total += idf
            covered += idf * said.get(term, 0.0)
        share = covered / total if total > 0 else 0.0
        if share < LABEL_MIN_SHARE:
            out.append(item)
            continue
        bonus = reach * share**LABEL_POWER
        detail = f"label: {share:.0%} of the tool's label said by the query"
        if chance < 1.0 and _name_label(item[1]):
            bonus *= chance
            detail += f", x{chance:.2f}: its name, in a request of {own} terms"
        bonuses[item[1].name] = (bonus, detail)
        out.append((item[0], item[1], item[2] + bonus, item[3]))
    _by_score_then_name(out)
    return out, bonuses


@lru_cache(maxsize=65536)
def _lead_verbs(name: str) -> frozenset[str]:
    """The action words of :data:`.actions.TOOL_VERBS` among the first NAME_WORDS analysed terms of a
    tool's name (``get-group``: get; ``balance_query``: none)."""
    from .actions import NAME_WORDS, tool_verbs

    return tool_verbs().intersection(_analyze_short(normalized(name))[:NAME_WORDS])


def _mean_idf(index: BM25FIndex, terms: frozenset[str], idfs: dict[str, float]) -> float:
    """The mean IDF of ``terms`` (not empty): what an unsaid lead verb of a name label weighs in its
    share, the label's other terms' (see LABEL_VERB_MEAN). ``idfs`` caches IDFs by term for the request."""
    total = 0.0
    for term in sorted(terms):  # a fixed order, as _with_label sums
        idf = idfs.get(term)
        if idf is None:
            idf = idfs[term] = index.idf(term)
        total += idf
    return total / len(terms)


@lru_cache(maxsize=65536)
def _action_of(name: str, method: str, path: str) -> str | None:
    from .actions import tool_action

    method = method.casefold()
    if (method, "item") in METHOD_VERBS:
        verbs = METHOD_VERBS[(method, _path_shape(path))]  # a method's meaning, as the label reads it
        if verbs is not None:
            return tool_action(tuple(analyze(verbs)))
        # a POST to an action: the path's last word (".../cancel"), else the name's first verb
        # (``createOpportunityEntity`` on ``/opportunity``), its method word dropped
        segments = [s for s in path.split("/") if s and not s.startswith("{")]
        action = tool_action(tuple(_analyze_short(segments[-1]))) if segments else None
        return action or tool_action(tuple(_method_name_terms(name, method, path)))
    return tool_action(tuple(_analyze_short(normalized(name))))


#: Actions of packed tools by name and packed bytes (as _PACKED_LABELS).
_PACKED_ACTIONS: dict[tuple[str, bytes], str | None] = {}


def action_of(tool: Tool) -> str | None:
    """What a tool does (:mod:`.actions`): its OpenAPI method's meaning by the path's shape (the
    path's last word for a POST to an action), else the first verb among the first words of its name."""
    action: str | None = _of_packed(_PACKED_ACTIONS, tool, _action_from)
    return action


def _action_from(tool: Tool) -> str | None:
    native = _openapi_native(tool)
    if native is not None:
        return _action_of(tool.name, str(native["method"]), str(native.get("path") or ""))
    mcp = tool.metadata.get("mcp")
    hints = mcp.get("annotations") if isinstance(mcp, dict) else None
    # an untrusted hint: read only as a boolean true, and only ever one class among the best candidates
    read_only = isinstance(hints, dict) and hints.get("readOnlyHint") is True
    head = tool.description.lstrip()[:240] if tool.description else ""
    return _named_action(tool.name, head, read_only, ACTION_NAME_LAST, ACTION_DESCRIPTION, ACTION_READ_ONLY)


@lru_cache(maxsize=65536)
def _named_action(name: str, head: str, read_only: bool, name_last: bool, described: bool, hinted: bool) -> str | None:
    """The action of a tool that is not an OpenAPI operation: its name's (:func:`.actions.name_action`),
    else its description's first verb (``head``: the description's first characters), else READ for a
    ``readOnlyHint``; each fallback as its switch (ACTION_NAME_LAST, ACTION_DESCRIPTION, ACTION_READ_ONLY)."""
    from .actions import READ, description_action, name_action

    action = name_action(_analyze_short(normalized(name)), name_last)
    if action is None and described and head:
        action = description_action(_plain(head))
    if action is None and hinted and read_only:
        action = READ
    return action


def _with_action(
    plan: QueryPlan, ranked: list[tuple[int, Tool, float, dict[str, float]]], pool: int, k: int
) -> tuple[list[tuple[int, Tool, float, dict[str, float]]], dict[str, tuple[float, str]]]:
    """``ranked`` (sorted) with the action bonus (see ACTION_SHARE) added to those of its ``pool``
    best tools that the bonus could lift into the ``k`` best, sorted again (ties by name), and each
    rewarded tool's bonus with its explanation."""
    if len(ranked) <= 1 or k <= 0 or plan.action is None:
        return ranked, {}
    top = ranked[0][2]
    floor = ranked[min(k, len(ranked)) - 1][2] - max(ACTION_SHARE, OPENAPI_ACTION_SHARE) * top
    out = []
    bonuses: dict[str, tuple[float, str]] = {}
    for i, item in enumerate(ranked):
        if i >= pool or item[2] < floor:
            out.extend(ranked[i:])
            break
        reach = _action_reach(item[1]) * top
        action = action_of(item[1])
        share = 1.0 if action == plan.action else ACTION_UNKNOWN if action is None else 0.0
        operations = _multiplexed_share(item[1], plan.action, action)
        if operations is None and not share:
            operations = _openapi_add_share(item[1], plan.action, action)
        if operations is not None:
            share, said = operations
            if share > 0:
                bonuses[item[1].name] = (reach * share, said)
                item = (item[0], item[1], item[2] + reach * share, item[3])
        elif share > 0:
            bonus = reach * share
            bonuses[item[1].name] = (
                bonus,
                f"action: {plan.action}, as the request asks"
                if action
                else f"action: the request asks to {plan.action}, the tool's action is not known",
            )
            item = (item[0], item[1], item[2] + bonus, item[3])
        out.append(item)
    _by_score_then_name(out)
    return out, bonuses


#: Actions of packed tools' operation parameters, by name and packed bytes (as _PACKED_LABELS).
_PACKED_MULTIPLEXED: dict[tuple[str, bytes], tuple[frozenset[str], tuple[str, ...]]] = {}
#: The same for unpacked tools, by the identity of their parameters (bounded as _PACKED_LABELS).
_MULTIPLEXED: dict[int, tuple[Any, tuple[frozenset[str], tuple[str, ...]]]] = {}


def multiplexed_of(tool: Tool) -> tuple[frozenset[str], tuple[str, ...]]:
    """The actions of a tool that does several operations chosen by an enum parameter, and those
    enum values (:func:`.actions.multiplexed_actions`); empty for any other tool. A packed tool stays
    packed (as :func:`label_terms`)."""
    if "_packed" in tool.__dict__:
        found: tuple[frozenset[str], tuple[str, ...]] = _of_packed(_PACKED_MULTIPLEXED, tool, _multiplexed_from)
        return found
    # an unpacked tool: by its parameters' identity (the memo holds them, so the id is not reused);
    # read once, as the index reads a tool once (a schema changed in place is stale in both)
    schema = tool.parameters
    held = _MULTIPLEXED.get(id(schema))
    if held is not None and held[0] is schema:
        return held[1]
    if len(_MULTIPLEXED) >= _PACKED_LABELS_MAX:
        _MULTIPLEXED.clear()
    found = _multiplexed_from(tool)
    _MULTIPLEXED[id(schema)] = (schema, found)
    return found


def _multiplexed_from(tool: Tool) -> tuple[frozenset[str], tuple[str, ...]]:
    from .actions import multiplexed_actions

    return multiplexed_actions(tool.parameters)


def _name_says_action(tool: Tool) -> bool:
    """Whether a tool that is not an OpenAPI operation says its action in its name (``update_form``;
    :func:`.actions.name_action`): an OpenAPI operation's name verb is its HTTP method."""
    from .actions import name_action

    return (
        _openapi_native(tool) is None
        and name_action(_analyze_short(normalized(tool.name)), ACTION_NAME_LAST) is not None
    )


def _multiplexed_share(tool: Tool, asked: str, action: str | None) -> tuple[float, str] | None:
    """The action bonus's share for a multiplexed tool (:func:`multiplexed_of`) and its explanation:
    1.0 when ``asked`` is one of its operations' actions or its own ``action``, else MULTIPLEX_MISS;
    ``None`` (the tool's own action decides) for any other tool, for one whose name says its action
    (unless MULTIPLEX_NAMED), or with MULTIPLEX_ACTIONS off."""
    if not MULTIPLEX_ACTIONS:
        return None
    classes, values = multiplexed_of(tool)
    if not classes or (not MULTIPLEX_NAMED and _name_says_action(tool)):
        return None
    shown = "/".join(values[:MULTIPLEX_SHOWN]) + ("/..." if len(values) > MULTIPLEX_SHOWN else "")
    if asked in classes or asked == action:
        return 1.0, f"action: {asked}, one of the tool's actions {shown}"
    return MULTIPLEX_MISS, f"action: the request asks to {asked}, the tool's actions are {shown}"


def _action_reach(tool: Tool) -> float:
    """The action bonus's share of the best score for this tool: OPENAPI_ACTION_SHARE for an OpenAPI
    operation, else ACTION_SHARE; a packed tool stays packed (as :func:`action_of`)."""
    openapi: bool = _of_packed(_PACKED_OPENAPI, tool, _is_openapi)
    return OPENAPI_ACTION_SHARE if openapi else ACTION_SHARE


def _is_openapi(tool: Tool) -> bool:
    return _openapi_native(tool) is not None


#: Whether a packed tool is an OpenAPI operation, and whether it puts into a collection, by name and
#: packed bytes (as _PACKED_LABELS).
_PACKED_OPENAPI: dict[tuple[str, bytes], bool] = {}
_PACKED_OPENAPI_ADDS: dict[tuple[str, bytes], bool] = {}


def _openapi_adds(tool: Tool) -> bool:
    """Whether a tool is an OpenAPI operation that puts something into a collection under an item:
    a method of OPENAPI_ADD_METHODS on a path whose last word after a ``{parameter}`` names a
    collection (a plural: ``/boards/{id}/members``, ``/users/{id}/groups/{groupId}``), the item being
    one of a collection (``/users/{id}``; a leading ``/{realm}`` is not one). A packed tool stays packed."""
    adds: bool = _of_packed(_PACKED_OPENAPI_ADDS, tool, _puts_into_collection)
    return adds


def _puts_into_collection(tool: Tool) -> bool:
    native = _openapi_native(tool)
    if native is None or str(native["method"]).casefold() not in OPENAPI_ADD_METHODS:
        return False
    return _sub_collection(str(native.get("path") or ""))


@lru_cache(maxsize=65536)
def _sub_collection(path: str) -> bool:
    segments = [s for s in path.split("/") if s][:32]
    # the first item named under a collection (a leading ``/{realm}`` or ``/{tenant}`` is none)
    items = (i for i, s in enumerate(segments) if i and s.startswith("{") and not segments[i - 1].startswith("{"))
    first = next(items, None)
    if first is None:
        return False
    words = [s for s in segments[first + 1 :] if not s.startswith("{")]
    return bool(words) and _path_shape("/" + words[-1]) == "collection"


def _openapi_add_share(tool: Tool, asked: str, action: str | None) -> tuple[float, str] | None:
    """The action bonus's share (OPENAPI_ADD_SHARE) and its explanation when a request asks to add
    (create) and the tool is an update that puts into a collection (:func:`_openapi_adds`); else ``None``."""
    from .actions import CREATE, UPDATE

    if not OPENAPI_ADD_SHARE or asked != CREATE or action != UPDATE or not _openapi_adds(tool):
        return None
    return OPENAPI_ADD_SHARE, "action: create, as the request asks (the operation puts into a collection)"


def _with_param_cap(
    index: BM25FIndex, ranked: list[tuple[int, Tool, float, dict[str, float]]]
) -> tuple[list[tuple[int, Tool, float, dict[str, float]]], dict[str, tuple[dict[str, float], str]]]:
    """``ranked`` (slots, tools, scores and term weights, best first) with each tool's parameter
    points reduced, sorted again (ties by name): the points of a term found only in the tool's
    parameters are multiplied by PARAM_ONLY_TERM, then all its parameter points are capped (see
    PARAM_CAP_OWN). Also, per tool whose points changed, the factor each term's parameter points
    were multiplied by and a note saying why (for explanations). The split of each term's points
    between parameters and the tool's other fields is that of :func:`explain` (in proportion to
    each field's share of the term frequency)."""
    if len(ranked) <= 1 or PARAM_CAP_OWN is None:
        return ranked, {}
    fields = frozenset(i for i, name in enumerate(FIELD_SPECS) if name in PARAM_FIELDS)
    slots = [slot for slot, _, _, _ in ranked]
    terms: dict[str, None] = {}
    for _, _, _, weights in ranked:
        terms.update(dict.fromkeys(weights))
    model = index.model
    # per candidate: parameter points of each term, and whether that term is in parameters only
    param_points: list[dict[str, tuple[float, bool]]] = [{} for _ in slots]
    term_list = list(terms)
    for term, split in zip(term_list, index.param_split(term_list, slots, fields), strict=True):
        if not split:
            continue
        idf = index.idf(term)
        for i, (tf, part) in split.items():
            share = ranked[i][3].get(term, 0.0) * model.saturate(idf, tf) * part / tf
            param_points[i][term] = (share, part >= tf * (1.0 - 1e-9))
    own = [
        max(0.0, score - sum(p for p, _ in found.values()))
        for (_, _, score, _), found in zip(ranked, param_points, strict=True)
    ]
    best_own = max(own)
    out = []
    changed: dict[str, tuple[dict[str, float], str]] = {}
    for (slot, tool, score, weights), found, o in zip(ranked, param_points, own, strict=True):
        if not found:
            out.append((slot, tool, score, weights))
            continue
        factors = {term: PARAM_ONLY_TERM if only else 1.0 for term, (_, only) in found.items()}
        kept = sum(p * factors[term] for term, (p, _) in found.items())
        notes = ["only in parameters"] if any(f != 1.0 for f in factors.values()) else []
        cap = PARAM_CAP_OWN * o + PARAM_CAP_BEST * best_own
        if kept > cap:
            factors = {term: f * cap / kept for term, f in factors.items()}
            notes.append(f"parameters capped at {cap:.2f} points")
            kept = cap
        if notes:
            changed[tool.name] = (factors, "; ".join(notes))
        out.append((slot, tool, o + kept, weights))
    _by_score_then_name(out)
    return out, changed


def _by_score_then_name(ranked: list[tuple[int, Tool, float, dict[str, float]]]) -> None:
    """Sort (slot, tool, score, weights) items in place as by (-score, tool name)."""
    by_score_then_name(ranked, itemgetter(2), lambda item: item[1].name)


def _capped_parts(
    parts: list[Contribution], factors: dict[str, float], note: str, originals: dict[str, str]
) -> list[Contribution]:
    """The explanation of a tool whose parameter points were reduced: each term's parameter
    contribution multiplied by its factor, its detail saying so (the rows still add up to the score)."""
    by_label = {originals.get(term, term): f for term, f in factors.items()}
    out = []
    for c in parts:
        factor = by_label.get(c.term, 1.0) if c.field == "parameters" else 1.0
        if factor != 1.0:
            c = Contribution(
                term=c.term, field=c.field, points=c.points * factor, detail=f"{c.detail}; x{factor:.2f}, {note}"
            )
        out.append(c)
    return out


#: The index fields that hold a tool's own words: its name (with the method verb of an OpenAPI
#: name), its title, and its description unless that is the long text under a title or one made
#: up from method and path.
OWN_FIELDS = ("name", "title", "description")


def _with_coverage(
    index: BM25FIndex, plan: QueryPlan, ranked: list[tuple[int, Tool, float, dict[str, float]]], k: int
) -> tuple[list[tuple[Tool, float, dict[str, float]]], dict[str, tuple[float, str]]]:
    """The ``k`` best of ``ranked`` (the index's slots, tools, scores and weights, sorted) with the
    coverage bonus (see COVER_SHARE) added, ties by name; and each rewarded tool's bonus with its
    explanation. Only the tools that the largest bonus could lift into the ``k`` best are weighed,
    from the index's postings of OWN_FIELDS (by slot: a cached index never makes its names' map)."""
    best = [(tool, score, weights) for _, tool, score, weights in ranked]
    terms = [t for t in plan.terms if t in index.df and t not in plan.related]
    if not COVER_MIN_TERMS <= len(terms) <= COVER_MAX_TERMS or len(best) <= 1 or k <= 0:
        return best[:k], {}
    mass = {t: index.idf(t) * plan.weights.get(t, 1.0) for t in terms}
    total = sum(mass.values())
    if total <= 0:
        return best[:k], {}
    top = best[0][1]
    reach = COVER_SHARE * top
    floor = best[min(k, len(best)) - 1][1] - reach
    scored = []
    bonuses: dict[str, tuple[float, str]] = {}
    weighed = [item for item in best if item[1] >= floor]
    slots = [slot for slot, _, score, _ in ranked if score >= floor]
    fields = frozenset(i for i, name in enumerate(FIELD_SPECS) if name in OWN_FIELDS)
    shares = [0.0] * len(slots)
    for term, m in mass.items():
        for i, held in enumerate(index.held_in(term, slots, fields)):
            if held:
                shares[i] += m
    for (tool, score, weights), share in zip(weighed, shares, strict=True):
        covered = share / total
        bonus = reach * covered**COVER_POWER if covered >= COVER_MIN_SHARE else 0.0
        if bonus > 0:
            bonuses[tool.name] = (bonus, f"coverage: {covered:.0%} of the query's weight in the tool's own words")
        scored.append((tool, score + bonus, weights))
    scored.sort(key=lambda item: (-item[1], item[0].name))
    return scored[:k], bonuses


def _originals(query: str) -> dict[str, str]:
    """Map each analysed term back to the query word it came from (for explanations)."""
    out: dict[str, str] = {}
    for word in query.split():
        terms = analyze(word)
        label = word.strip(".,;:!?\"'()[]{}").lower() if len(terms) == 1 else None
        for term in terms:
            out.setdefault(term, label or term)
    return out
