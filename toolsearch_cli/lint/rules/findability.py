"""TS6xx: findability, tied to the real ranker — do a tool's own example queries find it?

Every example query is searched once per lint run (shared by the rules of this family). Pairs
of confusable tools come from those rankings (who outranks whom) and from term overlap found
with prefix filtering, so neither check compares every tool with every other.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ...errors import SearchError, ToolsearchError
from ...model import Tool
from ...search import MAX_RESULTS_LIMIT, SearchRequest, get_ranker
from ..context import LintContext
from ..diagnostic import Finding, related_to
from ..rule import Options, Rule, ordinal, quote_list, terms

#: Tools listed as ranking above a missed tool in a message.
_SHOWN_ABOVE = 3
#: Confusable tools named in one finding of confusable-tools (the rest are counted).
_SHOWN_RIVALS = 3
#: How deep rankings are read (at least): enough to say how far off a miss is, cheap to compute.
_DEPTH = 10


@dataclass(slots=True)
class ExampleRank:
    """Where one example query of a tool ranked it, and which tools ranked above it."""

    query: str
    rank: int | None  # 1-based; None when not among the first ``depth`` results
    above: list[str] = field(default_factory=list)
    depth: int = _DEPTH
    #: Why the query could not be searched at all (only stop words, say), else ``None``.
    error: str | None = None


def example_ranks(ctx: LintContext, ranker: str, top_k: int = 1) -> dict[str, list[ExampleRank]]:
    """Tool name -> the rank of each of its example queries (searchable tools with examples only).

    Rankings are read ``max(10, top_k)`` deep and computed once per lint run and depth.
    """
    depth = min(MAX_RESULTS_LIMIT, max(_DEPTH, top_k))

    def build() -> dict[str, list[ExampleRank]]:
        catalog = ctx.catalog()
        engine = get_ranker(ranker, ctx.embed)
        out: dict[str, list[ExampleRank]] = {}
        for tool in catalog.searchable():
            results = []
            for query in tool.examples:
                if not query.strip():
                    continue
                try:
                    hits = engine.search(catalog, SearchRequest(query=query, max_results=depth, explain=False))
                except SearchError as exc:
                    results.append(ExampleRank(query, None, [], depth, exc.message))
                    continue
                names = [h.tool.name for h in hits]
                rank = names.index(tool.name) + 1 if tool.name in names else None
                results.append(ExampleRank(query, rank, names[: (rank or len(names) + 1) - 1], depth))
            if results:
                out[tool.name] = results
        return out

    return ctx.cached(f"example-ranks:{ranker}:{depth}", build)


def _describe(result: ExampleRank, name: str) -> str:
    if result.error:
        return f"example {result.query!r} cannot be searched: {result.error}"
    where = (
        f"ranks {name!r} {ordinal(result.rank)}" if result.rank else f"does not find {name!r} in the top {result.depth}"
    )
    above = f"; ranked above it: {quote_list(result.above, _SHOWN_ABOVE)}" if result.above else ""
    return f"example {result.query!r} {where}{above}"


def _ranked_tools(ctx: LintContext, options: Options) -> Iterator[tuple[Tool, list[ExampleRank], bool]]:
    """Each tool with examples, its examples' ranks, and whether any of them finds it in the top ``top-k``."""
    k = options["top-k"]
    catalog = ctx.catalog()
    for name, results in example_ranks(ctx, options["ranker"], k).items():
        tool = catalog.get(name)
        assert tool is not None
        yield tool, results, any(r.rank and r.rank <= k for r in results)


def _check_ranker(option: str, value: Any) -> str | None:
    """A ``ranker`` option must name a ranker, a ``top-k`` be 1 or more (checked when the
    configuration is read)."""
    if option == "top-k" and isinstance(value, int) and value < 1:
        return f"option 'top-k' must be 1 or more, not {value}"
    if option != "ranker":
        return None
    try:
        get_ranker(value)
    except ToolsearchError as exc:
        return exc.message
    return None


