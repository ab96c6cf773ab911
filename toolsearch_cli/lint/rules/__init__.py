"""The built-in rules, one module per family; RULE_BY_CODE is the registry the engine runs."""

from __future__ import annotations

from ..rule import Rule
from . import catalog, categories, descriptions, findability, names, parameters, tokens

_MODULES = (catalog, names, descriptions, parameters, categories, tokens, findability)


def _collect() -> dict[str, Rule]:
    found: dict[str, Rule] = {}
    for module in _MODULES:
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule and hasattr(value, "code"):
                if value.code in found:
                    raise RuntimeError(f"two rules share the code {value.code}")
                found[value.code] = value()
    return dict(sorted(found.items()))


#: Rules by code, in code order.
RULE_BY_CODE: dict[str, Rule] = _collect()
#: Rules by kebab-case name.
RULE_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULE_BY_CODE.values()}

__all__ = ["RULE_BY_CODE", "RULE_BY_NAME", "Rule"]
