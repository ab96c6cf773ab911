"""An append-only conversation whose per-request work is incremental, so replays stay linear.

A request snapshot needs the history's token count, the latest user message (groups), the
search calls and their results (chat-mode disclosure) and the messages themselves. Recomputed
from scratch for every request of a long log, that is quadratic in time and, with a copy of the
history per request, in memory (an 8,000-message log took minutes and 1.6 GB). A
:class:`MessageLog` remembers all of it per message, once: the loop and the replay append to it
and hand it to :meth:`DisclosureEngine.snapshot`, which reads those figures in constant time
per new message and keeps a view of the log (its length) instead of a copy.

Token counts stay exact: the messages' JSON (``[m0,m1,...]``, compact) is cut just before the
first letter of each message's first key (``[{"`` | ``role":…},{"`` | ``role":…}]``). With
cl100k's pre-tokenizer such a letter always starts a new piece (the ``},{"`` before it is one
run of punctuation, which never takes a letter), and BPE never merges across pieces, so the
tokens of the whole are the sum of the parts; for ``chars4`` the lengths add up. Other counters,
or a message whose first key does not start with an ASCII letter, are counted whole.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, overload

from ..providers import calls_in, results_in, user_text
from .history import ERROR, UNFINISHED, SearchEvent, parse_search_result

#: Cut points: before each message's first letter; these are the pieces around them.
_OPEN, _BETWEEN, _CLOSE = '[{"', ',{"', "]"


def additive(counter: Any) -> tuple[Callable[[str], int], Callable[[int], int]] | None:
    """``(value of a piece, count from the summed values)`` when ``counter`` adds up over the
    cut points above, else ``None``."""
    from ..tokens import CharEstimateCounter, TiktokenCounter

    if isinstance(counter, TiktokenCounter) and counter.name == "cl100k_base":
        return counter.count, lambda total: total
    if isinstance(counter, CharEstimateCounter):
        return len, lambda total: (total + 3) // 4
    return None


def message_json(message: Mapping[str, Any]) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _cuttable(text: str) -> bool:
    return len(text) > 2 and text.startswith('{"') and text[2].isascii() and text[2].isalpha()


class MessageLog(Sequence[Mapping[str, Any]]):
    """Messages, appended to only; reads of earlier messages are served from per-message caches.

    It wraps ``items`` (kept, not copied: appends to it are seen). Earlier messages must not be
    changed once a snapshot has read them.
    """

    def __init__(self, items: list[dict[str, Any]] | None = None) -> None:
        self.items: list[dict[str, Any]] = items if items is not None else []
        self._scanned = 0
        self.last_user = -1
        self.first_system = -1
        self._texts: list[str] = []
        self._cuttable = 0  # how many leading messages can be counted by parts
        self._parts: dict[str, tuple[list[int], list[int], list[int]]] = {}  # counter -> (mid, last, prefix)
        self._events: dict[str, tuple[list[SearchEvent], dict[str, list[int]], list[int]]] = {}
        self.fold_cache: dict[Any, Any] = {}

    # -- Sequence -------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> Mapping[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> Any:
        return self.items[index]

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        return iter(self.items)

    def append(self, message: dict[str, Any]) -> None:
        self.items.append(message)

    def extend(self, messages: Sequence[dict[str, Any]]) -> None:
        self.items.extend(messages)

    # -- incremental facts ----------------------------------------------------------------------

    def _catch_up(self) -> None:
        for index in range(self._scanned, len(self.items)):
            message = self.items[index]
            role = message.get("role")
            if role == "user" and user_text(message) is not None:  # tool results are no user turn
                self.last_user = index
            elif role == "system" and self.first_system < 0:
                self.first_system = index
            text = message_json(message)
            self._texts.append(text)
            if self._cuttable == index and _cuttable(text):
                self._cuttable = index + 1
        self._scanned = len(self.items)

    def tokens(self, counter: Any, replace: Mapping[int, Mapping[str, Any]] | None = None,
               prepend: Mapping[str, Any] | None = None) -> int:  # fmt: skip
        """Tokens of the messages' JSON, with message ``i`` replaced by ``replace[i]`` and/or
        ``prepend`` put first (how a group's system prompt changes a request)."""
        self._catch_up()
        n = len(self.items)
        if n == 0 and prepend is None:
            return 0
        measure = additive(counter)
        replace = replace or {}
        extra = [message_json(m) for m in replace.values()] + ([message_json(prepend)] if prepend else [])
        if measure is None or self._cuttable < n or not all(_cuttable(t) for t in extra):
            whole = [replace.get(i, m) for i, m in enumerate(self.items)]
            return counter.count(json.dumps(([prepend] if prepend else []) + whole, ensure_ascii=False,
                                            separators=(",", ":")))  # fmt: skip
        value, total = measure
        mid, last, prefix = self._parts_for(counter, value)
        if n == 0:
            assert prepend is not None
            return total(value(_OPEN) + value(message_json(prepend)[2:] + _CLOSE))
        sum_ = value(_OPEN) + prefix[n - 1] + last[n - 1]
        for i, message in replace.items():
            body = message_json(message)[2:]
            if i == n - 1:
                sum_ += value(body + _CLOSE) - last[i]
            else:
                sum_ += value(body + _BETWEEN) - mid[i]
        if prepend is not None:
            sum_ += value(message_json(prepend)[2:] + _BETWEEN)
        return total(sum_)

    def _parts_for(self, counter: Any, value: Callable[[str], int]) -> tuple[list[int], list[int], list[int]]:
        key = f"{type(counter).__name__}:{counter.name}"
        mid, last, prefix = self._parts.setdefault(key, ([], [], [0]))
        for index in range(len(mid), len(self._texts)):
            body = self._texts[index][2:]
            mid.append(value(body + _BETWEEN))
            last.append(value(body + _CLOSE))
            prefix.append(prefix[-1] + mid[-1])
        return mid, last, prefix

    def search_events(self, search_name: str) -> list[SearchEvent]:
        """Every call of the search tool so far, each paired with the first later tool message
        carrying its id (as :func:`~toolsearch_cli.disclosure.history.search_events`)."""
        events, waiting, cursor = self._events.setdefault(search_name, ([], {}, [0]))
        for index in range(cursor[0], len(self.items)):
            message = self.items[index]
            for result in results_in(message) if waiting else ():
                for at in waiting.pop(result.call_id, None) or ():
                    status, names = (ERROR, ()) if result.is_error else parse_search_result(result.content)
                    old = events[at]
                    events[at] = SearchEvent(old.message_index, old.call, status, names)
            for call in calls_in(message):
                if call.name == search_name:
                    waiting.setdefault(call.pairing_id, []).append(len(events))
                    events.append(SearchEvent(index, call, UNFINISHED))
        cursor[0] = len(self.items)
        return events

    def text(self, index: int) -> str:
        """Message ``index``'s compact JSON as the log read it (before any later edit in place)."""
        self._catch_up()
        return self._texts[index]

    def last_user_message(self) -> list[Mapping[str, Any]]:
        """The latest user message, as a one-message history (for group matching)."""
        self._catch_up()
        return [self.items[self.last_user]] if self.last_user >= 0 else []

    def first_system_index(self) -> int:
        self._catch_up()
        return self.first_system


__all__ = ["MessageLog", "additive"]
