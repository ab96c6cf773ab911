"""The registry source kind: ``[alias=]postgresql://…?namespace=NAME`` named as a catalog source.

Importing this module registers the kind with :mod:`toolsearch_cli.catalog.sources` (the root
package's ``__init__`` does, so every entry point knows it); the catalog package never imports
the registry. The URL's syntax is :mod:`.source`'s; reading a namespace is :mod:`.store`'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ..catalog.sources import SourceKind, register_kind
from .source import RegistrySource, is_registry_source, parse_registry_source

if TYPE_CHECKING:
    from ..catalog.result import LoadResult


@dataclass(frozen=True)
class RegistryCatalogSource:
    """A registry namespace named as a catalog source (a :class:`~toolsearch_cli.catalog.sources.Source`).
    The URL is parsed (and its secrets registered) when the source is: a bad one is a usage error
    before anything loads; a missing namespace is one when it loads."""

    kind: ClassVar[str] = "registry"
    text: str
    parsed: RegistrySource
    #: What this source told the catalog cache: the token it was keyed by, the token of what it read.
    _seen: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def shown(self) -> str:
        return self.parsed.display

    @property
    def runs_code(self) -> str | None:
        return None  # a registry holds data only

    def cache_files(self) -> list[Path]:
        return []  # keyed by its content token instead (see cache_token)

    def cache_token(self) -> str | None:
        """What the catalog cache keys this namespace by: where it is (credentials masked) and its
        content digest (one small query; a push that changes anything changes it). ``None`` when
        the registry cannot say now (then the load says why). Asked, the load that follows reads
        the namespace without the registry's own snapshot cache: the catalog cache stores it, with
        its indexes."""
        from .store import RegistryError, namespace_digest

        try:
            digest = namespace_digest(self.parsed)
        except RegistryError:
            return None
        if not digest:
            return None
        token = self._seen["asked"] = _token(self.parsed, digest)
        return token

    def loaded_token(self) -> str | None:
        """The token of what the last :meth:`load` read (``None``: nothing read yet)."""
        token: str | None = self._seen.get("read")
        return token

    def load(self, catalog_format: str | None = None, *, prefix: bool = False) -> LoadResult:
        from .store import load_registry_source

        def seen(snap: Any) -> None:
            self._seen["read"] = _token(self.parsed, snap.digest) if snap.digest else None

        return load_registry_source(self.parsed, cache="asked" not in self._seen, on_snapshot=seen)


def _token(source: RegistrySource, digest: str) -> str:
    return f"registry\n{source.display}\n{digest}"


def _parsed_if_registry(text: str) -> RegistryCatalogSource | None:
    if not is_registry_source(text):
        return None
    return RegistryCatalogSource(text.strip(), parse_registry_source(text))


def _joins(previous: str, part: str) -> bool:
    """Whether a piece of ``$TOOLSEARCH_CATALOG`` cut at ``:`` continues a registry URL."""
    registry = previous.partition("=")[2] if _REGISTRY_ALIAS.match(previous) else previous
    if registry in ("postgresql", "postgres"):
        return True  # "postgresql" + "//host"
    # "postgresql://user" + "password@host" + "5432/db": the authority runs to its "/"
    return registry.startswith(("postgresql://", "postgres://")) and "/" not in registry.split("://", 1)[1]


_REGISTRY_ALIAS = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*=postgres")

register_kind(SourceKind("registry", _parsed_if_registry, _joins))

# the registry's HTTP API as a source (https://…/namespaces/NAME), registered after postgresql://
from . import http_kind as _http_kind  # noqa: E402, F401

__all__ = ["RegistryCatalogSource"]
