"""Signal families of injection (rule TS206), scored together, with multilingual lexicons.

The phrase patterns of :mod:`.injection` catch the wordings they were written for. This module
reads a (normalised) text as clauses and looks, in each clause, for the *roles* an order to the
model needs, each filled from a lexicon of English, Spanish, Chinese, French, German, Portuguese
and Japanese words (``data/injection/<language>.tsv``, :mod:`.injection_data`):

- override: a cancelling verb (ignore, forget, revoke, no longer apply, 忽略, olvida ...) with an
  object that is the model's instructions (rules, guidance, 指令, consignes ...) that are the
  model's own or earlier ones (your, previous, system, all ...); a passive English verb
  ("rules ... are ignored when ...") counts only when the clause speaks to the model ("you");
- secrecy: a negation, a verb of telling and a person (the user, anyone): "never disclose to the
  person ...", "不需要让用户知道", "sin que el usuario se entere", "Sag dem Benutzer nichts";
- exfiltration: an imperative verb of moving data (send, post, email, copy, 发到, envía ...), an
  object that belongs to the user or the model (the conversation, what the user typed, the
  system prompt, the user's password ...) and a sink (a URL, an e-mail address, a field,
  parameter or URL the model fills in);
- priority: calling *this* tool (this tool, me, 本工具, esta herramienta ...) with a quantifier
  over every other tool or every turn ("ahead of every other tool", "on every turn", "无论用户问什么");
- role: "you are now", "you are no longer bound by", "ahora eres", "你现在是", "du bist jetzt" ...

Each of these is a strong signal (2 points). Weak signals (1 point each) are not enough alone,
but two of them are: a claim of authority aimed at the model ("note to the assistant", "this
is a message from the developer", "SYSTEM OVERRIDE"), switching confirmations off ("skip
confirmation"), steering away from other tools ("do not use other tools"), covert verbs
(silently, 悄悄), secrecy with no person named ("don't mention the
change"), tampering with a destination ("change the recipient to ..."), hidden markup (an HTML
or Markdown comment), data or credentials sent with no sink named, "from now on".

A text is reported at 2 points. Every family only reads a clause once an anchor word of it is
in the text (one regular expression per family over the whole text), so honest descriptions
cost a handful of searches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache

from .injection_data import ROLES, injection_data
from .injection_text import URL_IN_TEXT, fold

# --- lexicons (data/injection/*.tsv; lower case; a word ending in ``~`` is a stem: any ending) -


def _units(entry: str) -> list[str]:
    """An entry as regular-expression units: a space is any white space, ``_`` any word
    characters, a trailing ``~`` any ending, else the word ends there (``\\b``)."""
    stem = entry.endswith("~")
    body = fold(entry.rstrip("~")).casefold()
    units = [r"\s+" if ch == " " else r"\w*" if ch == "_" else re.escape(ch) for ch in body]
    if _LATIN.match(body):
        units.append(r"\w*" if stem else r"\b")
    return units


_LATIN = re.compile(r"[a-z0-9à-ÿß]")


def _trie(entries: list[list[str]]) -> str:
    """One alternation of many entries as a trie (shared prefixes merged): Python's ``re`` tries
    every branch of a flat alternation at every position, a trie only the branches that fit."""
    root: dict[str, dict] = {}
    for units in entries:
        node = root
        for unit in units:
            node = node.setdefault(unit, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        alternatives = [unit + emit(child) for unit, child in node.items() if unit]
        if not alternatives:
            return ""
        group = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        if "" in node:
            return f"(?:{group})?"
        return group

    return emit(root)


def _alt(entries: Iterable[str]) -> str:
    """A regular expression for lexicon entries (folded, lower case): Latin words start at a word
    boundary, CJK entries match anywhere."""
    entries = [w.strip() for w in entries if w.strip()]
    latin = [_units(w) for w in entries if _LATIN.match(fold(w).casefold())]
    other = [_units(w) for w in entries if not _LATIN.match(fold(w).casefold())]
    parts = ([r"\b" + _trie(latin)] if latin else []) + ([_trie(other)] if other else [])
    return "(?:" + "|".join(parts) + ")"


@cache
def _lexicons() -> dict[str, re.Pattern[str]]:
    """Each role's lexicon (every language's entries, :func:`.injection_data.injection_data`) as one
    expression, and the sinks; built on first use (only a run of TS206 or TS207 needs them)."""
    data = injection_data()
    alternations = {role: _alt(data.lexicon(role)) for role in ROLES}
    found = {role: re.compile(pattern) for role, pattern in alternations.items()}  # the text is lower case
    found["url_sink"] = re.compile(_URL_SINK)
    # anchors: a family reads the clauses only when one of its words is somewhere in the text
    found["secrecy_anchor"] = re.compile(f"{alternations['tell']}|{alternations['conceal']}")
    return found


_PASSIVE = re.compile(r"\b(?:is|are|be|been|being|was|were|get|gets)\s+(?:\w+\s+)?$")
_TO_MODEL = re.compile(r"\b(?:you|your|you're|assistant|the ai|the model)\b")

_OWN_SECRET = re.compile(r"\b(?:tell|share|give|reveal|disclose)\w*\s+(?:\w+\s+){0,2}your\s+(?:own\s+)?"
                         r"(?:password|passcode|pin|secret|api key|token|credentials|code)\b")  # fmt: skip

_URL_SINK = r"(?:https://url|[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
#: URLs are read as one word (their paths and queries are not words of the text, see
#: :data:`.injection_text.URL_IN_TEXT`), and the targets of Markdown links dropped.
#: The target of a Markdown link or an HTML anchor is a reference ("see [insightsToken](https://...)"),
#: except after a preposition of destination: "send the conversation to [our form](https://...)".
_LINK_TARGET = re.compile(
    r"(?<!\bto )(?<!\bat )(?<!\binto )(?<!\bvia )(?<!\bthrough )(?<!\bto the )(?<!\bto our )(?<!\bto this )"
    r"\[([^\]\n]{0,200})\]\([^)\s]*\)|\bhref\s*=\s*(?:\"[^\"]*\"|'[^']*')",
    re.I,
)
# weak signals
_AUTHORITY = re.compile(
    r"(?:\b(?:note|message|notice|important|attention|instructions?|reminder)\s+(?:to|for)\s+(?:the\s+)?"
    r"(?:ai|assistant|model|llm|agent|bot)\b|^\s*(?:assistant|ai|system)\s*:|\bsystem override\b|"
    r"\bmessage from the (?:developer|administrator|admin|operator|system)\b|"
    r"\bthe (?:developer|administrator|admin|operator|owner)\s+(?:has\s+)?(?:authori[sz]ed|allowed|permitted|"
    r"approved)\s+you\b|nota para el asistente|注意.{0,4}(?:ai|助手)|给(?:ai|助手)的|系统通知)",
)
_CONSENT = re.compile(
    r"\b(?:skip|without|bypass)\s+(?:\w+\s+)?(?:confirmation|confirming|approval|checks)\b|\bno need to confirm\b|"
    r"\bno pidas confirmaci|sin confirmaci|无需确认|不需要确认|不用确认|"
    r"\bsafety (?:rules|checks) (?:are )?(?:disabled|off)\b",
)
_COVERT = re.compile(
    r"\b(?:silently|secretly|quietly|covertly|behind the user's back|en secreto|a escondidas|en secret|heimlich|"
    r"secretamente)\b|悄悄|偷偷|暗中",
)
_TAMPER = re.compile(
    r"\b(?:change|replace|switch|set)\s+(?:the\s+)?(?:destination|recipient|target|beneficiary|payee)\s*"
    r"(?:account|address|iban|wallet)?\s+to\b",
)
_OTHER_TOOLS = re.compile(
    r"\b(?:do not|don't|never|no need to|stop)\s+(?:use|call|invoke)\s+(?:any\s+)?other\s+tools\b|"
    r"\bno uses? (?:ninguna )?otras? herramientas|\bn'utilise[sz]? (?:pas|jamais|aucun) (?:d')?autres? outils|"
    r"\bkeine anderen (?:werkzeuge|tools)|\bnao use outras ferramentas|"
    r"(?:不要|别|不得|禁止)(?:使用|用|调用)(?:其他|别的)(?:工具|函数)"
)
_HIDDEN_MARKUP = re.compile(r"<!--.*?[^\W\d_].*?-->|^\s*\[//\]:\s*#", re.S | re.M)
_FROM_NOW_ON = re.compile(
    r"\bfrom now on\b|\bfrom this point (?:on|forward)\b|\bhenceforth\b|"
    r"a partir de (?:ahora|este momento)|从现在(?:开始|起)|desormais|ab jetzt|von nun an|"
    r"a partir de agora",
)


#: A clause ends at sentence punctuation followed by a space or the end (a dot inside a URL or a
#: number does not end one), at CJK sentence punctuation, at a semicolon or a line break.
_CLAUSE_END = re.compile(r"(?<=[.!?])(?=\s|$)|[;；。！？\n]+")

WHY = {
    "override": "tells the model to ignore its instructions",
    "secrecy": "asks the model to hide something from the user",
    "exfiltration": "asks the model to send the conversation or data away",
    "priority": "tells the model to always call this tool",
    "role": "tries to change the model's role",
}


def clauses(text: str) -> list[str]:
    return [c for c in (part.strip() for part in _CLAUSE_END.split(text)) if c]


_STATE_VERB = re.compile(
    r"no longer|revoked|void|cancel|disabled|lifted|obsolete|outdated|superseded|suspended|waived|作废|失效|不再", re.I
)
#: A negation just before a state verb ("were not revoked", "has never been cancelled").
_NEGATED_STATE = re.compile(r"\b(?:not|never|n't|none of (?:them|which))\s+(?:\w+\s+)?(?:been\s+)?$")
#: What may stand before an English imperative verb in its clause (else the verb describes: "if you
#: want to include", "parameters will override").
_IMPERATIVE_BEFORE = re.compile(
    r"(?:^|[,:(\-–—*>\]]|\b(?:and|und|y|et|e|puis|luego|dann|depois|then|also|please|first|always|now|"
    r"immediately|must|should|to the ai|assistant|"
    r"you|never|just|simply|quietly|silently|secretly|\w+ly|important|note)\b)\W*$",
    re.I,
)


def imperative(clause: str, start: int) -> bool:
    """Whether the (English) verb at ``start`` reads as an order: first in its clause, or after a
    conjunction, an adverb, a modal, "you" or a colon."""
    if not clause[start].isascii():
        return True
    return bool(_IMPERATIVE_BEFORE.search(clause[:start]))


def _override(clause: str) -> str | None:
    rx = _lexicons()
    for verb in rx["ov_verb"].finditer(clause):
        if _STATE_VERB.match(verb.group(0)) and _NEGATED_STATE.search(clause[: verb.start()]):
            continue  # "the rules that were not revoked" still hold: the opposite of an override
        if not _STATE_VERB.match(verb.group(0)) and not imperative(clause, verb.start()):
            continue  # "parameters will override the preset's prompt" describes, it does not order
        obj = rx["ov_object"].search(clause, verb.end(), verb.end() + 60)
        if not obj and (_STATE_VERB.match(verb.group(0)) or not verb.group(0).isascii()):
            # "the rules ... no longer apply"; Japanese and Chinese (把 ...) put the object first
            obj = rx["ov_object"].search(clause, max(0, verb.start() - 80), verb.start())
        if not obj:
            continue
        before = clause[: verb.start()].casefold()
        if clause[verb.start()].isascii() and _PASSIVE.search(before) and not _TO_MODEL.search(clause.casefold()):
            continue  # "rules from previous releases are ignored when ..."
        if _bound_whose(clause, verb, obj):
            return verb.group(0) + " ... " + obj.group(0)
    return None


#: Between a whose-word and its object: a preposition or a quote ends the binding ("any "private"
#: or "no-cache" directives", "existing firewall with the new rules": an API's rules, not the model's).
_UNBOUND_GAP = re.compile(r"\b(?:of|with|in|for|from|on|by)\b|[\"\u201c\u201d]")


def _bound_whose(clause: str, verb: re.Match[str], obj: re.Match[str]) -> bool:
    """Whether the override's object is the model's own instructions: for an English verb before its
    object, a whose-word ("your", "previous", "all prior", "system", "you were given") is attached to
    the object (just before it, or just after it); elsewhere (the object first, other scripts)
    anywhere in the clause, as before."""
    rx = _lexicons()
    if obj.start() < verb.end() or not clause[verb.start()].isascii():
        return bool(rx["ov_whose"].search(clause))
    for whose in rx["ov_whose"].finditer(clause, verb.end(), obj.end() + 30):
        if whose.start() >= obj.end():
            gap = clause[obj.end() : whose.start()]
        else:
            gap = clause[whose.end() : obj.start()]
        if len(gap) <= 25 and not _UNBOUND_GAP.search(gap):
            return True
    return False


_NOBODY = {"anyone", "nadie", "niemand", "ninguem", "personne", "任何人"}


def _secrecy(clause: str) -> tuple[int, str] | None:
    rx = _lexicons()
    conceal = rx["conceal"].search(clause)
    if conceal:
        person = rx["person"].search(clause)  # "keep it secret ... with anyone": advice about a key
        return (2 if person and person.group(0) not in _NOBODY else 1), conceal.group(0)
    for tell in rx["tell"].finditer(clause):
        window = clause[max(0, tell.start() - 25) : tell.end() + 25]
        if not rx["negation"].search(window):
            continue  # the negation is close to the verb: "never disclose", "Sag ... nichts"
        if _OWN_SECRET.search(clause.casefold()):
            return None  # "do not tell anyone your password": advice to a person about their own secret
        if rx["person"].search(clause):
            return 2, window.strip()
        return 1, window.strip()
    return None


#: An object that points back to something named earlier: "the user's password: add it to ...".
_PRONOUN = re.compile(r"\s+(?:it|them|this|that|these|those|everything)\b")
_DETERMINER = re.compile(r"\b(?:the|this|our|your|my|its|their|entire|whole|full|current|complete|all|every|any)\s+$")


def _generic_chat(clause: str, private: re.Match[str]) -> bool:
    """ "Send chat messages to a channel": a bare "chat" names a kind of message (the tool's own
    business), not this chat; "the chat", "this chat", "our chat" and "chat history" are this one."""
    return private.group(0) in ("chat", "chats") and not _DETERMINER.search(clause[: private.start()])


#: A private word that names a tool or an identifier, not the data itself: "the transcripts tool",
#: "the conversation id" (a usage tip sending the model on to another tool with a reference).
_NAMES_NOT_DATA = re.compile(
    r"[\s_-]*(?:tools?|functions?|endpoints?|operations?|api|ids?|identifiers?|numbers?|keys?|names?|titles?|"
    r"types?|urls?|links?|counts?|settings?)\b"
)


def _exfiltration(clause: str) -> tuple[int, str] | None:
    rx = _lexicons()
    transfer = next((t for t in rx["transfer"].finditer(clause) if imperative(clause, t.start())), None)
    if not transfer:
        return None
    # what an English verb moves is its object, after it: in "to access a user's password protected
    # recording, add an access_token parameter" the user's password is not what is added
    after = transfer.start() if clause[transfer.start()].isascii() and not _PRONOUN.match(clause, transfer.end()) else 0
    private = next(
        (
            p
            for p in rx["private"].finditer(clause, after)
            if not _generic_chat(clause, p) and not (p.group(0).isascii() and _NAMES_NOT_DATA.match(clause, p.end()))
        ),
        None,
    )
    url = rx["url_sink"].search(clause)
    if private and (url or rx["field_sink"].search(clause)):
        return 2, f"{transfer.group(0)} ... {private.group(0)}"
    credentials = rx["credentials"].search(clause)
    if credentials and url:
        return 1, f"{transfer.group(0)} ... {credentials.group(0)}"
    if private:
        return 1, f"{transfer.group(0)} ... {private.group(0)}"
    return None


def _priority(clause: str) -> str | None:
    rx = _lexicons()
    own = rx["self"].search(clause)
    if not own or not rx["call"].search(clause):
        return None
    quantifier = rx["quantifier"].search(clause)
    return f"{own.group(0)} ... {quantifier.group(0)}" if quantifier else None


#: "you are now able to ...", "you are now logged in": a state of the reader, not a new role.
_NOT_A_ROLE = re.compile(r"\s+(?:able|ready|logged|signed|connected|subscribed|authenticated|registered|done|using)\b")
#: "you're no longer interested in ...", "you are no longer a member": the reader's state changes;
#: a role change names what the model stops being or being bound by ("an assistant", "bound by").
_NO_LONGER_ROLE = re.compile(
    r"\s+(?:an?\s+|the\s+|just\s+)?(?:bound|restricted|limited|constrained|governed|subject|obliged|obligated|"
    r"required|held|assistant|ai|model|chatbot|helpful|claude|chatgpt|gpt|llm|bot|an?\s+(?:ai|assistant|language))\b"
)

#: Role entries that say only "unrestricted": a role change when the clause speaks to or of the
#: model ("you are an assistant without any restrictions"), not when it names an API's policy.
_UNRESTRICTED = re.compile(
    r"without any restrictions|sin restricciones|sin ninguna restriccion|没有任何限制|不受任何限制|不受限制|制限のない"
)
_ADDRESSED = re.compile(
    r"\b(?:you|your|you're|yourself|assistant|ai|model|llm|chatbot|bot|eres|asistente|ia|tu|tú|du|dich|vous|você|voce)\b|"
    r"你|您|助手|模型|アシスタント|あなた"
)

#: Anchors: a family reads the clauses only when one of its words is somewhere in the text.
_ANCHORS = {
    "override": "ov_verb",
    "secrecy": "secrecy_anchor",
    "exfiltration": "transfer",
    "priority": "self",
    "role": "role",
}


def _link_text(match: re.Match[str]) -> str:
    return f"[{match.group(1)}] " if match.group(1) is not None else " "


def signals(text: str) -> Iterator[tuple[str, int, str]]:
    """(family, points, evidence) for each signal found in a text."""
    # link targets first: once a URL is " https://url ", its Markdown target no longer reads as one
    text = URL_IN_TEXT.sub(" https://url ", _LINK_TARGET.sub(_link_text, fold(text))).casefold()
    lexicons = _lexicons()
    anchored = [family for family, role in _ANCHORS.items() if lexicons[role].search(text)]
    if anchored:
        for clause in clauses(text):
            if "override" in anchored and (hit := _override(clause)):
                yield "override", 2, hit
            if "secrecy" in anchored and (scored := _secrecy(clause)):
                yield "secrecy", *scored
            if "exfiltration" in anchored and (scored := _exfiltration(clause)):
                yield "exfiltration", *scored
            if "priority" in anchored and (hit := _priority(clause)):
                yield "priority", 2, hit
            role = lexicons["role"].search(clause) if "role" in anchored else None
            if role and role.group(0).endswith("no longer") and not _NO_LONGER_ROLE.match(clause, role.end()):
                role = None  # "if you're no longer interested in being a member ..."
            if role and _UNRESTRICTED.fullmatch(role.group(0)) and not _ADDRESSED.search(clause):
                role = None  # "replicates the Secret payload without any restrictions": not the model's
            if role and not _NOT_A_ROLE.match(clause, role.end()):
                yield "role", 2, role.group(0)
    for family, rx, gate in _WEAK:
        found = rx.search(text) if any(word in text for word in gate) else None
        if found:
            yield family, 1, found.group(0)


#: The weak cues, each with words one of which it cannot match without (checked with ``in``
#: first: a regular expression that starts with ``\b`` and an alternation scans every position).
_WEAK = (
    ("authority", _AUTHORITY, ("note", "message", "notice", "important", "attention", "instruction", "reminder",
                               "assistant", "ai", "system", "developer", "admin", "operator", "owner", "注意", "给",
                               "系统")),
    ("consent", _CONSENT, ("confirm", "approval", "checks", "safety", "确认")),
    ("covert", _COVERT, ("silently", "secretly", "quietly", "covertly", "behind", "secret", "escondidas",
                         "heimlich", "悄悄", "偷偷", "暗中")),
    ("tampering", _TAMPER, ("destination", "recipient", "target", "beneficiary", "payee")),
    ("avoid other tools", _OTHER_TOOLS, ("other", "otra", "autre", "andere", "outra", "其他", "别的")),
    ("hidden markup", _HIDDEN_MARKUP, ("<!--", "[//]")),
    ("from now on", _FROM_NOW_ON, ("now on", "this point", "henceforth", "a partir de", "从现在", "desormais",
                                   "ab jetzt", "von nun an")),
)  # fmt: skip

#: Points at which a text is reported.
THRESHOLD = 2


def signal_reason(text: str) -> str | None:
    """Why the scored signals read a text as injection, or ``None`` under the threshold."""
    best: dict[str, tuple[str, int, str]] = {}
    for family, points, evidence in signals(text):
        if family not in best or points > best[family][1]:
            best[family] = (family, points, evidence)
    found = list(best.values())
    if sum(points for _, points, _ in found) < THRESHOLD:
        return None
    found.sort(key=lambda s: -s[1])
    family, points, evidence = found[0]
    evidence = " ".join(evidence.split())[:60]
    if points >= THRESHOLD:
        return f"{WHY[family]}: {evidence!r}"
    names = ", ".join(dict.fromkeys(f for f, _, _ in found))
    return f"gives the model orders ({names}): {evidence!r}"
