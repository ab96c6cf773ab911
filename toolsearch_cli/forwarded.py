"""Which reverse proxies ``toolsearch serve --http`` and ``toolsearch registry serve`` believe.

``X-Forwarded-For`` and ``X-Forwarded-Proto`` set the client address and scheme a request is
served (and logged) with. uvicorn believes them by default from loopback, so from any process on
the machine, and reads ``$FORWARDED_ALLOW_IPS``; both servers instead believe them only from the
proxies the operator names (``--forwarded-allow-ips``), and never read the variable.
"""

from __future__ import annotations

from typing import Any

from .errors import UsageError


def parse_forwarded_allow_ips(text: str | None) -> list[str] | None:
    """``--forwarded-allow-ips``: the proxies' addresses or networks, checked (``None``: not given)."""
    import ipaddress

    if text is None:
        return None
    found: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if part != "*":
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise UsageError(
                    f"--forwarded-allow-ips takes addresses or networks (127.0.0.1, 10.0.0.0/8, ::1) or *, "
                    f"not {part[:80]!r}",
                    field="forwarded-allow-ips",
                ) from None
        found.append(part)
    return found


def proxy_options(allowed: list[str] | None) -> dict[str, Any]:
    """uvicorn's options for forwarded headers: read only from ``allowed`` (``None`` or empty:
    never). Always given, so uvicorn neither trusts loopback by default nor reads
    ``$FORWARDED_ALLOW_IPS``."""
    return {"proxy_headers": bool(allowed), "forwarded_allow_ips": list(allowed or [])}
