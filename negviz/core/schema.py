"""Column names and the small frozen specs that cross module boundaries.

A spec is at once the cache key, the URL state and the provenance record of a stored
run: it round-trips through a dict and through a short string
(``all-MiniLM-L6-v2@main[similarity=cosine]``), like ir_measures' ``RR(rel=2)@10``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from negviz.core.errors import NegvizError, OptionError
from negviz.core.kinds import (  # noqa: F401  (the kind names, here as before)
    CORPUS,
    EMPTY_CANDIDATE,
    EXCLUSION,
    PAIRS,
    PERTURBATION,
    SENTENCE_PAIRS,
    SEVERITIES,
    KindNames,
    KindTable,
    kind_of,
)

# ---------------------------------------------------------------- dataset kinds
# Each kind is one registered object (negviz.core.kinds); these tables read the registry when used.
KINDS = KindNames()
KIND_TITLES = KindTable(lambda k: k.title)  # what a user calls items of each kind (messages, pickers)
KIND_HELP = KindTable(lambda k: k.help)  # each kind with its columns (the Add-a-dataset page)

# A retrieval run over a corpus is stored under the dataset name "<queries>@<corpus>" (e.g.
# excluir@offline); its "@" is this separator alone, never parsed by ModelSpec, whose "@" is a
# model revision. Build and read such names only here.
CORPUS_RUN_SEP = "@"


def corpus_run_dataset(queries: str, corpus: str) -> str:
    """The dataset name of a retrieval run of ``queries``'s queries over ``corpus``."""
    return f"{queries}{CORPUS_RUN_SEP}{corpus}"


def queries_dataset(dataset_name: str) -> str:
    """The dataset whose queries a run used: the name itself, or a corpus run's queries."""
    return str(dataset_name).split(CORPUS_RUN_SEP, 1)[0]


COLUMNS = KindTable(lambda k: k.columns)  # required columns; loaders may add metadata after these
# What gets scored per item: slot name -> (query column, document column); a column name
# starting with "=" is a literal text instead of a column.
SLOTS = KindTable(lambda k: dict(k.slots) or None)

# Long per-item score frames (what the store holds): one row per item and slot.
SCORE_COLUMNS = ("item_id", "slot", "score")


# ---------------------------------------------------------------- specs
_SPEC_RE = re.compile(r"^(?P<name>[^@\[\]]+?)(?:@(?P<rev>[^\[\]]+))?(?:\[(?P<opts>.*)\])?$")


def _freeze(options: Mapping[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((str(k), v) for k, v in (options or {}).items() if v is not None))


def parse_value(text: str) -> Any:
    """A spec's option value as written (``1.2``, ``32``, ``true``, ``dot``), typed: the one
    reading shared by ``NAME[key=value]`` and ``--option key=value``. The family or dataset that
    takes the option then coerces it to its declared type (negviz.core.options)."""
    if not isinstance(text, str):
        return text
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def _format_options(options: tuple[tuple[str, Any], ...]) -> str:
    if not options:
        return ""
    return "[" + ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options) + "]"


def parse_options(text: str | Iterable[str] | None) -> dict[str, Any]:
    """``"a=1,b=x"`` or ``["a=1", "b=x"]`` as ``{"a": 1, "b": "x"}`` (values through parse_value)."""
    if not text:
        return {}
    parts = text.split(",") if isinstance(text, str) else list(text)
    out = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise OptionError(f"option {part!r} is not of the form key=value")
        out[key.strip()] = parse_value(value.strip())
    return out


@dataclass(frozen=True)
class ModelSpec:
    """A model choice: catalog name, hub id or local path, plus family options.

    ``family`` may be left empty for catalog models; ``resolve_model`` in negviz.evaluation.catalog fills it.
    """

    name: str
    family: str | None = None
    revision: str | None = None
    options: tuple[tuple[str, Any], ...] = field(default=())

    @classmethod
    def make(cls, name: str, family: str | None = None, revision: str | None = None, **options) -> "ModelSpec":
        return cls(name=name, family=family, revision=revision, options=_freeze(options))

    @property
    def opts(self) -> dict[str, Any]:
        return dict(self.options)

    def with_options(self, **options) -> "ModelSpec":
        """This spec with ``options`` added; text values are read as in ``NAME[key=value]``
        (``"1.2"`` -> 1.2), so both spellings give one spec. The family types them on resolve."""
        given = {k: parse_value(v) for k, v in options.items()}
        return ModelSpec(self.name, self.family, self.revision, _freeze({**self.opts, **given}))

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "family": self.family, "revision": self.revision, "options": self.opts}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ModelSpec":
        return cls.make(d["name"], d.get("family"), d.get("revision"), **(d.get("options") or {}))

    def __str__(self) -> str:
        rev = f"@{self.revision}" if self.revision else ""
        opts = dict(self.options)
        if self.family:
            opts = {"family": self.family, **opts}
        return f"{self.name}{rev}{_format_options(tuple(opts.items()))}"

    @classmethod
    def parse(
        cls,
        text: str,
        *,
        family: str | None = None,
        revision: str | None = None,
        options: Iterable[str] = (),
    ) -> "ModelSpec":
        """The one way to read a model spec: ``NAME[@REVISION][key=value,...]``, plus the CLI's
        ``--family``, ``--revision`` and ``--option key=value`` items (which win)."""
        m = _SPEC_RE.match(text.strip())
        if not m or not m.group("name").strip():
            raise OptionError(f"cannot read model spec {text!r}; expected NAME[@REVISION][key=value,...]")
        opts = {**parse_options(m.group("opts")), **parse_options(list(options))}
        family = family or opts.pop("family", None)
        opts.pop("family", None)
        return cls.make(m.group("name").strip(), family, revision or m.group("rev"), **opts)

    @property
    def key(self) -> str:
        """Stable hash for caches and the store."""
        return spec_hash(self.to_dict())


@dataclass(frozen=True)
class DatasetSpec:
    """A dataset choice: a shipped/registered name or a file path, split, limit and options."""

    name: str
    split: str = "test"
    limit: int | None = None
    options: tuple[tuple[str, Any], ...] = field(default=())

    def __post_init__(self) -> None:
        object.__setattr__(self, "limit", check_limit(self.limit))

    @classmethod
    def make(cls, name: str, split: str = "test", limit: int | None = None, **options) -> "DatasetSpec":
        return cls(name=name, split=split, limit=limit, options=_freeze(options))

    @property
    def opts(self) -> dict[str, Any]:
        return dict(self.options)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "split": self.split, "limit": self.limit, "options": self.opts}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "DatasetSpec":
        return cls.make(d["name"], d.get("split") or "test", d.get("limit"), **(d.get("options") or {}))

    def __str__(self) -> str:
        opts = dict(self.options)
        if self.limit is not None:
            opts = {"limit": self.limit, **opts}
        return f"{self.name}:{self.split}{_format_options(tuple(opts.items()))}"

    @property
    def key(self) -> str:
        return spec_hash(self.to_dict())


def check_limit(limit: Any) -> int | None:
    """A dataset limit: None (all items) or a whole number >= 1."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, float, str)):
        raise NegvizError(f"limit must be a whole number >= 1 (got {limit!r}); leave it out for all items")
    try:
        number = float(limit)
    except ValueError:
        number = float("nan")
    if not number.is_integer() or number < 1:
        raise NegvizError(f"limit must be a whole number >= 1 (got {limit!r}); leave it out for all items")
    return int(number)


def spec_hash(payload: Mapping[str, Any]) -> str:
    blob = json.dumps(payload, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def text_hash(text: str) -> str:
    """Hash of a text for embedding and score caches."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()
