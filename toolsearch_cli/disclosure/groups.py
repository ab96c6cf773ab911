"""Tool groups: deterministic disclosure decided before the model call (seed §6).

Matched groups' tools are merged after the prompt tools; a group tool replaces a same-named
prompt tool in its position (the opposite of search hits, which never displace a prompt tool).
Matched groups' system prompts are joined with a blank line and appended to the first system
message, or inserted as a new first system message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..model import GroupMatcher, ToolGroup, attributes_allow
from ..providers import user_text
from ..providers.base import merged_system


def last_user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text of the last user message ("" when there is none)."""
    for message in reversed(messages):
        text = user_text(message)
        if text is not None:
            return text
    return ""


def matches(matcher: GroupMatcher, user_text: str, context: Mapping[str, str] | None) -> bool:
    """Whether a matcher applies to a request with this last user message and context."""
    if matcher.kind == "always":
        return True
    if matcher.kind == "keywords":
        if matcher.ignore_case:
            folded = user_text.casefold()
            return any(word.casefold() in folded for word in matcher.keywords)
        return any(word in user_text for word in matcher.keywords)
    if matcher.kind == "regex":
        return re.search(matcher.pattern or "", user_text, re.IGNORECASE if matcher.ignore_case else 0) is not None
    if matcher.kind == "context":
        return attributes_allow(matcher.attributes, context)
    raise ValueError(f"unknown matcher kind {matcher.kind!r}")


def matched_groups(
    groups: Sequence[ToolGroup], messages: Sequence[Mapping[str, Any]], context: Mapping[str, str] | None
) -> list[ToolGroup]:
    """The groups whose matcher applies, in catalog order."""
    text = last_user_text(messages)
    return [group for group in groups if matches(group.matcher, text, context)]


def with_system_prompt(messages: Sequence[Mapping[str, Any]], prompt: str) -> list[dict[str, Any]]:
    """A deep copy of the messages with ``prompt`` appended to the first system message (or inserted
    first): the OpenAI placement (see ``Provider.place_system`` for the others)."""
    return merged_system(messages, prompt)
