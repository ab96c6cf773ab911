"""The one red ``error: ...`` line on stderr: what the app prints for a failed command, and what a
command that ends the process itself (``serve`` on a signal) prints the same way."""

from __future__ import annotations


def print_error(message: str) -> None:
    """``error: MESSAGE`` on stderr, the message shown literally (never read as markup)."""
    from rich.text import Text

    from .render import data, error_console

    # literal: messages quote user text such as "toolsearch-cli[mcp]", "parameters[0]" or a name with ESC in it
    error_console().print(Text.assemble(("error:", "bold red"), " ", data(message)))
