"""What an operator watches a running gateway with: health and readiness, Prometheus metrics,
OpenTelemetry traces, and structured JSON logs.

* ``GET /healthz`` (HTTP mode): the process answers (200).
* ``GET /readyz``: 200 once every required upstream (by default every one; ``required: false`` in
  the config's ``toolsearch.servers`` says otherwise) is connected and has listed its tools; else
  503 with a JSON body naming the missing ones and why.
* ``GET /metrics``: the Prometheus text format (0.0.4). Written here rather than with
  ``prometheus_client``: the gateway needs counters and histograms in one text format, about a
  hundred lines, while the client library keeps one process-wide registry (two gateways in one
  process, as the tests run them, would share their counts) and would be one more dependency for
  every operator.
* Traces: when the OpenTelemetry SDK is installed, each ``toolSearch`` and call gets a span with
  what the gateway decided (which upstream, refused or not, hits), under the span the MCP SDK opens
  from the request's ``_meta`` (``traceparent``), and above the SDK's span of the call to the
  upstream, which carries the trace on in its own ``_meta``. ``OTEL_TRACES_EXPORTER=console``
  (written to stderr: stdout is the MCP channel over stdio) or ``otlp`` sets the SDK up when no
  one else has (``opentelemetry-instrument`` does).
* ``--log-format json``: one JSON object per line on stderr, for the gateway's notices and each
  search and call: names, outcome and timings, never argument values, queries or secrets.

Nothing here is imported until the gateway runs; OpenTelemetry only when the SDK is there.
"""

from __future__ import annotations

import bisect
import json
import math
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..disclosure.search_tool import SEARCH_TOOL_NAME
from .gateway import CALL_TOOL_NAME

#: Seconds: the buckets of every latency histogram (a local tool call takes milliseconds, a
#: remote one up to the timeout).
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(pairs: Sequence[tuple[str, str]]) -> str:
    if not pairs:
        return ""
    return "{" + ",".join(f'{k}="{_label(v)}"' for k, v in pairs) + "}"


def _number(value: float) -> str:
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


class Histogram:
    """Buckets, sum and count of one label set (each observation counted in its own bucket; the
    exposition's cumulative counts are summed when rendered)."""

    __slots__ = ("counts", "sum", "count")

    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)  # the last: above every bound
        self.sum = 0.0
        self.count = 0

    def observe(self, seconds: float) -> None:
        self.sum += seconds
        self.count += 1
        self.counts[bisect.bisect_left(BUCKETS, seconds)] += 1

    def cumulative(self) -> list[int]:
        out, total = [], 0
        for count in self.counts[: len(BUCKETS)]:
            total += count
            out.append(total)
        return out


