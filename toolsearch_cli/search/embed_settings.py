"""What an embedding model is, as settings: :class:`EmbedSettings` and how it is read.

Kept apart from :mod:`.embed` (models, endpoints, vectors) so that naming settings, and importing
``toolsearch_cli`` at all, loads none of the embedding code: a search without a model configured
imports nothing of it (``tests/embed/test_embed.py`` checks).
"""

from __future__ import annotations

import contextvars
import os
from dataclasses import dataclass, replace
from typing import Protocol

from .. import environment
from ..errors import EmbedError

MODEL_VAR = environment.EMBED_MODEL
BASE_URL_VAR = environment.EMBED_BASE_URL
KEY_ENV_VAR = environment.EMBED_API_KEY_ENV
MULTILINGUAL_VAR = environment.EMBED_MULTILINGUAL
TIMEOUT_VAR = environment.EMBED_TIMEOUT
QUERY_PREFIX_VAR = environment.EMBED_QUERY_PREFIX
DOCUMENT_PREFIX_VAR = environment.EMBED_DOCUMENT_PREFIX
WEIGHT_VAR = environment.EMBED_WEIGHT
#: Seconds an endpoint has per request (the SDK retries twice more), unless told otherwise.
DEFAULT_TIMEOUT = 60.0
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
#: ``hybrid``'s share of the semantic part when the settings name none (chosen on all-MiniLM-L6-v2).
DEFAULT_WEIGHT = 0.5
#: Longest prompt (prefix) accepted, in characters.
MAX_PREFIX_CHARS = 1000


