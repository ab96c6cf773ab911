"""``toolsearch serve --config FILE``: the servers of an MCP client's config, as the client keeps
them, plus a ``toolsearch`` section of gateway policy.

Read as they are: Claude Desktop's and Cursor's ``mcpServers`` and VS Code's ``servers`` (with
its ``type``, ``inputs`` and ``${input:ID}`` / ``${env:NAME}`` substitutions; VS Code's comments
and trailing commas too). The ``toolsearch`` section (see :class:`Section`) holds what an operator
decides: per-server and per-tool policy (:mod:`.policy`), the ranker and model, the default
context, limits. Every value is checked (Pydantic, strict: no coercion); a bad one is a one-line
:class:`~toolsearch_cli.errors.UsageError` naming ``file:line`` and the field (exit 2).

Naming the file on the command line is the consent to run its servers' commands. The values of
``env`` and ``headers`` (API keys) are registered with :mod:`toolsearch_cli.redaction`, so they are
masked wherever the run prints or writes text, and no message here quotes them.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..errors import CatalogError, UsageError, did_you_mean
from ..search.base import MAX_RESULTS_LIMIT
from .policy import Requires, ServerPolicy, ToolRule, _Strict

#: Substitutions understood in ``command``, ``args``, ``env``, ``envFile``, ``cwd``, ``url`` and ``headers``.
SUBSTITUTIONS = ("${env:NAME}", "${input:ID}", "${userHome}", "${workspaceFolder}", "${pathSeparator}", "${/}")
_SUBSTITUTION = re.compile(r"\$\{([^}]*)\}")
#: Most servers one config may start.
MAX_SERVERS = 256
_ALIAS = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


class ServerEntry(_Strict):
    """One server as Claude Desktop, Cursor or VS Code write it (keys only these clients read, and
    that mean nothing to the gateway, are accepted and ignored: ``autoApprove``, ``gallery``...)."""

    type: Literal["stdio", "http", "sse", "streamable-http", "streamableHttp"] | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str | None] = Field(default_factory=dict)
    env_file: str | None = Field(default=None, alias="envFile")
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    disabled: bool = False
    #: The gateway's: ``false``, ``/readyz`` does not wait for it (as ``toolsearch.servers.NAME.required``).
    required: bool | None = None
    # read by the clients only
    auto_approve: list[str] | None = Field(default=None, alias="autoApprove")
    always_allow: list[str] | None = Field(default=None, alias="alwaysAllow")
    timeout: float | None = None
    description: str | None = None
    dev: dict[str, Any] | None = None
    gallery: Any = None
    version: str | None = None


class InputEntry(BaseModel):
    """A VS Code ``inputs`` entry (``promptString``/``pickString``); the gateway reads its id and default."""

    model_config = ConfigDict(extra="allow", strict=True)
    id: str
    type: str
    description: str | None = None
    default: str | None = None
    password: bool | None = None


class Limits(_Strict):
    max_results: Annotated[int, Field(ge=1, le=MAX_RESULTS_LIMIT)] | None = Field(default=None, alias="maxResults")
    max_active: Annotated[int, Field(ge=1)] | None = Field(default=None, alias="maxActive")
    timeout: Annotated[float, Field(gt=0, le=3600)] | None = None


class Section(_Strict):
    """The ``toolsearch`` section: the gateway's own settings (command-line options win over them)."""

    ranker: str | None = None
    #: The embedding model of a dense ranker (a folder or a model name, as ``--embed-model``).
    model: str | None = None
    disclose: Literal["call-through", "list-changed"] | None = None
    policy: str | None = None
    #: The request context of every request (as ``--context key=value``).
    context: dict[str, str] = Field(default_factory=dict)
    context_header: str | None = Field(default=None, alias="contextHeader")
    limits: Limits = Field(default_factory=Limits)
    servers: dict[str, ServerPolicy] = Field(default_factory=dict)


