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
    from .push_memo import FileMemo, Rows


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
    :class:`~toolsearch_cli.registry.store.PushConflict`.

    A push of one JSON catalog file reads only the tools whose bytes changed since the last push of
    that file from this user's account (:mod:`.push_memo`); any other catalog is loaded whole."""
    from .push_memo import NeedsBodies, Rows
    from .source import parse_registry_source

    memo = _file_memo(settings)
    rows = memo.rows() if memo is not None else None
    if rows is not None:
        try:
            plan = _push(settings, rows)
        except NeedsBodies as needed:  # the registry holds these otherwise than the memo says: read them
            rows = memo.rows(frozenset(needed.args[0])) if memo is not None else None
            if rows is not None:
                try:
                    plan = _push(settings, rows)
                except NeedsBodies:  # another push moved the namespace meanwhile: load them all
                    rows = None
    warned = False
    if rows is None:
        from ..catalog import load_catalog_result

        loaded = load_catalog_result(settings.sources, settings.catalog_format)
        warned = bool(loaded.warnings)
        rows = Rows.of(loaded.catalog)
        plan = _push(settings, rows)
    if memo is not None and not warned:  # a tool that warned is read again, and warns again
        memo.remember(rows)
    return PushResult(plan, settings.dry_run, parse_registry_source(settings.to, settings.namespace).display)


def _push(settings: PushSettings, rows: Rows) -> PushPlan:
    from .source import parse_registry_source
    from .store import push_rows

    if not rows.encoded and not settings.allow_empty and not settings.dry_run:
        where = parse_registry_source(settings.to, settings.namespace).display
        raise UsageError(
            f"the catalog has no tools: pushing it would empty {where}; add --yes if that is what you want",
            field="yes",
        )
    return push_rows(
        settings.to, rows, settings.namespace, dry_run=settings.dry_run, expect_version=settings.expect_version
    )


def _file_memo(settings: PushSettings) -> FileMemo | None:
    """The memo of the one JSON catalog file the push names (``None``: not such a push)."""
    from .. import cachedir
    from ..catalog.sources import FileSource, parse_sources

    if not cachedir.enabled() or settings.sources is None:
        return None
    from .push_memo import FileMemo

    try:
        sources = parse_sources(settings.sources)
    except Exception:  # noqa: BLE001 - the ordinary load reports a bad source
        return None
    if len(sources) != 1 or type(sources[0]) is not FileSource:
        return None
    return FileMemo.open(sources[0].path, sources[0].display, settings.catalog_format)