@dataclass(frozen=True, slots=True)
class EmbedSettings:
    """Which model embeds: a local folder (``model`` is a path) or an endpoint (``base_url`` + ``model``).

    Checked when made: a bad value is an :class:`EmbedError` naming the field (``embed.timeout``...).
    Hashable and immutable, so a model is loaded once per distinct settings and shared by every
    ranker that carries equal settings.
    """

    model: str | None = None
    base_url: str | None = None
    key_env: str = DEFAULT_KEY_ENV
    #: The model understands Chinese/Japanese/Korean; otherwise CJK queries rank lexically in ``hybrid``.
    multilingual: bool = False
    #: Seconds per request to an endpoint (``--embed-timeout``, ``$TOOLSEARCH_EMBED_TIMEOUT``).
    timeout: float = DEFAULT_TIMEOUT
    #: Text put before every query / tool text; ``None``: the model's own prompt (from its folder's
    #: files, or none), ``""``: none at all (``--embed-query-prefix`` / ``--embed-document-prefix``).
    query_prefix: str | None = None
    document_prefix: str | None = None
    #: ``hybrid``'s base share of the semantic part, 0..1 (``--embed-weight``, ``$TOOLSEARCH_EMBED_WEIGHT``),
    #: which each request's lexical evidence moves (``hybrid.fusion_share``; 0 and 1 stay as they are);
    #: ``None``: :data:`DEFAULT_WEIGHT`. A weaker model earns less (README: which model, which weight).
    weight: float | None = None

    def __post_init__(self) -> None:
        for name in ("model", "base_url"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise EmbedError(f"embed.{name} must be text, not {type(value).__name__}", field=f"embed.{name}")
            if isinstance(value, str):
                object.__setattr__(self, name, value.strip() or None)
        if self.base_url is not None:
            if not self.base_url.lower().startswith(("http://", "https://")):
                from ..redaction import shown_url

                raise EmbedError(
                    f"embed.base_url must start with http:// or https://, not {shown_url(self.base_url)[:200]!r}",
                    field="embed.base_url",
                )
            if self.model is None:
                raise EmbedError(
                    "embed.base_url needs embed.model, the model's name at that endpoint", field="embed.model"
                )
        if not isinstance(self.key_env, str) or not self.key_env.strip():
            raise EmbedError("embed.key_env must name an environment variable", field="embed.key_env")
        object.__setattr__(self, "key_env", self.key_env.strip())
        if not isinstance(self.multilingual, bool):
            raise EmbedError("embed.multilingual must be true or false", field="embed.multilingual")
        if isinstance(self.timeout, bool) or not isinstance(self.timeout, int | float | str):
            raise EmbedError("embed.timeout must be a number of seconds", field="embed.timeout")
        try:
            object.__setattr__(self, "timeout", check_timeout(self.timeout, "embed.timeout"))
        except ValueError as exc:
            raise EmbedError(str(exc), field="embed.timeout") from None
        for name in ("query_prefix", "document_prefix"):
            try:
                check_prefix(getattr(self, name), f"embed.{name}")
            except ValueError as exc:
                raise EmbedError(str(exc), field=f"embed.{name}") from None
        try:
            object.__setattr__(self, "weight", check_weight(self.weight, "embed.weight"))
        except ValueError as exc:
            raise EmbedError(str(exc), field="embed.weight") from None

    @property
    def fusion_weight(self) -> float:
        """The base semantic share ``hybrid`` fuses with: :attr:`weight`, else :data:`DEFAULT_WEIGHT`."""
        return DEFAULT_WEIGHT if self.weight is None else self.weight

    @property
    def configured(self) -> bool:
        return bool(self.model)


def as_settings(value: EmbedSettings | str | os.PathLike[str] | None) -> EmbedSettings | None:
    """What an ``embed=`` argument names: settings as given, a model folder (or Hub id) as text,
    or ``None`` (the library default). Anything else is an :class:`EmbedError` naming ``embed``."""
    if value is None or isinstance(value, EmbedSettings):
        return value
    if isinstance(value, str | os.PathLike):
        return EmbedSettings(model=os.fspath(value))
    raise EmbedError(f"embed must be an EmbedSettings or a model path, not {type(value).__name__}", field="embed")


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def check_timeout(value: float | str | None, where: str) -> float:
    """A request timeout in seconds: a number above 0 and at most an hour (``None``: the default);
    :class:`ValueError` with a sentence naming ``where`` otherwise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return DEFAULT_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds <= 3600:  # also refuses NaN
        shown = value if not isinstance(value, str) else value[:40]
        raise ValueError(f"{where} must be a number of seconds above 0 and at most 3600, not {shown!r}")
    return seconds


def check_weight(value: object, where: str) -> float | None:
    """A fusion weight: a number from 0 to 1 (text such as ``"0.4"`` too), or ``None`` / blank text for
    the default; :class:`ValueError` with a sentence naming ``where`` otherwise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{where} must be a number from 0 to 1, not {type(value).__name__}")
    try:
        weight = float(value)
    except ValueError:
        weight = float("nan")
    if not 0 <= weight <= 1:  # also refuses NaN
        shown = value if not isinstance(value, str) else value[:40]
        raise ValueError(f"{where} must be a number from 0 to 1 (the semantic share of hybrid), not {shown!r}")
    return weight + 0.0  # -0 is 0 (it showed as 'weight -0' in labels)


def check_prefix(value: object, where: str) -> str | None:
    """A prompt (prefix) as given: text of at most :data:`MAX_PREFIX_CHARS` characters without line
    breaks other than spaces, or ``None``; :class:`ValueError` naming ``where`` otherwise."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"{where} must be text, not {type(value).__name__}")
    if len(value) > MAX_PREFIX_CHARS:
        raise ValueError(f"{where} is {len(value):,} characters long; at most {MAX_PREFIX_CHARS} are taken")
    if any(ch in value for ch in "\x00\r"):
        raise ValueError(f"{where} holds a NUL or carriage-return character")
    return value


def settings_from_env() -> EmbedSettings:
    """Settings from the ``TOOLSEARCH_EMBED_*`` variables (read by :mod:`toolsearch_cli.environment`)."""
    env = environment.embed_values()
    return EmbedSettings(
        model=(env["model"] or "").strip() or None,
        base_url=(env["base_url"] or "").strip() or None,
        key_env=(env["key_env"] or "").strip() or DEFAULT_KEY_ENV,
        multilingual=_truthy(env["multilingual"]),
        timeout=_env_timeout(env["timeout"]),
        # set but empty is a choice too: no prompt at all
        query_prefix=env["query_prefix"],
        document_prefix=env["document_prefix"],
        weight=_env_weight(env["weight"]),
    )


def _env_weight(value: str | None) -> float | None:
    try:
        return check_weight(value, "$" + WEIGHT_VAR)
    except ValueError as exc:
        raise EmbedError(str(exc), field=WEIGHT_VAR) from None


def _env_timeout(value: str | None) -> float:
    try:
        return check_timeout(value, "$" + TIMEOUT_VAR)
    except ValueError as exc:
        raise EmbedError(str(exc), field=TIMEOUT_VAR) from None


def default_settings() -> EmbedSettings:
    """The library's default, the ``TOOLSEARCH_EMBED_*`` variables (:func:`settings_from_env`): used by
    rankers that carry no settings of their own. There is no process-wide setter: the CLI builds one
    :class:`EmbedSettings` per run from its options and passes it down (``embed=``)."""
    return settings_from_env()


class EmbedProgress(Protocol):
    """Told how a long embedding run goes: ``start`` once, ``advance`` after each batch, ``stop`` at the
    end (also when the run fails). The CLI's implementation draws a progress bar; none is the default."""

    def start(self, total: int, label: str) -> None: ...

    def advance(self, count: int) -> None: ...

    def stop(self) -> None: ...


#: The reporter of the running context (a context variable, as the load settings are: what the CLI
#: sets for its command is not seen by another thread of the process).
_PROGRESS: contextvars.ContextVar[EmbedProgress | None] = contextvars.ContextVar(
    "toolsearch_embed_progress", default=None
)


def set_progress(reporter: EmbedProgress | None) -> EmbedProgress | None:
    """Report this context's runs of at least :data:`PROGRESS_AT` texts to ``reporter`` from now on
    (``None``: to nobody); returns the reporter set before, to put back."""
    previous = _PROGRESS.get()
    _PROGRESS.set(reporter)
    return previous


def progress_reporter() -> EmbedProgress | None:
    return _PROGRESS.get()


@dataclass(slots=True)
class EmbedCost:
    """What producing vectors cost so far in this process (:func:`embed_cost`, :func:`reset_embed_cost`)."""

    #: Texts the model embedded.
    texts: int = 0
    #: Texts whose vector came from the on-disk cache (:class:`~.vectors.VectorStore`); vectors a
    #: process already holds in memory are counted in neither field.
    cached: int = 0
    #: Seconds spent in the model, loading it included (an ONNX session is created on first use).
    seconds: float = 0.0

    def to_dict(self) -> dict[str, float | int]:
        return {"texts": self.texts, "cached": self.cached, "seconds": round(self.seconds, 3)}


_cost = EmbedCost()


def embed_cost() -> EmbedCost:
    """A copy of what embedding cost since the process started (or :func:`reset_embed_cost`)."""
    return replace(_cost)


def reset_embed_cost() -> None:
    global _cost
    _cost = EmbedCost()


def count_cached(count: int) -> None:
    """Record ``count`` texts whose vectors the on-disk cache had."""
    _cost.cached += max(0, count)


def add_embedded(texts: int, seconds: float) -> None:
    """Record ``texts`` texts embedded by a model in ``seconds`` (:func:`~.embed.embed_texts` calls it)."""
    _cost.texts += max(0, texts)
    _cost.seconds += max(0.0, seconds)
