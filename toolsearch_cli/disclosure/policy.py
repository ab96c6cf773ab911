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
    #: whether calls of disclosed tools matter (they are uses that delay eviction)
    counts_calls: ClassVar[bool]

    def apply(
        self, active: Sequence[str], hits: Sequence[str] | None, max_active: int | None, used: Sequence[str] = ()
    ) -> list[str]:
        """The new active names, given the current ones and a search's hits (``None``: the search failed).

        ``used``: the tools called since the previous search, oldest call first.
        """
        ...


class LatestPolicy:
    """Each search replaces the hits completely (the reference behaviour)."""

    name: ClassVar[str] = "latest"
    description: ClassVar[str] = "each search replaces the previous hits"
    counts_calls: ClassVar[bool] = False

    def apply(
        self, active: Sequence[str], hits: Sequence[str] | None, max_active: int | None, used: Sequence[str] = ()
    ) -> list[str]:
        names = list(dict.fromkeys(hits or ()))
        return names[:max_active] if max_active else names


class CumulativePolicy:
    """Hits accumulate; over ``max_active`` the least recently *used* names are evicted first.

    A use is being found by a search or being called: a tool the model just called outlives the
    other hits of the search that found it. Among tools last used at the same moment (the hits of
    one search), the lowest ranked goes first, so when the hits alone exceed the cap the best-ranked
    are kept. A name found again is refreshed.

    The active list is most recent first: the latest search's hits in rank order, then older ones.
    """

    name: ClassVar[str] = "cumulative"
    description: ClassVar[str] = "hits accumulate up to --max-active, least recently used (found or called) evicted"
    counts_calls: ClassVar[bool] = True

    def apply(
        self, active: Sequence[str], hits: Sequence[str] | None, max_active: int | None, used: Sequence[str] = ()
    ) -> list[str]:
        queue = list(dict.fromkeys(reversed(active)))  # the eviction order: least recently used first
        for name in used:
            if name in queue:
                queue.remove(name)
                queue.append(name)
        fresh = list(dict.fromkeys(hits or ()))
        # found by this search: the most recent use, the best-ranked last (evicted last)
        queue = [name for name in queue if name not in fresh] + fresh[::-1]
        if max_active and len(queue) > max_active:
            queue = queue[len(queue) - max_active :]
        return queue[::-1]


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
