"""An MCP server that crashes while starting (to test the one-line error naming the command)."""

import sys

print("loading configuration from /etc/weather.toml", file=sys.stderr)
raise RuntimeError("cannot open /etc/weather.toml: no such file")
