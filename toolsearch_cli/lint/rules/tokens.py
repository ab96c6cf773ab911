"""TS5xx: tokens — a tool definition, or the resident set, over a token budget."""

from __future__ import annotations

from collections.abc import Iterator

from ...model import Tool
from ...tokens import TokenCounter
from ..context import LintContext
from ..diagnostic import Finding
from ..rule import Options, Rule


def _counter(name: str) -> TokenCounter:
    from ...tokens import get_counter

    return get_counter(name)


class LargeToolDefinition(Rule):
    """## What it does
    Reports a tool whose definition (its OpenAI `tools` entry as JSON: name, description,
    parameters) is over `max-tokens` tokens, counted with `counter` (default `cl100k_base`,
    exact and offline).

    ## Why is this bad?
    Every request that discloses the tool pays for its whole definition; one bloated tool
    can cost more than the rest of the disclosed set.

    ## Example
    ```yaml
    # options: {max-tokens: 40}
    tools:
      - name: searchFlights
        description: Search flights between two airports on a date, with cabin and stops filters.
        parameters:
          origin: {type: string, description: IATA code of the departure airport, e.g. CDG.}
          destination: {type: string, description: IATA code of the arrival airport, e.g. JFK.}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: searchFlights
        description: Search flights between two airports.
    ```
    """

    code = "TS501"
    name = "large-tool-definition"
    options = {"max-tokens": 1000, "counter": "cl100k_base"}
    strict_options = {"max-tokens": 600}

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        from ...tokens import tool_tokens

        try:
            count = tool_tokens(tool, _counter(options["counter"]))
        except (TypeError, ValueError) as exc:  # a code-built tool holding a non-JSON value
            yield Finding.at(tool, "parameters", f"definition cannot be sent: not JSON-serialisable ({exc})")
            return
        if count > options["max-tokens"]:
            yield Finding.at(
                tool,
                "name",
                f"definition is {count} tokens ({options['counter']}), over the budget of {options['max-tokens']}",
            )


class LargeResidentSet(Rule):
    """## What it does
    Reports a resident set (tools sent on every request) whose definitions total more than
    `max-tokens` tokens (`counter`, default `cl100k_base`), or more than `max-tools` tools.

    ## Why is this bad?
    Resident tools are paid on every request, searched or not; a heavy resident set eats
    the savings tool search exists for.

    ## Example
    ```yaml
    # options: {max-tools: 1}
    resident: [currentTime, askUser]
    tools:
      - name: currentTime
        description: Get the current date and time in a given time zone.
      - name: askUser
        description: Ask the user a clarifying question and wait for the answer.
    ```

    ## Use instead
    ```yaml
    resident: [askUser]
    tools:
      - name: currentTime
        description: Get the current date and time in a given time zone.
      - name: askUser
        description: Ask the user a clarifying question and wait for the answer.
    ```
    """

    code = "TS502"
    name = "large-resident-set"
    options = {"max-tokens": 2000, "max-tools": 10, "counter": "cl100k_base"}
    strict_options = {"max-tokens": 1000, "max-tools": 5}

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        from ...tokens import tools_tokens

        by_name = {t.name: t for t in reversed(ctx.tools)}
        names = list(dict.fromkeys(n for n, _ in ctx.resident if n in by_name))
        if not names:
            return
        first = by_name[names[0]]
        tools = [by_name[n] for n in names]
        if len(tools) > options["max-tools"]:
            yield Finding.at(first, "name", f"{len(tools)} resident tools (max {options['max-tools']})")
        try:
            count = tools_tokens(tools, _counter(options["counter"]))
        except (TypeError, ValueError):
            return  # large-tool-definition reports the tool that cannot be serialised
        if count > options["max-tokens"]:
            yield Finding.at(
                first,
                "name",
                f"the {len(tools)} resident tools take {count} tokens ({options['counter']}) on every request, "
                f"over the budget of {options['max-tokens']}",
            )