class ConfigFile(BaseModel):
    """The whole file: the client's keys the gateway reads, and its own section; other top-level
    keys (Claude Desktop's preferences...) belong to the client and are left alone."""

    model_config = ConfigDict(extra="ignore", strict=True, populate_by_name=True)
    mcp_servers: dict[str, ServerEntry] | None = Field(default=None, alias="mcpServers")
    servers: dict[str, ServerEntry] | None = None
    inputs: list[InputEntry] = Field(default_factory=list)
    toolsearch: Section = Field(default_factory=Section)


@dataclass
class ServerLaunch:
    """One server of the config as the gateway starts it."""

    #: Its name in the config, and the alias it is served under (the name, made a valid alias).
    name: str
    alias: str
    #: The live source text (``alias=mcp+stdio:COMMAND`` or ``alias=mcp+https://...``).
    source: str
    transport: str
    env: dict[str, str] = field(default_factory=dict, repr=False)
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    cwd: str | None = None
    required: bool = True

    def launch(self) -> dict[str, Any]:
        """What :class:`~toolsearch_cli.serve.upstream.Upstream` takes beyond the source text."""
        return {"env": dict(self.env), "headers": dict(self.headers), "cwd": self.cwd}


@dataclass
class GatewayConfig:
    """A config file, read and checked."""

    file: str
    servers: list[ServerLaunch]
    section: Section
    #: Servers the file marks ``disabled`` (not started).
    disabled: list[str] = field(default_factory=list)
    #: What the gateway should say at start (a file holding secrets that others can read).
    warnings: list[str] = field(default_factory=list)

    @property
    def sources(self) -> list[str]:
        return [s.source for s in self.servers]

    @property
    def launch(self) -> dict[str, dict[str, Any]]:
        return {s.source: s.launch() for s in self.servers}

    @property
    def required_aliases(self) -> list[str]:
        return [s.alias for s in self.servers if s.required]

    def tool_policy(self) -> Any:
        """The section's server and tool rules as a :class:`.policy.ToolPolicy` (``None``: none)."""
        from .policy import ToolPolicy

        aliases = {s.name: s.alias for s in self.servers}
        rules = {aliases[name]: rule for name, rule in self.section.servers.items() if name in aliases}
        return ToolPolicy(rules, {v: k for k, v in aliases.items()}) if rules else None


# -- reading ------------------------------------------------------------------------------------


def read_config(path: str, environ: dict[str, str] | None = None) -> GatewayConfig:
    """Read, check and resolve a config file. ``environ``: where ``${env:..}`` and inputs are read
    (default: this process's environment)."""
    from ..catalog.document import parse_document
    from ..files import read_text

    environ = dict(os.environ) if environ is None else environ
    text = read_text(path, path, what="cannot read the config", error=UsageError, encoding="utf-8-sig")
    cleaned = strip_jsonc(text)
    try:
        document = parse_document(cleaned, path, json_hint=True)
    except CatalogError as exc:  # the one-line JSON error, as a usage error of the command
        raise UsageError(exc.message, file=exc.file, line=exc.line, field=exc.field) from None
    if not isinstance(document.data, dict):
        raise UsageError('a config file is a JSON object ({"mcpServers": {...}})', file=path, line=1)
    try:
        parsed = ConfigFile.model_validate(document.data)
    except ValidationError as exc:
        raise _validation_error(exc, document) from None
    config = _resolve(parsed, document, Path(path), environ)
    if _holds_secrets(parsed):
        config.warnings += _readable_by_others(path)
    return config


def _holds_secrets(parsed: ConfigFile) -> bool:
    """Whether an ``env`` or ``headers`` value is written in the file (not only ``${...}`` references)."""
    entries = {**(parsed.mcp_servers or {}), **(parsed.servers or {})}
    for entry in entries.values():
        for value in [*entry.env.values(), *entry.headers.values()]:
            if value and _SUBSTITUTION.sub("", value).strip():
                return True
    return False


def _readable_by_others(path: str) -> list[str]:
    import stat

    if os.name == "nt":
        return []
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return []
    if not mode & 0o077:
        return []
    return [
        f"warning: {path} holds env or header values and other users can read it (mode {mode:04o}); chmod 600 {path}"
    ]


