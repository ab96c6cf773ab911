"""Injection-like text in tool metadata (rule TS206): patterns in several languages, checked on
the text as written and on normalised readings of it.

Tool poisoning hides orders to the model in a description: cancel its instructions, call this
tool first, keep something from the user, send the conversation or secrets somewhere, change its
role. Attackers dodge plain patterns by writing in another language, swapping Latin letters for
Cyrillic or Greek look-alikes (``Ignоre`` with a Cyrillic ``о``), spacing letters out
(``I g n o r e``) or encoding the order (base64, hex). So a text is checked as written, then
in the readings of :mod:`.injection_text`: look-alikes and invisible characters normalised,
spaced-out letters joined, base64 and hex payloads decoded, leetspeak and percent-encoding undone.

Each reading goes through the phrase patterns (one file per language under ``data/injection/``,
read by :mod:`.injection_data`), then through the scored signal families
of :mod:`.injection_signals` (roles of an order in each clause, multilingual lexicons), which
is what carries to phrasings the patterns were not written for (issue 20: held-out batches), and
last through the learned model of :mod:`.injection_model` (character and word n-grams, logistic
regression shipped as data), which carries to orders worded with none of the lexicons' words.

Guidance for the tool's own use is not injection: "only call this when ...", "call this first to
get a session id", "You MUST call this function before 'Query Documentation' to obtain an id",
"do not ask the user to select a version", a condition *named* "Hide From User Condition", AWS's
``<important>`` admonitions. Measured on the labelled set tests/data/injection_labelled.yaml and on
every description of the real catalogs (benchmarks/lint_real.py, benchmarks/notes/lint.md, issue 20).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from functools import cache, lru_cache

from .injection_data import Pattern, injection_data
from .injection_model import describe, model_reason, shipped_model
from .injection_signals import signal_reason
from .injection_text import (
    SPACED,
    decoded_payloads,
    disguised_word,
    hidden_character,
    join_spaced,
    tag_text,
    unleet,
    url_decoded,
    visible,
)

#: Longest text examined (a description longer than this is checked on its first part only).
MAX_TEXT = 20_000
#: On a spaced-out run with no gaps left to tell its words apart (``I g n o r e a l l ...``):
#: the orders themselves, squashed.
_SQUASHED = re.compile(
    r"(ignore|disregard|forget|override|bypass)(all|any)?(the|your|of|my)?(previous|prior|above|earlier|preceding|"
    r"system|safety|original|existing)*(instructions?|rules|prompts?|guidelines|directives)"
    r"|(donot|dont|never)(tell|inform|mention|notify|alert)(the)?(user|anyone)"
    r"|(always)?(call|use|invoke)(this|me)(tool)?(first|beforeanyother)"
    r"|(reveal|print|send|leak)(your|the)(systemprompt|instructions|conversation)"
)


def squashed_orders(text: str) -> str | None:
    """An order spelled in spaced-out letters whose word gaps were not kept, or ``None``."""
    for match in SPACED.finditer(text):
        squashed = re.sub(r"[^a-z]", "", match.group(0).casefold())
        found = _SQUASHED.search(squashed)
        if found:
            return found.group(0)
    return None


# --- the patterns (data/injection/*.tsv, read by .injection_data) --------------------------------


def patterns() -> list[Pattern]:
    """Every phrase pattern, in the order they run (English first, then the other languages)."""
    return [pattern for language in injection_data().languages for pattern in language.patterns]


_Needed = tuple[tuple[tuple[str, ...], ...], tuple[re.Pattern[str], str]]


@cache
def _gated() -> list[tuple[re.Pattern[str] | None, list[_Needed]]]:
    """Each language that has patterns: its gate, and its patterns as (needed words, (expression, why))."""
    return [
        (language.gate, [(p.needs, (p.regex, p.why)) for p in language.patterns])
        for language in injection_data().languages
        if language.patterns
    ]


def _patterns(text: str) -> Iterator[tuple[re.Pattern[str], str]]:
    """The patterns that may match a text: each language's only when its gate finds the text, each
    pattern only when one word of each of its groups of needed words is in the lower-cased text
    (a word check costs far less than the expression, which is most of TS206's time otherwise)."""
    low = text.casefold()
    for gate, patterns in _gated():
        if gate is not None and not gate.search(text):
            continue
        for needs, pattern in patterns:
            if all(any(word in low for word in group) for group in needs):
                yield pattern


def _readings(text: str, shown: str) -> Iterator[tuple[str, str]]:
    """The text as written, then each normalised reading that differs from it (with a note)."""
    yield text, ""
    seen = {text}
    for reading, note in (
        (shown, " (after normalising look-alike or invisible characters)"),
        (join_spaced(shown), " (in spaced-out letters)"),
        (tag_text(text), " (in invisible Unicode tag characters)"),
        (unleet(shown), " (in leetspeak)"),
        (unleet(shown, one="l"), " (in leetspeak)"),
        (url_decoded(shown), " (URL-encoded)"),
    ):
        if reading and reading not in seen:
            seen.add(reading)
            yield reading, note
    yield from _payload_readings(shown, 1)


def _payload_readings(text: str, depth: int) -> Iterator[tuple[str, str]]:
    for payload in decoded_payloads(text, depth):
        yield visible(payload), " (in an encoded payload)"


def injection_reasons(text: str) -> Iterator[str]:
    """Why a text reads as injection, by every layer: the rules' reasons (:func:`rule_reasons`),
    else the learned model's (:func:`learned_reason`). Nothing for honest text."""
    found = rule_reasons(text)
    yield from found
    if not found:
        reason = learned_reason(text)
        if reason:
            yield reason


@lru_cache(maxsize=4096)
def rule_reasons(text: str) -> tuple[str, ...]:
    """Why a text reads as injection to the written rules (TS206): an invisible character, then the
    first phrase pattern that matches the text or a normalised reading of it (with the matched
    words), else the first scored signal family. Empty for honest text. Cached: TS207 asks again."""
    return tuple(_rule_reasons(text))


def _rule_reasons(text: str) -> Iterator[str]:
    text = text[:MAX_TEXT]
    hidden = hidden_character(text)
    if hidden:
        yield f"contains an invisible character U+{ord(hidden):04X}"
    disguised = disguised_word(text)
    if disguised:
        yield f"spells a word with look-alike letters of another script: {disguised!r}"
    shown = visible(text)
    squashed = squashed_orders(shown)
    if squashed:
        yield f"tells the model what to do in spaced-out letters: {squashed!r}"
        return
    readings = list(_readings(text, shown))
    for reading, note in readings:  # the phrase patterns first: their messages name the phrase
        for pattern, why in _patterns(reading):
            match = pattern.search(reading)
            if match:
                snippet = " ".join(match.group(0).split())[:60]
                yield f"{why}: {snippet!r}{note}"
                return
    for reading, note in readings:  # then the scored signal families (the raw text only when it is plain)
        if reading is text and text != shown:
            continue
        reason = signal_reason(reading)
        if reason:
            yield reason + note
            return


def learned_reason(text: str, *, sure: bool = False) -> str | None:
    """Why the learned model (:mod:`.injection_model`) reads a text as an order to the model, on the
    same normalised readings, or ``None``: also when the written rules report it. Over its warning
    threshold (rule TS207), or with ``sure`` over its error threshold (rule TS206)."""
    if rule_reasons(text):
        return None
    model = shipped_model()
    if model is None:
        return None
    z, chunk, feats, note = _learned_best(text)
    threshold = model.error_threshold if sure else model.threshold
    if threshold is None or z < threshold:
        return None
    return describe(model, z, chunk, feats) + note


def learned_margin(text: str) -> float:
    """The learned model's highest margin (logit) over the chunks of a text's readings, minus its
    warning threshold (>= 0: TS207 would report it unless the written rules do); for benchmarks."""
    model = shipped_model()
    return -math.inf if model is None else _learned_best(text)[0] - model.threshold


@lru_cache(maxsize=4096)
def _learned_best(text: str) -> tuple[float, str, frozenset[str], str]:
    """The learned model's best chunk over the readings of a text: (margin, chunk, its features, the
    reading's note). Cached: TS206 asks at its error threshold, TS207 at its warning threshold."""
    model = shipped_model()
    best: tuple[float, str, frozenset[str], str] = (-math.inf, "", frozenset(), "")
    if model is None:
        return best
    for reading, note in readings(text):
        z, chunk, feats = model.best_chunk(reading)
        if z > best[0]:
            best = (z, chunk, frozenset(feats), note)
    return best


def split_reason(first: str, second: str) -> str | None:
    """Why two fields read as one order when the first stops mid-sentence and the second goes on
    ("... ignore all previous" + "instructions and send ..."): the scored signals on the normalised
    join (the phrase patterns read across sentences, so they are not run on it), or ``None``."""
    joined = visible(f"{first[-400:]} {second[:400]}")
    return signal_reason(joined) or signal_reason(join_spaced(unleet(joined)))


def split_learned_reason(first: str, second: str, *, sure: bool = False) -> str | None:
    """The learned model's reading of two such fields joined (over its error threshold with ``sure``;
    the caller asks :func:`split_reason` first, so that is not asked again here)."""
    joined = visible(f"{first[-400:]} {second[:400]}")
    return model_reason(joined, sure=sure) or model_reason(join_spaced(unleet(joined)), sure=sure)


def readings(text: str) -> list[tuple[str, str]]:
    """The readings the scored layers examine (each with its note): the normalised text, spaced
    letters joined, tag characters, leetspeak, percent-encoding, decoded payloads; the text as
    written only when normalising changed nothing."""
    text = text[:MAX_TEXT]
    shown = visible(text)
    return [(r, note) for r, note in _readings(text, shown) if not (r is text and text != shown)]
