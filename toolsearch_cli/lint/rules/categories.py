"""TS4xx: categories and tags — missing, not allowed, crowded, inconsistent, empty or duplicate."""

from __future__ import annotations

from collections.abc import Iterator

from ...model import Tool
from ...search.text import classic_normalize
from ..context import LintContext
from ..diagnostic import Finding, related_to
from ..rule import Options, Rule


class MissingCategory(Rule):
    """## What it does
    Reports a tool without a category when other tools of the catalog have one.

    ## Why is this bad?
    Category filters (`toolsearch search --category`, a model's `category` argument) never
    return an uncategorised tool, so it silently drops out of filtered searches.

    ## Example
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        category: weather
      - name: getAirQuality
        description: Get the current air quality index and pollutants for a city.
    ```

    ## Use instead
    ```yaml
    category: weather
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
      - name: getAirQuality
        description: Get the current air quality index and pollutants for a city.
    ```
    """

    code = "TS401"
    name = "missing-category"

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        if not any(t.category for t in ctx.tools):
            return
        for tool in ctx.tools:
            if not (tool.category or "").strip():
                yield Finding.at(tool, "name", "no category, while the catalog's other tools have one")


class UnknownCategory(Rule):
    """## What it does
    Reports a category that is not in the `allowed` list (only when `allowed` is set).

    ## Why is this bad?
    A typo in a category (`paymnets`) creates a new category of one tool that category
    filters will never ask for.

    ## Example
    ```yaml
    # options: {allowed: [weather, payments]}
    tools:
      - name: refundPayment
        description: Refund a captured payment in full or in part, back to the original card.
        category: paymnets
    ```

    ## Use instead
    ```yaml
    tools:
      - name: refundPayment
        description: Refund a captured payment in full or in part, back to the original card.
        category: payments
    ```
    """

    code = "TS402"
    name = "unknown-category"
    severity = "error"
    options = {"allowed": []}

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        from ...errors import did_you_mean

        allowed = options["allowed"]
        if allowed and tool.category and tool.category not in allowed:
            yield Finding.at(
                tool,
                "category",
                f"category {tool.category!r} is not allowed{did_you_mean(tool.category, allowed)}; "
                f"allowed: {', '.join(allowed)}",
            )


class CrowdedCategory(Rule):
    """## What it does
    Reports a category holding more than `max-tools` tools, once, at its first tool.

    ## Why is this bad?
    A category filter is only useful when it narrows the search; a category of hundreds of
    tools does not, and OpenAI advises keeping a namespace to about ten functions.

    ## Example
    ```yaml
    # options: {max-tools: 1}
    category: payments
    tools:
      - name: refundPayment
        description: Refund a captured payment in full or in part, back to the original card.
      - name: capturePayment
        description: Capture an authorised card payment so the funds are transferred.
    ```

    ## Use instead
    ```yaml
    tools:
      - name: refundPayment
        description: Refund a captured payment in full or in part, back to the original card.
        category: refunds
      - name: capturePayment
        description: Capture an authorised card payment so the funds are transferred.
        category: payments
    ```
    """

    code = "TS403"
    name = "crowded-category"
    options = {"max-tools": 50}
    strict_options = {"max-tools": 20}

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        groups: dict[str, list[Tool]] = {}
        for tool in ctx.tools:
            if tool.category:
                groups.setdefault(tool.category, []).append(tool)
        for category, tools in groups.items():
            if len(tools) > options["max-tools"]:
                yield Finding.at(
                    tools[0],
                    "category",
                    f"category {category!r} holds {len(tools)} tools (max {options['max-tools']}); split it",
                )


class InconsistentCategory(Rule):
    """## What it does
    Reports categories spelled differently that mean the same (`WeatherApi`, `weather-api`,
    `weather_api`), at each tool using a spelling other than the first one seen.

    ## Why is this bad?
    Search compares categories normalised, but listings, reports and allowed lists do not;
    the catalog shows two categories where there is one.

    ## Example
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        category: weather-api
      - name: getAirQuality
        description: Get the current air quality index and pollutants for a city.
        category: WeatherApi
    ```

    ## Use instead
    ```yaml
    category: weather-api
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
      - name: getAirQuality
        description: Get the current air quality index and pollutants for a city.
    ```
    """

    code = "TS404"
    name = "inconsistent-category"

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        first: dict[str, Tool] = {}
        for tool in ctx.tools:
            if not tool.category:
                continue
            key = classic_normalize(tool.category)
            seen = first.setdefault(key, tool)
            if seen.category != tool.category:
                yield Finding.at(
                    tool,
                    "category",
                    f"category {tool.category!r} is spelled {seen.category!r} elsewhere",
                    [related_to(seen, f"category spelled {seen.category!r}", "category")],
                )


class BadTag(Rule):
    """## What it does
    Reports empty tags and tags repeated on one tool (compared case-insensitively).

    ## Why is this bad?
    An empty tag is a data error; a repeated tag adds nothing for search but weight, and
    usually comes from a bad merge or generator.

    ## Example
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        tags: [weather, Weather, ""]
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        tags: [weather, forecast]
    ```
    """

    code = "TS405"
    name = "empty-or-duplicate-tag"

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        seen: dict[str, str] = {}
        for tag in tool.tags:
            key = " ".join(tag.split()).casefold()
            if not key:
                yield Finding.at(tool, "tags", "empty tag")
            elif key in seen:
                yield Finding.at(tool, "tags", f"tag {tag!r} repeats {seen[key]!r}")
            else:
                seen[key] = tag
