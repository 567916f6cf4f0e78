"""RunRecord: one stored run's provenance and summary, as the ``runs`` table holds it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any, Mapping

from negviz.core.errors import NegvizError
from negviz.core.schema import DatasetSpec, ModelSpec

RUNNING, COMPLETE, FAILED, CANCELLED = "running", "complete", "failed", "cancelled"
STATUSES = (RUNNING, COMPLETE, FAILED, CANCELLED)
EVAL, FINETUNE, RETRIEVAL = "eval", "finetune", "retrieval"  # retrieval: over a corpus (negviz.evaluation.retrieval)
ATTRIBUTION = "attribution"  # token attributions over a dataset (negviz.analyses.cue_influence)
RUN_KINDS = (EVAL, FINETUNE, RETRIEVAL, ATTRIBUTION)
JSON_FIELDS = ("model_spec", "dataset_spec", "options", "summary")
TIME_FIELDS = ("created_at", "finished_at")


class StoreError(NegvizError):
    """A store operation that cannot be done as asked (the message says why)."""


class StoreAccessError(StoreError):
    """The database cannot be reached or written where it lies: its server does not answer, its
    disk is full, it is read-only (store.db turns the driver's error into this; the message says which)."""


class StoreUnavailableError(StoreAccessError):
    """The database server does not answer (stopped, unreachable); ``host`` names it. Nothing
    was lost: a later call works again once the server is back."""

    def __init__(self, message: str, host: str):
        super().__init__(message)
        self.host = host


class RunNotFoundError(StoreError, KeyError):
    """No run with that id; a KeyError too, so ``except KeyError`` works."""

    def __init__(self, run_id: str):
        super().__init__(
            f"no run {run_id!r} in the store; list runs with `negviz runs` (fine-tuning runs not ended: `negviz jobs`)"
        )
        self.run_id = run_id

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0])


class DuplicateRunError(StoreError):
    """A complete run of this spec is already stored (a spec is stored once): ``run`` is that
    run, which the caller reuses; a forced write (replace) replaces it instead."""

    def __init__(self, run: "RunRecord"):
        super().__init__(
            f"a complete run of this spec is already stored (run {run.run_id}, made {run.created_at:%Y-%m-%d %H:%M} "
            f"UTC on {run.host or 'an unknown host'}); it is kept. Use --force to replace it"
        )
        self.run = run


@dataclass(kw_only=True)
class RunRecord:
    """A run as stored. The store sets status and fills run_id, created_at, host, code_version and n
    when they are empty."""

    run_id: str = ""  # 32-hex uuid, made by the store when empty
    spec_key: str  # hash of model spec + dataset spec + eval options, computed by the caller
    status: str = RUNNING
    kind: str = EVAL
    model_name: str
    model_spec: dict[str, Any] = field(default_factory=dict)
    family: str | None = None
    model_revision: str | None = None
    dataset_name: str
    dataset_spec: dict[str, Any] = field(default_factory=dict)
    dataset_kind: str | None = None
    split: str | None = None
    n: int | None = None  # items scored; save_run counts them when left empty
    options: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)  # aggregate metrics
    code_version: str | None = None
    device: str | None = None
    wall_seconds: float | None = None
    created_at: datetime | None = None
    finished_at: datetime | None = None
    error: str | None = None
    host: str | None = None

    @classmethod
    def from_specs(cls, model: ModelSpec, dataset: DatasetSpec, *, spec_key: str, **extra: Any) -> "RunRecord":
        """Fill the model and dataset columns from the specs; other fields as keywords."""
        return cls(
            spec_key=spec_key,
            model_name=model.name,
            model_spec=model.to_dict(),
            family=model.family,
            model_revision=model.revision,
            dataset_name=dataset.name,
            dataset_spec=dataset.to_dict(),
            split=dataset.split,
            **extra,
        )

    @property
    def model(self) -> ModelSpec:
        return ModelSpec.from_dict(self.model_spec or {"name": self.model_name})

    @property
    def dataset(self) -> DatasetSpec:
        return DatasetSpec.from_dict(self.dataset_spec or {"name": self.dataset_name, "split": self.split})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "RunRecord":
        """Inverse of to_dict; accepts ISO strings for times and ignores unknown keys (newer files)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in d.items() if k in known}
        for name in TIME_FIELDS:
            if isinstance(values.get(name), str):
                values[name] = datetime.fromisoformat(values[name])
        return cls(**values)

    def validate(self) -> None:
        if self.status not in STATUSES:
            raise StoreError(f"run status {self.status!r} is not one of {', '.join(STATUSES)}")
        if self.kind not in RUN_KINDS:
            raise StoreError(f"run kind {self.kind!r} is not one of {', '.join(RUN_KINDS)}")
        for name in ("spec_key", "model_name", "dataset_name", "run_id"):
            if not isinstance(getattr(self, name), str) or not getattr(self, name):
                raise StoreError(f"RunRecord.{name} must be a non-empty string, got {getattr(self, name)!r}")
        for name in JSON_FIELDS:
            if not isinstance(getattr(self, name), dict):
                raise StoreError(f"RunRecord.{name} must be a dict, got {type(getattr(self, name)).__name__}")