class Metrics:
    """The gateway's counters and histograms, fed by its traffic records (:meth:`observe`), and the
    upstreams' state read when scraped."""

    def __init__(self, upstreams: Callable[[], Iterable[Any]] | None = None) -> None:
        self._lock = threading.Lock()
        self.searches: dict[tuple[tuple[str, str], ...], int] = {}  # by label pairs
        self.calls: dict[tuple[tuple[str, str], ...], int] = {}
        self.errors: dict[tuple[tuple[str, str], ...], int] = {}
        self.search_seconds = Histogram()
        self.call_seconds: dict[tuple[tuple[str, str], ...], Histogram] = {}
        self.upstream_seconds: dict[tuple[tuple[str, str], ...], Histogram] = {}
        self._upstreams = upstreams
        self.started = time.time()

    def observe(self, record: dict[str, Any]) -> None:
        """Count one traffic record (the ``--log`` records: ``search`` and ``call``)."""
        event = record.get("event")
        ms = record.get("ms")
        with self._lock:
            if event == "search":
                key: tuple[tuple[str, str], ...] = (("status", str(record.get("status") or "ok")),)
                self.searches[key] = self.searches.get(key, 0) + 1
                if isinstance(ms, int | float):
                    self.search_seconds.observe(ms / 1000)
            elif event == "call":
                upstream = str(record.get("server") or "none")
                refused = record.get("refused")
                outcome = str(refused) if refused else ("ok" if record.get("ok") else "tool_error")
                key = (("upstream", upstream), ("outcome", outcome))
                self.calls[key] = self.calls.get(key, 0) + 1
                if outcome != "ok":
                    ekey = (("upstream", upstream), ("kind", outcome))
                    self.errors[ekey] = self.errors.get(ekey, 0) + 1
                if isinstance(ms, int | float):
                    self.call_seconds.setdefault((("upstream", upstream),), Histogram()).observe(ms / 1000)
                up_ms = record.get("upstream_ms")
                if isinstance(up_ms, int | float):
                    self.upstream_seconds.setdefault((("upstream", upstream),), Histogram()).observe(up_ms / 1000)

    def render(self) -> str:
        """The exposition text."""
        lines: list[str] = []

        def counter(name: str, help_text: str, values: dict[tuple[tuple[str, str], ...], int]) -> None:
            lines.extend([f"# HELP {name} {help_text}", f"# TYPE {name} counter"])
            for key, value in sorted(values.items()):
                lines.append(f"{name}{_labels(key)} {value}")

        def histogram(name: str, help_text: str, values: dict[tuple[tuple[str, str], ...], Histogram]) -> None:
            lines.extend([f"# HELP {name} {help_text}", f"# TYPE {name} histogram"])
            for key, hist in sorted(values.items(), key=lambda kv: kv[0]):
                for bound, count in zip(BUCKETS, hist.cumulative(), strict=True):
                    lines.append(f"{name}_bucket{_labels([*key, ('le', _number(bound))])} {count}")
                lines.append(f"{name}_bucket{_labels([*key, ('le', '+Inf')])} {hist.count}")
                lines.append(f"{name}_sum{_labels(key)} {_number(hist.sum)}")
                lines.append(f"{name}_count{_labels(key)} {hist.count}")

        with self._lock:
            counter("toolsearch_searches_total", "toolSearch requests by status (ok, empty, error).", self.searches)
            histogram("toolsearch_search_duration_seconds", "Time to answer a toolSearch.", {(): self.search_seconds})
            counter(
                "toolsearch_calls_total",
                "Tool calls by upstream and outcome (ok, tool_error, or why the gateway refused).",
                self.calls,
            )
            counter("toolsearch_call_errors_total", "Tool calls that failed, by upstream and kind.", self.errors)
            histogram("toolsearch_call_duration_seconds", "Time to answer a tool call, by upstream.", self.call_seconds)
            histogram(
                "toolsearch_upstream_duration_seconds",
                "Time the upstream server took to answer a call.",
                self.upstream_seconds,
            )
        if self._upstreams is not None:
            up: list[str] = []
            tools: list[str] = []
            starts: list[str] = []
            for upstream in self._upstreams():
                labels = _labels([("upstream", upstream_name(upstream))])
                up.append(f"toolsearch_upstream_up{labels} {1 if upstream.ready else 0}")
                tools.append(f"toolsearch_upstream_tools{labels} {len(upstream.raw_tools)}")
                starts.append(f"toolsearch_upstream_starts_total{labels} {upstream.status.starts}")
            lines += [
                "# HELP toolsearch_upstream_up 1 while the upstream is connected and listed.",
                "# TYPE toolsearch_upstream_up gauge",
                *up,
            ]
            lines += [
                "# HELP toolsearch_upstream_tools Tools the upstream listed last.",
                "# TYPE toolsearch_upstream_tools gauge",
                *tools,
            ]
            lines += [
                "# HELP toolsearch_upstream_starts_total Times the upstream was started (or connected).",
                "# TYPE toolsearch_upstream_starts_total counter",
                *starts,
            ]
        return "\n".join(lines) + "\n"


