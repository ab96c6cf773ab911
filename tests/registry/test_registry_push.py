"""The library entry of ``toolsearch catalog push``: :class:`PushSettings` (the target checked
once) and :func:`push_catalog` returning a typed :class:`PushResult`, called directly against a
throwaway PostgreSQL cluster (tests/pg_cluster.py)."""

from __future__ import annotations

import pytest

from toolsearch_cli.errors import UsageError
from toolsearch_cli.registry.push import PushResult, PushSettings, push_catalog
from toolsearch_cli.registry.store import PushConflict, PushPlan, read_snapshot

from ..conftest import DEMO

WEATHER = str(DEMO / "weather.yaml")


@pytest.mark.parametrize(
    "to",
    [
        "http://x/y",
        "demo=postgresql://localhost/db",  # an alias belongs to catalog sources, not to a push target
        "postgres",
        "",
    ],
)
def test_settings_refuse_what_is_not_a_registry_url(to):
    with pytest.raises(UsageError) as caught:
        PushSettings(to=to, namespace="n")
    assert "is not a registry URL (expected postgresql://[user@]host[:port]/database)" in str(caught.value)
    assert caught.value.field == "to" and caught.value.exit_code == 2


def test_a_refused_url_keeps_its_password_out_of_the_message():
    with pytest.raises(UsageError) as caught:
        PushSettings(to="mysql://admin:hunter2-secret@db.example/x", namespace="n")
    assert "hunter2-secret" not in str(caught.value)


def test_a_dry_run_plans_and_writes_nothing(pg_url):
    result = push_catalog(PushSettings(to=pg_url, namespace="w", sources=[WEATHER], dry_run=True))
    assert isinstance(result, PushResult) and isinstance(result.plan, PushPlan)
    assert result.dry_run and result.plan.version is None and result.plan.base_version == 0
    assert len(result.plan.added) == 6 and result.counts == "6 added, 0 changed, 0 removed, 0 unchanged"
    assert result.where.endswith("?namespace=w") and "s3cret" not in result.where  # the cluster's password
    assert result.to_dict() == {"dry_run": True, **result.plan.to_dict()}
    written = push_catalog(PushSettings(to=pg_url, namespace="w", sources=[WEATHER]))
    assert written.plan.version == 1 and written.plan.added == result.plan.added  # the dry run wrote nothing


def test_push_then_again_then_a_stale_version(pg_url):
    first = push_catalog(PushSettings(to=pg_url, namespace="demo", sources=[str(DEMO)]))
    assert (first.dry_run, first.plan.version, len(first.plan.added)) == (False, 1, 64)
    assert len(read_snapshot(f"{pg_url}?namespace=demo").tools) == 64
    again = push_catalog(PushSettings(to=pg_url, namespace="demo", sources=[str(DEMO)], expect_version=1))
    assert again.plan.version is None and again.plan.unchanged == 64 and again.to_dict()["version"] is None
    with pytest.raises(PushConflict, match="is at version 1, not 0: someone pushed first"):
        push_catalog(PushSettings(to=pg_url, namespace="demo", sources=[WEATHER], expect_version=0))
    smaller = push_catalog(PushSettings(to=pg_url, namespace="demo", sources=[WEATHER], dry_run=True))
    assert (len(smaller.plan.removed), smaller.plan.unchanged) == (58, 6)


def test_the_catalog_format_is_the_one_the_settings_name(pg_url, tmp_path):
    source = tmp_path / "tools.json"
    source.write_text(
        '[{"type": "function", "function": {"name": "getTime", "description": "Get the current time in a zone.",'
        ' "parameters": {"type": "object", "properties": {}}}}]',
        encoding="utf-8",
    )
    result = push_catalog(PushSettings(to=pg_url, namespace="t", sources=[str(source)], catalog_format="openai"))
    assert result.plan.added == ["getTime"]
