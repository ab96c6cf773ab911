"""Lint configuration: ``[tool.toolsearch.lint]`` in pyproject.toml or ``lint:`` in .toolsearch.yaml.

Keys (kebab-case): ``preset`` (default | strict), ``select``, ``extend-select``, ``ignore``
(rule codes, code prefixes such as ``TS1``, family names, rule names, or ``ALL``),
``per-file-ignores`` (glob -> selectors) and ``rules`` (code or name -> ``severity`` and
options). Anything unknown is a :class:`UsageError` naming it.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError, did_you_mean
from .diagnostic import SEVERITIES, Severity
from .rule import FAMILIES, Options, Rule

PRESETS = ("default", "strict")
CONFIG_KEYS = ("preset", "select", "extend-select", "ignore", "per-file-ignores", "rules")
YAML_CONFIG_NAMES = (".toolsearch.yaml", ".toolsearch.yml")


@dataclass
class LintConfig:
    """Parsed configuration, not yet checked against the rules (see :meth:`resolve`)."""

    preset: str = "default"
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Where the configuration came from, for error messages.
    origin: str = "configuration"
    #: The folder per-file-ignores globs are relative to (the configuration file's folder).
    root: Path | None = None

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], origin: str = "configuration") -> LintConfig:
        """Build from a mapping with kebab-case keys; wrong keys or types are usage errors."""
        if not isinstance(data, Mapping):
            raise UsageError(f"{origin}: the lint configuration must be a mapping")
        for key in data:
            if key not in CONFIG_KEYS:
                raise UsageError(
                    f"{origin}: unknown lint setting {key!r}{did_you_mean(str(key), CONFIG_KEYS)}; "
                    f"expected one of {', '.join(CONFIG_KEYS)}"
                )
        preset = data.get("preset", "default")
        if preset not in PRESETS:
            raise UsageError(f"{origin}: unknown preset {preset!r}; choose from {', '.join(PRESETS)}")
        pfi = data.get("per-file-ignores", {}) or {}
        if not isinstance(pfi, Mapping):
            raise UsageError(f"{origin}: 'per-file-ignores' must map file globs to lists of rules")
        rules = data.get("rules", {}) or {}
        if not isinstance(rules, Mapping) or not all(isinstance(v, Mapping) for v in rules.values()):
            raise UsageError(f"{origin}: 'rules' must map a rule code or name to a table of settings")
        select = data.get("select")
        return cls(
            preset=preset,
            select=None if select is None else _selectors(select, "select", origin),
            extend_select=_selectors(data.get("extend-select", []), "extend-select", origin),
            ignore=_selectors(data.get("ignore", []), "ignore", origin),
            per_file_ignores={str(k): _selectors(v, f"per-file-ignores.{k}", origin) for k, v in pfi.items()},
            rules={str(k): dict(v) for k, v in rules.items()},
            origin=origin,
        )

    def resolve(self, rules: Mapping[str, Rule]) -> ResolvedConfig:
        """Check every name against the rules and work out what runs, how severe, with which options."""
        base = (
            select_rules(self.select, rules, self.origin)
            if self.select is not None
            else [c for c, r in rules.items() if self.preset == "strict" or r.default_enabled]
        )
        enabled = set(base) | set(select_rules(self.extend_select, rules, self.origin))
        enabled -= set(select_rules(self.ignore, rules, self.origin))
        severities: dict[str, Severity] = {}
        options: dict[str, Options] = {}
        for code, rule in rules.items():
            severities[code] = rule.severity
            options[code] = dict(rule.options)
            if self.preset == "strict":
                options[code].update(rule.strict_options)
        for key, settings in self.rules.items():
            code = rule_code(key, rules, self.origin)
            rule = rules[code]
            for option, value in settings.items():
                where = f"{self.origin}: rule {code} ({rule.name})"
                if option == "severity":
                    if value not in SEVERITIES:
                        raise UsageError(f"{where}: unknown severity {value!r}; choose from {', '.join(SEVERITIES)}")
                    severities[code] = value
                    continue
                if option not in rule.options:
                    known = ", ".join(["severity", *rule.options])
                    raise UsageError(
                        f"{where}: unknown option {option!r}{did_you_mean(str(option), rule.options)}; options: {known}"
                    )
                options[code][option] = check_option_value(where, option, value, rule.options[option])
                problem = rule.check_option(option, value)
                if problem:
                    raise UsageError(f"{where}: {problem}")
        per_file = {
            pattern: set(select_rules(sel, rules, self.origin)) for pattern, sel in self.per_file_ignores.items()
        }
        return ResolvedConfig(
            enabled=[c for c in rules if c in enabled],
            severities=severities,
            options=options,
            per_file=per_file,
            root=self.root,
        )


@dataclass
class ResolvedConfig:
    """Which rules run (in code order), their severities and options, and per-file ignores."""

    enabled: list[str]
    severities: dict[str, Severity]
    options: dict[str, Options]
    per_file: dict[str, set[str]]
    root: Path | None = None

    def ignored_in(self, file: str | None) -> set[str]:
        """Codes the per-file-ignores turn off for a file (globs match the path as shown, the path
        relative to the configuration's folder, or the file name)."""
        if not file or not self.per_file:
            return set()
        names = {Path(file).as_posix(), Path(file).name}
        if self.root is not None:
            try:
                names.add(Path(file).resolve().relative_to(self.root.resolve()).as_posix())
            except ValueError:
                pass
        out: set[str] = set()
        for pattern, codes in self.per_file.items():
            if any(fnmatch.fnmatchcase(name, pattern) for name in names):
                out |= codes
        return out


def check_option_value(where: str, option: str, value: Any, default: Any) -> Any:
    """The value if it has the default's type (an int is accepted for a float), else a usage error."""
    expected: tuple[type, ...] = (type(default),)
    if isinstance(default, float):
        expected = (int, float)
    ok = isinstance(value, expected) and not (isinstance(value, bool) and not isinstance(default, bool))
    if isinstance(default, list) and ok:
        ok = all(isinstance(v, str) for v in value)
    if not ok:
        kind = {bool: "true or false", int: "a whole number", float: "a number", str: "a string", list: "a list"}
        raise UsageError(f"{where}: option {option!r} must be {kind.get(type(default), type(default).__name__)}")
    return float(value) if isinstance(default, float) else value


def _selectors(value: Any, key: str, origin: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{origin}: {key!r} must be a list of rule codes or names")
    return [v.strip() for v in value if v.strip()]


_PREFIX = re.compile(r"^TS\d{0,3}$")


def select_rules(selectors: Iterable[str], rules: Mapping[str, Rule], origin: str = "configuration") -> list[str]:
    """Codes matching selectors: ``ALL``, a code, a code prefix (``TS1``), a family or a rule name."""
    out: list[str] = []
    families = {v: k for k, v in FAMILIES.items()}
    for selector in selectors:
        upper = selector.upper()
        if upper == "ALL":
            matched = list(rules)
        elif _PREFIX.match(upper):
            matched = [c for c in rules if c.startswith(upper)]
        elif selector in families:
            matched = [c for c in rules if c.startswith(families[selector])]
        else:
            matched = [c for c, r in rules.items() if r.name == selector]
        if not matched:
            choices = [*rules, *(r.name for r in rules.values()), *families]
            raise UsageError(
                f"{origin}: unknown rule {selector!r}{did_you_mean(selector, choices)}; "
                "run `toolsearch rule` to list the rules"
            )
        out.extend(matched)
    return out


def rule_code(key: str, rules: Mapping[str, Rule], origin: str = "configuration") -> str:
    """The code of one rule given by code or name."""
    if key.upper() in rules:
        return key.upper()
    for code, rule in rules.items():
        if rule.name == key:
            return code
    choices = [*rules, *(r.name for r in rules.values())]
    raise UsageError(
        f"{origin}: unknown rule {key!r}{did_you_mean(key, choices)}; run `toolsearch rule` to list the rules"
    )


def find_config(start: Path | None = None, warn: Callable[[str], None] | None = None) -> Path | None:
    """The nearest .toolsearch.yaml, or pyproject.toml with [tool.toolsearch.lint], from ``start`` up.

    In one folder the YAML file wins; when the pyproject.toml beside it has lint settings too,
    ``warn`` is told that those are ignored.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        pyproject = folder / "pyproject.toml"
        for name in YAML_CONFIG_NAMES:
            if (folder / name).is_file():
                if warn is not None and pyproject.is_file() and _pyproject_section(pyproject) is not None:
                    warn(
                        f"{folder / name} and {pyproject} both have lint settings; using {name} and ignoring "
                        "[tool.toolsearch.lint] (keep one, or pass --config)"
                    )
                return folder / name
        if pyproject.is_file() and _pyproject_section(pyproject) is not None:
            return pyproject
        if (folder / ".git").exists():
            break
    return None


def _pyproject_section(path: Path) -> dict[str, Any] | None:
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the configuration: {exc}") from exc
    section = data.get("tool", {}).get("toolsearch", {}).get("lint")
    return section if isinstance(section, dict) else None


def load_config(path: Path | str | None) -> LintConfig:
    """Read a configuration file (pyproject.toml or .toolsearch.yaml); ``None`` gives the defaults."""
    if path is None:
        return LintConfig()
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"{path}: no such configuration file")
    if path.suffix == ".toml":
        section = _pyproject_section(path)
        if section is None:  # found files always have one: this one was named by --config
            raise UsageError(f"{path}: no [tool.toolsearch.lint] table in this file")
        config = LintConfig.from_mapping(section, origin=str(path))
    else:
        config = _yaml_config(path)
    config.root = path.parent
    return config


def _yaml_config(path: Path) -> LintConfig:
    from ..catalog.schema import plain
    from ..catalog.yaml_loader import parse_yaml
    from ..errors import CatalogError
    from ..files import read_text

    text = read_text(path, what="the configuration", error=UsageError)
    try:
        data = plain(parse_yaml(text, str(path))) or {}
    except CatalogError as exc:  # malformed YAML: the line and the problem, as for catalogs
        raise UsageError(f"cannot read the configuration: {exc.message}", file=str(path), line=exc.line) from exc
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping with a 'lint' key")
    return LintConfig.from_mapping(data.get("lint") or {}, origin=str(path))