def upstream_name(upstream: Any) -> str:
    """How an upstream is named in metrics and ``/readyz``: its alias (never its command, which
    may carry a token in an argument), else its position-free display for URL sources."""
    alias = getattr(upstream.live, "alias", None)
    return str(alias) if alias else upstream.live.display


def readiness(upstreams: Iterable[Any], required: Sequence[str] | None) -> tuple[bool, dict[str, Any]]:
    """Whether every required upstream is connected and listed, and the body ``/readyz`` answers."""
    missing = []
    for upstream in upstreams:
        name = upstream_name(upstream)
        if required is not None and name not in required:
            continue
        if not upstream.ready:
            missing.append({"upstream": name, "state": upstream.status.state})
    body: dict[str, Any] = {"ready": not missing}
    if missing:
        body["missing"] = missing
    return not missing, body


def mount(app: Any, upstreams: Callable[[], Iterable[Any]], metrics: Metrics, required: Sequence[str] | None) -> Any:
    """Add ``/healthz``, ``/readyz`` and ``/metrics`` to the SDK's Starlette app (before its routes)."""
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> Response:
        ready, body = readiness(upstreams(), required)
        return JSONResponse(body, status_code=200 if ready else 503)

    async def metrics_page(_: Request) -> Response:
        return Response(metrics.render(), media_type=CONTENT_TYPE)

    routes = [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics_page, methods=["GET"]),
    ]
    app.router.routes[0:0] = routes
    return app


# -- structured logs ----------------------------------------------------------------------------

#: The fields of a traffic record a JSON log line keeps: names, outcome, timings. Never the query
#: (the text of a toolSearch argument) nor any argument value.
LOG_FIELDS = {
    "search": ("session", "search", "status", "ms"),
    "call": ("session", "tool", "server", "server_tool", "via", "ok", "refused", "ms", "upstream_ms"),
}