def _validation_error(exc: ValidationError, document: Any) -> UsageError:
    """Pydantic's first error as ``file:line: field '/mcpServers/x/args/0': ...``."""
    from ..catalog.document import pointer_join

    first = exc.errors(include_url=False)[0]
    loc = _data_path(document.data, list(first.get("loc", ())), first.get("type") == "missing")
    pointer = pointer_join("", *loc)
    message = str(first.get("msg", "invalid value"))
    if first.get("type") == "extra_forbidden":
        key = str(loc[-1]) if loc else "?"
        known = _keys_of(ServerEntry, ToolRule, ServerPolicy, Limits, Section, ConfigFile)
        message = f"unknown key {key!r}{did_you_mean(key, known)}"
    else:
        message = message[:1].lower() + message[1:]
    tool = str(loc[4]) if len(loc) > 4 and loc[0] == "toolsearch" and loc[3] == "tools" else None
    return UsageError(message, file=document.file, line=document.line_of(pointer), tool=tool, field=pointer)


def _data_path(data: Any, loc: list[Any], missing: bool) -> list[Any]:
    """Pydantic's error location as a path in the data: the names it gives the members of a union
    it tried (``str``, ``list[str]``...) are no keys of the document and are left out."""
    node, kept = data, []
    for i, part in enumerate(loc):
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(node, dict) and missing and i == len(loc) - 1:
            pass  # the key that should be there
        else:
            continue
        kept.append(part)
    return kept


def _keys_of(*models: type[BaseModel]) -> list[str]:
    return [f.alias or n for m in models for n, f in m.model_fields.items()]


def _resolve(parsed: ConfigFile, document: Any, path: Path, environ: dict[str, str]) -> GatewayConfig:
    file = document.file
    if parsed.mcp_servers is not None and parsed.servers is not None:
        raise UsageError(
            "the file has both 'mcpServers' (Claude Desktop, Cursor) and 'servers' (VS Code); keep one",
            file=file,
            line=document.line_of("/servers"),
            field="servers",
        )
    key = "servers" if parsed.servers is not None else "mcpServers"
    entries = parsed.servers if parsed.servers is not None else (parsed.mcp_servers or {})
    if not entries:
        raise UsageError(
            f'no servers in the file (expected {{"{key}": {{"NAME": {{"command": ...}}}}}})',
            file=file,
            line=document.line_of(f"/{key}") or 1,
            field=key,
        )
    if len(entries) > MAX_SERVERS:
        raise UsageError(f"{len(entries)} servers; at most {MAX_SERVERS}", file=file, field=key)
    inputs = {i.id: i for i in parsed.inputs}
    subst = _Substitution(file, document, path, environ, inputs)
    servers: list[ServerLaunch] = []
    disabled: list[str] = []
    taken: set[str] = {"toolSearch", "callTool"}
    for name, entry in entries.items():
        at = f"/{key}/{_escape(name)}"
        if entry.disabled:
            disabled.append(name)
            continue
        alias = _alias(name, taken)
        taken.add(alias)
        required = _required(entry, parsed.toolsearch.servers.get(name), at, document)
        servers.append(_server(name, alias, entry, at, subst, required=required))
    section = parsed.toolsearch
    known = set(entries)
    for name in section.servers:
        if name not in known:
            raise UsageError(
                f"no server {name!r} in {key}{did_you_mean(name, known)}",
                file=file,
                line=document.line_of(f"/toolsearch/servers/{_escape(name)}"),
                field=f"/toolsearch/servers/{name}",
            )
    _check_section(section, document)
    return GatewayConfig(file=file, servers=servers, section=section, disabled=disabled)


