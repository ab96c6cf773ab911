"""``toolsearch catalog push`` as a library call: :class:`PushSettings` (checked once) and
:func:`push_catalog`, which loads the catalog, publishes it (or plans it: ``dry_run``) through
:func:`toolsearch_cli.registry.store.push`, and returns a typed :class:`PushResult`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from .source import parse_registry_target
from .store import PushPlan

if TYPE_CHECKING:
    from ..catalog.loading import SourcesLike


@dataclass
class PushSettings:
    """A push: the registry URL (``to``), the namespace, the catalog sources (``None``: the default
    catalog) and their format (``None``: detected), whether to only plan, and the version the
    namespace must still be at (``expect_version``; 0: it must not exist yet)."""

    to: str
    namespace: str
    sources: SourcesLike = None
    catalog_format: str | None = None
    dry_run: bool = False
    expect_version: int | None = None
    #: Whether a catalog without tools may be pushed (it empties the namespace): ``--yes``.
    allow_empty: bool = False

    def __post_init__(self) -> None:
        # an alias (``name=postgresql://…``) is a catalog source's, not a push target's
        parse_registry_target(self.to, self.namespace, option="--to")


@dataclass
class PushResult:
    """What a push did (or, a dry run, would do), and where, as messages may show it (no secrets)."""

    plan: PushPlan
    dry_run: bool
    where: str

    @property
    def counts(self) -> str:
        """``N added, N changed, N removed, N unchanged``."""
        plan = self.plan
        return (
            f"{len(plan.added)} added, {len(plan.changed)} changed, {len(plan.removed)} removed, "
            f"{plan.unchanged} unchanged"
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``--format json`` document: ``dry_run`` and the plan."""
        return {"dry_run": self.dry_run, **self.plan.to_dict()}


def push_catalog(settings: PushSettings) -> PushResult:
    """Load the catalog the settings name and push it (one transaction; nothing written on a dry
    run or when nothing changed). A stale ``expect_version`` is a
    :class:`~toolsearch_cli.registry.store.PushConflict`."""
    from ..catalog import load_catalog
    from .source import parse_registry_source
    from .store import push

    loaded = load_catalog(settings.sources, settings.catalog_format)
    if not loaded.tools and not settings.allow_empty and not settings.dry_run:
        where = parse_registry_source(settings.to, settings.namespace).display
        raise UsageError(
            f"the catalog has no tools: pushing it would empty {where}; add --yes if that is what you want",
            field="yes",
        )
    plan = push(
        settings.to, loaded, settings.namespace, dry_run=settings.dry_run, expect_version=settings.expect_version
    )
    return PushResult(plan, settings.dry_run, parse_registry_source(settings.to, settings.namespace).display)
