"""Labelled query sets: read from YAML/JSON/JSONL files or made from a catalog's own ``examples``,
and checked against the catalog they are run on. Errors name the file, line and field."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bounded import json_lines, loads_json
from ..errors import CatalogError, UsageError, did_you_mean, kind_of
from ..files import read_text
from ..model import Catalog
from ..search.text import classic_normalize

#: The fields of a query; other fields are kept in ``Query.extra`` (see ``--category-field``).
QUERY_FIELDS = ("id", "query", "relevant", "subset")


@dataclass(slots=True)
class Query:
    """One labelled query: the text and the names of the tools that answer it."""

    id: str
    query: str
    relevant: list[str]
    subset: str | None = None
    #: Fields beyond id/query/relevant/subset, as written (e.g. a category for ``--category-field``).
    extra: dict[str, Any] = field(default_factory=dict)
    file: str | None = None
    line: int | None = None
    #: Line of each field, when known (YAML files).
    field_lines: dict[str, int] = field(default_factory=dict)

    def value(self, name: str) -> Any:
        """The value of a field (``subset`` or an extra field), ``None`` when absent."""
        if name == "subset":
            return self.subset
        if name in ("id", "query"):
            return getattr(self, name)
        return self.extra.get(name)

    def error(self, message: str, field: str | None = None, tool: str | None = None) -> CatalogError:
        """A CatalogError pointing at this query (at the field's line when known)."""
        line = self.field_lines.get(field, self.line) if field else self.line
        return CatalogError(f"query {self.id!r}: {message}", file=self.file, line=line, field=field, tool=tool)


def load_queries(path: str | Path) -> list[Query]:
    """Read a queries file: a list of ``{id, query, relevant: [names], subset?}``.

    ``.json`` files hold a JSON list, ``.jsonl``/``.ndjson`` one JSON object per line, anything
    else is YAML. Errors name the file and line.
    """
    file = str(path)
    text = read_text(path, file)
    suffix = Path(path).suffix.lower()
    items: list[tuple[Any, int | None]]
    if suffix == ".json":
        items = _json_items(text, file)
    elif suffix in (".jsonl", ".ndjson"):
        items = _jsonl_items(text, file)
    else:
        from ..catalog.yaml_loader import parse_yaml  # PyYAML only for YAML queries files

        doc = parse_yaml(text, file)
        if doc is None:
            items = []
        elif not isinstance(doc, list):
            raise CatalogError("a queries file must be a list of {id, query, relevant}", file=file, line=1)
        else:
            lines = getattr(doc, "item_lines", [])
            items = [(item, lines[i] if i < len(lines) else None) for i, item in enumerate(doc)]
    if not items:
        raise CatalogError("the queries file holds no queries; expected a list of {id, query, relevant}", file=file)
    out: list[Query] = []
    seen: dict[str, int | None] = {}
    for item, line in items:
        query = _query_from_item(item, file, line)
        if query.id in seen:
            first = f" (first at line {seen[query.id]})" if seen[query.id] else ""
            raise query.error(f"duplicate query id{first}; ids must be unique", field="id")
        seen[query.id] = query.line
        out.append(query)
    return out


def _json_items(text: str, file: str) -> list[tuple[Any, int | None]]:
    doc = loads_json(text, file)
    if not isinstance(doc, list):
        raise CatalogError("a JSON queries file must be a list of {id, query, relevant}", file=file, line=1)
    # The text is valid JSON: walk the list again to learn the line each item starts on.
    decoder = json.JSONDecoder()
    lines: list[int | None] = []
    pos = text.index("[") + 1
    line, counted = 1, 0
    for _ in doc:
        while text[pos] in " \t\r\n,":
            pos += 1
        line += text.count("\n", counted, pos)
        counted = pos
        lines.append(line)
        _, pos = decoder.raw_decode(text, pos)
    return list(zip(doc, lines, strict=True))


def _jsonl_items(text: str, file: str) -> list[tuple[Any, int | None]]:
    return list(json_lines(text, file))


def _query_from_item(item: Any, file: str, line: int | None) -> Query:
    if not isinstance(item, dict):
        raise CatalogError(
            f"each query must be a mapping {{id, query, relevant}}, not {kind_of(item, 'a value')}",
            file=file,
            line=line,
        )
    line = getattr(item, "line", line)
    key_lines = {str(k): v[0] for k, v in getattr(item, "key_lines", {}).items()}

    def fail(message: str, field: str) -> CatalogError:
        return CatalogError(message, file=file, line=key_lines.get(field, line), field=field)

    def missing(field: str, what: str) -> CatalogError:
        import difflib

        unknown = [str(k) for k in item if str(k) not in QUERY_FIELDS]
        typo = difflib.get_close_matches(field, unknown, n=1, cutoff=0.6)
        if typo:  # point at the misspelt key, and name the right one
            return CatalogError(
                f"each query needs {what}; is {typo[0]!r} a misspelling of {field!r}?",
                file=file,
                line=key_lines.get(typo[0], line),
                field=typo[0],
            )
        return fail(f"each query needs {what}", field)

    raw_id = item.get("id")
    if raw_id is None:
        raise missing("id", "an 'id' (a unique name for the query)")
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
        raise fail(f"'id' must be a string or a number, not {kind_of(raw_id, 'a value')}", "id")
    qid = str(raw_id)
    text = item.get("query")
    if text is None:
        raise missing("query", "a 'query' string")
    if not isinstance(text, str) or not text.strip():
        found = "a blank string" if isinstance(text, str) else kind_of(text, "a value")
        raise fail(f"query {qid!r}: 'query' must be a non-empty string, not {found}", "query")
    relevant = item.get("relevant")
    if relevant is None:
        raise missing("relevant", "'relevant': a non-empty list of tool names")
    if isinstance(relevant, str):
        raise fail(f"query {qid!r}: 'relevant' must be a list of tool names; write [{relevant!r}]", "relevant")
    if not isinstance(relevant, list) or not relevant or not all(isinstance(r, str) and r for r in relevant):
        raise fail(f"query {qid!r}: 'relevant' must be a non-empty list of tool names", "relevant")
    subset = item.get("subset")
    if subset is not None:
        if isinstance(subset, bool) or not isinstance(subset, str | int | float):
            raise fail(f"query {qid!r}: 'subset' must be a string, not {kind_of(subset, 'a value')}", "subset")
        subset = str(subset)
    return Query(
        id=qid,
        query=text,
        relevant=list(dict.fromkeys(relevant)),
        subset=subset,
        extra={str(k): v for k, v in item.items() if str(k) not in QUERY_FIELDS},
        file=file,
        line=line,
        field_lines=key_lines,
    )


def queries_from_examples(catalog: Catalog) -> list[Query]:
    """Each example of each searchable tool T as a query with relevant [T].

    The id is ``T#n`` (n from 1), the subset and the extra field ``category`` are T's category.
    """
    out: list[Query] = []
    for tool in catalog.searchable():
        where = tool.location_of("examples")
        for n, example in enumerate(tool.examples, 1):
            if not example.strip():
                continue
            out.append(
                Query(
                    id=f"{tool.name}#{n}",
                    query=example,
                    relevant=[tool.name],
                    subset=tool.category,
                    extra={"category": tool.category},
                    file=where.file if where else None,
                    line=where.line if where else None,
                )
            )
    return out


def check_field(queries: Sequence[Query], name: str, option: str) -> None:
    """A field named by an option (--by, --category-field) must be set in at least one query."""
    if not any(q.value(name) is not None for q in queries):
        fields = sorted({k for q in queries for k in q.extra} | {"subset" for q in queries if q.subset})
        raise UsageError(
            f"no query has the field {name!r} given by {option}"
            f"{did_you_mean(name, fields)}; fields: {', '.join(fields) or '(none)'}",
            field=option.lstrip("-"),
        )


def without_absent(queries: Sequence[Query], catalog: Catalog) -> tuple[list[Query], list[tuple[Query, list[str]]]]:
    """The queries whose relevant tools are all in the catalog, and the others with the names the
    catalog lacks (a live server that did not start, a file not loaded). A query is left out whole:
    scored on the tools that remain, its figures would mean something else."""
    kept: list[Query] = []
    skipped: list[tuple[Query, list[str]]] = []
    for q in queries:
        absent = [name for name in q.relevant if name not in catalog]
        if absent:
            skipped.append((q, absent))
        else:
            kept.append(q)
    return kept, skipped


def absent_warning(query: Query, absent: list[str], catalog: Catalog) -> str:
    """One line saying why a query is skipped, at its place in the query file."""
    first = absent[0]
    more = f" and {len(absent) - 1} more" if len(absent) > 1 else ""
    return str(
        query.error(
            f"names a tool that is not in the catalog{did_you_mean(first, catalog.names)}{more}; query skipped",
            field="relevant",
            tool=first,
        )
    )


def check_queries(queries: Sequence[Query], catalog: Catalog, category_field: str | None = None) -> None:
    """Every relevant tool must be searchable in the catalog; every category value must exist there."""
    resident = set(catalog.resident)
    names = catalog.names
    for q in queries:
        for name in q.relevant:
            if name not in catalog:
                raise q.error(
                    f"names a tool that is not in the catalog{did_you_mean(name, names)} "
                    f"({len(names)} tool{'s' if len(names) != 1 else ''})",
                    field="relevant",
                    tool=name,
                )
            if name in resident:
                raise q.error("names a resident tool, which search never returns", field="relevant", tool=name)
    if category_field is None:
        return
    check_field(queries, category_field, "--category-field")
    known = {classic_normalize(c): c for c in catalog.categories()}
    for q in queries:
        value = q.value(category_field)
        if value is None:
            continue
        if not isinstance(value, str):
            raise q.error(f"the category must be a string, not {kind_of(value, 'a value')}", field=category_field)
        if classic_normalize(value) not in known:
            raise q.error(
                f"no tool has category {value!r}{did_you_mean(value, known.values())}",
                field=category_field,
            )
