"""What a request asks to do to its object, and what a tool does to it: create, read, update or delete.

The commonest failure of the default ranker on real catalogs is the right object with the wrong
action (benchmarks/notes/ranking-round5.md and ranking-round6.md): *remind me to call the dentist*
ranks ``find-reminders`` above ``add-reminders``, *add "Prepare Q3 deck" to the Marketing board*
ranks ``update_workflow`` above ``create_item``. The verb that tells them apart (*add*, *find*) is
shared by a third of the catalog, so its IDF gives it almost no say in a BM25 score. This module
gives each side an action class, from a short list of everyday verbs written by hand for this
project (not learnt from any data set):

* a request's class is that of its first action word (*add*, *show*, *cancel*, ...), or a question
  word that opens a clause (*who*, *what*, *how many*: a question asks to read); none when it has
  neither (*errors from checkout-service in the last 15 minutes*);
* a tool's class is that of an OpenAPI operation's HTTP method (by the shape of its path, as
  :data:`~.bm25f.METHOD_VERBS`), else of the first action word among the first words of its name
  (``create_item``, ``discord_send``: a server prefix is passed over); none for ``board_insights``.

Sending and posting count as creating (a sent message is a new one). The ranker
(:func:`~.bm25f.rank_index`) weighs the agreement of the two among the best candidates.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .text import analyze

CREATE, READ, UPDATE, DELETE = "create", "read", "update", "delete"

#: Per class, the verbs of a tool's name that say it (analysed: "creates" is "create").
TOOL_VERBS = {
    CREATE: "create add new insert make generate register post send submit publish upload import book schedule "
    "push broadcast",
    READ: "get list search find query fetch retrieve read show view describe lookup count download export",
    UPDATE: "update set change edit modify patch rename move replace assign mark toggle configure reschedule",
    DELETE: "delete remove destroy erase drop purge clear cancel unset",
}
#: Per class, the words of a request that ask for it (analysed), and phrases (matched in the text).
REQUEST_VERBS = {
    CREATE: "create add make new generate register book schedule send post submit publish remind jot log import upload "
    "invite load",
    READ: "show list get find search fetch retrieve read view see look display",
    UPDATE: "update change edit modify set rename move switch mark replace adjust reset enable disable assign "
    "reschedule tick",
    DELETE: "delete remove erase destroy cancel purge drop wipe trash",
}
REQUEST_PHRASES = {
    # "take a/an" (round 9): *take a snapshot of my VPS* asks to create one (a photo, a backup, a note);
    # *take a look at* reads (READ: the longest phrase wins)
    CREATE: (
        "set up",
        "sign up",
        "note down",
        "write down",
        "file a",
        "file an",
        "leave a",
        "leave an",
        "take a",
        "take an",
    ),
    READ: ("look up", "how many", "how much", "take a look"),
    UPDATE: ("turn on", "turn off", "roll out", "roll back"),
    DELETE: ("get rid of",),
}
#: Question words that open a clause: the clause asks to read (matched as words of the text).
QUESTION_WORDS = frozenset(
    "who what which when where why how whose is are am was were do does did has have any".split()
)

#: A question word's contraction ("what's", "who're"): the question word itself.
_CONTRACTION = re.compile(r"'(?:s|re|ve|d|ll)$")
#: *make* before one of these, a possessive or a capitalised name asks to change a thing that exists
#: ("make the variation use ...", "make everyone's passwords longer", "make Priya an admin"), not to
#: make a new one ("make a folder").
DEFINITE = frozenset(
    "the my our your his her their its this that these those all every each "
    "me him them us it everyone everybody".split()
)

#: HTTP method words as a name's verbs (analysed).
HTTP_METHODS = frozenset(("get", "post", "put", "patch", "delet"))

#: How many of a name's first words are looked at for its action (a server prefix, then the verb).
NAME_WORDS = 2

_WORD = re.compile(r"[\w']+")


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], dict[str, str]]:
    """(analysed tool verb -> class, analysed request word -> class)."""

    def table(verbs: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for cls, words in verbs.items():
            for word in words.split():
                for term in analyze(word):
                    out.setdefault(term, cls)
        return out

    return table(TOOL_VERBS), table(REQUEST_VERBS)


@lru_cache(maxsize=1)
def tool_verbs() -> frozenset[str]:
    """Every analysed verb of TOOL_VERBS, whatever its class."""
    return frozenset(_tables()[0])


def tool_action(terms: list[str] | tuple[str, ...]) -> str | None:
    """The class of the first action verb among the first NAME_WORDS of a name's analysed terms."""
    verbs = _tables()[0]
    for i, term in enumerate(terms[:NAME_WORDS]):
        cls = verbs.get(term)
        if cls is not None:
            # an HTTP method before another verb ("API-post-search"): the second says it
            after = verbs.get(terms[i + 1]) if term in HTTP_METHODS and i + 1 < len(terms) else None
            return after or cls
    return None