class ExampleNotFound(Rule):
    """## What it does
    Searches each `examples` query of a tool with the configured `ranker` and reports one that
    does not rank the tool within the top `top-k` (default 3). (A tool that none of its
    examples finds is reported once, by `unfindable-tool`.)

    ## Why is this bad?
    Examples are the queries users and models actually send. If search does not put the
    tool in the first few results for them, the model never sees the tool's definition and
    cannot call it. Fix the name, description or tags, or make the other tools distinct.

    ## Example
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        examples: ["what is the weather in Paris", "will it rain in Oslo tomorrow"]
      - name: getRainfallHistory
        description: Past rainfall totals for a city, per day. Will it rain? Use getWeather.
        examples: ["how much rain fell in Oslo last month"]
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast (rain, temperature, wind) for a city.
        examples: ["what is the weather in Paris", "will it rain in Oslo tomorrow"]
      - name: getRainfallHistory
        description: Past rainfall totals for a city, per day.
        examples: ["how much rain fell in Oslo last month"]
    ```
    """

    code = "TS601"
    name = "example-not-found"
    severity = "error"
    options = {"top-k": 3, "ranker": "default"}
    strict_options = {"top-k": 1}

    @classmethod
    def check_option(cls, option: str, value: Any) -> str | None:
        return _check_ranker(option, value)

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        k = options["top-k"]
        for tool, results, found in _ranked_tools(ctx, options):
            if not found:
                continue  # unfindable-tool reports the tool once
            name = tool.name
            for result in results:
                if not result.rank or result.rank > k:
                    yield Finding.at(
                        tool, "examples", f"{_describe(result, name)} (ranker {options['ranker']}, top {k} wanted)"
                    )


class UnfindableTool(Rule):
    """## What it does
    Reports a tool that none of its `examples` queries ranks within the top `top-k` with the
    configured `ranker`.

    ## Why is this bad?
    Nothing a user would type finds the tool: in a tool-search app it is as good as absent.
    Usually the description uses other words than users do, or another tool claims them.

    ## Example
    ```yaml
    tools:
      - name: rotateCredentials
        description: Invalidate and reissue the secret of a service principal.
        examples: ["change my API key"]
    ```

    ## Use instead
    ```yaml
    tools:
      - name: rotateCredentials
        description: Rotate an API key or secret of a service account; the old key stops working.
        examples: ["change my API key"]
    ```
    """

    code = "TS602"
    name = "unfindable-tool"
    severity = "error"
    options = {"top-k": 3, "ranker": "default"}
    strict_options = {"top-k": 1}

    @classmethod
    def check_option(cls, option: str, value: Any) -> str | None:
        return _check_ranker(option, value)

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        k = options["top-k"]
        for tool, results, found in _ranked_tools(ctx, options):
            if found:
                continue
            name = tool.name
            detail = "; ".join(_describe(r, name) for r in results[:3])
            more = f" (and {len(results) - 3} more)" if len(results) > 3 else ""
            yield Finding.at(
                tool,
                "examples",
                f"no example query finds {name!r} in the top {k} (ranker {options['ranker']}): {detail}{more}",
            )


class MissingExamples(Rule):
    """## What it does
    Reports a searchable tool with no `examples` (off by default; on in the `strict` preset).

    ## Why is this bad?
    Without example queries nobody can check that search finds the tool, and a change to
    another tool can push it out of the results unnoticed.

    ## Example
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
    ```

    ## Use instead
    ```yaml
    tools:
      - name: getWeather
        description: Get the current weather and the forecast for a city.
        examples: ["what's the weather in Paris", "will it rain in Oslo tomorrow"]
    ```
    """

    code = "TS603"
    name = "missing-examples"
    default_enabled = False

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        for tool in ctx.catalog().searchable():
            if not any(e.strip() for e in tool.examples):
                yield Finding.at(tool, "name", f"{tool.name!r} has no example queries to check findability with")


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _sentence_key(sentence: str) -> str:
    return " ".join(re.findall(r"\w+", sentence.casefold()))


def boilerplate_sentences(tools: list[Tool], min_tools: int) -> frozenset[str]:
    """Sentences (compared case- and punctuation-blind) found in the descriptions of at least
    ``min_tools`` tools: scopes, auth notes, "see the docs" lines that say nothing about one tool.
    ``min_tools`` below 2 finds none."""
    if min_tools < 2:
        return frozenset()
    counts: dict[str, int] = {}
    for tool in tools:
        for key in {_sentence_key(s) for s in _SENTENCE_END.split(tool.description)}:
            if key:
                counts[key] = counts.get(key, 0) + 1
    return frozenset(key for key, n in counts.items() if n >= min_tools)


def without_boilerplate(description: str, boilerplate: frozenset[str]) -> str:
    """The description less its boilerplate sentences (all of it when nothing else is left)."""
    if not boilerplate:
        return description
    kept = [s for s in _SENTENCE_END.split(description) if _sentence_key(s) not in boilerplate]
    return " ".join(kept) if any(_sentence_key(s) for s in kept) else description


