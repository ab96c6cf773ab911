"""``toolsearch serve --import-client claude-desktop|cursor|vscode``: put the gateway in front of
the servers an MCP client already has.

The client's config is read from where the client keeps it (per OS; ``--client-config`` names
another file) and checked as ``serve --config`` checks a file. Its servers move, exactly as they
are written (``env`` values and ``${...}`` forms included), into a toolsearch config written with
mode 0600 and never over an existing file; the client's config, with those servers replaced by
one ``toolsearch serve --config FILE`` entry, is returned for printing. The client's file is
rewritten only when asked (``apply``), after a backup beside it. Nothing this module returns for
printing carries an ``env`` or header value.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError, did_you_mean

CLIENTS = ("claude-desktop", "cursor", "vscode")
#: The entry the gateway gets in the client's config.
GATEWAY_ENTRY = "toolsearch"


def client_config_path(
    client: str, platform: str | None = None, environ: dict[str, str] | None = None, home: Path | None = None
) -> Path:
    """Where the client keeps its (user-wide) MCP servers on this OS."""
    home = home or Path.home()
    if client == "cursor":
        return home / ".cursor" / "mcp.json"
    base = _config_base(platform, environ, home)
    if client == "claude-desktop":
        return base / "Claude" / "claude_desktop_config.json"
    if client == "vscode":
        return base / "Code" / "User" / "mcp.json"
    raise UsageError(
        f"unknown client {client!r}{did_you_mean(client, CLIENTS)}; choose from {', '.join(CLIENTS)}",
        field="import-client",
    )


def gateway_config_path(
    client: str, platform: str | None = None, environ: dict[str, str] | None = None, home: Path | None = None
) -> Path:
    """Where the toolsearch config of an imported client goes when ``--config`` does not say."""
    return _config_base(platform, environ, home) / "toolsearch" / f"gateway-{client}.json"


def _config_base(platform: str | None, environ: dict[str, str] | None, home: Path | None) -> Path:
    """The folder applications keep their user-wide settings in on this OS (macOS: Application
    Support; Windows: %APPDATA%; elsewhere: $XDG_CONFIG_HOME or ~/.config)."""
    platform = platform or sys.platform
    environ = dict(os.environ) if environ is None else environ
    home = home or Path.home()
    if platform == "darwin":
        return home / "Library" / "Application Support"
    if platform.startswith("win"):
        return Path(environ.get("APPDATA") or home / "AppData" / "Roaming")
    return Path(environ.get("XDG_CONFIG_HOME") or home / ".config")


def gateway_command() -> list[str]:
    """How a client starts this toolsearch: by absolute path (a GUI client has not the shell's PATH)."""
    here = Path(sys.executable).parent
    for name in ("toolsearch", "toolsearch.exe"):
        script = here / name
        if script.is_file():
            return [str(script)]
    return [sys.executable, "-m", "toolsearch_cli"]


@dataclass
class Imported:
    """What an import produced."""

    client: str
    client_config: Path
    gateway_config: Path
    #: The client's config with its servers replaced by the gateway (printable: no secrets).
    new_client_config: dict[str, Any]
    servers: list[str]
    #: ``name: env KEY=*** ...``, one per server (values masked).
    summary: list[str] = field(default_factory=list)
    backup: Path | None = None

    def client_text(self) -> str:
        return json.dumps(self.new_client_config, indent=2, ensure_ascii=False) + "\n"


def import_client(
    client: str,
    client_config: str | None = None,
    gateway_config: str | None = None,
    *,
    apply: bool = False,
    command: list[str] | None = None,
) -> Imported:
    """Move the client's servers into a new toolsearch config; see the module's docstring."""
    from ..catalog.document import parse_document
    from ..errors import CatalogError
    from ..files import read_text
    from .config import ConfigFile, _validation_error, strip_jsonc

    if client not in CLIENTS:
        raise UsageError(
            f"unknown client {client!r}{did_you_mean(client, CLIENTS)}; choose from {', '.join(CLIENTS)}",
            field="import-client",
        )
    source = Path(client_config).expanduser() if client_config else client_config_path(client)
    shown = str(source)
    if not source.exists():
        raise UsageError(
            f"no {client} config here (give its path with --client-config)", file=shown, field="client-config"
        )
    text = read_text(source, shown, what="cannot read the client config", error=UsageError, encoding="utf-8-sig")
    try:
        document = parse_document(strip_jsonc(text), shown, json_hint=True)
    except CatalogError as exc:
        raise UsageError(exc.message, file=exc.file, line=exc.line, field=exc.field) from None
    data = document.data
    if not isinstance(data, dict):
        raise UsageError("a client config is a JSON object", file=shown, line=1)
    try:
        ConfigFile.model_validate(data)
    except Exception as exc:  # a ValidationError: its first problem, with its line
        from pydantic import ValidationError

        if isinstance(exc, ValidationError):
            raise _validation_error(exc, document) from None
        raise
    key = "servers" if client == "vscode" else "mcpServers"
    servers = data.get(key)
    if not isinstance(servers, dict) or not servers:
        other = "mcpServers" if key == "servers" else "servers"
        hint = f" (it has {other!r}: is it another client's?)" if isinstance(data.get(other), dict) else ""
        raise UsageError(
            f"no servers under {key!r}{hint}", file=shown, line=document.line_of(f"/{key}") or 1, field=key
        )
    for name, existing in servers.items():
        if name == GATEWAY_ENTRY or _runs_gateway(existing):
            raise UsageError(
                f"server {name!r} is already toolsearch serve: this config is fronted by the gateway",
                file=shown,
                line=document.line_of(f"/{key}/{name}"),
                field=key,
            )
    target = Path(gateway_config).expanduser() if gateway_config else gateway_config_path(client)
    target = target.resolve() if target.is_absolute() else (Path.cwd() / target).resolve()
    written: dict[str, Any] = {key: servers}
    if client == "vscode" and data.get("inputs"):
        written["inputs"] = data["inputs"]
    written["toolsearch"] = {}
    _write_new(target, json.dumps(written, indent=2, ensure_ascii=False) + "\n")
    entry: dict[str, Any] = {}
    if client == "vscode":
        entry["type"] = "stdio"
    run = command or gateway_command()
    entry["command"] = run[0]
    entry["args"] = [*run[1:], "serve", "--config", str(target)]
    inputs = _inputs_used(servers)
    if inputs:  # VS Code prompts for them and hands them to the gateway, which cannot prompt
        from .config import input_variable

        entry["env"] = {input_variable(i): f"${{input:{i}}}" for i in inputs}
    replaced = {k: v for k, v in data.items()}
    replaced[key] = {GATEWAY_ENTRY: entry}
    imported = Imported(
        client=client,
        client_config=source,
        gateway_config=target,
        new_client_config=replaced,
        servers=list(servers),
        summary=[_summary(name, value) for name, value in servers.items()],
    )
    if apply:
        imported.backup = _rewrite(source, imported.client_text())
    return imported


def _runs_gateway(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    args = entry.get("args")
    words = [str(entry.get("command", ""))] + ([str(a) for a in args] if isinstance(args, list) else [])
    return any(w.endswith(("toolsearch", "toolsearch.exe", "toolsearch_cli")) for w in words) and "serve" in words


def _inputs_used(servers: dict[str, Any]) -> list[str]:
    found: list[str] = []
    for value in _strings(servers):
        for ident in re.findall(r"\$\{input:([^}]*)\}", value):
            if ident not in found:
                found.append(ident)
    return found


def _strings(value: Any, depth: int = 0) -> list[str]:
    if depth > 20:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v, depth + 1)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v, depth + 1)]
    return []