#: Words that open a description before its verb ("This tool will create ...", "Use this tool to
#: get ..."), longest first, matched on the description's first words.
DESCRIPTION_LEADS = (
    "use this tool to",
    "this tool will",
    "this tool can",
    "primary tool to",
    "this tool",
    "tool to",
    "allows you to",
    "lets you",
    "used to",
    "helps you",
    "you can",
    "will",
)
#: Verbs that open descriptions but not names, per class (analysed).
DESCRIPTION_VERBS = {READ: "return calculate compute"}
#: How many characters of a description are read for its first verb.
DESCRIPTION_CHARS = 120


def name_action(terms: list[str] | tuple[str, ...], last: bool) -> str | None:
    """:func:`tool_action` of a name's terms; with ``last``, else the class of its last term when that
    is a verb (``kv_namespace_get``, ``env_var_set``: the verb after the object)."""
    action = tool_action(terms)
    if action is None and last and len(terms) > NAME_WORDS:
        action = _tables()[0].get(terms[-1])
    return action


def description_action(text: str) -> str | None:
    """The class of a description's first word when it is an action verb ("Add a secret to a
    Worker", "Creates a new Vapi assistant"), after a lead such as *This tool will* or *Use this
    tool to*; ``None`` otherwise. Not cached here: its one caller, ``bm25f._named_action``, is, by
    the same text."""
    words = _WORD.findall(text[:DESCRIPTION_CHARS].casefold())
    ahead = " ".join(words[:5]) + " "
    lead = next((p for p in DESCRIPTION_LEADS if ahead.startswith(p + " ")), None)
    if lead is not None:
        words = words[lead.count(" ") + 1 :]
    if not words:
        return None
    verbs = _tables()[0]
    for term in analyze(words[0]):
        found = verbs.get(term) or _description_verbs().get(term)
        if found is not None:
            return found
    return None


@lru_cache(maxsize=1)
def _description_verbs() -> dict[str, str]:
    return {term: cls for cls, words in DESCRIPTION_VERBS.items() for word in words.split() for term in analyze(word)}


#: Words that may come before the action word of a clause ("please add ...", "can you show me ...").
LEAD_WORDS = frozenset("please pls kindly then also now just and so ok okay hey quickly".split())
LEAD_PHRASES = (
    "can you",
    "could you",
    "would you",
    "will you",
    "i want to",
    "i need to",
    "we need to",
    "we want to",
    "i'd like to",
    "we'd like to",
    "i'd like you to",
    "let's",
    "help me",
    "go ahead and",
)

_CLAUSES = re.compile(r"[.?!;:,\n()\[\]\"“”„«»]+")
#: Quoted text is a name or a message, not what the request asks ("add \"Delete old files\" to ...").
_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|„[^“”]*[“”]|«[^»]*»")


def _clause_action(
    words: list[str], table: dict[str, str], names: frozenset[str] = frozenset(), wordnet: bool = False
) -> str | None:
    """The class of a clause whose first word (after LEAD_WORDS) is a question word, an action
    phrase or an action word; ``None`` otherwise."""
    i = 0
    while i < len(words):
        if words[i] in LEAD_WORDS:
            i += 1
            continue
        ahead = " ".join(words[i : i + 5]) + " "
        lead = next((p for p in LEAD_PHRASES if ahead.startswith(p + " ")), None)
        if lead is None:
            break
        i += lead.count(" ") + 1
    if i == len(words):
        return None
    rest = " ".join(words[i:]) + " "
    # the longest phrase that opens the clause: *take a look at ...* reads, *take a snapshot* creates
    said = [(len(p), cls) for cls, phrases in REQUEST_PHRASES.items() for p in phrases if rest.startswith(p + " ")]
    if said:
        return max(said, key=lambda item: item[0])[1]
    if _CONTRACTION.sub("", words[i]) in QUESTION_WORDS:
        return READ
    if (
        words[i] == "make"
        and i + 1 < len(words)
        and (words[i + 1] in DEFINITE or words[i + 1] in names or words[i + 1].endswith("'s"))
    ):
        return UPDATE
    for term in analyze(words[i]):
        found = table.get(term)
        if found is not None:
            return found
    return _phrasal_action(words, i, table) if wordnet else None