def _required(entry: ServerEntry, policy: ServerPolicy | None, at: str, document: Any) -> bool:
    """Whether ``/readyz`` waits for the server: its entry's ``required`` or its policy's (both
    given: they must agree); by default it does."""
    said = policy.required if policy is not None and "required" in policy.model_fields_set else None
    if entry.required is not None and said is not None and entry.required != said:
        pointer = f"/toolsearch/servers/{at.split('/', 2)[2]}/required"
        raise UsageError(
            f"'required' is {str(said).lower()} here and {str(entry.required).lower()} in {at}; give it once",
            file=document.file,
            line=document.line_of(pointer),
            field=pointer,
        )
    for value in (entry.required, said):
        if value is not None:
            return value
    return True


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _alias(name: str, taken: set[str]) -> str:
    """A config's server name as a source alias (letters, digits, ``_``, ``-``; a letter first)."""
    alias = name if _ALIAS.match(name) else re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_-") or "server"
    if not alias[0].isalpha():
        alias = f"s_{alias}"
    alias = alias[:48]
    base, n = alias, 2
    while alias in taken:
        alias, n = f"{base}_{n}", n + 1
    return alias


def _server(
    name: str, alias: str, entry: ServerEntry, at: str, subst: _Substitution, *, required: bool
) -> ServerLaunch:
    file, document = subst.file, subst.document
    kind = entry.type
    if kind in ("streamable-http", "streamableHttp"):
        kind = "http"
    if kind is None:
        kind = "http" if entry.url is not None and entry.command is None else "stdio"
    if kind == "sse":
        raise UsageError(
            "type 'sse' (the HTTP+SSE transport of 2024-11-05) is not served by the gateway; give the "
            "server's streamable HTTP endpoint with type 'http'",
            file=file,
            line=document.line_of(f"{at}/type"),
            field=f"{at}/type",
        )
    if kind == "stdio":
        if entry.command is None or not entry.command.strip():
            raise UsageError(
                "a stdio server needs 'command'" + (" (or type 'http' for 'url')" if entry.url else ""),
                file=file,
                line=document.line_of(at),
                field=f"{at}/command",
            )
        if entry.url is not None:
            raise UsageError(
                "a server has 'command' or 'url', not both", file=file, line=document.line_of(f"{at}/url"), field=at
            )
        command = [subst(entry.command, f"{at}/command")]
        command += [subst(arg, f"{at}/args/{i}") for i, arg in enumerate(entry.args)]
        env: dict[str, str] = {}
        if entry.env_file is not None:
            env.update(_env_file(subst(entry.env_file, f"{at}/envFile"), subst, f"{at}/envFile"))
        for key, value in entry.env.items():
            if value is None:
                continue
            env[key] = subst(value, f"{at}/env/{_escape(key)}")
        cwd = subst(entry.cwd, f"{at}/cwd") if entry.cwd is not None else None
        if entry.headers:
            raise UsageError(
                "'headers' are for an HTTP server", file=file, line=document.line_of(f"{at}/headers"), field=at
            )
        _register_secrets(env.values())
        return ServerLaunch(
            name, alias, f"{alias}=mcp+stdio:{shlex.join(command)}", "stdio", env=env, cwd=cwd, required=required
        )
    if entry.url is None or not entry.url.strip():
        raise UsageError("an HTTP server needs 'url'", file=file, line=document.line_of(at), field=f"{at}/url")
    if entry.command is not None:
        raise UsageError(
            "a server has 'command' or 'url', not both", file=file, line=document.line_of(f"{at}/command"), field=at
        )
    url = subst(entry.url, f"{at}/url")
    if not re.match(r"^https?://[^\s]+$", url):
        raise UsageError(
            "'url' must be an http:// or https:// address",
            file=file,
            line=document.line_of(f"{at}/url"),
            field=f"{at}/url",
        )
    headers = {k: subst(v, f"{at}/headers/{_escape(k)}") for k, v in entry.headers.items()}
    for key, value in headers.items():
        if "\n" in key or "\r" in key or "\n" in value or "\r" in value:
            raise UsageError(
                "a header name or value has a line break",
                file=file,
                line=document.line_of(f"{at}/headers"),
                field=f"{at}/headers/{key}",
            )
    _register_secrets(headers.values())
    from ..redaction import register_url

    register_url(url)
    return ServerLaunch(name, alias, f"{alias}=mcp+{url}", "http", headers=headers, required=required)


def _register_secrets(values: Any) -> None:
    from ..redaction import register

    for value in values:
        if len(value) >= 6:  # short values ("1", "true", "info") would mask ordinary words everywhere
            register(value)


