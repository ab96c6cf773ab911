"""Resources, resource templates and prompts of the gateway's upstream servers, merged (transport-free).

Each upstream's lists (read by :mod:`.upstream` when the server advertises ``resources`` or
``prompts``) are merged here into the lists the gateway serves, with the routes back:

- **Names and URIs keep their own spelling unless two upstreams have the same one**; then each
  becomes the alias-prefixed form, as tools do: a prompt ``summarize`` of the upstreams ``a`` and
  ``b`` is served as ``a__summarize`` and ``b__summarize``, a resource ``note://readme`` as
  ``a+note://readme`` and ``b+note://readme`` (a URI stays a URI: ``a+note`` is a legal scheme,
  as ``git+https`` is). A URI template is prefixed the same way, and a read of a URI under a
  prefixed scheme goes to that upstream with the prefix taken off.
- **Text from upstreams is made printable**: names, titles, descriptions, MIME types and the text
  of what a read or a prompt returns go through :func:`~toolsearch_cli.printable.shown`, so an
  ANSI/OSC escape, a zero-width, bidi or tag character reaches the client as a visible ``\\x1b``
  or ``\\u200b`` escape, never as the character itself. A URI holding such a character is served
  in that visible form and mapped back to the upstream's own URI.
- **Searchable beside tools**: :meth:`Features.search` ranks resources, templates and prompts by
  the words of their names, titles, descriptions (and prompt arguments) with the default ranker,
  for ``toolSearch`` calls that ask (``include``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..printable import shown

#: The ``include`` values of ``toolSearch`` (what may be searched beside tools).
INCLUDE_KINDS = ("resources", "prompts")
#: Nesting of a read or prompt result walked when its text is made printable.
MAX_DEPTH = 32
#: Text fields of listed items and results that are made printable (URIs are mapped, not edited).
_TEXT_KEYS = ("name", "title", "description", "mimeType", "text")

Kind = Literal["resource", "template", "prompt"]


@dataclass
class UpstreamFeatures:
    """What one upstream serves besides tools (raw wire dicts, as listed), and what it can do."""

    resources: list[dict[str, Any]] = field(default_factory=list)
    templates: list[dict[str, Any]] = field(default_factory=list)
    prompts: list[dict[str, Any]] = field(default_factory=list)
    has_resources: bool = False
    has_prompts: bool = False
    #: It takes ``resources/subscribe`` (handshake era) or resource URIs in ``subscriptions/listen``.
    can_subscribe: bool = False
    #: It answers ``completion/complete`` (argument values of its prompts and templates).
    has_completions: bool = False


@dataclass(frozen=True, slots=True)
class FeatureRoute:
    """Where a served name or URI goes: the upstream (its source text) and its own name or URI."""

    source: str
    original: str


@dataclass
class Served:
    """One served resource, template or prompt: the wire dict the client gets and its route."""

    kind: Kind
    data: dict[str, Any]
    route: FeatureRoute
    alias: str


def clean(value: Any, depth: int = 0, *, keys: tuple[str, ...] = _TEXT_KEYS) -> Any:
    """A wire value with its text fields made printable (recursively, bounded): every string under
    one of ``keys`` (or in a list under one) goes through :func:`shown`; ``uri``/``blob`` and
    other fields as they are."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in keys and isinstance(item, str):
                out[key] = shown(item)
            elif key in keys and isinstance(item, list):
                out[key] = [shown(v) if isinstance(v, str) else clean(v, depth + 1, keys=keys) for v in item]
            else:
                out[key] = clean(item, depth + 1, keys=keys)
        return out
    if isinstance(value, list):
        return [clean(item, depth + 1, keys=keys) for item in value]
    return value


def prefixed_uri(alias: str, uri: str) -> str:
    """``alias+scheme:rest`` (a URI without a scheme: ``alias+`` before it)."""
    return f"{alias}+{uri}"


def _template_prefix(template: str) -> str:
    """The literal start of a URI template (up to its first expression)."""
    return template.split("{", 1)[0]


