"""Models by Hub id (``owner/name``): found in the Hugging Face cache that ``toolsearch model pull`` fills.

Searching only ever reads the cache (``local_files_only``): nothing downloads while ranking. The
``huggingface_hub`` client (optional extra ``hub``) is imported only when a Hub id is used.
"""

from __future__ import annotations

import re
from pathlib import Path

from .embed import EmbedError

#: ``owner/name`` as the Hub spells repository ids (no ``..``, no leading punctuation).
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}$")


def looks_like_hub_id(name: str) -> bool:
    name = name.strip()
    return bool(_HUB_ID.match(name)) and ".." not in name and not name.endswith((".", "-"))


def not_pulled(name: str, why: str = "is not in the model cache") -> EmbedError:
    return EmbedError(f"embedding model {name!r} {why}: run `toolsearch model pull {name}`", field="embed-model")


def cached_model_folder(name: str) -> Path:
    """The cached snapshot folder of the Hub model ``name``, from the cache alone (no network)."""
    name = name.strip()
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import LocalEntryNotFoundError
    except ImportError:
        raise EmbedError(
            f"embedding model {name!r} is not a folder; a Hub id needs the Hugging Face client: "
            f"pip install 'toolsearch-cli[hub]', then `toolsearch model pull {name}`",
            field="embed-model",
        ) from None
    try:
        folder = snapshot_download(name, local_files_only=True)
    except LocalEntryNotFoundError:
        raise not_pulled(name) from None
    except Exception as exc:  # noqa: BLE001 - a damaged cache entry is one line too
        raise not_pulled(name, f"cannot be read from the model cache ({type(exc).__name__})") from None
    return Path(folder)