def json_line(record: dict[str, Any], stream: Any = None) -> None:
    """Write one JSON log object (a line) to stderr (through the run's redacting stream, if any)."""
    out = stream if stream is not None else sys.stderr
    stamped = {"ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + f".{int(time.time() * 1000) % 1000:03d}Z"}
    stamped.update(record)
    out.write(json.dumps(stamped, ensure_ascii=True, separators=(",", ":")) + "\n")
    out.flush()


def notice_record(text: str) -> dict[str, Any]:
    """A gateway notice (``warning: ...``, the listening address) as a log record."""
    level = "info"
    for prefix in ("warning", "error"):
        if text.startswith(prefix + ": "):
            level, text = prefix, text[len(prefix) + 2 :]
    return {"level": level, "event": "notice", "message": text}


def traffic_record(record: dict[str, Any]) -> dict[str, Any]:
    """A traffic record as a log record: its allowed fields only."""
    event = str(record.get("event"))
    out: dict[str, Any] = {"level": "info", "event": event}
    for key in LOG_FIELDS.get(event, ()):
        if record.get(key) is not None:
            out[key] = record[key]
    if event == "search":
        out["hits"] = len(record.get("hits") or [])
    return out


# -- the run's observers ------------------------------------------------------------------------


class Ops:
    """The run's metrics, JSON log and tracer, and the traffic observer that feeds them."""

    def __init__(self, log_format: str = "text", required: Sequence[str] | None = None) -> None:
        self.metrics = Metrics()
        self.json_log = log_format == "json"
        self.required = list(required) if required is not None else None
        self.tracer = tracer()

    def observer(self, log: Callable[[dict[str, Any]], None] | None) -> Callable[[dict[str, Any]], None]:
        """What the gateway calls with each traffic record: ``log`` (``--log``), the metrics, the
        JSON log, and the current span."""

        def observe(record: dict[str, Any]) -> None:
            if log is not None:
                log(record)
            self.metrics.observe(record)
            if self.json_log:
                json_line(traffic_record(record))
            if self.tracer is not None:
                annotate_span(record)

        return observe

    def watch(self, upstreams: dict[str, Any]) -> None:
        self.metrics._upstreams = lambda: list(upstreams.values())
        self._upstreams = upstreams

    def mount(self, app: Any) -> Any:
        return mount(app, lambda: list(self._upstreams.values()), self.metrics, self.required)

    def instrument(self, binding: Any) -> None:
        """Wrap the binding's ``tools/call`` handler in a gateway span (before ``build``)."""
        if self.tracer is None:
            return
        handler = binding.call_tool
        span_of = self.tracer

        async def call_tool(ctx: Any, params: Any) -> Any:
            name = getattr(params, "name", None)
            target = name if isinstance(name, str) else "?"
            if target == CALL_TOOL_NAME:  # the tool callTool runs names the span
                inner = (getattr(params, "arguments", None) or {}).get("name")
                target = inner if isinstance(inner, str) else "?"
            target = target if len(target) <= 64 else target[:61] + "..."
            verb = "search" if target == SEARCH_TOOL_NAME else "call"
            with span_of.start_as_current_span(f"toolsearch {verb} {target}", attributes={"gen_ai.tool.name": target}):
                return await handler(ctx, params)

        binding.call_tool = call_tool


def tracer() -> Any:
    """The gateway's OpenTelemetry tracer when the SDK is installed (``None``: no tracing); set up
    from ``OTEL_TRACES_EXPORTER`` when no one set a provider up."""
    import importlib.util

    try:
        if importlib.util.find_spec("opentelemetry.sdk") is None:
            return None
    except (ImportError, ValueError):
        return None
    from opentelemetry import trace

    _configure(trace)
    return trace.get_tracer("toolsearch")


def _configure(trace: Any) -> None:
    import os

    exporter_name = (os.environ.get("OTEL_TRACES_EXPORTER") or "").strip().lower()
    if not exporter_name or exporter_name == "none":
        return
    from opentelemetry.sdk.trace import TracerProvider

    if isinstance(trace.get_tracer_provider(), TracerProvider):
        return  # set up already (opentelemetry-instrument, or the embedding program)
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor

    from ..errors import UsageError

    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or "toolsearch-gateway"})
    provider = TracerProvider(resource=resource)
    if exporter_name == "console":  # stderr: over stdio, stdout is the MCP channel
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
    elif exporter_name == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise UsageError(
                "OTEL_TRACES_EXPORTER=otlp needs opentelemetry-exporter-otlp-proto-http installed",
                field="OTEL_TRACES_EXPORTER",
            ) from None
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    else:
        raise UsageError(
            f"OTEL_TRACES_EXPORTER={exporter_name!r}: the gateway sets up 'console' or 'otlp' (or run it under "
            "opentelemetry-instrument)",
            field="OTEL_TRACES_EXPORTER",
        )
    trace.set_tracer_provider(provider)


def annotate_span(record: dict[str, Any]) -> None:
    """What the gateway decided, on the current span: no query text, no argument value."""
    from opentelemetry import trace

    span = trace.get_current_span()
    if not span.is_recording():
        return
    event = record.get("event")
    attributes: dict[str, Any] = {"toolsearch.event": str(event)}
    if event == "search":
        attributes["toolsearch.hits"] = len(record.get("hits") or [])
        attributes["toolsearch.status"] = str(record.get("status"))
    elif event == "call":
        for key in ("tool", "server", "server_tool", "via", "refused"):
            if record.get(key) is not None:
                attributes[f"toolsearch.{key}"] = str(record[key])
        attributes["toolsearch.ok"] = bool(record.get("ok"))
        if not record.get("ok"):
            from opentelemetry.trace import Status, StatusCode

            span.set_status(Status(StatusCode.ERROR, str(record.get("refused") or "tool_error")))
    span.set_attributes(attributes)
