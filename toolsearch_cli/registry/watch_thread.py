"""The thread a registry follower runs in (:class:`~.sync.RegistryWatcher` over PostgreSQL,
:class:`~.http_source.HttpWatcher` over the HTTP API): its status, start and the stop flag."""

from __future__ import annotations

import threading
from typing import Any, ClassVar


class FollowerThread:
    """What both followers share. A subclass calls :meth:`_init_thread` in its ``__init__``, runs
    its loop in ``_run`` until ``self._stop`` is set, and keeps the connection it waits on in
    ``self._conn`` (so that ``stop()`` can interrupt it)."""

    #: The thread's name (seen in tracebacks and thread dumps).
    thread_name: ClassVar[str] = "toolsearch-registry-follow"

    def _init_thread(self) -> None:
        #: ``starting``, ``live`` or a reason it is not (``disconnected: …``, ``stale: …``).
        self.status = "starting"
        self.last_error: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._conn: Any = None

    @property
    def connected(self) -> bool:
        return self.status == "live"

    def start(self) -> Any:
        """Start following (once); returns the follower."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:  # pragma: no cover - every follower defines it
        raise NotImplementedError
