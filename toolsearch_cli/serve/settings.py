"""What ``toolsearch serve`` is told, typed and checked in one place (:class:`ServeSettings`).

The gateway's own :class:`~toolsearch_cli.serve.gateway.Settings` check what the gateway needs
(disclosure mode, ``max_active``, ``timeout``); the command's settings add the policy and ranker
names, the HTTP address and the dry run, checked in the order the command has always reported
them. :func:`toolsearch_cli.serve.run.serve` and :func:`toolsearch_cli.serve.dry_run.dry_run`
take them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .gateway import Settings


@dataclass
class ServeSettings(Settings):
    """A ``toolsearch serve`` run: the gateway's settings, where to listen, and whether to only
    report what a client would see (``dry_run``: the HTTP address is then not read)."""

    #: ``HOST:PORT`` (or ``:PORT``, or ``PORT``) to serve streamable HTTP on; ``None``: stdio.
    http: str | None = None
    dry_run: bool = False
    #: ``http`` parsed (``None``: stdio, or a dry run).
    address: tuple[str, int] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        super().__post_init__()
        from ..disclosure.policy import get_policy
        from ..search import get_ranker

        get_policy(self.policy)
        get_ranker(self.ranker)
        if self.http is not None and not self.dry_run:
            from .server import parse_http

            self.address = parse_http(self.http)
