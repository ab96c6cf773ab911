"""TS0xx: the catalog itself — files that do not load, residents that do not exist, bad suppressions."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...model import Tool
from ..context import LintContext
from ..diagnostic import Finding
from ..rule import Options, Rule
from ..suppression import inline_ignores

if TYPE_CHECKING:
    from ...catalog.lenient import LoadWarning
    from ...errors import CatalogError


class InvalidCatalog(Rule):
    """## What it does
    Reports a catalog file that cannot be read, parsed or validated (malformed YAML, an
    unknown field, a parameter schema that is not JSON Schema, a module that fails to import).

    ## Why is this bad?
    A file that does not load takes every tool in it out of the catalog: nothing in it can be
    found, and `toolsearch search` refuses the whole catalog. The linter reports it as a
    finding and goes on with the other files instead of stopping.

    ## Example
    ```yaml
    tools:
      - name: getWeather
        descripton: Get the current weather for a city.
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather for a city.
    ```
    """

    code = "TS001"
    name = "invalid-catalog"
    severity = "error"

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for loaded in ctx.files:
            exc = loaded.error
            if exc is None:
                continue
            prefix = f"field {exc.field!r}: " if exc.field else ""  # the tool is the diagnostic's own key
            yield _load_finding(f"cannot load this file: {prefix}{exc.message}", exc, loaded.file)
        yield from _group_errors(ctx)


def _load_finding(message: str, where: CatalogError | LoadWarning, file: str) -> Finding:
    """A finding at what loading reported (its file, else the catalog file being linted)."""
    return Finding(message, file=where.file or file, line=where.line, tool=where.tool, field=where.field)


def _group_errors(ctx: LintContext) -> Iterator[Finding]:
    """Tool groups the catalog would refuse (``toolsearch search`` stops on them): a group name
    used twice, or a group listing a tool that no file defines."""
    from ...errors import did_you_mean

    names = {t.name for t in ctx.tools}
    seen: set[str] = set()
    for loaded in ctx.files:
        for group in loaded.groups:
            file = group.source.file if group.source else loaded.file
            line = group.source.line if group.source else None
            if group.name in seen:
                yield Finding(
                    f"cannot load this file: field 'groups': duplicate group name {group.name!r}; "
                    "group names must be unique",
                    file=file,
                    line=line,
                    field="groups",
                )
            seen.add(group.name)
            for name in group.tools:
                if name not in names:
                    yield Finding(
                        f"cannot load this file: field 'groups': group {group.name!r} lists tool {name!r}, "
                        f"which is not in the catalog{did_you_mean(name, names)}",
                        file=file,
                        line=line,
                        field="groups",
                    )


class UnknownResident(Rule):
    """## What it does
    Reports a resident tool name (in a file's `resident:` list) that no catalog file defines.

    ## Why is this bad?
    Resident tools are sent on every request. A resident name with no tool behind it is a
    typo or a leftover, and `toolsearch search` refuses such a catalog.

    ## Example
    ```yaml
    resident: [currentTim]
    tools:
      - name: currentTime
        description: Get the current date and time in a given time zone.
    ```

    ## Use instead
    ```yaml
    resident: [currentTime]
    tools:
      - name: currentTime
        description: Get the current date and time in a given time zone.
    ```
    """

    code = "TS002"
    name = "unknown-resident"
    severity = "error"

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        from ...errors import did_you_mean

        names = {t.name for t in ctx.tools}
        for name, file in ctx.resident:
            if name not in names:
                yield Finding(
                    f"resident tool {name!r} is not defined in the catalog{did_you_mean(name, names)}",
                    file=file,
                    line=ctx.resident_lines.get(file),
                    column=1 if ctx.resident_lines.get(file) else None,
                    field="resident",
                )


class UnknownSuppression(Rule):
    """## What it does
    Reports a `lint: {ignore: [...]}` entry on a tool that names no rule.

    ## Why is this bad?
    A misspelt code suppresses nothing, so the finding it was meant to silence stays, or
    worse, the intent is lost when the rule is renumbered.

    ## Example
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and forecast for a city.
        lint: {ignore: [TS999]}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and forecast for a city.
        lint: {ignore: [TS105]}
    ```
    """

    code = "TS003"
    name = "unknown-suppression"
    severity = "warning"

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for selector in inline_ignores(tool):
            if ctx.suppression_codes.get(selector, ()) is None:
                yield Finding.at(tool, "lint", f"lint ignore {selector!r} names no rule; run `toolsearch rule`")


class UnusedSuppression(Rule):
    """## What it does
    Reports a `lint: {ignore: [...]}` entry on a tool that silenced nothing in this run, for
    rules that ran (a suppression of a rule that was not selected is not judged).

    ## Why is this bad?
    Suppressions outlive the problems they were added for. A stale one hides the next real
    finding of that rule on the tool, and tells readers a problem exists that does not.

    ## Example
    ```yaml
    # also-select: [TS105]
    tools:
      - name: convertCsvToJson
        description: Convert a CSV file to JSON, one object per row.
        lint: {ignore: [vague-tool-name]}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: convertCsvToJson
        description: Convert a CSV file to JSON, one object per row.
    ```
    """

    code = "TS004"
    name = "unused-suppression"
    severity = "warning"
    runs_last = True

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        file = tool.source.file if tool.source else None
        for selector in inline_ignores(tool):
            codes = ctx.suppression_codes.get(selector, ())
            if codes is None:
                continue  # unknown-suppression reports it
            judged = [c for c in codes if c in ctx.enabled and c != self.code]
            if judged and not any((file, tool.name, c) in ctx.used_suppressions for c in judged):
                yield Finding.at(tool, "lint", f"lint ignore {selector!r} silences nothing here; remove it")


class LoadWarningRule(Rule):
    """## What it does
    Reports what loading a catalog file left out or changed. That is a parameter type that is not JSON
    Schema (`date (yyyy-mm-dd)`, `enum`, `float`; mapped to the nearest JSON Schema type, the
    original kept in `metadata.original_types`), a tool that is not a function (OpenAI's
    `web_search`, a `custom` tool, an Anthropic server tool; left out), one failing MCP server
    of several (its tools left out), a key of a parameter's schema that is a keyword misspelt
    (`requird`, `descripton`; kept as written, and ignored), a file of a folder that is not a
    catalog at all (a `package.json`; skipped).

    ## Why is this bad?
    `toolsearch` loads the rest of the catalog and prints a warning, but the model sees
    something other than what the file says: a mapped type, or no tool at all. Providers reject
    non-standard types outright. `toolsearch --strict` refuses such a catalog.

    ## Example
    ```yaml
    tools:
      - name: bookFlight
        description: Book a flight between two airports on a given day.
        parameters:
          day: {type: "DATE (YYYY-MM-DD)", required: true}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: bookFlight
        description: Book a flight between two airports on a given day.
        parameters:
          day: {type: string, format: date, required: true}
    ```
    """

    code = "TS005"
    name = "load-warning"
    severity = "warning"

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for loaded in ctx.files:
            for warning in loaded.warnings:
                if warning.kind == "ref":  # a $ref outside its schema: TS305 unresolved-ref reports it
                    continue
                yield _load_finding(warning.message, warning, loaded.file)