def _env_file(path: str, subst: _Substitution, at: str) -> dict[str, str]:
    """A VS Code ``envFile``: ``KEY=VALUE`` lines (``#`` comments, optional quotes, ``export``)."""
    from ..files import read_text

    where = Path(path) if Path(path).is_absolute() else subst.path.parent / path
    text = read_text(where, str(where), what="cannot read envFile", error=UsageError)
    out: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key):
            raise UsageError("expected KEY=VALUE", file=str(where), line=number, field="envFile")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key] = value
    return out


class _Substitution:
    """``${...}`` in a config value: the forms VS Code and Cursor write that have a meaning without
    an editor; any other is refused in one line (never passed on as text)."""

    def __init__(
        self, file: str, document: Any, path: Path, environ: dict[str, str], inputs: dict[str, InputEntry]
    ) -> None:
        self.file, self.document, self.path, self.environ, self.inputs = file, document, path, environ, inputs

    def __call__(self, value: str, pointer: str) -> str:
        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            kind, sep, arg = name.partition(":")
            if sep and kind == "env":
                if arg not in self.environ:
                    self._fail(f"${{env:{arg}}}: the variable {arg} is not set", pointer)
                return self.environ[arg]
            if sep and kind == "input":
                return self._input(arg, pointer)
            if name == "userHome":
                return str(Path.home())
            if name in ("pathSeparator", "/"):
                return os.sep
            if name == "workspaceFolder":
                parent = self.path.resolve().parent
                if parent.name in (".vscode", ".cursor"):
                    return str(parent.parent)
                self._fail(
                    "${workspaceFolder} has a meaning only in a workspace's .vscode/ or .cursor/ config", pointer
                )
            shown = name if len(name) <= 40 else name[:37] + "..."
            self._fail(f"unsupported substitution ${{{shown}}}; supported: {', '.join(SUBSTITUTIONS)}", pointer)
            raise AssertionError  # unreachable: _fail raises

        return _SUBSTITUTION.sub(one, value)

    def _input(self, ident: str, pointer: str) -> str:
        variable = input_variable(ident)
        if variable in self.environ:
            return self.environ[variable]
        declared = self.inputs.get(ident)
        if declared is not None and declared.default is not None:
            return declared.default
        said = "" if declared is not None else " (and 'inputs' does not declare it)"
        self._fail(
            f"${{input:{ident}}} has no value{said}: the gateway cannot prompt, set {variable} "
            "(`toolsearch serve --import-client vscode` has VS Code pass it)",
            pointer,
        )
        raise AssertionError

    def _fail(self, message: str, pointer: str) -> None:
        raise UsageError(message, file=self.file, line=self.document.line_of(pointer), field=pointer)


def input_variable(ident: str) -> str:
    """The environment variable a ``${input:ID}`` is read from (the gateway cannot prompt: over
    stdio its stdin is the MCP channel)."""
    from ..environment import input_variable as variable

    return variable(ident)


def _check_known(lookup: Callable[[str], object], name: str, document: Any, pointer: str) -> None:
    """``lookup(name)`` (a ranker or policy by name), its error as the config's one-line error at
    ``pointer``."""
    try:
        lookup(name)
    except Exception as exc:  # noqa: BLE001 - its own one-line message (with a did-you-mean)
        raise UsageError(
            getattr(exc, "message", str(exc)), file=document.file, line=document.line_of(pointer), field=pointer
        ) from None


