"""``toolsearch registry serve`` (the registry's HTTP API) and ``toolsearch registry token
create|list|revoke`` (its bearer tokens).

The server is :mod:`toolsearch_cli.registry.http_api`; the tokens :mod:`toolsearch_cli.registry.tokens`.
:data:`app` is a ``registry`` group holding both, for a tree that has no other ``registry``
commands; where one exists, its group takes :func:`serve` and :data:`token_app` the same way.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import typer

from .options import ForwardedAllowIps, OutputFormat, check_format
from .render import Col, console, data, error_console, render_table

if TYPE_CHECKING:
    from ..registry.tokens import TokenInfo

_SETTINGS: dict[str, Any] = {
    "no_args_is_help": True,
    "add_completion": False,
    "rich_markup_mode": None,
    "context_settings": {"help_option_names": ["-h", "--help"]},
}

app = typer.Typer(help="The shared PostgreSQL registry: its HTTP API and the API's tokens.", **_SETTINGS)
token_app = typer.Typer(
    help="Bearer tokens of the registry's HTTP API: one namespace each, read or push; shown once, kept hashed.",
    **_SETTINGS,
)

DB_OPTION = typer.Option(
    ...,
    "--db",
    help="The registry database: postgresql://[user@]host[:port]/database (password from PGPASSWORD, "
    "~/.pgpass or a service file, or in the URL; never printed).",
    metavar="URL",
)


def serve(
    db: str = DB_OPTION,
    http: str = typer.Option(
        "127.0.0.1:8766",
        "--http",
        help="Listen on HOST:PORT (plain HTTP: put a reverse proxy that terminates TLS in front of any "
        "address other than loopback).",
        metavar="HOST:PORT",
    ),
    pool: int = typer.Option(8, "--pool", help="Database connections kept open (1-64).", min=1, max=64, metavar="N"),
    max_body: str = typer.Option(
        "64MB", "--max-body", help="The largest catalog a push may send (e.g. 64MB).", metavar="SIZE"
    ),
    poll: float = typer.Option(
        1.0,
        "--poll",
        help="Seconds between version checks of waiting requests (long polls, event streams), on top of the "
        "registry's notifications (a standby sends none).",
        min=0.05,
        max=60.0,
        metavar="SECONDS",
    ),
    access_log: bool = typer.Option(
        False, "--access-log", help="Log each request (client, method, path, status) on stdout; tokens are never in it."
    ),
    forwarded_allow_ips: ForwardedAllowIps = None,
) -> None:
    """Serve the registry over HTTP: read, search, push and follow namespaces, each request with a
    bearer token of its namespace (`toolsearch registry token create`). The API is described at
    /openapi.json."""
    from ..bounded import parse_size
    from ..errors import UsageError
    from ..forwarded import parse_forwarded_allow_ips
    from ..registry.http_api import ApiSettings, run
    from ..serve.server import check_listen, parse_http

    host, port = parse_http(http)
    proxies = parse_forwarded_allow_ips(forwarded_allow_ips)
    settings = ApiSettings(
        db=db, pool_size=pool, max_body_bytes=parse_size(max_body, "--max-body", error=UsageError), poll_interval=poll
    )
    check_listen(host, port)
    say = error_console().print
    run(settings, host, port, on_ready=lambda line: say(data(line)), access_log=access_log, forwarded_allow_ips=proxies)


def _connected(db: str) -> Any:
    from ..registry.source import parse_registry_source
    from ..registry.store import connect

    source = parse_registry_source(db)
    return source, connect(source)


@token_app.command("create")
def create(
    db: str = DB_OPTION,
    namespace: str = typer.Option(..., "--namespace", "-n", help="The one namespace the token opens."),
    scope: str = typer.Option("read", "--scope", help="read (read, search, follow) or push (those and push)."),
    note: str = typer.Option("", "--note", help="Who or what the token is for (listed; at most 200 characters)."),
    output_format: OutputFormat = "table",
) -> None:
    """Make a token and print it once: only its SHA-256 is kept, so it cannot be shown again."""
    from .. import environment
    from ..registry import tokens

    check_format(output_format)
    source, connection = _connected(db)
    with connection as conn:
        token, info = tokens.create(conn, namespace, scope, note, source=source)
    if output_format == "json":
        typer.echo(json.dumps({"token": token, **info.to_dict()}, ensure_ascii=False, indent=2))
        return
    typer.echo(token)
    error_console().print(
        data(
            f"token {info.id}: {info.scope} on namespace {info.namespace!r} in {source.display}; "
            f"shown once, keep it in a secret store (clients read it from ${environment.REGISTRY_TOKEN})"
        )
    )


@token_app.command("list")
def list_tokens(
    db: str = DB_OPTION,
    namespace: str | None = typer.Option(None, "--namespace", "-n", help="Only this namespace's tokens."),
    output_format: OutputFormat = "table",
) -> None:
    """List tokens: id, namespace, scope, note, when made and revoked (never a secret)."""
    from ..registry import tokens

    check_format(output_format)
    _, connection = _connected(db)
    with connection as conn:
        found = tokens.listing(conn, namespace)
    if output_format == "json":
        typer.echo(json.dumps([t.to_dict() for t in found], ensure_ascii=False, indent=2))
        return
    if not found:
        error_console().print(data("no tokens"))
        return
    _render(found)


def _render(found: list[TokenInfo]) -> None:
    from ..printable import shown

    columns = [Col("id", "name"), Col("namespace", "name"), Col("scope", "name"), Col("note", "text")]
    columns += [Col("created", "name"), Col("revoked", "name")]
    rows = [
        [t.id, shown(t.namespace), t.scope, shown(t.note), t.created_at[:19], (t.revoked_at or "")[:19]] for t in found
    ]
    render_table(console(), columns, rows)


@token_app.command("revoke")
def revoke(
    token_id: str = typer.Argument(..., help="The token's id (12 hex digits, as `token list` shows).", metavar="ID"),
    db: str = DB_OPTION,
) -> None:
    """Revoke a token: every request with it is refused (403) from now on."""
    from ..registry import tokens

    source, connection = _connected(db)
    with connection as conn:
        info = tokens.revoke(conn, source, token_id)
    console().print(data(f"revoked token {info.id} ({info.scope} on namespace {info.namespace!r})"))


app.command("serve")(serve)
app.add_typer(token_app, name="token")