class Features:
    """The merged resources, templates and prompts of every upstream, and their routes."""

    def __init__(self) -> None:
        self.resources: list[Served] = []
        self.templates: list[Served] = []
        self.prompts: list[Served] = []
        self._resource_routes: dict[str, FeatureRoute] = {}
        self._prompt_routes: dict[str, FeatureRoute] = {}
        #: Per upstream source: its own URI -> the served URI (for read results and updates).
        self._outward: dict[str, dict[str, str]] = {}
        #: Upstream aliases (and sources) that serve resources, in the order given.
        self._resource_sources: dict[str, str] = {}
        self.can_subscribe: set[str] = set()
        #: Upstreams (sources) that answer ``completion/complete``.
        self.can_complete: set[str] = set()
        self._template_routes: dict[str, FeatureRoute] = {}
        self._has_prompts = False
        self._search: Any = None
        self._search_entries: dict[str, Served] = {}

    @property
    def has_resources(self) -> bool:
        return bool(self._resource_sources)

    @property
    def has_prompts(self) -> bool:
        return self._has_prompts

    def rebuild(self, upstreams: Sequence[tuple[str, str, UpstreamFeatures]]) -> set[str]:
        """Merge ``(source, alias, features)`` of every upstream (in the order given); the kinds
        whose served list changed (``resources``, ``prompts``)."""
        before = (self._digest(self.resources + self.templates), self._digest(self.prompts))
        resources: list[tuple[str, str, dict[str, Any]]] = []
        templates: list[tuple[str, str, dict[str, Any]]] = []
        prompts: list[tuple[str, str, dict[str, Any]]] = []
        self._resource_sources = {}
        self.can_subscribe = set()
        self.can_complete = {source for source, _, features in upstreams if features.has_completions}
        self._has_prompts = False
        for source, alias, features in upstreams:
            # a server that advertises resources or prompts but lists none (the SDK's MCPServer
            # always advertises both) gives the client nothing to use: not counted
            if features.has_resources and (features.resources or features.templates):
                self._resource_sources.setdefault(alias, source)
                if features.can_subscribe:
                    self.can_subscribe.add(source)
                resources += [(source, alias, r) for r in features.resources if isinstance(r.get("uri"), str)]
                templates += [(source, alias, t) for t in features.templates if isinstance(t.get("uriTemplate"), str)]
            if features.has_prompts and features.prompts:
                self._has_prompts = True
                prompts += [(source, alias, p) for p in features.prompts if isinstance(p.get("name"), str)]
        self._outward = {}
        self.resources, self._resource_routes = self._merge("resource", resources, "uri")
        self.templates, self._template_routes = self._merge("template", templates, "uriTemplate")
        self.prompts, self._prompt_routes = self._merge("prompt", prompts, "name")
        for served in self.resources:
            self._outward.setdefault(served.route.source, {})[served.route.original] = served.data["uri"]
        self._search = None
        after = (self._digest(self.resources + self.templates), self._digest(self.prompts))
        return {kind for kind, a, b in zip(INCLUDE_KINDS, before, after, strict=True) if a != b}

    def _merge(
        self, kind: Kind, items: list[tuple[str, str, dict[str, Any]]], key: str
    ) -> tuple[list[Served], dict[str, FeatureRoute]]:
        holders: dict[str, set[str]] = {}  # which upstreams have each name (twice in one is no collision)
        for source, _, item in items:
            holders.setdefault(item[key], set()).add(source)
        counts = {name: len(sources) for name, sources in holders.items()}
        served: list[Served] = []
        routes: dict[str, FeatureRoute] = {}
        for source, alias, item in items:
            original = item[key]
            outward = shown(original)
            if counts[original] > 1:
                outward = f"{alias}__{outward}" if kind == "prompt" else prefixed_uri(alias, outward)
            if outward in routes:
                if routes[outward] == FeatureRoute(source, original) or kind != "prompt":
                    continue  # the same name twice from one upstream (or a URI): the first is kept
                base, n = outward, 2
                while outward in routes:  # a prefixed name another upstream has as its own
                    outward, n = f"{base}_{n}", n + 1
            data = clean(item)
            data[key] = outward
            route = FeatureRoute(source, original)
            routes[outward] = route
            served.append(Served(kind, data, route, alias))
        return served, routes

    @staticmethod
    def _digest(items: Iterable[Served]) -> str:
        import hashlib
        import json

        digest = hashlib.sha256()
        for item in items:
            digest.update(json.dumps(item.data, sort_keys=True, ensure_ascii=False).encode("utf-8", "replace"))
        return digest.hexdigest()

    # -- routes ---------------------------------------------------------------------------------

    def prompt_route(self, name: Any) -> FeatureRoute | None:
        return self._prompt_routes.get(name) if isinstance(name, str) else None

    def template_route(self, template: str) -> FeatureRoute | None:
        """Where a served URI template (of a ``completion/complete`` reference) goes."""
        return self._template_routes.get(template)

    def resource_route(self, uri: str) -> FeatureRoute | None:
        """Where a read (or subscription) of ``uri`` goes: a listed resource; a URI under an
        upstream's prefixed scheme; a URI a template of one upstream starts (the longest wins);
        else the only upstream with resources. ``None``: no upstream can be told."""
        route = self._resource_routes.get(uri)
        if route is not None:
            return route
        alias, plus, rest = uri.partition("+")
        if plus and alias in self._resource_sources and rest:
            return FeatureRoute(self._resource_sources[alias], rest)
        best: tuple[int, FeatureRoute] | None = None
        for template in self.templates:
            start = _template_prefix(template.data["uriTemplate"])
            # (a prefixed template's URIs were routed by their scheme above)
            if start and uri.startswith(start) and (best is None or len(start) > best[0]):
                best = (len(start), FeatureRoute(template.route.source, uri))
        if best is not None:
            return best[1]
        if len(self._resource_sources) == 1:
            return FeatureRoute(next(iter(self._resource_sources.values())), uri)
        return None

    def outward_uri(self, source: str, uri: str, asked: str | None = None) -> str:
        """The URI the client knows for an upstream's own ``uri`` (a listed one's served form;
        one under a prefixed read, prefixed the same way; else printable as is)."""
        known = self._outward.get(source, {}).get(uri)
        if known is not None:
            return known
        if asked is not None and asked != uri and asked.endswith(uri):
            return asked[: len(asked) - len(uri)] + shown(uri)
        return shown(uri)

    def map_result(self, source: str, result: Mapping[str, Any], asked: str | None = None) -> dict[str, Any]:
        """A read or prompt result (wire dict) made printable, its URIs in the client's terms."""
        cleaned = clean(dict(result))
        self._map_uris(source, cleaned, asked, 0)
        return cleaned  # type: ignore[no-any-return]

    def _map_uris(self, source: str, value: Any, asked: str | None, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        if isinstance(value, dict):
            uri = value.get("uri")
            if isinstance(uri, str):
                value["uri"] = self.outward_uri(source, uri, asked)
            for item in value.values():
                if isinstance(item, dict | list):
                    self._map_uris(source, item, asked, depth + 1)
        elif isinstance(value, list):
            for item in value:
                self._map_uris(source, item, asked, depth + 1)

    # -- search ---------------------------------------------------------------------------------

    def search(
        self, query: str, kinds: Sequence[str], limit: int, visible: Callable[[str], bool] | None = None
    ) -> dict[str, list[dict[str, Any]]]:
        """The resources (and templates) and prompts best matching ``query``, by kind asked; each
        entry as it is served (a prompt with its arguments, a resource with its URI). ``visible``:
        whether the request may see an upstream's (by its alias); the others are never returned."""
        if self._search is None:
            self._search = self._index()
        manager = self._search
        out: dict[str, list[dict[str, Any]]] = {kind: [] for kind in kinds if kind in INCLUDE_KINDS}
        if not out or len(manager) == 0:
            return out
        for name in manager.search(query, max_results=limit * 3):  # both kinds share one index
            served = self._search_entries.get(name)
            if served is None or (visible is not None and not visible(served.alias)):
                continue
            bucket = "prompts" if served.kind == "prompt" else "resources"
            if bucket in out and len(out[bucket]) < limit:
                out[bucket].append(self._entry(served))
        return out

    @staticmethod
    def _entry(served: Served) -> dict[str, Any]:
        data = served.data
        keep = (
            ("name", "title", "description", "arguments")
            if served.kind == "prompt"
            else (
                "uri",
                "uriTemplate",
                "name",
                "title",
                "description",
                "mimeType",
            )
        )
        return {k: data[k] for k in keep if k in data}

    def _index(self) -> Any:
        from ..disclosure.manager import CatalogManager
        from ..model import Tool

        tools: list[Tool] = []
        self._search_entries = {}
        for i, served in enumerate([*self.resources, *self.templates, *self.prompts]):
            data = served.data
            words = [str(data.get(k) or "") for k in ("name", "title", "description")]
            properties: dict[str, Any] = {}
            if served.kind == "prompt":
                for argument in data.get("arguments") or []:
                    if isinstance(argument, dict) and isinstance(argument.get("name"), str):
                        properties[argument["name"]] = {
                            "type": "string",
                            "description": str(argument.get("description") or ""),
                        }
            else:
                words.append(str(data.get("uri") or data.get("uriTemplate") or "").replace("/", " "))
            key = f"{served.kind[0]}{i}_{_word(str(data.get('name') or ''))}"
            self._search_entries[key] = served
            tools.append(
                Tool(
                    name=key,
                    description=" ".join(w for w in words if w),
                    parameters={"type": "object", "properties": properties},
                    category=served.kind,
                )
            )
        return CatalogManager(tools, ranker="default")


def _word(text: str) -> str:
    """``text`` as a tool-name-safe word (the ranker splits it like a tool name)."""
    import re

    return re.sub(r"[^A-Za-z0-9_-]+", "_", text)[:40] or "item"
