"""The built-in rules, one module per family; RULE_BY_CODE is the registry the engine runs."""

from __future__ import annotations

from ..rule import Rule
from . import catalog, categories, descriptions, findability, lock, names, parameters, strict, tokens

_MODULES = (catalog, names, descriptions, parameters, strict, categories, tokens, findability, lock)


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

#: Entry-point group through which other packages add rules (a Rule subclass or instance).
ENTRY_POINT_GROUP = "toolsearch.lint_rules"
_plugins_loaded = False


def load_rule_plugins() -> None:
    """Register rules that installed packages offer under ``toolsearch.lint_rules`` (built-ins win)."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    from ...errors import UsageError

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = entry.load()
            rule = obj() if isinstance(obj, type) else obj
            code, name = rule.code, rule.name
        except Exception as exc:  # noqa: BLE001 - a broken plugin is reported, not raised raw
            raise UsageError(f"lint rule plugin {entry.name!r} ({entry.value}) failed to load: {exc}") from exc
        if code in RULE_BY_CODE or name in RULE_BY_NAME:
            continue
        RULE_BY_CODE[code] = rule
        RULE_BY_NAME[name] = rule


__all__ = ["ENTRY_POINT_GROUP", "RULE_BY_CODE", "RULE_BY_NAME", "Rule", "load_rule_plugins"]
