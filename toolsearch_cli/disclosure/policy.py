"""Disclosure policies: how a finished search changes the set of disclosed (active) tool names.

One rule for a failed search, in chat and agent mode alike (the reference disagrees with itself):
a failed search -- an error result, unreadable or ``null`` result, or no result yet -- discloses
nothing. Under ``latest`` that means the active set is cleared (the latest search is what counts,
and it found nothing usable; an older search is never fallen back to). Under ``cumulative``
nothing is added and nothing is removed. An empty result behaves the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Protocol


class Policy(Protocol):
    name: ClassVar[str]
    description: ClassVar[str]

    def apply(self, active: Sequence[str], hits: Sequence[str] | None, max_active: int | None) -> list[str]:
        """The new active names, given the current ones and a search's hits (``None``: the search failed)."""
        ...


class LatestPolicy:
    """Each search replaces the hits completely (the reference behaviour)."""

    name: ClassVar[str] = "latest"
    description: ClassVar[str] = "each search replaces the previous hits"

    def apply(self, active: Sequence[str], hits: Sequence[str] | None, max_active: int | None) -> list[str]:
        names = list(dict.fromkeys(hits or ()))
        return names[:max_active] if max_active else names


class CumulativePolicy:
    """Hits accumulate; over ``max_active`` the least recently disclosed names are evicted first.

    A new search's hits count as the most recent, in rank order; a name found again is refreshed.
    When the hits alone exceed the cap, the best-ranked ones are kept.
    """

    name: ClassVar[str] = "cumulative"
    description: ClassVar[str] = "hits accumulate up to --max-active, least recently disclosed evicted"

    def apply(self, active: Sequence[str], hits: Sequence[str] | None, max_active: int | None) -> list[str]:
        fresh = list(dict.fromkeys(hits or ()))
        if not fresh:
            return list(active)
        older = [name for name in active if name not in fresh]
        if max_active:
            fresh = fresh[:max_active]
            room = max_active - len(fresh)
            older = older[len(older) - room :] if room > 0 else []
        return older + fresh


POLICY_BY_NAME: dict[str, Policy] = {"latest": LatestPolicy(), "cumulative": CumulativePolicy()}


def get_policy(name: str) -> Policy:
    from ..errors import UsageError, did_you_mean

    try:
        return POLICY_BY_NAME[name]
    except KeyError:
        raise UsageError(
            f"unknown policy {name!r}{did_you_mean(name, POLICY_BY_NAME)}; choose from {', '.join(POLICY_BY_NAME)}",
            field="policy",
        ) from None
