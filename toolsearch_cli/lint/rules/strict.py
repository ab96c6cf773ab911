"""TS309: parameter schemas that cannot be made OpenAI strict-mode compatible."""

from __future__ import annotations

from collections.abc import Iterator

from ...model import Tool
from ..context import LintContext
from ..diagnostic import Finding
from ..rule import Options, Rule


class NotStrictCompatible(Rule):
    """## What it does
    Reports a tool whose parameters cannot be made OpenAI strict-mode compatible. That is an object
    whose keys are not listed (a free-form mapping), a keyword strict mode does not support (`not`,
    `if`, `patternProperties`, an `allOf` of several schemas ...), more than 10 levels of nesting,
    or more than 5,000 properties or 1,000 enum values in all. Optional properties, `oneOf` and
    `default` are fine: `toolsearch catalog convert --to openai --strict` rewrites those.

    ## Why is this bad?
    With `strict: true` the model's arguments always match the schema; without it they may not.
    `catalog convert --strict` exports such a tool with `strict: false`, and the OpenAI Responses
    API (strict by default) refuses the schema.

    ## Example
    ```yaml
    # also-select: [TS309]
    tools:
      - name: setLabels
        description: Set the labels of a ticket, replacing the ones it has.
        parameters:
          labels: {type: object, additionalProperties: {type: string}, description: Label name to value.}
    ```

    ## Use instead
    ```yaml
    tools:
      - name: setLabels
        description: Set the labels of a ticket, replacing the ones it has.
        parameters:
          labels:
            type: array
            description: The labels, each a name and a value.
            items: {type: object, properties: {name: {type: string}, value: {type: string}}}
    ```
    """

    code = "TS309"
    name = "not-strict-compatible"
    severity = "warning"
    default_enabled = False

    def check_tool(self, tool: Tool, ctx: LintContext, options: Options) -> Iterator[Finding]:
        from ...catalog.openai_strict import make_strict

        _, reasons = make_strict(tool.parameters)
        if reasons:
            yield Finding.at(tool, "parameters", "cannot be made OpenAI strict-compatible: " + "; ".join(reasons))
