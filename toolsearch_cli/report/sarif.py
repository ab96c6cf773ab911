"""``--format sarif``: SARIF 2.1.0 (OASIS), for GitHub code scanning and other SARIF viewers."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any

from ..lint.diagnostic import Diagnostic, Related
from ..lint.rule import Rule, doc_sections
from ..printable import json_visible

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(file: str) -> str:
    """A relative URI reference (forward slashes, spaces and the like percent-encoded)."""
    from urllib.parse import quote

    return quote(PurePath(file).as_posix())


def _location(file: str | None, line: int | None, column: int | None, message: str | None = None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(file or "")}}
    if line:
        region: dict[str, Any] = {"startLine": line}
        if column:
            region["startColumn"] = column
        physical["region"] = region
    out: dict[str, Any] = {"physicalLocation": physical}
    if message:
        out["message"] = {"text": message}
    return out


def _related(index: int, related: Related) -> dict[str, Any]:
    loc = _location(related.file, related.line, related.column, related.message)
    return {"id": index, **loc}


def _rule_entry(rule: Rule) -> dict[str, Any]:
    sections = doc_sections(rule.doc())
    why = " ".join(sections.get("Why is this bad?", "").split())
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary()},
        "fullDescription": {"text": " ".join(sections.get("What it does", "").split())},
        "help": {"text": f"{why} Run `toolsearch rule {rule.code}` for examples.".strip(), "markdown": rule.doc()},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"tags": [rule.family] + (["security"] if rule.code == "TS206" or rule.family == "lock" else [])},
    }


def render_sarif(diagnostics: Sequence[Diagnostic], rules: Mapping[str, Rule], version: str | None = None) -> str:
    """A SARIF 2.1.0 log with one run: the rule table (every rule) and one result per diagnostic."""
    from .._version import __version__

    codes = list(rules)
    results = []
    for d in diagnostics:
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": _LEVEL[d.severity],
            "message": {"text": "\n".join([(f"tool {d.tool!r}: " if d.tool else "") + d.message, *d.detail])},
        }
        if d.code in rules:
            result["ruleIndex"] = codes.index(d.code)
        if d.file:
            result["locations"] = [_location(d.file, d.line, d.column)]
        if d.related:
            result["relatedLocations"] = [_related(i, r) for i, r in enumerate(d.related) if r.file]
        if d.tool:
            result["properties"] = {"tool": d.tool, **({"field": d.field} if d.field else {})}
            if d.count > 1:  # repeats of this rule on this tool, collapsed into this result
                result["properties"].update(count=d.count, fields=list(d.fields))
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolsearch",
                        "version": version or __version__,
                        "rules": [_rule_entry(rules[c]) for c in codes],
                    }
                },
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json_visible(json.dumps(log, ensure_ascii=False, indent=2)) + "\n"
