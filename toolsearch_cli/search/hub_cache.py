"""Hub models (``owner/name``) in the local Hugging Face cache: ids, the cache folder, a cached snapshot.

Read from the cache alone, never the network: :mod:`.embed` resolves ``--embed-model owner/name``
here, and :mod:`.hub` (``toolsearch model pull``, which checks a pulled model by embedding with
it) builds on it. This module imports neither.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..errors import EmbedError

#: ``owner/name`` as the Hub spells repository ids (no ``..``, no leading punctuation).
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}$")
#: Where a repository keeps the ONNX export toolsearch runs, in order of preference.
ONNX_FILES = ("onnx/model.onnx", "model.onnx")


def looks_like_hub_id(name: str) -> bool:
    name = name.strip()
    return bool(_HUB_ID.match(name)) and ".." not in name and not name.endswith((".", "-"))


def not_pulled(name: str, why: str = "is not in the model cache") -> EmbedError:
    return EmbedError(f"embedding model {name!r} {why}: run `toolsearch model pull {name}`", field="embed-model")


def cache_folder() -> Path:
    """The Hub client's model cache, as the client itself places it (read now, not at its import)."""
    explicit = (os.environ.get("HF_HUB_CACHE") or os.environ.get("HUGGINGFACE_HUB_CACHE") or "").strip()
    if explicit:
        return Path(explicit).expanduser()
    home = (os.environ.get("HF_HOME") or "").strip()
    if home:
        return Path(home).expanduser() / "hub"
    xdg = (os.environ.get("XDG_CACHE_HOME") or "").strip()
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "huggingface" / "hub"


#: how to get the Hub client; the package is not on PyPI, so not "pip install 'toolsearch-cli[hub]'"
HUB_INSTALL = "pip install huggingface_hub (the extra `hub`: pip install -e '.[hub]' in a clone)"


def hub_client() -> Any:
    try:
        import huggingface_hub
    except ImportError:
        raise EmbedError(f"a Hub model needs the Hugging Face client: {HUB_INSTALL}", field="embed-model") from None
    return huggingface_hub


def cached_model_folder(name: str, revision: str | None = None) -> Path:
    """The cached snapshot folder of the Hub model ``name``, from the cache alone (no network)."""
    name = name.strip()
    try:
        hub = hub_client()
    except EmbedError:
        raise EmbedError(
            f"embedding model {name!r} is not a folder; a Hub id needs the Hugging Face client: "
            f"{HUB_INSTALL}, then `toolsearch model pull {name}`",
            field="embed-model",
        ) from None
    # the client's own cache lookup (no network): where its tokenizer.json is, is the snapshot
    # (snapshot_download(local_files_only=True) would refuse it: pull fetched a part of the repository)
    try:
        found = hub.try_to_load_from_cache(name, "tokenizer.json", cache_dir=cache_folder(), revision=revision)
    except Exception as exc:  # noqa: BLE001 - a damaged cache entry is one line too
        raise not_pulled(name, f"cannot be read from the model cache ({type(exc).__name__})") from None
    if not isinstance(found, str) and revision is None:
        found = _newest_snapshot_tokenizer(hub, name)  # pulled at a commit: no refs/main was written
    if not isinstance(found, str):  # None: not cached; a sentinel: known to be missing upstream
        raise not_pulled(name)
    folder = Path(found).parent
    if not any((folder / f).is_file() for f in ONNX_FILES) or not (folder / "tokenizer.json").is_file():
        raise not_pulled(name, "is in the Hugging Face cache without its ONNX weights or tokenizer")
    return folder


def _newest_snapshot_tokenizer(hub: Any, name: str) -> str | None:
    """The tokenizer.json of the model's most recently pulled snapshot that has one (as ``model list``
    shows it), for a model whose cache has no ``main`` ref: ``model pull NAME --revision COMMIT``."""
    try:
        info = hub.scan_cache_dir(cache_folder())
    except Exception:  # noqa: BLE001 - no cache or an unreadable one: not pulled
        return None
    for repo in (r for r in info.repos if r.repo_type == "model" and r.repo_id == name):
        for revision in sorted(repo.revisions, key=lambda r: r.last_modified, reverse=True):
            tokenizer = Path(revision.snapshot_path) / "tokenizer.json"
            if tokenizer.is_file():
                return str(tokenizer)
    return None
