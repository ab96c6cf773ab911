"""Issue 35 item 2: a password in a mistyped registry URL never reaches any output. Every form a
user mistypes (the scheme's case, a driver suffix, a slash missing, the colon forgotten, an alias
with a space, a ``name=`` prefix on a target) is fed to every command that takes a catalog or a
registry; the password is in neither stdout nor stderr, and a namespace is never masked."""

from __future__ import annotations

import pytest

from toolsearch_cli.errors import CatalogError
from toolsearch_cli.redaction import forget_all, mask_userinfo, redact, register_arguments, shown_url

from ..conftest import ROOT

PASSWORD = "S3cr3t-Pw-9x7"
HOST = "127.0.0.1:9/db"  # a port nothing listens on: a connection attempt fails at once

MISTYPED = [
    f"POSTGRESQL://ci:{PASSWORD}@{HOST}?namespace=prod",
    f"Postgres://ci:{PASSWORD}@{HOST}?namespace=prod",
    f"postgresql+psycopg://ci:{PASSWORD}@{HOST}?namespace=prod",
    f"postgresql:/ci:{PASSWORD}@{HOST}?namespace=prod",
    f"postgresql:ci:{PASSWORD}@{HOST}?namespace=prod",
    f"postgresql//ci:{PASSWORD}@{HOST}?namespace=prod",
    f"my alias=postgresql://ci:{PASSWORD}@{HOST}?namespace=prod",
    f"x=postgresql://ci:{PASSWORD}@{HOST}?namespace=prod",
    f"postgresql://ci:{PASSWORD}@{HOST}?namespace=prod",  # well formed: the connection fails
    f"postgresql://ci:{PASSWORD}@{HOST}?namespace=prod&sslpassword={PASSWORD}x",
]


def commands(url: str, tmp) -> list[list[str]]:
    """Every command taking a catalog or a registry, given ``url`` where it takes one."""
    script = tmp / "s.sim.yaml"
    script.write_text("turns:\n  - user: weather in Paris\n", encoding="utf-8")
    eval_set = tmp / "e.yaml"
    eval_set.write_text("cases:\n  - query: weather in Paris\n    expected: [getWeather]\n", encoding="utf-8")
    return [
        ["search", "weather", "-c", url],
        ["eval", str(eval_set), "-c", url],
        ["lint", url],
        ["simulate", str(script), "-c", url],
        ["catalog", "-c", url],
        ["catalog", "convert", "--to", "openai", "-c", url],
        ["catalog", "push", "--to", url, "-n", "prod", "-c", str(ROOT / "catalogs")],
        ["catalog", "push", "--to", url, "-n", "prod", "-c", url],
        ["serve", "--dry-run", "-c", url],
        ["lock", url, "-o", str(tmp / "toolsearch.lock")],
        ["registry", "migrate", url],
        ["registry", "namespaces", url],
        ["registry", "log", url],
        ["registry", "diff", url, "1"],
        ["registry", "rollback", url, "1"],
        ["registry", "drop", url, "--yes"],
        ["--debug", "search", "weather", "-c", url],
    ]


@pytest.mark.parametrize("url", MISTYPED, ids=range(len(MISTYPED)))
def test_no_command_prints_the_password_of_a_mistyped_url(run_cli, tmp_path, url):
    ran = 0
    for args in commands(url, tmp_path):
        done = run_cli(*args)
        out = done.stdout + done.stderr
        assert PASSWORD not in out, (args, out)
        assert "S3cr3t" not in out, (args, out)
        assert done.code != 0, (args, out)  # each one fails (nothing to reach), and says why
        ran += 1
    assert ran == 17


def test_the_password_is_masked_from_toolsearch_catalog_too(run_cli, monkeypatch):
    monkeypatch.setenv("TOOLSEARCH_CATALOG", f"POSTGRESQL://ci:{PASSWORD}@{HOST}?namespace=prod")
    done = run_cli("search", "weather")
    assert done.code == 2 and PASSWORD not in done.stdout + done.stderr, done.stderr
    monkeypatch.setenv("TOOLSEARCH_CATALOG", f"{ROOT / 'catalogs'}:my alias=postgresql://ci:{PASSWORD}@h/db")
    done = run_cli("search", "weather")
    assert done.code == 2 and PASSWORD not in done.stdout + done.stderr, done.stderr


def test_a_long_namespace_is_never_masked(run_cli):
    namespace = "team-payments-production-eu-west"
    done = run_cli("search", "x", "-c", f"postgresql://ci:{PASSWORD}@{HOST}?namespace={namespace}")
    assert done.code == 2 and f"namespace={namespace}" in done.stderr and PASSWORD not in done.stderr, done.stderr


@pytest.mark.parametrize(
    "text, shown",
    [
        (f"POSTGRESQL://ci:{PASSWORD}@h/db", "POSTGRESQL://***@h/db"),
        (f"postgresql+psycopg://ci:{PASSWORD}@h/db", "postgresql+psycopg://***@h/db"),
        (f"postgresql:/ci:{PASSWORD}@h/db", "postgresql:/***@h/db"),
        (f"postgresql//ci:{PASSWORD}@h/db", "postgresql//***@h/db"),
        (f"my alias=postgresql://ci:{PASSWORD}@h/db", "my alias=postgresql://***@h/db"),
        (f"x=postgresql://ci:p@ss/w{PASSWORD}@h/db?namespace=n", "x=postgresql://***@h/db?namespace=n"),
        ("mail me at someone@example.com", "mail me at someone@example.com"),
        ("C:/Users/x@y/catalog.yaml", "C:/Users/x@y/catalog.yaml"),  # a drive letter is no scheme
    ],
)
def test_mask_userinfo(text, shown):
    assert mask_userinfo(text) == shown
    assert PASSWORD not in shown_url(text)


def test_register_arguments_registers_userinfo_and_named_secrets_only():
    forget_all()
    try:
        register_arguments(
            [f"Postgres://ci:{PASSWORD}@h/db?namespace=a-very-long-namespace-name&password=Qz9-longer", "plain"]
        )
        assert redact(f"x {PASSWORD} y") == "x *** y"
        assert redact("Qz9-longer") == "***"
        assert redact("a-very-long-namespace-name") == "a-very-long-namespace-name"
        register_arguments(["write to mailto:alice.smith@example.com", "https://ghp_token1234@github.com/x"])
        assert redact("alice.smith wrote") == "alice.smith wrote"  # an address, no password: not a secret
        assert redact("ghp_token1234") == "***"  # a token as a URL's user is one
    finally:
        forget_all()


def test_an_error_message_never_carries_a_url_password():
    error = CatalogError(f"cannot read postgresql+psycopg://ci:{PASSWORD}@h/db", file="x.yaml")
    assert PASSWORD not in str(error) and "postgresql+psycopg://***@h/db" in str(error)


def test_masking_is_linear_on_hostile_text():
    """Scheme-like tokens and ``@`` repeated 30,000 times: a pattern that scans ahead from every
    position took 225 s on one of these; the runs are scanned once (the time is not asserted)."""
    for hostile in ("@" + "ab:" * 30000, "@" + "ab//" * 30000, "@" + "ab:@c" * 30000):
        masked = mask_userinfo(hostile)
        assert masked.startswith("@") and len(masked) <= len(hostile)


def test_a_template_or_a_user_alone_is_not_masked():
    text = "expected postgresql://[user@]host[:port]/database, or postgresql://app@db/tools"
    assert mask_userinfo(text) == text
