"""The options the benchmark commands share, declared once.

Every command builds its parser with :func:`parser` and adds the common flags with the
``add_*`` functions here, so ``--shared``, ``--sets``, ``--cache``, ``--limit`` and the
``--embed-*`` trio mean the same thing (and default to the same place) in every command.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

#: The checkout: the benchmarks read its catalogs, tests' servers and real_catalogs/.
ROOT = Path(__file__).resolve().parent.parent
#: ``../shared`` beside the checkout (eval/ holds the dev sets and realworld-dev).
SHARED = ROOT.parent / "shared"
#: The dev sets of ../shared/eval, in the order the tables list them.
SETS = ("bfcl_static", "metatool", "seal_tools", "toolbench_g3", "ultratool_en", "ultratool_zh")
#: Where ``python -m benchmarks fetch`` keeps the real catalogs it builds.
CACHE_HELP = (
    "the real catalogs' cache (python -m benchmarks fetch; default $TOOLSEARCH_BENCH_CACHE or "
    "~/.cache/toolsearch-bench/real)"
)

#: Where ``scale.py``'s synthetic catalogs are written (once, then reused by every command).
SCALE_DATA = Path.home() / ".cache" / "toolsearch-bench" / "scale"

#: The command being run (set by ``python -m benchmarks``), shown as the parser's program name.
command = ""


def parser(doc: str | None, paragraphs: int = 1) -> argparse.ArgumentParser:
    """A command's parser: the first ``paragraphs`` of its module docstring as its description."""
    text = "\n\n".join((doc or "").strip().split("\n\n")[:paragraphs])
    prog = f"python -m benchmarks {command}" if command else None
    return argparse.ArgumentParser(prog=prog, description=text, formatter_class=argparse.RawDescriptionHelpFormatter)


def names(value: str) -> list[str]:
    """A comma-separated option's items, blanks dropped."""
    return [item.strip() for item in value.split(",") if item.strip()]


def spaced(items: list[T], limit: int) -> list[T]:
    """At most ``limit`` of ``items``, evenly spaced over the list (all of them when ``limit`` is 0)."""
    if not limit or len(items) <= limit:
        return items
    return [items[i * len(items) // limit] for i in range(limit)]


def add_shared(p: argparse.ArgumentParser, **kw: object) -> None:
    """``--shared``: the folder holding eval/ (default ../shared beside the checkout)."""
    kw.setdefault("default", str(SHARED))
    kw.setdefault("help", "the folder holding eval/ (default: ../shared beside the checkout)")
    p.add_argument("--shared", **kw)  # type: ignore[arg-type]


def add_scale(p: argparse.ArgumentParser, help: str = "where the synthetic catalog is written (once)") -> None:
    """``--size`` (tools of the synthetic catalog) and ``--data`` (where it is written)."""
    p.add_argument("--size", type=int, default=100_000)
    p.add_argument("--data", default=str(SCALE_DATA), help=help)


def add_sets(p: argparse.ArgumentParser, default: str = ",".join(SETS), help: str | None = None) -> None:
    """``--sets``: comma-separated set names."""
    p.add_argument("--sets", default=default, help=help or f"comma-separated (default: {default})")


def add_cache(p: argparse.ArgumentParser, default: str | None = None) -> None:
    """``--cache``: the real catalogs' cache folder."""
    p.add_argument("--cache", default=default, help=CACHE_HELP)


def add_limit(
    p: argparse.ArgumentParser, default: int = 0, help: str = "at most this many queries per set (0: all)"
) -> None:
    """``--limit N``: a small run (queries per set, or what the command says)."""
    p.add_argument("--limit", type=int, default=default, help=help)


def add_rankers(p: argparse.ArgumentParser, default: str, flag: str = "--rankers") -> None:
    """``--rankers`` (or ``--ranker``): comma-separated built-in rankers."""
    p.add_argument(flag, default=default, help=f"comma-separated built-in rankers (default: {default})")


def add_embed(p: argparse.ArgumentParser, required: bool = True, extras: bool = True, **kw: object) -> None:
    """``--embed-model`` and, with ``extras``, ``--embed-base-url`` and ``--embed-multilingual``
    (what ``toolsearch``'s own ``--embed-*`` options mean)."""
    kw.setdefault("help", "an ONNX model folder, a model2vec folder, or the model name an --embed-base-url serves")
    p.add_argument("--embed-model", required=required, **kw)  # type: ignore[arg-type]
    if extras:
        p.add_argument("--embed-base-url", help="an OpenAI-compatible /v1 embeddings endpoint serving --embed-model")
        p.add_argument("--embed-multilingual", action="store_true", help="the model reads Chinese too")