def _summary(name: str, entry: Any) -> str:
    """``name (stdio|http)``, and its env and header names with their values masked."""
    if not isinstance(entry, dict):
        return name
    kind = entry.get("type") or ("http" if "url" in entry and "command" not in entry else "stdio")
    parts = [f"{name} ({kind}{', disabled' if entry.get('disabled') else ''})"]
    for what in ("env", "headers"):
        values = entry.get(what)
        if isinstance(values, dict) and values:
            parts.append(f"{what}: " + " ".join(f"{k}=***" for k in values))
    return "; ".join(parts)


def _write_new(path: Path, text: str) -> None:
    """Write a new file readable by its owner only; an existing file is never overwritten."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise UsageError(
            "exists already: name another file with --config, or remove it first", file=str(path), field="config"
        ) from None
    except OSError as exc:
        raise UsageError(f"cannot write the config: {exc.strerror or exc}", file=str(path), field="config") from None
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


def _rewrite(path: Path, text: str) -> Path:
    """Replace the client's file (its mode kept) after copying it to a timestamped backup beside it."""
    import shutil

    backup = path.with_name(f"{path.name}.{time.strftime('%Y%m%d%H%M%S')}.bak")
    try:
        shutil.copy2(path, backup)
        mode = path.stat().st_mode & 0o777
        temporary = path.with_name(f".{path.name}.toolsearch-tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        raise UsageError(f"cannot rewrite the client config: {exc.strerror or exc}", file=str(path)) from None
    return backup
