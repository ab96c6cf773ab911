"""Python-module catalogs: functions marked with :func:`tool`, and/or a module-level ``TOOLS`` list.

The parameter schema comes from type hints (pydantic writes the JSON Schema), the description
and parameter descriptions from the docstring (Google style ``Args:``). Decorated functions
stay plain callables.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import traceback
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from ..bounded import TOOL_DATA_DEPTH, too_deep_node
from ..errors import CatalogError, kind_of
from ..model import Location, Tool
from .result import LoadResult
from .schema import check_schema

F = TypeVar("F", bound=Callable[..., Any])

_MARK = "__toolsearch_tool__"


def tool(
    func: F | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    category: str | None = None,
    tags: list[str] | None = None,
    examples: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
    resident: bool = False,
    lint: dict[str, Any] | None = None,
    mock: Any = None,
) -> Any:
    """Mark a function as a catalog tool; usable bare (``@tool``) or with options.

    ``lint={"ignore": ["TS104"]}`` turns lint rules off for this tool.
    """
    options = {
        "name": name,
        "description": description,
        "category": category,
        "tags": list(tags or []),
        "examples": list(examples or []),
        "metadata": dict(metadata or {}),
        "resident": resident,
        "lint": dict(lint or {}),
        "mock": mock,
    }

    def mark(f: F) -> F:
        setattr(f, _MARK, options)
        return f

    return mark(func) if func is not None else mark


_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Returns|Return|Yields|Raises|Examples?|Notes?|See Also)\s*:\s*$")
_ARG = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


_SPHINX_FIELD = re.compile(r"^\s*:(\w+)(?:\s+([^:]*?))?\s*:\s*(.*)$")
_SPHINX_PARAM = frozenset({"param", "parameter", "arg", "argument", "key", "keyword"})
_NUMPY_RULE = re.compile(r"^\s*-{3,}\s*$")
_NUMPY_PARAMS = frozenset({"parameters", "params", "arguments", "args", "other parameters", "keyword arguments"})


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into (summary text, {argument: description}): Google style (``Args:``),
    Sphinx (``:param name: text``) or NumPy (``Parameters`` over a ``----------`` rule)."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    if any(_sphinx_param(line) for line in lines):
        return _parse_sphinx(lines)
    if any(_NUMPY_RULE.match(lines[i + 1]) and lines[i].strip() for i in range(len(lines) - 1)):
        return _parse_numpy(lines)
    return _parse_google(lines)


def _sphinx_param(line: str) -> re.Match[str] | None:
    match = _SPHINX_FIELD.match(line)
    return match if match and match.group(1).lower() in _SPHINX_PARAM and match.group(2) else None


def _parse_sphinx(lines: list[str]) -> tuple[str, dict[str, str]]:
    summary: list[str] = []
    args: dict[str, str] = {}
    current: str | None = None
    in_fields = False
    for line in lines:
        field = _SPHINX_FIELD.match(line)
        if field:
            in_fields = True
            current = None
            if _sphinx_param(line):
                current = (field.group(2) or "").split()[-1].lstrip("*")  # ":param int days:" names 'days'
                args[current] = field.group(3).strip()
            continue
        if not in_fields:
            summary.append(line)
        elif current is not None and line.strip():
            args[current] = f"{args[current]} {line.strip()}".strip()
    return " ".join(" ".join(summary).split()), args


def _parse_numpy(lines: list[str]) -> tuple[str, dict[str, str]]:
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: list[str] = []
    base_indent: int | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and _NUMPY_RULE.match(lines[i + 1]) and line.strip():
            section, current, base_indent = line.strip().lower(), [], None
            i += 2
            continue
        if section is None:
            summary.append(line)
        elif section in _NUMPY_PARAMS and line.strip():
            indent = len(line) - len(line.lstrip())
            if base_indent is None or indent <= base_indent:
                base_indent = indent
                names = line.split(":", 1)[0]
                current = [n.strip().lstrip("*") for n in names.split(",") if n.strip()]
                for name in current:
                    args[name] = ""
            else:
                for name in current:
                    args[name] = f"{args[name]} {line.strip()}".strip()
        i += 1
    return " ".join(" ".join(summary).split()), args


def _parse_google(lines: list[str]) -> tuple[str, dict[str, str]]:
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    arg_indent = None
    for line in lines:
        header = _SECTION.match(line)
        if header:
            section = header.group(1).lower()
            current, arg_indent = None, None
            continue
        if section is None:
            summary.append(line)
        elif section in ("args", "arguments", "parameters"):
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip())
            match = _ARG.match(line)
            if match and (arg_indent is None or indent <= arg_indent):
                arg_indent = indent
                current = match.group(1)
                args[current] = match.group(3).strip()
            elif current is not None:
                args[current] = f"{args[current]} {line.strip()}".strip()
    text = " ".join(" ".join(summary).split())
    return text, args


def tool_from_function(func: Callable[..., Any], options: dict[str, Any] | None = None) -> Tool:
    """Build a :class:`Tool` from a function's signature, type hints and docstring."""
    from pydantic import ConfigDict, Field, create_model

    options = options or getattr(func, _MARK, None) or {}
    summary, arg_docs = parse_docstring(func.__doc__)
    name = options.get("name") or func.__name__
    try:
        signature = inspect.signature(func)
        hints = typing.get_type_hints(func, include_extras=True)  # Annotated[..., Field(...)] keeps its limits
    except (TypeError, ValueError, NameError) as exc:
        raise CatalogError(f"cannot read the signature: {exc}", tool=name, field="parameters") from exc
    fields: dict[str, Any] = {}
    for pname, param in signature.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if param.kind is param.POSITIONAL_ONLY:  # a tool is called with named arguments only
            raise CatalogError(
                f"parameter {pname!r} is positional-only, but tools are called with named arguments; "
                "remove the '/' from the signature",
                tool=name,
                field=f"parameters.{pname}",
            )
        annotation = hints.get(pname, Any)
        default = ... if param.default is param.empty else param.default
        described = arg_docs.get(pname) or _annotated_text(annotation)
        # a description=None would override the one an Annotated[..., Field(description=...)] gives
        fields[pname] = (annotation, Field(default, description=described) if described else Field(default))
    try:
        model = create_model(f"{name}Args", __config__=ConfigDict(arbitrary_types_allowed=False), **fields)
        schema = model.model_json_schema()
    except Exception as exc:  # pydantic raises several types for unsupported hints
        raise CatalogError(
            f"cannot build a JSON Schema from the type hints: {str(exc).splitlines()[0]}",
            tool=name,
            field="parameters",
        ) from exc
    schema = _strip_titles(schema)
    schema.setdefault("properties", {})
    source = _def_location(func)
    return Tool(
        name=name,
        description=options.get("description") or summary,
        parameters=schema,
        category=options.get("category"),
        tags=options.get("tags", []),
        examples=options.get("examples", []),
        metadata=options.get("metadata", {}),
        source=source,
        function=func,
        lint=options.get("lint", {}),
        mock=options.get("mock"),
    )


