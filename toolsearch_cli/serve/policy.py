"""The operator's tool policy of ``toolsearch serve --config``: per upstream server and tool,
hide or allow-list, rename, re-describe, add search text (aliases), pin (resident), and require
context attributes (per-context permissions, as a catalog's ``requires``).

Applied by :meth:`~toolsearch_cli.serve.gateway.Gateway.rebuild` to every upstream listing, after
the lockfile check (which judges what the server serves, not what the operator made of it) and
before names are assigned (a renamed tool that collides still gets its ``ALIAS__`` prefix). A
rule is keyed by the name the server gives the tool; a call of a renamed tool reaches the server
under that name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..model import Tool

Requires = dict[str, str | list[str]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


class ToolRule(_Strict):
    """What the operator decides for one upstream tool (keyed by the name its server gives it)."""

    #: Neither listed, found nor called.
    hide: bool = False
    #: The name clients see instead (a collision with another tool still gets the ``ALIAS__`` prefix).
    rename: str | None = None
    #: The description clients (and the ranker) see instead of the server's.
    description: str | None = None
    #: Extra search text (other words users say for it); searched, never shown to the client.
    aliases: list[str] = Field(default_factory=list)
    #: Listed up front (resident), not only through search.
    pinned: bool = False
    #: Context attributes a request must carry to see and call it (``{"role": ["admin"]}``).
    requires: Requires = Field(default_factory=dict)


class ServerPolicy(_Strict):
    """What the operator decides for one server of the config (keyed by its name there)."""

    #: When given, only these tools of the server are served (an allow-list).
    allow: list[str] | None = None
    hide: list[str] = Field(default_factory=list)
    #: Context attributes a request must carry to see any tool of this server.
    requires: Requires = Field(default_factory=dict)
    #: ``/readyz`` waits for it (``false``: the gateway is ready without it).
    required: bool = True
    tools: dict[str, ToolRule] = Field(default_factory=dict)


def requires_lists(requires: Requires) -> dict[str, list[str]]:
    return {k: [v] if isinstance(v, str) else list(v) for k, v in requires.items()}


def merged_requires(*parts: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """Every part's requirement at once: for a key several parts name, the values all accept
    (``"*"`` accepts any; none in common: no request can see the tool)."""
    out: dict[str, list[str]] = {}
    for part in parts:
        for key, accepted in part.items():
            if key not in out or "*" in out[key]:
                out[key] = list(accepted)
            elif "*" not in accepted:
                out[key] = [v for v in out[key] if v in accepted]
    return out


class ToolPolicy:
    """Rules per server alias (the alias the config's server is served under)."""

    def __init__(self, rules: Mapping[str, ServerPolicy], names: Mapping[str, str] | None = None) -> None:
        self.rules = dict(rules)
        #: The config's own name of each alias (for messages).
        self.names = dict(names or {})
        self._said: set[tuple[str, str]] = set()
        #: Per alias: the tools the last listing left out by policy (for ``--dry-run`` and tests).
        self.hidden: dict[str, list[str]] = {}

    def apply(
        self, entries: list[tuple[Tool, Any, str]], say: Callable[[str], None] | None = None
    ) -> tuple[list[tuple[Tool, Any, str]], list[str]]:
        """The entries the policy keeps, changed as it says, and the names of the pinned ones."""
        kept: list[tuple[Tool, Any, str]] = []
        pinned: list[str] = []
        seen: dict[str, set[str]] = {}
        self.hidden = {}
        for tool, route, alias in entries:
            rules = self.rules.get(alias) if getattr(route, "kind", None) == "mcp" else None
            if rules is None:
                kept.append((tool, route, alias))
                continue
            original = route.original or tool.name
            seen.setdefault(alias, set()).add(original)
            rule = rules.tools.get(original)
            if (
                (rules.allow is not None and original not in rules.allow)
                or original in rules.hide
                or (rule is not None and rule.hide)
            ):
                self.hidden.setdefault(alias, []).append(original)
                continue
            changes: dict[str, Any] = {}
            requires = merged_requires(
                tool.requires,
                requires_lists(rules.requires),
                requires_lists(rule.requires) if rule is not None else {},
            )
            if requires != tool.requires:
                changes["requires"] = requires
            if rule is not None:
                if rule.rename is not None:
                    changes["name"] = rule.rename
                if rule.description is not None:
                    changes["description"] = rule.description
                if rule.aliases:
                    changes["tags"] = [*tool.tags, *(a for a in rule.aliases if a not in tool.tags)]
            if changes:
                tool = tool.copy_with(**changes)
            if rule is not None and rule.pinned:
                pinned.append(tool.name)
            kept.append((tool, route, alias))
        if say is not None:
            self._say_unknown(seen, say)
        return kept, pinned

    def _say_unknown(self, seen: dict[str, set[str]], say: Callable[[str], None]) -> None:
        """Once per name: a rule naming a tool its server (which has listed) does not have."""
        for alias, listed in seen.items():
            rules = self.rules[alias]
            named = [*rules.tools, *rules.hide, *(rules.allow or [])]
            for name in dict.fromkeys(named):
                if name not in listed and (alias, name) not in self._said:
                    self._said.add((alias, name))
                    server = self.names.get(alias, alias)
                    shown = name if len(name) <= 80 else name[:77] + "..."
                    say(f"warning: config: server {server!r} lists no tool {shown!r}; its rule does nothing")