def _own_name(tool: Tool) -> str:
    """The name without the ``alias__`` prefix of its MCP server (shared by all the server's tools,
    it tells none of them apart)."""
    server = tool.metadata.get("mcp_server")
    own = server.get("tool") if isinstance(server, dict) else None
    return own if isinstance(own, str) and own else tool.name


def overlapping_pairs(
    tools: list[Tool], threshold: float, min_terms: int, boilerplate: frozenset[str] = frozenset()
) -> dict[tuple[int, int], float]:
    """Pairs (i < j) whose name+description term sets have a Jaccard similarity >= threshold
    (the ``boilerplate`` sentences of descriptions left out).

    Prefix filtering: with terms ordered rarest first, two sets that reach the threshold must
    share one of the first ``|s| - ceil(threshold * |s|) + 1`` terms of each; only pairs sharing
    such a rare term are compared, instead of all n² pairs.
    """
    sets = [terms(f"{_own_name(t)} {without_boilerplate(t.description, boilerplate)}") for t in tools]
    df: dict[str, int] = {}
    for s in sets:
        for term in s:
            df[term] = df.get(term, 0) + 1
    index: dict[str, list[int]] = {}
    found: dict[tuple[int, int], float] = {}
    for j, s in enumerate(sets):
        if len(s) < min_terms:
            continue
        ordered = sorted(s, key=lambda t: (df[t], t))
        prefix = ordered[: len(s) - math.ceil(threshold * len(s)) + 1]
        candidates: set[int] = set()
        for term in prefix:
            postings = index.setdefault(term, [])
            candidates.update(postings)
            postings.append(j)
        for i in candidates:
            other = sets[i]
            if min(len(s), len(other)) < threshold * max(len(s), len(other)):
                continue  # sizes alone rule the threshold out
            shared = len(s & other)
            score = shared / (len(s) + len(other) - shared)
            if score >= threshold:
                found[(i, j)] = score
    return found


class ConfusableTools(Rule):
    """## What it does
    Reports tools a model or the ranker will mix up: two tools each of which ranks above the
    other for the other's `examples` (with `ranker`), or whose names and descriptions share at
    least `overlap-threshold` of their terms (Jaccard). Sentences found in the descriptions of
    `boilerplate-min-tools` tools or more (scope and auth notes, "see the docs" lines) are left
    out of the comparison (0 keeps them). One finding per tool, at the later one, naming every
    earlier tool it is confusable with (closest first) with their locations. MCP tools are
    compared without their server's alias prefix; one server loaded twice under two aliases
    (two folders, two accounts) is one finding for the pair of servers.

    ## Why is this bad?
    When two tools answer the same queries, search shows the model the wrong one or both,
    and the model picks between them by chance. Say in each description what it is for and
    when to use the other, or merge them.

    ## Example
    ```yaml
    tools:
      - name: sendMessage
        description: Send a chat message to a user or a channel.
        examples: ["message the team channel"]
      - name: postMessage
        description: Post a chat message to a channel or a user.
        examples: ["send a chat message to Bob"]
    ```

    ## Use instead
    ```yaml
    tools:
      - name: sendDirectMessage
        description: Send a private chat message to one user.
        examples: ["send a chat message to Bob"]
      - name: postChannelMessage
        description: Post a message to a team channel everyone in it can read.
        examples: ["message the team channel"]
    ```
    """

    code = "TS604"
    name = "confusable-tools"
    default_enabled = False
    opt_in_reason = (
        "Judged on real catalogs (benchmarks/lint_precision/judged.yaml): 8 of 20 findings were real; pairs "
        "told apart by one named word (add vs remove, customers vs carts) share most terms but are not "
        "confusable."
    )
    options = {"ranker": "default", "overlap-threshold": 0.7, "min-terms": 4, "boilerplate-min-tools": 3}
    strict_options = {"overlap-threshold": 0.6}

    @classmethod
    def check_option(cls, option: str, value: Any) -> str | None:
        return _check_ranker(option, value)

    def check(self, ctx: LintContext, options: Options) -> Iterator[Finding]:
        catalog = ctx.catalog()
        tools = catalog.searchable()
        position = {t.name: i for i, t in enumerate(tools)}
        #: (earlier, later) -> the reasons, and how close the pair is (ranking pairs first)
        reasons: dict[tuple[int, int], list[str]] = {}
        closeness: dict[tuple[int, int], float] = {}

        ranks = example_ranks(ctx, options["ranker"])
        beaten_by: dict[str, dict[str, str]] = {}  # tool -> {tool ranked above it: the example}
        for name, results in ranks.items():
            for result in results:
                for other in result.above:
                    beaten_by.setdefault(name, {}).setdefault(other, result.query)
        for a, rivals in beaten_by.items():
            for b, query in rivals.items():
                back = beaten_by.get(b, {}).get(a)
                if back is not None and position[a] < position[b]:
                    pair = (position[a], position[b])
                    reasons.setdefault(pair, []).append(
                        f"each ranks above the other for the other's examples ({query!r} puts {b!r} above {a!r}; "
                        f"{back!r} puts {a!r} above {b!r})"
                    )
                    closeness[pair] = 2.0

        threshold = options["overlap-threshold"]
        boilerplate = boilerplate_sentences(tools, options["boilerplate-min-tools"])
        outside = " outside boilerplate" if boilerplate else ""
        for pair, score in overlapping_pairs(tools, threshold, options["min-terms"], boilerplate).items():
            reasons.setdefault(pair, []).append(
                f"names and descriptions share {score:.0%} of their terms{outside} (threshold {threshold:.0%})"
            )
            closeness[pair] = closeness.get(pair, 0.0) + score

        yield from _server_twins(tools, reasons)
        rivals_of: dict[int, list[int]] = {}
        for i, j in reasons:
            rivals_of.setdefault(j, []).append(i)
        for j in sorted(rivals_of):
            second = tools[j]
            earlier = sorted(rivals_of[j], key=lambda i: (-closeness[(i, j)], i))
            shown = [f"{tools[i].name!r} ({'; '.join(reasons[(i, j)])})" for i in earlier[:_SHOWN_RIVALS]]
            more = f"; and {len(earlier) - _SHOWN_RIVALS} more" if len(earlier) > _SHOWN_RIVALS else ""
            if len(earlier) == 1:
                first = tools[earlier[0]].name
                what = f"{second.name!r} and {first!r} are confusable: {'; '.join(reasons[(earlier[0], j)])}"
                advice = "say in each description when to use it rather than the other"
            else:
                what = f"{second.name!r} is confusable with {len(earlier)} other tools: {'; '.join(shown)}{more}"
                advice = "say in each description when to use it rather than the others"
            yield Finding.at(
                second,
                "name",
                f"{what}; {advice}",
                [related_to(tools[i], f"confusable with {second.name!r}", "name") for i in earlier],
            )


