"""A small real MCP server for the tests and the README: weather tools, served over stdio or HTTP.

    python tests/servers/weather_server.py                 # stdio (what ``mcp+stdio:`` starts)
    python tests/servers/weather_server.py --http PORT     # streamable HTTP on 127.0.0.1:PORT/mcp
    python tests/servers/weather_server.py --http PORT --token SECRET   # ... requiring a bearer token

Each tool carries its toolsearch category and tags in ``_meta["x-toolsearch"]``; the parameter
schemas (nested models, lists of objects, enums) come from the type hints.
"""

from __future__ import annotations

import sys
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

server = MCPServer("weather", instructions="Weather forecasts, alerts and air quality.")


class Location(BaseModel):
    """Where: a city name, or coordinates."""

    city: str = Field(description="City name, e.g. Hangzhou.")
    country: str | None = Field(None, description="ISO country code, e.g. CN.")
    latitude: float | None = Field(None, description="Latitude in degrees.")
    longitude: float | None = Field(None, description="Longitude in degrees.")


class Threshold(BaseModel):
    """When an alert fires."""

    metric: Literal["temperature", "wind", "rain"] = Field(description="What to watch.")
    above: float = Field(description="Fire when the value goes above this.")


def _meta(category: str, *tags: str, examples: tuple[str, ...] = ()) -> dict:
    return {"x-toolsearch": {"category": category, "tags": list(tags), "examples": list(examples)}}


@server.tool(
    title="Current weather",
    annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=True),
    meta=_meta("forecast", "weather", "temperature", "天气", examples=("what's the weather in Paris",)),
)
def get_current_weather(location: Location, units: Literal["metric", "imperial"] = "metric") -> str:
    """Get the current weather (temperature, wind, humidity) for a location."""
    return f"sunny in {location.city}"


@server.tool(meta=_meta("forecast", "weather", "forecast", "rain"))
def get_forecast(location: Location, days: int = Field(3, ge=1, le=14, description="How many days ahead.")) -> str:
    """Get the daily weather forecast for the next days: highs, lows and chance of rain."""
    return f"{days} days of sun in {location.city}"


@server.tool(meta=_meta("alerts", "alert", "storm", "warning"))
def create_weather_alert(location: Location, thresholds: list[Threshold], notify_email: str) -> str:
    """Create an alert that emails you when the weather at a location crosses thresholds (storms, heat, wind)."""
    return "alert created"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def get_air_quality(city: str) -> str:
    """Get the air quality index (AQI) and main pollutant for a city."""
    return f"AQI 42 in {city}"


def serve_http(port: int, token: str | None) -> None:
    """Streamable HTTP on 127.0.0.1:PORT/mcp; with a token, requests without ``Authorization: Bearer TOKEN`` get 401."""
    if token is None:
        server.run("streamable-http", host="127.0.0.1", port=port)
        return
    import uvicorn

    app = server.streamable_http_app()

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != f"Bearer {token}".encode():
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"missing or wrong token"})
            return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--http":
        serve_http(int(sys.argv[2]), sys.argv[4] if len(sys.argv) == 5 and sys.argv[3] == "--token" else None)
    else:
        server.run()
