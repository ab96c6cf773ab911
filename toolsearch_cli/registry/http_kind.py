"""The registry HTTP source kind: ``[alias=]https://HOST/…/namespaces/NAME`` named as a catalog source.

Registered with :mod:`toolsearch_cli.catalog.sources` when imported (the root package's
``__init__`` does); kept small, as every command imports it: the source itself, its client and
its watcher are :mod:`.http_source`, imported when a source of this kind is named.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .. import environment
from ..catalog.sources import SourceKind, register_kind
from ..errors import UsageError
from ..redaction import plain_http_host, register_url, shown_url
from .source import check_namespace

if TYPE_CHECKING:
    from .http_source import HttpRegistrySource

SOURCE = re.compile(r"^(?:(?P<alias>[A-Za-z][A-Za-z0-9_-]*)=)?(?P<url>[Hh][Tt][Tt][Pp][Ss]?://.*)$", re.S)
#: What separates the API's root from the namespace in a source's URL.
MARK = "/namespaces/"


def is_http_registry_source(text: str) -> bool:
    """Whether ``text`` is an ``http(s)://`` URL whose path names ``/namespaces/…``."""
    match = SOURCE.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        return False
    try:
        return MARK in urlsplit(match.group("url")).path
    except ValueError:
        return MARK in match.group("url")


def parse_http_registry_source(text: str) -> HttpRegistrySource:
    """``[alias=]https://HOST[:PORT][/PREFIX]/namespaces/NAME``; a bad one is a one-line UsageError
    (the URL masked)."""
    from .http_source import HttpRegistrySource

    match = SOURCE.match(text.strip())
    if match is None:
        raise UsageError(f"not a registry HTTP URL: {shown_url(text)}", field="catalog")
    url = match.group("url")
    register_url(url)
    shown = shown_url(url)
    if any(ch in url for ch in "\r\n\0\t "):
        raise UsageError(f"the registry URL {shown} holds a blank, line break or NUL character", field="catalog")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UsageError(f"the registry URL {shown} has a bad host or port", field="catalog") from None
    scheme = parts.scheme.lower()
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise UsageError(
            f"the registry URL {shown} carries credentials: put the token in ${environment.REGISTRY_TOKEN} instead",
            field="catalog",
        )
    if parts.query or parts.fragment:
        raise UsageError(
            f"the registry URL {shown} has a query or fragment: it ends with /namespaces/NAME", field="catalog"
        )
    if not parts.hostname:
        raise UsageError(f"the registry URL {shown} names no host", field="catalog")
    if scheme == "http" and plain_http_host(url) is not None:
        raise UsageError(
            f"the registry URL {shown} is plain http:// to another machine: use https:// (http:// only on loopback)",
            field="catalog",
        )
    prefix, _, namespace = parts.path.partition(MARK)
    check_namespace(namespace.rstrip("/"), "catalog")
    netloc = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    if port is not None:
        netloc += f":{port}"
    base = f"{scheme}://{netloc}{prefix.rstrip('/')}"
    return HttpRegistrySource(text.strip(), base, namespace.rstrip("/"), match.group("alias"))


def _parsed_if_http_registry(text: str) -> HttpRegistrySource | None:
    if not is_http_registry_source(text):
        return None
    return parse_http_registry_source(text)


def _joins(previous: str, part: str) -> bool:
    """Whether a piece of ``$TOOLSEARCH_CATALOG`` cut at ``:`` continues an HTTP registry URL."""
    head = previous.partition("=")[2] if re.match(r"^[A-Za-z][A-Za-z0-9_-]*=", previous) else previous
    if head.lower() in ("http", "https"):
        return part.startswith("//")
    if head.lower().startswith(("http://", "https://")) and "/" not in head.split("://", 1)[1]:
        return part[:1].isdigit()  # "https://host" + "8443/v1/namespaces/x"
    return False


register_kind(SourceKind("registry-http", _parsed_if_http_registry, _joins))

__all__ = ["MARK", "SOURCE", "is_http_registry_source", "parse_http_registry_source"]