def _twin_servers(a: Tool, b: Tool) -> tuple[str, str] | None:
    """The aliases of two MCP servers when ``a`` and ``b`` are one tool of the same server loaded
    twice (same own name, description and parameters), else ``None``."""
    first, second = a.metadata.get("mcp_server"), b.metadata.get("mcp_server")
    if not isinstance(first, dict) or not isinstance(second, dict) or first.get("name") == second.get("name"):
        return None
    if first.get("tool") != second.get("tool") or a.description != b.description or a.parameters != b.parameters:
        return None
    return str(first.get("name")), str(second.get("name"))


def _servers_of(tools: list[Tool], pair: tuple[int, int]) -> tuple[str, str] | None:
    first, second = (tools[k].metadata.get("mcp_server") for k in pair)
    if not isinstance(first, dict) or not isinstance(second, dict):
        return None
    return str(first.get("name")), str(second.get("name"))


def _server_twins(tools: list[Tool], reasons: dict[tuple[int, int], list[str]]) -> Iterator[Finding]:
    """One finding per pair of servers that is one server loaded twice (two folders, two accounts),
    instead of one per tool: the pairs are taken out of ``reasons``."""
    twins: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for pair in sorted(reasons):
        servers = _twin_servers(tools[pair[0]], tools[pair[1]])
        if servers is not None:
            twins.setdefault(servers, []).append(pair)
            del reasons[pair]
    # between two such servers every other pair is the same confusion again: the twin finding says it
    for pair in [p for p in reasons if _servers_of(tools, p) in twins or _servers_of(tools, p[::-1]) in twins]:
        del reasons[pair]
    for (first, second), pairs in twins.items():
        i, j = pairs[0]
        names = [tools[b].name for _, b in pairs]
        yield Finding.at(
            tools[j],
            "name",
            f"server {second!r} has the same {len(pairs)} tool(s) as server {first!r} ({quote_list(names)}): only "
            f"the alias tells {tools[j].name!r} from {tools[i].name!r}; give each server an alias that says what "
            "it serves (docs, code, ...), or load it once",
            [related_to(tools[i], f"same tool as {tools[j].name!r}", "name")],
        )
