"""MkDocs hook: the reference pages generated at build time from the code (issue 36).

Written nowhere on disk: each page is added to the build's files in ``on_files``. The pages are

- ``reference/cli.md``: every command of the Typer app (``typer.main.get_command``) with its
  usage, help and each option once;
- ``reference/rules/index.md`` and ``reference/rules/TSxxx.md``: one page per lint rule, from the
  rule class's docstring and attributes (plugins' rules are not documented here);
- ``reference/environment.md``: ``toolsearch_cli.environment.VARIABLES``;
- ``reference/api.md``: ``::: toolsearch_cli.NAME`` (mkdocstrings) for each name of the package's
  ``__all__``;
- ``benchmarks.md``'s ``<!-- headline-table -->`` is replaced by the *Latest results* table
  of ``benchmarks/README.md`` (:func:`benchmarks_headline`);
- and ``reference/output.md``'s ``<!-- json-keys -->`` by the keys each command's
  ``--format json`` prints, read from the commands' real output when the site is built
  (:func:`json_keys_markdown`), so the page cannot drift from them.

The package never imports mkdocs; this hook imports the package.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS_README = ROOT / "benchmarks" / "README.md"
HEADLINE_MARK = "<!-- headline-table -->"
JSON_KEYS_MARK = "<!-- json-keys -->"
#: The commands whose ``--format json`` output the Output formats page describes: (what they do,
#: the arguments after ``toolsearch``), run in the checkout on its shipped catalogs.
JSON_COMMANDS = [
    ("search", ["search", "weather", "--explain", "-n", "2", "--format", "json"]),
    ("catalog", ["catalog", "--format", "json"]),
    ("eval", ["eval", "--ranker", "default,classic", "--failures", "1", "--by", "subset", "--format", "json"]),
    ("lint", ["lint", "catalogs/bad", "--format", "json"]),
    ("simulate", ["simulate", "catalogs/scenarios/weather-email.en.sim.yaml", "--format", "json"]),
    ("serve --dry-run", ["serve", "--dry-run", "--catalog", "catalogs/demo", "--format", "json"]),
]


def _text(value: str) -> str:
    """Help text as Markdown that shows it literally: HTML and emphasis characters escaped."""
    text = html.escape(" ".join(value.split()), quote=False)
    return re.sub(r"([\\*_\[\]])", r"\\\1", text)


def _anchor(path: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", path.lower()).strip("-")


# Typer carries its own copy of click (typer._click): commands and parameters are recognised by
# their attributes, not by click's classes.


def is_group(command: Any) -> bool:
    return isinstance(getattr(command, "commands", None), dict)


def is_option(param: Any) -> bool:
    return getattr(param, "param_type_name", "") == "option"


def commands(root: Any, path: str = "toolsearch") -> list[tuple[str, Any]]:
    """(full name, command) for the root and every visible sub-command, depth first, sorted."""
    found = [(path, root)]
    if is_group(root):
        for name in sorted(root.commands):
            command = root.commands[name]
            if not command.hidden:
                found.extend(commands(command, f"{path} {name}"))
    return found


def option_names(param: Any) -> list[str]:
    return [*param.opts, *param.secondary_opts] if is_option(param) else [param.human_readable_name]


def cli_markdown(root: Any) -> str:
    lines = [
        "# Command line",
        "",
        "Generated from the Typer app at build time: every command and its options, each once.",
        "`toolsearch COMMAND -h` (or `--help`, on every command) prints the same help in a terminal.",
        "",
    ]
    for path, command in commands(root):
        lines.append(f"## `{path}` {{#{_anchor(path)}}}")
        lines.append("")
        parent = command.context_class(command, info_name=path)
        usage = " ".join(command.collect_usage_pieces(parent))
        lines += ["```text", f"{path} {usage}".rstrip(), "```", ""]
        if command.help:
            lines += [_text(command.help), ""]
        if is_group(command):
            subs = [f"[`{path} {n}`](#{_anchor(f'{path} {n}')})" for n in sorted(command.commands)]
            subs = [s for s, n in zip(subs, sorted(command.commands), strict=True) if not command.commands[n].hidden]
            lines += ["Commands: " + ", ".join(subs) + ".", ""]
        params = [p for p in command.params if not getattr(p, "hidden", False)]
        if params:
            lines += ["| option | value | description |", "|---|---|---|"]
        for param in params:
            names = ", ".join(f"`{n}`" for n in option_names(param))
            if is_option(param) and param.is_flag:
                value = "flag"
            else:
                value = f"`{param.make_metavar(parent)}`" if hasattr(param, "make_metavar") else ""
            help_text = _text(getattr(param, "help", None) or "")
            extra = []
            if not is_option(param):
                extra.append("(argument)" if param.required else "(argument, optional)")
            envvar = getattr(param, "envvar", None)
            if envvar:
                envvars = [envvar] if isinstance(envvar, str) else list(envvar)
                extra.append("Environment: " + ", ".join(f"`{name}`" for name in envvars) + ".")
            cell = " ".join(x for x in [help_text, *extra] if x).replace("|", "\\|")
            lines.append(f"| {names} | {value.replace('|', chr(92) + '|')} | {cell} |")
        lines.append("")
    return "\n".join(lines)


def rule_pages() -> dict[str, str]:
    """``reference/rules/CODE.md`` -> Markdown, and the index."""
    from toolsearch_cli.lint.rule import FAMILIES
    from toolsearch_cli.lint.rules import RULE_BY_CODE

    pages: dict[str, str] = {}
    index = [
        "# Lint rules",
        "",
        "Generated from each rule's class at build time; `toolsearch rule CODE` prints the same text.",
        "*Level* is the default severity; *default* says whether the `default` preset runs the rule",
        "(the `strict` preset runs them all).",
        "",
        "| code | name | family | level | default |",
        "|---|---|---|---|---|",
    ]
    for code in sorted(RULE_BY_CODE):
        rule = RULE_BY_CODE[code]
        family = FAMILIES[code[:3]]
        on = "on" if rule.default_enabled else "opt-in"
        index.append(f"| [{code}]({code}.md) | {rule.name} | {family} | {rule.severity} | {on} |")
        page = [
            f"# {code} {rule.name}",
            "",
            f"Family: {family} · level: {rule.severity} · "
            + ("on by default" if rule.default_enabled else "off by default (on in the strict preset, or select it)"),
            "",
        ]
        if not rule.default_enabled and rule.opt_in_reason:
            page += [f"Why it is opt-in: {_text(rule.opt_in_reason)}", ""]
        for name, default in rule.options.items():
            strict = f" (strict: `{rule.strict_options[name]!r}`)" if name in rule.strict_options else ""
            page += [f"- option `{name}`: default `{default!r}`{strict}"]
        if rule.options:
            page.append("")
        if not rule.inline_suppressible:
            page += ["A tool's own `lint: ignore` cannot silence this rule.", ""]
        page.append(rule.doc())
        pages[f"reference/rules/{code}.md"] = "\n".join(page) + "\n"
    pages["reference/rules/index.md"] = "\n".join(index) + "\n"
    return pages


def environment_markdown() -> str:
    from toolsearch_cli.environment import VARIABLES

    lines = [
        "# Environment variables",
        "",
        "Generated from `toolsearch_cli/environment.py` (`VARIABLES`), the one module that reads them.",
        "An option given on the command line wins over its variable.",
        "",
        "| variable | type | default | meaning |",
        "|---|---|---|---|",
    ]
    for name in sorted(VARIABLES):
        v = VARIABLES[name]
        default = f"`{v.default}`" if v.default else "none"
        lines.append(f"| `{name}` | {_text(v.type)} | {default} | {_text(v.meaning)} |")
    return "\n".join(lines) + "\n"


_LINK = re.compile(r"\[([^\]]+)\]\(([^)#\s]+)(#[^)\s]*)?\)")


def benchmarks_headline() -> str:
    """The *Latest results* table of benchmarks/README.md, its links made repository paths."""
    text = BENCHMARKS_README.read_text(encoding="utf-8")
    section = text.split("## Latest results", 1)[1]
    rows = []
    for line in section.splitlines():
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            break
    if not rows:
        raise ValueError("benchmarks/README.md: no table under '## Latest results'")

    def plain(match: re.Match[str]) -> str:
        return f"{match.group(1)} (`benchmarks/{match.group(2)}`)"

    return "\n".join(_LINK.sub(plain, row) for row in rows)


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return {dict: "object", list: "array", str: "string", int: "integer", float: "number"}.get(type(value), "value")


def key_tree(samples: list[Any], depth: int = 0, limit: int = 4) -> list[str]:
    """Markdown bullets of the keys of JSON values (``samples``: values found at one place of the
    document) with every type seen there; an array's items merged, an object whose keys are data
    (ranker names, subsets: values all objects of the same keys, or all arrays) shown once."""
    objects: list[dict[str, Any]] = []
    for value in samples:
        if isinstance(value, dict):
            objects.append(value)
        elif isinstance(value, list):
            objects.extend(v for v in value if isinstance(v, dict))
    lines: list[str] = []
    if not objects or depth >= limit:
        return lines
    indent = "    " * depth
    keys = list(dict.fromkeys(k for o in objects for k in o))
    values = [v for o in objects for v in o.values()]
    by_data = len(keys) > 1 and (
        all(isinstance(v, dict) and v.keys() == values[0].keys() for v in values)
        or all(isinstance(v, list) for v in values)
    )
    if by_data:
        names = ", ".join(f"`{html.escape(str(k), quote=False)}`" for k in keys[:4]) + (", …" if len(keys) > 4 else "")
        lines.append(f"{indent}- *one key per value* ({names}): {_types(values)}")
        return lines + key_tree(values, depth + 1, limit)
    for key in keys:
        found = [o[key] for o in objects if key in o]
        lines.append(f"{indent}- `{html.escape(str(key), quote=False)}`: {_types(found)}")
        lines.extend(key_tree(found, depth + 1, limit))
    return lines


def _types(values: list[Any]) -> str:
    names = []
    for value in values:
        name = _type_name(value)
        if isinstance(value, list):
            inner = sorted({_type_name(v) for v in value})
            name = f"array of {' or '.join(inner)}" if inner else "array"
        names.append(name)
    kinds = list(dict.fromkeys(names))
    if len(kinds) > 1 and any(k.startswith("array of") for k in kinds) and "array" in kinds:
        kinds.remove("array")  # an empty array is one of the others
    return " or ".join(kinds)


def json_keys_markdown() -> str:
    """For each command of :data:`JSON_COMMANDS`: the command line, its exit code and the keys of
    what it printed, from running it now (``python -m toolsearch_cli``, in the checkout)."""
    import json
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLSEARCH_")}
    env.update(COLUMNS="200", TOOLSEARCH_NO_CACHE="1")
    out: list[str] = []
    for title, args in JSON_COMMANDS:
        done = subprocess.run(
            [sys.executable, "-m", "toolsearch_cli", *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=ROOT,
            env=env,
            timeout=300,
        )
        if done.returncode not in (0, 1):
            raise RuntimeError(f"toolsearch {' '.join(args)} exited {done.returncode}: {done.stderr.strip()}")
        document = json.loads(done.stdout)
        out += [f"### `{title}`", "", "```text", "toolsearch " + " ".join(args), "```", ""]
        out += [
            f"Exit code {done.returncode}; the document is {'an array' if isinstance(document, list) else 'an object'}"
            + (" of objects with these keys:" if isinstance(document, list) else " with these keys:"),
            "",
        ]
        out += key_tree([document]) + [""]
    return "\n".join(out)


def api_markdown() -> str:
    import toolsearch_cli

    lines = [
        "# Library API",
        "",
        "Generated from the docstrings of the names `toolsearch_cli` exports (its `__all__`);",
        f"this is version `{toolsearch_cli.__version__}`.",
        "",
    ]
    for name in sorted(n for n in toolsearch_cli.__all__ if not n.startswith("_")):
        lines += [f"::: toolsearch_cli.{name}", ""]
    return "\n".join(lines)


def on_files(files: Files, config: Any) -> Files:
    import typer

    from toolsearch_cli.cli.app import app

    generated = {
        "reference/cli.md": cli_markdown(typer.main.get_command(app)),
        "reference/environment.md": environment_markdown(),
        "reference/api.md": api_markdown(),
        **rule_pages(),
    }
    for uri, content in generated.items():
        files.append(File.generated(config, uri, content=content))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if HEADLINE_MARK in markdown:
        markdown = markdown.replace(HEADLINE_MARK, benchmarks_headline())
    if JSON_KEYS_MARK in markdown:
        markdown = markdown.replace(JSON_KEYS_MARK, json_keys_markdown())
    return markdown
