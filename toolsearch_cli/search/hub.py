"""Models by Hub id (``owner/name``): fetched once by ``toolsearch model pull``, then read from the cache.

:func:`pull_model` fetches a model's ONNX weights, tokenizer and sentence-transformers config
files through the Hugging Face Hub's own client (``huggingface_hub``, optional extra ``hub``)
into its cache, and checks them: the files are there, the ONNX model loads and embeds, its
vectors have one finite size. After that ``--embed-model owner/name`` resolves from the cache
alone (:func:`cached_model_folder`, ``local_files_only``): searching never downloads.

The client's own settings hold, read when a command runs (not when the client was first
imported): ``HF_ENDPOINT`` (a mirror), ``HF_HUB_OFFLINE`` (pull only what is cached),
``HF_HUB_CACHE`` / ``HF_HOME`` (where the cache is), ``HF_TOKEN`` (gated models; never printed).

Each ``toolsearch model`` command turns its arguments into :class:`ModelSettings` (the id checked
there, once) and calls one function here returning a typed result with ``to_dict()``:
:func:`pull_model` and :func:`show_model` a :class:`PulledModel`, :func:`list_models` a
:class:`ModelListing`, :func:`remove_model` a :class:`RemovedModel`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EmbedError
from .embed import OnnxEmbedder, read_model_config
from .hub_cache import ONNX_FILES, cache_folder, cached_model_folder, hub_client, looks_like_hub_id

__all__ = [
    "CONFIG_FILES",
    "DEFAULT_ENDPOINT",
    "ModelListing",
    "ModelSettings",
    "PulledModel",
    "RemovedModel",
    "check_hub_id",
    "endpoint",
    "inspect_model",
    "list_models",
    "offline",
    "pull_model",
    "remove_model",
    "show_model",
]

DEFAULT_ENDPOINT = "https://huggingface.co"
#: What else is fetched when the repository has it: the tokenizer and how the model was trained.
CONFIG_FILES = (
    "tokenizer.json",
    "modules.json",
    "config_sentence_transformers.json",
    "sentence_bert_config.json",
    "config.json",
)
#: Texts embedded to check a pulled model.
_CHECK_TEXTS = ("get the weather forecast for a city", "send an email to a colleague")


def check_hub_id(name: str) -> str:
    """``name`` stripped, or an :class:`EmbedError` naming the ``model`` argument."""
    name = (name or "").strip()
    if not looks_like_hub_id(name):
        raise EmbedError(
            f"{name!r} is not a Hub model id: give OWNER/NAME, e.g. sentence-transformers/all-MiniLM-L6-v2",
            field="model",
        )
    return name


@dataclass(frozen=True)
class ModelSettings:
    """A Hub model named on the command line: its id (``OWNER/NAME``, stripped; anything else is
    an :class:`EmbedError` naming the ``model`` argument) and, for a pull, the revision (a branch,
    tag or commit; blank or ``None``: the default branch)."""

    name: str
    revision: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", check_hub_id(self.name))
        object.__setattr__(self, "revision", (self.revision or "").strip() or None)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def endpoint() -> str:
    """The Hub to pull from: ``$HF_ENDPOINT``, else the Hugging Face Hub."""
    return (os.environ.get("HF_ENDPOINT") or "").strip().rstrip("/") or DEFAULT_ENDPOINT


def offline() -> bool:
    return _truthy(os.environ.get("HF_HUB_OFFLINE"))


def _token() -> str | None:
    """``$HF_TOKEN`` for gated models: registered so that no output or file ever shows it."""
    token = (os.environ.get("HF_TOKEN") or "").strip() or None
    if token:
        from ..redaction import register

        register(token)
    return token


@dataclass(slots=True)
class PulledModel:
    """A model in the cache, checked: where it is, what it is made of, what its vectors are."""

    name: str
    revision: str
    folder: Path
    files: list[str]
    size: int
    dimensions: int | None = None
    pooling: tuple[str, ...] = ("mean",)
    normalize: bool = True
    query_prefix: str = ""
    document_prefix: str = ""
    max_tokens: int = 0
    sources: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "revision": self.revision,
            "folder": str(self.folder),
            "files": self.files,
            "bytes": self.size,
            "dimensions": self.dimensions,
            "pooling": list(self.pooling),
            "normalize": self.normalize,
            "query_prefix": self.query_prefix,
            "document_prefix": self.document_prefix,
            "max_tokens": self.max_tokens,
            "config_from": list(self.sources),
        }


@dataclass(frozen=True)
class ModelListing:
    """The models in the cache toolsearch can run, and where the cache is."""

    cache: Path
    models: tuple[PulledModel, ...]

    def to_dict(self) -> dict[str, Any]:
        """``cache`` and ``models`` (``model list --format json`` prints ``models``, an array)."""
        return {"cache": str(self.cache), "models": [m.to_dict() for m in self.models]}


@dataclass(frozen=True)
class RemovedModel:
    """A model removed from the cache: every revision of it, and the bytes that freed."""

    name: str
    freed: int
    cache: Path

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "bytes_freed": self.freed, "cache": str(self.cache)}


def _files_of(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def _size_of(folder: Path) -> int:
    return sum(p.resolve().stat().st_size for p in folder.rglob("*") if p.is_file())


def inspect_model(name: str, folder: Path, *, check: bool = True) -> PulledModel:
    """What a cached model is made of; with ``check`` also loaded and run (its vector size), so a
    model that does not work is an :class:`EmbedError` here, not at the first search."""
    config = read_model_config(folder, name=name)
    info = PulledModel(
        name=name,
        revision=folder.name,
        folder=folder,
        files=_files_of(folder),
        size=_size_of(folder),
        pooling=config.pooling,
        normalize=config.normalize,
        query_prefix=config.query_prefix,
        document_prefix=config.document_prefix,
        max_tokens=config.max_tokens,
        sources=config.sources,
    )
    missing = [f for f in ("tokenizer.json",) if not (folder / f).is_file()]
    onnx = next((folder / f for f in ONNX_FILES if (folder / f).is_file()), None)
    if onnx is None:
        missing.append(" or ".join(ONNX_FILES))
    if missing or onnx is None:
        raise EmbedError(f"model {name!r} lacks {', '.join(missing)} in {folder}", field="model")
    if check:
        import numpy as np

        vectors = np.asarray(OnnxEmbedder(folder, onnx, config=config, label=name).embed(list(_CHECK_TEXTS)))
        if vectors.ndim != 2 or not vectors.shape[1] or not np.isfinite(vectors).all() or not vectors.any():
            raise EmbedError(f"model {name!r} gives no usable vectors (shape {vectors.shape})", field="model")
        info.dimensions = int(vectors.shape[1])
    return info


def _pick_files(names: list[str]) -> list[str]:
    """Which of a repository's files to fetch: the preferred ONNX export (with its external data),
    the tokenizer and the sentence-transformers config files (every ``*Pooling/config.json``)."""
    present = set(names)
    onnx = next((f for f in ONNX_FILES if f in present), None)
    if onnx is None:
        return []
    wanted = [onnx, *(f for f in (onnx + "_data", onnx + ".data") if f in present)]
    wanted += [f for f in CONFIG_FILES if f in present]
    wanted += sorted(f for f in present if re.fullmatch(r"\d+_Pooling/config\.json", f))
    return wanted


def pull_model(settings: ModelSettings, warn: Callable[[str], None] | None = None) -> PulledModel:
    """Fetch the model's ONNX weights, tokenizer and config files into the Hub cache, then check them.

    With ``HF_HUB_OFFLINE`` set nothing is fetched: a model already in the cache is checked, any
    other is an error saying so. A model that fails its check is removed from the cache again.
    ``warn`` is told first when ``$HF_TOKEN`` would travel in clear text (plain http to another machine).
    """
    name, revision = settings.name, settings.revision
    if warn is not None and (os.environ.get("HF_TOKEN") or "").strip():
        from ..redaction import clear_text_warning

        insecure = clear_text_warning(endpoint(), "$HF_TOKEN")
        if insecure is not None:
            warn(insecure)
    hub = hub_client()
    from huggingface_hub import errors as hub_errors

    where, cache, token = endpoint(), cache_folder(), _token()
    if offline():
        try:
            folder = cached_model_folder(name, revision)
        except EmbedError:
            raise EmbedError(
                f"cannot pull {name!r}: HF_HUB_OFFLINE is set and the model is not in the cache ({cache})",
                field="model",
            ) from None
        return inspect_model(name, folder)
    from ..redaction import register_url, shown_url

    register_url(where)
    shown = shown_url(where)
    if not _progress_wanted():
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    try:
        api = hub.HfApi(endpoint=where, token=token)
        info = api.model_info(name, revision=revision)
        wanted = _pick_files([s.rfilename for s in info.siblings or []])
        if not wanted:
            raise EmbedError(
                f"{name!r} at {shown} has no ONNX export ({' or '.join(ONNX_FILES)}); toolsearch runs transformers "
                "exported to ONNX: pick a repository that has one, or export it (benchmarks/export_onnx.py)",
                field="model",
            )
        if "tokenizer.json" not in wanted:
            raise EmbedError(f"{name!r} at {shown} has no tokenizer.json", field="model")
        folder = Path(
            hub.snapshot_download(
                name, revision=revision, cache_dir=cache, endpoint=where, token=token, allow_patterns=wanted
            )
        )
    except EmbedError:
        raise
    except hub_errors.RepositoryNotFoundError:
        raise EmbedError(f"there is no model {name!r} at {shown} (or it is private)", field="model") from None
    except hub_errors.RevisionNotFoundError:
        raise EmbedError(f"model {name!r} at {shown} has no revision {revision!r}", field="revision") from None
    except hub_errors.GatedRepoError:
        raise EmbedError(
            f"model {name!r} at {shown} is gated: accept its terms and set HF_TOKEN", field="model"
        ) from None
    except hub_errors.HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        raise EmbedError(f"cannot pull {name!r} from {shown}: HTTP {status}", field="model") from None
    except (hub_errors.LocalEntryNotFoundError, OSError) as exc:
        raise EmbedError(f"cannot pull {name!r} from {shown}: {_reason(exc)}", field="model") from None
    except Exception as exc:  # noqa: BLE001 - the client's network errors vary by release: one line each
        raise EmbedError(f"cannot pull {name!r} from {shown}: {_reason(exc)}", field="model") from None
    try:
        return inspect_model(name, folder)
    except EmbedError as exc:
        _remove_revision(hub, name, folder.name)
        raise EmbedError(
            f"pulled {name!r} but it does not work, so it was removed again: {exc.message}", field="model"
        ) from None


def _reason(exc: BaseException) -> str:
    from ..redaction import redact

    text = re.sub(r"\s+", " ", redact(str(exc))).strip()
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def _progress_wanted() -> bool:
    import sys

    return sys.stderr is not None and sys.stderr.isatty()


def _cached_repos(hub: Any) -> list[Any]:
    cache = cache_folder()
    if not cache.is_dir():
        return []
    try:
        info = hub.scan_cache_dir(cache)
    except Exception as exc:  # noqa: BLE001 - e.g. an unreadable cache folder
        raise EmbedError(f"cannot read the model cache {cache}: {_reason(exc)}", field="model") from None
    return sorted((r for r in info.repos if r.repo_type == "model"), key=lambda r: r.repo_id)


def list_models() -> ModelListing:
    """The cached Hub models toolsearch can run (an ONNX export and a tokenizer), unchecked."""
    hub = hub_client()
    out: list[PulledModel] = []
    for repo in _cached_repos(hub):
        for revision in sorted(repo.revisions, key=lambda r: r.last_modified, reverse=True)[:1]:
            folder = Path(revision.snapshot_path)
            try:
                out.append(inspect_model(repo.repo_id, folder, check=False))
            except EmbedError:
                continue  # a model of other tools (no ONNX export or tokenizer): not ours to list
    return ModelListing(cache_folder(), tuple(out))


def show_model(settings: ModelSettings) -> PulledModel:
    """A cached model, checked (loaded and run)."""
    try:
        folder = cached_model_folder(settings.name)
    except EmbedError as exc:  # the same sentence as a search's, about this command's argument
        raise EmbedError(exc.message, field="model") from None
    return inspect_model(settings.name, folder)


def remove_model(settings: ModelSettings) -> RemovedModel:
    """Delete every cached revision of the model. Not cached: an :class:`EmbedError`."""
    name = settings.name
    hub = hub_client()
    repo = next((r for r in _cached_repos(hub) if r.repo_id == name), None)
    if repo is None:
        raise EmbedError(f"model {name!r} is not in the model cache ({cache_folder()})", field="model")
    freed = _remove_revision(hub, name, *(r.commit_hash for r in repo.revisions))
    return RemovedModel(name, freed, cache_folder())


def _remove_revision(hub: Any, name: str, *commits: str) -> int:
    repo = next((r for r in _cached_repos(hub) if r.repo_id == name), None)
    if repo is None:
        return 0
    hashes = [r.commit_hash for r in repo.revisions if r.commit_hash in commits]
    if not hashes:
        return 0
    from . import prepared

    for revision in repo.revisions:  # the toolsearch cache's prepared copies of its ONNX files go too
        if revision.commit_hash in hashes:
            for onnx in ONNX_FILES:
                if (Path(revision.snapshot_path) / onnx).is_file():
                    prepared.forget(Path(revision.snapshot_path) / onnx)
    strategy = hub.scan_cache_dir(cache_folder()).delete_revisions(*hashes)
    freed = int(strategy.expected_freed_size)
    strategy.execute()
    if len(hashes) == len(repo.revisions):  # the repo's folder too (refs, empty blobs folder)
        import shutil

        shutil.rmtree(repo.repo_path, ignore_errors=True)
    return freed