#: A phrasal verb's action from WordNet (:func:`_phrasal_action`): its first senses read.
WORDNET_SENSES = 2


def _phrasal_action(words: list[str], i: int, table: dict[str, str]) -> str | None:
    """The class of the phrasal verb that opens a clause (*tear down the app*, *take her out of the
    group*), from its WordNet synonyms and hypernyms (:mod:`.wordnet`): the first of them, in sense
    order, that is a request's action word (*tear down* -> destroy: delete)."""
    from .wordnet import PARTICLE_GAP, PARTICLES, senses

    terms = analyze(words[i])
    if len(terms) != 1:
        return None
    for particle in words[i + 1 : i + 2 + PARTICLE_GAP]:
        if particle in PARTICLES:
            for sense in senses(f"{terms[0]} {particle}", WORDNET_SENSES):
                for token, _ in sense:
                    found = table.get(token.lstrip("^="))
                    if found is not None:
                        return found
            return None
    return None


def request_action(query: str, anywhere: bool = False, wordnet: bool = False) -> str | None:
    """The class of the first clause of the request that opens with an action word or phrase (after
    words such as *please* or *can you*), READ for one that opens with a question word; ``None``
    when no clause does. With ``anywhere``, else the class of the first action word anywhere. With
    ``wordnet``, a clause that opens with a phrasal verb the lists do not have asks for the action of
    its WordNet synonyms (:func:`_phrasal_action`)."""
    text = _QUOTED.sub(" , ", query.casefold().replace("’", "'"))
    table = _tables()[1]
    # capitalised words (a person, a team): "make Priya an admin" changes Priya
    names = frozenset(w.casefold() for w in _WORD.findall(query) if w[:1].isupper() and w[1:2].islower())
    for clause in _CLAUSES.split(text):
        cls = _clause_action(_WORD.findall(clause), table, names, wordnet)
        if cls is not None:
            return cls
    if anywhere:
        for word in _WORD.findall(text):
            for term in analyze(word):
                if term in table:
                    return table[term]
    return None


# --- Multiplexed tools (round 8): one tool, several operations, chosen by an enum parameter ---------
#
# n8n-mcp's ``n8n_executions`` (``action``: get / list / delete), monday.com's ``manage_agent``
# (``action``: create / get / update / delete / ...), GitHub's ``issue_write`` (``method``: create /
# update): the tool's name says no verb, or only one of its operations (``form_questions_editor``),
# so the action agreement could not see that it deletes. Figures: benchmarks/notes/ranking-round8.md,
# section "multiplexed tools".

#: Parameter names (compared without case or separators) that choose the operation. Counted on the
#: tuning sets' catalogs and the committed MCP snapshots (blind8's excepted): ``action`` (most of
#: the 22 tools of 13,457 recognised), ``mode`` (``n8n_workflow_versions``: list / get / rollback / delete),
#: ``operation`` (todoist's ``manage-assignments``), ``method`` (GitHub's ``*_read`` / ``*_write``;
#: HTTP methods are no operation, see :func:`multiplexed_actions`); ``op``, ``command`` and ``cmd``
#: by their meaning (none seen). Not ``type`` (35 enums, all of kinds of a thing: nouns).
OPERATION_PARAMS = frozenset(("action", "operation", "op", "method", "command", "cmd", "mode"))
#: Fewest enum values, each an action verb (or a ``verb_noun``), for an operation parameter.
MULTIPLEX_MIN_VERBS = 2
#: Most properties read per object and enum values read per parameter (hostile schemas). The tuning
#: sets' 13,457 tools: at most 133 top-level parameters (99th percentile 20), at most 15 values in an
#: operation parameter's enum.
MULTIPLEX_MAX_PROPERTIES = 256
MULTIPLEX_MAX_VALUES = 32
#: Longest enum value read (characters): an operation is a word or two.
MULTIPLEX_MAX_CHARS = 48
#: An enum of HTTP methods only (``GET``/``POST``: a webhook's method, vapi's ``apiRequest.method``)
#: chooses no operation of the tool: every value one of these, in capitals or with one that is no
#: operation's word (put, patch, head, options); ``get``/``list``/``delete`` are operations.
HTTP_METHOD_VALUES = frozenset(("get", "post", "put", "patch", "delete", "head", "options"))
HTTP_ONLY_VALUES = frozenset(("put", "patch", "head", "options"))