def _check_section(section: Section, document: Any) -> None:
    """What the types alone do not say: known ranker and list-changed policy, valid and distinct
    renamed names, requires values."""
    from ..catalog.names import provider_name

    file = document.file
    if section.ranker is not None:
        from ..search import get_ranker

        _check_known(get_ranker, section.ranker, document, "/toolsearch/ranker")
    if section.policy is not None:
        from ..disclosure.policy import get_policy

        _check_known(get_policy, section.policy, document, "/toolsearch/policy")
    renamed: dict[str, str] = {}
    for server, rules in section.servers.items():
        base = f"/toolsearch/servers/{_escape(server)}"
        _check_requires(rules.requires, document, f"{base}/requires", None)
        for tool, rule in rules.tools.items():
            at = f"{base}/tools/{_escape(tool)}"
            _check_requires(rule.requires, document, f"{at}/requires", tool)
            if rule.rename is not None:
                if provider_name(rule.rename, "tool", squeeze=False) != rule.rename or rule.rename in (
                    "toolSearch",
                    "callTool",
                ):
                    raise UsageError(
                        f"{rule.rename!r} is not a name a client accepts (letters, digits, _ and -, up to 64; "
                        "not toolSearch or callTool)",
                        file=file,
                        line=document.line_of(f"{at}/rename"),
                        tool=tool,
                        field=f"{at}/rename",
                    )
                if rule.rename in renamed:
                    raise UsageError(
                        f"{rule.rename!r} is already the new name of {renamed[rule.rename]!r}",
                        file=file,
                        line=document.line_of(f"{at}/rename"),
                        tool=tool,
                        field=f"{at}/rename",
                    )
                renamed[rule.rename] = tool
            for i, alias in enumerate(rule.aliases):
                if not alias.strip() or len(alias) > 200:
                    raise UsageError(
                        "an alias is a non-empty phrase of at most 200 characters",
                        file=file,
                        line=document.line_of(f"{at}/aliases/{i}"),
                        tool=tool,
                        field=f"{at}/aliases/{i}",
                    )


def _check_requires(requires: Requires, document: Any, pointer: str, tool: str | None) -> None:
    for key, value in requires.items():
        values = [value] if isinstance(value, str) else value
        if not key.strip() or not values or any(not v.strip() for v in values):
            raise UsageError(
                "requires maps an attribute to a value or a list of values ('*': any)",
                file=document.file,
                line=document.line_of(pointer),
                tool=tool,
                field=f"{pointer}/{key}",
            )


# -- JSON with comments (VS Code) ---------------------------------------------------------------


def strip_jsonc(text: str) -> str:
    """``text`` with ``//`` and ``/* */`` comments and trailing commas blanked out (spaces; line
    breaks kept, so every line number stays right). Strings are left as they are."""
    if "/" not in text and "," not in text:
        return text
    out = list(text)
    i, n = 0, len(text)
    last_comma: int | None = None
    while i < n:
        ch = text[i]
        if ch == '"':
            last_comma = None
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if ch == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        if ch == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for j in range(i, end):
                if out[j] != "\n":
                    out[j] = " "
            i = end
            continue
        if ch == ",":
            last_comma = i
        elif ch in "}]":
            if last_comma is not None:
                out[last_comma] = " "
            last_comma = None
        elif not ch.isspace():
            last_comma = None
        i += 1
    return "".join(out)


# -- applying it to the command's options -------------------------------------------------------


def merge_options(config: GatewayConfig, options: dict[str, Any], explicit: set[str]) -> dict[str, Any]:
    """The command's options with the config's settings where the command line gave none
    (``explicit``: the option names the user typed or set through the environment)."""
    section = config.section
    out = dict(options)

    def take(name: str, value: Any, option: str | None = None) -> None:
        if value is not None and (option or name) not in explicit:
            out[name] = value

    take("ranker", section.ranker)
    take("disclose", section.disclose)
    take("policy", section.policy)
    take("context_header", section.context_header)
    take("default_max_results", section.limits.max_results, "max_results")
    take("max_active", section.limits.max_active)
    take("timeout", section.limits.timeout)
    context = dict(section.context)
    context.update(out.get("context") or {})  # --context wins, key by key
    out["context"] = context
    out["sources"] = [*config.sources, *out.get("sources", [])]
    out["launch"] = config.launch
    out["tool_policy"] = config.tool_policy()
    out["required"] = config.required_aliases
    if section.model is not None and "embed_model" not in explicit:
        import dataclasses

        from ..search.embed_settings import default_settings

        embed = out.get("embed") or default_settings()
        if embed.model is None:
            out["embed"] = dataclasses.replace(embed, model=section.model)
    return out
