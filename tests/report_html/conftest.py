"""Fixtures of the HTML report tests: a catalog whose every text is hostile, a script that runs
it, and a headless Chromium (skipped when none is installed)."""

from __future__ import annotations

import json

import pytest

from ..browser import DevTools, chromium_binary

#: Text a catalog, a query set or a model could carry to break out of an HTML or SVG report:
#: markup (an element, an attribute, the end of the chart), a terminal escape, bidi overrides.
HOSTILE = (
    '<script>alert("s")</script> "><img src=x onerror=alert(1)> </svg></table><svg onload=alert(2)> '
    "' onmouseover='alert(3) \x1b[31mred\x1b[0m \x07 \u202egnp.exe\u202c \u2066iso\u2069 &amp;"
)


def q(text: str) -> str:
    """``text`` as a YAML double-quoted scalar (JSON's string syntax, every escape spelled out)."""
    return json.dumps(text)


#: getWeather's description, category and examples, and a query set, all hostile; the queries
#: miss (the expected tool does not come first), so they reach the misses table. q1's expected
#: tool is one that shares no word with it (sendEmail), so it misses whatever the ranker's
#: weights: with getWeather expected it missed only while getAirQuality's label bonus held.
CATALOG = f"""\
tools:
  - name: getWeather
    description: {q(HOSTILE + " Get the weather forecast for a city.")}
    category: {q("w" + HOSTILE)}
    examples: [{q("weather forecast " + HOSTILE)}]
  - name: getAirQuality
    description: {q("Air quality and pollution, the weather index for a city. " + HOSTILE)}
    category: air
    examples: ["air quality index"]
  - name: sendEmail
    description: Send an email message.
    category: mail
"""

QUERIES = f"""\
- id: {q("q1" + HOSTILE)}
  query: {q("air quality and pollution " + HOSTILE)}
  relevant: [sendEmail]
  subset: {q(HOSTILE)}
- {{id: q2, query: "weather forecast for a city", relevant: [getWeather], subset: plain}}
- {{id: q3, query: "quantum chromodynamics", relevant: [sendEmail], subset: plain}}
"""

SCRIPT = f"""\
name: {q("hostile " + HOSTILE)}
catalog: hostile.yaml
policy: latest
turns:
  - user: {q(HOSTILE)}
    steps:
      - call: {{name: toolSearch, arguments: {{query: {q("weather " + HOSTILE)}}}}}
      - call: {{name: getWeather, arguments: {{city: {q(HOSTILE)}}}, result: {q(HOSTILE)}}}
      - call: {{name: sendEmail, arguments: {{to: {q(HOSTILE)}}}}}
      - say: {q(HOSTILE)}
"""


@pytest.fixture
def hostile(write):
    """The hostile catalog, query set and script, written: paths by name."""
    return {
        "catalog": write("hostile.yaml", CATALOG),
        "queries": write("hostile-queries.yaml", QUERIES),
        "script": write("hostile.sim.yaml", SCRIPT),
    }


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium for the session's browser tests (skipped without one)."""
    binary = chromium_binary()
    if binary is None:
        pytest.skip("no Chromium installed (Debian: apt-get install chromium; .ci/run installs it as root)")
    with DevTools(binary) as devtools:
        yield devtools
