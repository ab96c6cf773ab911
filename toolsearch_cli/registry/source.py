"""``[alias=]postgresql://…/db?namespace=NAME``: a registry namespace named as a catalog source.

The URL is libpq's (``postgresql://`` or ``postgres://``): host, port, database, user and any
libpq parameter in the query string (``sslmode``, ``connect_timeout``, ``service``, …) pass
through to the driver. ``namespace`` is toolsearch's own parameter and is taken out. Credentials
come only from the URL or libpq's environment (``PGPASSWORD``, ``PGPASSFILE``,
``PGSERVICEFILE``, …); whatever secret the URL carries is registered with
:mod:`toolsearch_cli.redaction` as soon as it is parsed, and :attr:`RegistrySource.display` never
shows it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

from ..errors import UsageError
from ..redaction import register, register_url, shown_url

_SOURCE = re.compile(r"^(?:(?P<alias>[A-Za-z][A-Za-z0-9_-]*)=)?(?P<url>postgres(?:ql)?://.*)$", re.S)
#: A namespace: what a push names with ``--namespace`` and a source with ``?namespace=``.
_NAMESPACE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$")
#: libpq's variables that may hold a secret (masked wherever they would be echoed).
_SECRET_ENV = ("PGPASSWORD",)


@dataclass(frozen=True, slots=True)
class RegistrySource:
    """A parsed registry source: the libpq URL (without ``namespace``), the namespace, the alias."""

    conninfo: str
    namespace: str | None
    alias: str | None = None

    @property
    def display(self) -> str:
        """The source as messages show it: no user, password or query values, plus the namespace."""
        shown = shown_url(self.conninfo).removesuffix("?…")
        shown = f"{shown}?namespace={self.namespace}" if self.namespace else shown
        return f"{self.alias}={shown}" if self.alias else shown

    def require_namespace(self) -> str:
        if not self.namespace:
            raise UsageError(
                f"the registry source {self.display} names no namespace: add ?namespace=NAME to the URL",
                field="catalog",
            )
        return self.namespace


def is_registry_source(source: str) -> bool:
    """Whether ``source`` is a ``[alias=]postgresql://…`` registry source."""
    return isinstance(source, str) and _SOURCE.match(source.strip()) is not None


def check_namespace(namespace: str, field: str = "namespace") -> str:
    if not _NAMESPACE.match(namespace or ""):
        raise UsageError(
            f"invalid namespace {namespace!r}: 1 to 128 letters, digits and _ . : / -, starting with a letter or digit",
            field=field,
        )
    return namespace


def parse_registry_source(source: str, namespace: str | None = None) -> RegistrySource:
    """Split ``[alias=]postgresql://…?namespace=NAME``; ``namespace`` (``--namespace``) overrides the URL's."""
    for name in _SECRET_ENV:
        register(os.environ.get(name))
    match = _SOURCE.match(source.strip())
    if match is None:
        raise UsageError(
            f"not a registry URL: {shown_url(source)} (expected postgresql://[user@]host[:port]/database?namespace=NAME)",
            field="catalog",
        )
    url = match.group("url")
    register_url(url, long_values=False)  # the namespace is no secret: long values are registered below
    base, mark, query = url.partition("?")
    if any(ch in url for ch in "\r\n\0"):
        raise UsageError(f"the registry URL {shown_url(url)} holds a line break or NUL character", field="catalog")
    params = parse_qsl(query, keep_blank_values=True) if mark else []
    found = [value for key, value in params if key == "namespace"]
    rest = [(key, value) for key, value in params if key != "namespace"]
    for key, value in rest:
        if key in ("password", "passfile") or "pass" in key:
            register(value)
    if len(found) > 1:
        raise UsageError(f"the registry URL {shown_url(url)} names 'namespace' twice", field="catalog")
    chosen = namespace if namespace is not None else (found[0] if found else None)
    if chosen is not None:
        check_namespace(chosen, "namespace" if namespace is not None else "catalog")
    conninfo = f"{base}?{urlencode(rest)}" if rest else base
    register_url(conninfo)  # libpq's parameters, without the namespace
    return RegistrySource(conninfo=conninfo, namespace=chosen, alias=match.group("alias"))


def parse_registry_target(url: str, namespace: str | None = None, *, option: str = "URL") -> RegistrySource:
    """A registry a command writes to or manages (``catalog push --to``, ``registry …``): a plain
    ``postgresql://`` URL, no alias (an alias names a catalog source); else a one-line usage error
    that shows the argument with its secrets masked."""
    if not is_registry_source(url) or "=" in url.split("://", 1)[0]:
        raise UsageError(
            f"{option} {shown_url(url)} is not a registry URL (expected postgresql://[user@]host[:port]/database)",
            field=option.lstrip("-").lower(),
        )
    return parse_registry_source(url, namespace)


def shown_registry_source(source: str) -> str:
    """A registry source as messages show it (credentials masked), even when it does not parse."""
    try:
        return parse_registry_source(source).display
    except UsageError:
        return shown_url(source)