def _annotated_text(annotation: Any) -> str | None:
    """The description ``Annotated[str, "the city"]`` gives (a plain string in the metadata, as
    LangChain reads it); a ``Field(description=...)`` in the metadata is pydantic's own to read."""
    if typing.get_origin(annotation) is typing.Annotated:
        texts = [extra for extra in annotation.__metadata__ if isinstance(extra, str) and extra.strip()]
        return texts[0].strip() if texts else None
    return None


_DATA_KEYWORDS = frozenset({"default", "enum", "const", "examples"})


def _strip_titles(schema: Any, parent_key: str = "") -> Any:
    """Drop pydantic's generated ``title`` keys (noise in a tool definition), not property names."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "title" and isinstance(value, str) and parent_key != "properties":
                continue
            # values of data keywords are data, not schemas: keep them as they are
            out[key] = value if key in _DATA_KEYWORDS else _strip_titles(value, key)
        return out
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


def _def_location(func: Callable[..., Any]) -> Location | None:
    """The location of the ``def`` line (not the decorator line)."""
    try:
        file = inspect.getsourcefile(func)
        lines, start = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return None
    for offset, text in enumerate(lines):
        stripped = text.lstrip()
        if stripped.startswith(("def ", "async def ")):
            return Location(file=_display(file or "?"), line=start + offset, column=len(text) - len(stripped) + 1)
    return Location(file=_display(file or "?"), line=start)


def _display(file: str) -> str:
    try:
        return str(Path(file).resolve().relative_to(Path.cwd()))
    except ValueError:
        return file


@contextlib.contextmanager
def user_code_output() -> Iterator[None]:
    """While inside, what user code (a catalog module, an executed tool) prints to standard
    output goes to standard error, so it cannot corrupt toolsearch's own output (JSON, SARIF,
    a converted catalog). Both ``print`` and writes to file descriptor 1 are redirected."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(Exception):
                stream.flush()
    saved: int | None
    try:
        saved = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no descriptor 1 or 2 (an embedded interpreter): Python-level only
        saved = None
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        if saved is not None:
            os.dup2(saved, 1)
            os.close(saved)


