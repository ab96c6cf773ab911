"""``toolsearch registry``: create or upgrade a registry's schema, list its namespaces, show a
namespace's versions, diff two of them, roll back to one, drop a namespace. The work is
:mod:`toolsearch_cli.registry.history`'s; this module parses options and prints."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from .options import OutputFormat, check_format
from .render import Col, console, data, render_table

app = typer.Typer(
    help="Manage a shared PostgreSQL tool registry: schema, namespaces, versions, history.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

RegistryUrl = Annotated[
    str,
    typer.Argument(
        help="The registry: postgresql://[user@]host[:port]/database (password from PGPASSWORD, ~/.pgpass or a "
        "service file, or in the URL; never printed). ?namespace=NAME may name the namespace.",
        metavar="URL",
        show_default=False,
    ),
]
Namespace = Annotated[
    str | None,
    typer.Option("--namespace", "-n", help="The namespace (else the URL's ?namespace=).", show_default=False),
]
Yes = Annotated[bool, typer.Option("--yes", help="Confirm a change that cannot be undone.")]


def _target(url: str, namespace: str | None = None, *, needs_namespace: bool = True) -> Any:
    from ..registry.source import parse_registry_target

    source = parse_registry_target(url, namespace)
    if needs_namespace:
        source.require_namespace()
    return source


def _json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


@app.command("migrate")
def migrate(
    url: RegistryUrl,
    retention: int | None = typer.Option(
        None,
        "--retention",
        help="How many versions of each namespace keep their tools' bodies, for diff and rollback (default 50 "
        "when the registry is created; given, it is changed). Older versions keep their counts only.",
        metavar="N",
        min=1,
    ),
) -> None:
    """Create the registry's schema, or upgrade it to the one this toolsearch writes (numbered
    migrations, each recorded; run by the role that owns the schema). Pushes and reads never
    change the schema: run this first, and again after upgrading toolsearch."""
    from ..registry.history import migrate as run

    source = _target(url, needs_namespace=False)
    before, after = run(source, retention=retention)
    where = source.display
    if before == after:
        console().print(data(f"{where}: schema version {after}, up to date"))
    elif before == 0:
        console().print(data(f"{where}: created the registry (schema version {after})"))
    else:
        console().print(data(f"{where}: upgraded the schema from version {before} to {after}"))


@app.command("namespaces")
def namespaces(url: RegistryUrl, output_format: OutputFormat = "table") -> None:
    """List the registry's namespaces: version, number of tools, last push."""
    from ..registry.history import namespaces as listing

    check_format(output_format)
    entries = listing(_target(url, needs_namespace=False))
    if output_format == "json":
        _json([e.to_dict() for e in entries])
        return
    columns = [Col("namespace", "name"), Col("version", "number", justify="right")]
    columns += [Col("tools", "number", justify="right"), Col("updated", "name")]
    render_table(console(), columns, [[e.name, str(e.version), str(e.tools), e.updated_at] for e in entries])


@app.command("log")
def log(
    url: RegistryUrl,
    namespace: Namespace = None,
    limit: int = typer.Option(20, "--limit", help="Show at most this many versions, newest first.", min=1),
    output_format: OutputFormat = "table",
) -> None:
    """A namespace's versions, newest first: when each was pushed, what it changed, and whether its
    tools are kept (within the retention: diff and rollback can use it)."""
    from ..registry.history import log as versions

    check_format(output_format)
    entries = versions(_target(url, namespace), limit)
    if output_format == "json":
        _json([e.to_dict() for e in entries])
        return
    columns = [Col("version", "number", justify="right"), Col("pushed", "name")]
    columns += [Col(h, "number", justify="right") for h in ("added", "changed", "removed")] + [Col("kept")]
    rows = [
        [str(e.version), e.pushed_at, str(e.added), str(e.changed), str(e.removed), "yes" if e.kept else "no"]
        for e in entries
    ]
    render_table(console(), columns, rows)


@app.command("diff")
def diff(
    url: RegistryUrl,
    old: int = typer.Argument(..., help="The older version.", metavar="OLD"),
    new: int | None = typer.Argument(None, help="The newer version (default: the current one).", metavar="NEW"),
    namespace: Namespace = None,
    output_format: OutputFormat = "table",
) -> None:
    """What changed in a namespace from version OLD to NEW (tools added, changed, removed; order,
    resident tools and groups), compared by content hash."""
    from ..registry.history import diff as compare

    check_format(output_format)
    result = compare(_target(url, namespace), old, new)
    if output_format == "json":
        _json(result.to_dict())
        return
    out = console()
    out.print(
        data(f"{result.namespace}: version {result.old} -> {result.new}" + (": no change" if result.empty else ""))
    )
    for sign, names in (("+", result.added), ("~", result.changed), ("-", result.removed)):
        for name in names:
            out.print(data(f"  {sign} {name}"))
    for flag, what in (
        (result.moved, "order"),
        (result.resident_changed, "resident tools"),
        (result.groups_changed, "tool groups"),
    ):
        if flag:
            out.print(data(f"  ~ ({what})"))


@app.command("rollback")
def rollback(
    url: RegistryUrl,
    version: int = typer.Argument(..., help="The version to return to.", metavar="VERSION"),
    namespace: Namespace = None,
    expect_version: int | None = typer.Option(
        None,
        "--expect-version",
        help="Roll back only if the namespace is still at this version (default: the version read before writing).",
        metavar="N",
    ),
) -> None:
    """Make the namespace's content equal to an old VERSION again, as a new version (a push: the
    history stays, and every node following the namespace applies it in place)."""
    from ..registry.history import rollback as run

    source = _target(url, namespace)
    plan = run(source, version, expect_version=expect_version)
    if plan.version is None:
        console().print(data(f"{source.display} already equals version {version} (at version {plan.base_version})"))
        return
    counts = f"{len(plan.added)} added, {len(plan.changed)} changed, {len(plan.removed)} removed"
    console().print(data(f"rolled {source.display} back to version {version}: version {plan.version} ({counts})"))


@app.command("drop")
def drop(url: RegistryUrl, namespace: Namespace = None, yes: Yes = False) -> None:
    """Delete a namespace with its tools, versions and history (needs --yes). Nodes following it keep
    their last good catalog and say it is gone."""
    from ..errors import UsageError
    from ..registry.history import drop as run

    source = _target(url, namespace)
    if not yes:
        raise UsageError(
            f"dropping {source.display} deletes its tools and history for good: add --yes to do it", field="yes"
        )
    version = run(source)
    console().print(data(f"dropped {source.display} (it was at version {version})"))