def _operation_enum(prop: object) -> list[str]:
    """The string values of ``prop``'s ``enum`` (at most MULTIPLEX_MAX_VALUES, each at most
    MULTIPLEX_MAX_CHARS long; other values skipped), [] when it has none."""
    if not isinstance(prop, dict):
        return []
    enum = prop.get("enum")
    if not isinstance(enum, list):
        return []
    return [v for v in enum[:MULTIPLEX_MAX_VALUES] if isinstance(v, str) and 0 < len(v) <= MULTIPLEX_MAX_CHARS]


def _operation_name(name: object) -> bool:
    """Whether a parameter's name (without case or separators) is one of OPERATION_PARAMS."""
    return isinstance(name, str) and len(name) <= MULTIPLEX_MAX_CHARS and _is_operation_name(name)


@lru_cache(maxsize=65536)
def _is_operation_name(name: str) -> bool:
    return "".join(ch for ch in name.casefold() if ch.isalnum()) in OPERATION_PARAMS


def _operation_params(schema: object) -> list[list[str]]:
    """The enum values of each operation parameter (OPERATION_PARAMS) at the top of ``schema`` or one
    level under one of its object parameters."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return []
    nested: list[dict[str, object]] = []
    found = _operation_enums(properties, nested)
    for inner in nested[:MULTIPLEX_MAX_PROPERTIES]:
        found += _operation_enums(inner, None)
    return found


def _operation_enums(properties: dict[str, object], nested: list[dict[str, object]] | None) -> list[list[str]]:
    """The enum values of the operation parameters among ``properties`` (the first
    MULTIPLEX_MAX_PROPERTIES); the object parameters' own properties are added to ``nested``."""
    found: list[list[str]] = []
    for i, (name, prop) in enumerate(properties.items()):
        if i >= MULTIPLEX_MAX_PROPERTIES:
            break
        if not isinstance(prop, dict):
            continue
        if _operation_name(name):
            values = _operation_enum(prop)
            if values:
                found.append(values)
        inner = prop.get("properties")
        if nested is not None and isinstance(inner, dict):
            nested.append(inner)
    return found


def _http_methods(values: list[str]) -> bool:
    """Whether an enum's values are HTTP methods (HTTP_METHOD_VALUES)."""
    folded = [v.casefold() for v in values]
    if not all(v in HTTP_METHOD_VALUES for v in folded):
        return False
    return all(v.isupper() for v in values) or any(v in HTTP_ONLY_VALUES for v in folded)


def multiplexed_actions(schema: object) -> tuple[frozenset[str], tuple[str, ...]]:
    """The actions of a tool that does several operations, chosen by an enum parameter: the classes
    of the values of its operation parameters (OPERATION_PARAMS) that are action verbs (``delete``,
    ``list_triggers``, ``createTable``), with those values in their order; empty when no operation
    parameter has MULTIPLEX_MIN_VERBS such values, or all its values are HTTP methods."""
    classes: set[str] = set()
    said: list[str] = []
    for values in _operation_params(schema):
        if _http_methods(values):
            continue
        known = [(value, cls) for value in values if (cls := _value_action(value)) is not None]
        if len(known) >= MULTIPLEX_MIN_VERBS:
            classes.update(cls for _, cls in known)
            said.extend(v for v, _ in known if v not in said)
    return frozenset(classes), tuple(said)


@lru_cache(maxsize=65536)
def _value_action(value: str) -> str | None:
    """The class of an enum value read as a tool's name is (:func:`tool_action`: ``delete``,
    ``createTable``, ``list_triggers``)."""
    from .text import normalized

    return tool_action(analyze(normalized(value)))