def load_python_module(source: str) -> LoadResult:
    """Import a module by dotted name or ``.py`` path and collect its tools and resident names.

    Importing runs the module's code: what it prints goes to standard error; Ctrl-C (a module
    that loops while imported) interrupts toolsearch instead of becoming an import error.
    """
    with user_code_output():
        return _load_python_module(source)


def _load_python_module(source: str) -> LoadResult:
    if source.endswith(".py"):
        path = Path(source)
        module_name = f"_toolsearch_catalog_{abs(hash(str(path.resolve())))}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise CatalogError("cannot import this file as a Python module", file=source)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        parent = str(path.resolve().parent)
        added = parent not in sys.path
        if added:
            sys.path.insert(0, parent)
        try:
            spec.loader.exec_module(module)
        except KeyboardInterrupt:
            sys.modules.pop(module_name, None)
            raise
        except BaseException as exc:  # noqa: BLE001 - any failure of user code becomes one line
            sys.modules.pop(module_name, None)
            raise _import_error(exc, source, str(path.resolve())) from exc
        finally:
            if added:
                sys.path.remove(parent)
        display = source
    else:
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        try:
            module = importlib.import_module(source)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001
            origin = (
                getattr(importlib.util.find_spec(source.split(".")[0]), "origin", None)
                if not isinstance(exc, ModuleNotFoundError)
                else None
            )
            raise _import_error(exc, source, origin) from exc
        display = source
    return _collect(module, display)


def _import_error(exc: BaseException, display: str, real_path: str | None) -> CatalogError:
    if isinstance(exc, SyntaxError):
        return CatalogError(f"cannot import: SyntaxError: {exc.msg}", file=display, line=exc.lineno)
    if isinstance(exc, ModuleNotFoundError) and real_path is None:
        return CatalogError(
            f"no module named {exc.name!r}; give a path to a .py file or a module importable from here",
            file=display,
        )
    line = None
    if real_path:
        for frame in traceback.extract_tb(exc.__traceback__):
            if Path(frame.filename).resolve() == Path(real_path).resolve():
                line = frame.lineno
    message = str(exc).splitlines()[0] if str(exc) else ""
    return CatalogError(f"cannot import: {type(exc).__name__}: {message}".rstrip(": "), file=display, line=line)


def _check_listed_tool(tool: Tool, display: str) -> None:
    """A ``Tool`` object in ``TOOLS`` holds what a catalog file may hold: a name, text fields, a JSON
    Schema object as parameters, and JSON data (no NaN, no deeper nesting than files may have)."""
    import json

    name = tool.name if isinstance(tool.name, str) and tool.name.strip() else None

    def fail(field: str, message: str) -> CatalogError:
        return CatalogError(message, file=display, tool=name, field=field)

    if name is None:
        raise fail("name", f"a tool in TOOLS needs a non-empty string name, not {kind_of(tool.name)}")
    for field in ("description", "category"):
        value = getattr(tool, field)
        if not isinstance(value, str) and not (field == "category" and value is None):
            raise fail(field, f"must be a string, not {kind_of(value)}")
    for field in ("tags", "examples"):
        value = getattr(tool, field)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise fail(field, f"must be a list of strings, not {kind_of(value)}")
    if not isinstance(tool.metadata, dict):
        raise fail("metadata", f"must be a mapping, not {kind_of(tool.metadata)}")
    if not isinstance(tool.parameters, dict):
        raise fail("parameters", f"must be a JSON Schema mapping, not {kind_of(tool.parameters)}")
    for field in ("parameters", "metadata", "mock"):
        value = getattr(tool, field)
        if too_deep_node(value, TOOL_DATA_DEPTH) is not None:  # room for the levels of a converted file
            raise fail(field, f"nested deeper than {TOOL_DATA_DEPTH} levels of lists and mappings")
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise fail(field, f"must be JSON data: {exc}") from None
    check_schema(tool.parameters, "parameters", fail)
    if tool.parameters and tool.parameters.get("type", "object") != "object":
        raise fail("parameters", f"the parameters schema must have type 'object', not {tool.parameters['type']!r}")


