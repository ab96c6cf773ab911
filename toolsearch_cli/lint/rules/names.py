"""TS1xx: tool names — provider rules, duplicates, near-duplicates, reserved and vague names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...model import RESERVED_NAMES, Tool
from ...providers import NAME_RULES
from ..context import LintContext
from ..diagnostic import Finding, related_to
from ..rule import Options, Rule, name_words

#: Tool-name rules by provider: (pattern, max length, allowed characters, what the pattern means);
#: each provider module owns its rule (:mod:`toolsearch_cli.providers`).
PROVIDER_NAME_RULES = NAME_RULES


class InvalidToolName(Rule):
    """## What it does
    Checks each tool name against the naming rules of the providers in `target`: OpenAI
    (`^[a-zA-Z0-9_-]+$`, at most 64 characters), Anthropic (the same, at most 64) and
    Gemini (a letter or `_` first, then letters, digits, `_ . : -`; at most 64).

    ## Why is this bad?
    The provider rejects the whole request when one tool name breaks its rules, so a single
    bad name fails every call that would disclose it.

    ## Example
    ```yaml
    tools:
      - name: get weather
        description: Get the current weather and forecast for a city.
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and forecast for a city.
    ```
    """

    code = "TS101"
    name = "invalid-tool-name"
    severity = "error"
    options = {"target": ["openai", "anthropic", "gemini"]}

    @classmethod
    def check_option(cls, option: str, value: Any) -> str | None:
        from ...errors import did_you_mean

        for target in value if option == "target" else ():
            if target not in PROVIDER_NAME_RULES:
                return (
                    f"unknown target {target!r}{did_you_mean(target, PROVIDER_NAME_RULES)}; "
                    f"choose from {', '.join(PROVIDER_NAME_RULES)}"
                )
        return None

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        from ...errors import UsageError, did_you_mean

        problems: list[str] = []
        for target in options["target"]:
            rule = PROVIDER_NAME_RULES.get(target)
            if rule is None:
                raise UsageError(
                    f"rule {self.code} ({self.name}): unknown target {target!r}"
                    f"{did_you_mean(target, PROVIDER_NAME_RULES)}; choose from {', '.join(PROVIDER_NAME_RULES)}"
                )
            pattern, limit, char, allowed = rule
            if not pattern.fullmatch(tool.name):
                bad = sorted({ch for ch in tool.name if not char.fullmatch(ch)})
                detail = f" (found {', '.join(repr(c) for c in bad)})" if bad else ""
                problems.append(f"{target} allows {allowed}{detail}")
            elif len(tool.name) > limit:
                problems.append(f"{target} allows at most {limit} characters, this name has {len(tool.name)}")
        if problems:
            yield Finding.at(tool, "name", f"tool name {tool.name!r} is invalid: " + "; ".join(problems))


class DuplicateToolName(Rule):
    """## What it does
    Reports a tool whose name another tool already has, in the same file or another one.

    ## Why is this bad?
    A model calls tools by name: two tools with one name cannot both be called, and
    `toolsearch search` refuses a catalog with duplicates.

    ## Example
    ```yaml
    tools:
      - name: sendEmail
        description: Send an email to one or more recipients.
      - name: sendEmail
        description: Send an email with attachments to one or more recipients.
    ```

    ## Use instead
    ```yaml
    tools:
      - name: sendEmail
        description: Send an email to one or more recipients.
      - name: sendEmailWithAttachments
        description: Send an email with attachments to one or more recipients.
    ```
    """

    code = "TS102"
    name = "duplicate-tool-name"
    severity = "error"

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        first: dict[str, Tool] = {}
        for tool in ctx.tools:
            other = first.setdefault(tool.name, tool)
            if other is not tool:
                where = f" (first defined at {other.source})" if other.source else ""
                yield Finding.at(
                    tool,
                    "name",
                    f"duplicate tool name {tool.name!r}{where}",
                    [related_to(other, "first definition", "name")],
                )


#: Words that give a name a direction: the words before and after them are not interchangeable.
_DIRECTION_WORDS = frozenset({"to", "from", "into", "onto", "2", "vs", "versus", "than", "per"})


def name_key(name: str) -> str:
    """Case, separators and word order removed: ``get_user``, ``GetUser`` and ``userGet`` are one key.

    Order counts across a direction word: ``liter_to_gallon`` and ``gallon_to_liter`` are opposite
    conversions, not one name written twice (the words on each side of ``to`` are sorted apart)."""
    parts: list[list[str]] = [[]]
    for word in name_words(name):
        if word in _DIRECTION_WORDS:
            parts.append([word])
            parts.append([])
        else:
            parts[-1].append(word)
    return " | ".join(" ".join(sorted(part)) for part in parts if part)


class NearDuplicateToolName(Rule):
    """## What it does
    Reports tool names that differ only by case, separators or word order (`getUser`,
    `get_user`, `GetUser`, `userGet`), once per group, at the second name.

    ## Why is this bad?
    Models confuse such names and call the wrong one; people reviewing a transcript do too.
    They are usually one tool defined twice, or two tools that need telling apart.

    ## Example
    ```yaml
    tools:
      - name: get_user
        description: Get a user's profile by id.
      - name: getUser
        description: Get a user's profile and roles by email address.
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getUserById
        description: Get a user's profile by id.
      - name: getUserRolesByEmail
        description: Get a user's profile and roles by email address.
    ```
    """

    code = "TS103"
    name = "near-duplicate-tool-name"
    severity = "warning"

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        groups: dict[str, list[Tool]] = {}
        for tool in ctx.tools:
            key = name_key(tool.name)
            if key:
                groups.setdefault(key, []).append(tool)
        for tools in groups.values():
            names = list(dict.fromkeys(t.name for t in tools))
            if len(names) < 2:
                continue  # exact duplicates only: duplicate-tool-name reports them
            first = tools[0]
            for tool in tools[1:]:
                if tool.name == first.name:
                    continue
                yield Finding.at(
                    tool,
                    "name",
                    f"tool name {tool.name!r} differs from {first.name!r} only by case, separators or word order",
                    [related_to(first, f"similar name {first.name!r}", "name")],
                )


class ReservedToolName(Rule):
    """## What it does
    Reports a tool named like the search tool itself (`toolSearch`, also written
    `tool_search`, `ToolSearch`, ...) or like a name listed in the `extra-reserved` option.

    ## Why is this bad?
    The app sends its own `toolSearch` tool on every request; a catalog tool of that name
    clashes with it, and a near spelling invites the model to call the wrong one.

    ## Example
    ```yaml
    tools:
      - name: tool_search
        description: Search the internal tool registry by keyword.
    ```

    ## Use instead
    ```yaml
    tools:
      - name: searchToolRegistry
        description: Search the internal tool registry by keyword.
    ```
    """

    code = "TS104"
    name = "reserved-tool-name"
    severity = "error"
    options = {"extra-reserved": []}

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        reserved = [*RESERVED_NAMES, *options["extra-reserved"]]
        key = name_key(tool.name)
        for name in reserved:
            if tool.name == name:
                yield Finding.at(tool, "name", f"{tool.name!r} is reserved (the search tool's name); rename the tool")
                return
            if key == name_key(name):
                yield Finding.at(
                    tool, "name", f"{tool.name!r} is too close to the reserved name {name!r}; rename the tool"
                )
                return


VAGUE_WORDS = [
    "handle", "handler", "process", "processor", "do", "run", "runner", "manage", "manager", "util",
    "utils", "utility", "helper", "helpers", "tool", "tools", "execute", "exec", "perform", "action",
    "actions", "misc", "stuff", "thing", "things", "data", "info", "function", "func", "fn", "api",
    "main", "generic", "general", "common", "service", "call", "invoke", "task", "operation", "op",
    "request", "query", "my", "new", "test", "temp", "tmp", "item", "object", "method", "default",
]  # fmt: skip


class VagueToolName(Rule):
    """## What it does
    Reports a tool name made only of vague words (`handle`, `process`, `do`, `run`,
    `manage`, `util`, `helper`, `data`, `execute`, ... — the `vague-words` option) or digits,
    or shorter than `min-length` characters.

    ## Why is this bad?
    The name is the strongest signal both for search and for the model choosing a tool.
    `processData` says nothing about what the tool does, so neither can pick it reliably.

    ## Example
    ```yaml
    tools:
      - name: processData
        description: Convert a CSV file to JSON, one object per row.
    ```

    ## Use instead
    ```yaml
    tools:
      - name: convertCsvToJson
        description: Convert a CSV file to JSON, one object per row.
    ```
    """

    code = "TS105"
    name = "vague-tool-name"
    severity = "warning"
    options = {"vague-words": VAGUE_WORDS, "min-length": 3}

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        if len(tool.name) < options["min-length"]:
            yield Finding.at(tool, "name", f"tool name {tool.name!r} is too short to say what the tool does")
            return
        vague = {w.casefold() for w in options["vague-words"]}
        words = name_words(tool.name)
        if words and all(w in vague or w.isdigit() for w in words):
            yield Finding.at(
                tool, "name", f"tool name {tool.name!r} is vague: name the action and the object (verbNoun)"
            )