def framework_tool(obj: Any, display: str) -> Tool | None:
    """A tool object of another framework, recognised by its attributes (neither is imported):
    LangChain's ``BaseTool``/``StructuredTool`` (``name``, ``description``, ``tool_call_schema``
    or ``args_schema``: a pydantic model or a JSON Schema) and openai-agents' ``FunctionTool``
    (``name``, ``description``, ``params_json_schema``, ``strict_json_schema``). ``None``: neither."""
    name = getattr(obj, "name", None)
    if isinstance(obj, type) or not isinstance(name, str) or not isinstance(getattr(obj, "description", ""), str):
        return None
    metadata: dict[str, Any] = {}
    function: Callable[..., Any] | None = None
    agents_schema = getattr(obj, "params_json_schema", None)
    if isinstance(agents_schema, dict) and hasattr(obj, "on_invoke_tool"):
        schema: Any = agents_schema
        if isinstance(getattr(obj, "strict_json_schema", None), bool):
            metadata["openai"] = {"strict": obj.strict_json_schema}
    else:
        model = getattr(obj, "tool_call_schema", None) or getattr(obj, "args_schema", None)
        if isinstance(model, dict):
            schema = model
        elif isinstance(model, type) and hasattr(model, "model_json_schema"):
            try:
                schema = model.model_json_schema()
            except Exception as exc:  # noqa: BLE001 - pydantic raises several types for unsupported hints
                raise CatalogError(
                    f"cannot build a JSON Schema from its arguments: {str(exc).splitlines()[0]}",
                    file=display,
                    tool=name,
                    field="parameters",
                ) from exc
        else:
            return None
        invoke = getattr(obj, "invoke", None)
        if callable(invoke):

            def function(**arguments: Any) -> Any:
                return invoke(arguments)

    description = (getattr(obj, "description", "") or "").strip()
    schema = _strip_titles(schema) if isinstance(schema, dict) else schema
    if isinstance(schema, dict) and schema.get("description") == description:
        schema = {k: v for k, v in schema.items() if k != "description"}  # the tool's own, repeated
    if isinstance(schema, dict):
        schema.setdefault("type", "object")
        schema.setdefault("properties", {})
    underlying = getattr(obj, "func", None) or getattr(obj, "coroutine", None)
    where = _def_location(underlying) if callable(underlying) else None
    return Tool(
        name=name,
        description=description,
        parameters=schema,
        metadata=metadata,
        source=where or Location(file=display),
        function=function,
    )


def _collect(module: Any, display: str) -> LoadResult:
    tools: list[Tool] = []
    resident: list[str] = []
    seen: set[int] = set()

    def add(obj: Any, options: dict[str, Any] | None) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, Tool):
            _check_listed_tool(obj, display)
            tools.append(obj if obj.source else obj.copy_with(source=Location(file=display)))
            return
        try:
            built = tool_from_function(obj, options)
        except CatalogError as exc:
            loc = _def_location(obj)
            exc.file, exc.line = (loc.file, loc.line) if loc else (display, None)
            raise
        tools.append(built)
        if (options or {}).get("resident"):
            resident.append(built.name)

    for value in list(vars(module).values()):
        if callable(value) and hasattr(value, _MARK) and getattr(value, "__module__", None) == module.__name__:
            add(value, getattr(value, _MARK))
    listed = getattr(module, "TOOLS", None)
    if listed is not None:
        if not isinstance(listed, list | tuple):
            raise CatalogError("TOOLS must be a list of Tool objects or functions", file=display, field="TOOLS")
        for i, entry in enumerate(listed):
            framework = None if isinstance(entry, Tool) else framework_tool(entry, display)
            if framework is not None:
                _check_listed_tool(framework, display)
                tools.append(framework)
            elif isinstance(entry, Tool) or callable(entry):
                add(entry, getattr(entry, _MARK, None))
            else:
                raise CatalogError(
                    f"TOOLS[{i}] is {type(entry).__name__}; expected a Tool or a function", file=display, field="TOOLS"
                )
    listed_resident = getattr(module, "RESIDENT", []) or []
    if not isinstance(listed_resident, list | tuple) or not all(isinstance(n, str) for n in listed_resident):
        raise CatalogError(
            f"RESIDENT must be a list of tool names, not {kind_of(listed_resident)}", file=display, field="RESIDENT"
        )
    for name in listed_resident:
        if name not in resident:
            resident.append(name)
    if not tools:
        raise CatalogError(
            "the module defines no tools: mark functions with @toolsearch_cli.tool or define TOOLS = [...]",
            file=display,
        )
    return LoadResult(tools=tools, resident=resident)
