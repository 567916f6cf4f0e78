"""FinetuneSpec: one fine-tuning choice (model, family, data, hyper-parameters), frozen.

Like ModelSpec it is the cache key, the URL/CLI state and the provenance record of a stored
run: ``to_dict``/``from_dict`` round-trip, ``cli_args`` rebuilds the command line that makes
it, and the run key adds what the spec leaves open (model revision, data fingerprint).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Mapping

from negviz.datasets.training import AUTO
from negviz.scorers import LATE_INTERACTION

# Families that can be fine-tuned, and the scorer family that reads their checkpoints.
BI_ENCODER = "bi-encoder"
FAMILIES = (BI_ENCODER, LATE_INTERACTION)
EVAL_FAMILY = {BI_ENCODER: "bi-encoder", LATE_INTERACTION: "maxsim"}

TRAIN_KINDS = ("pairs", "triplets")  # what a training file holds: NevIR pairs or (anchor, positive, negative)
KEEP = ("none", "final", "all")  # which checkpoints stay on disk after the run


@dataclass(frozen=True)
class FinetuneSpec:
    """What to fine-tune and how. Defaults follow the NevIR paper (lr 2e-5, MNRL)."""

    model: str = "all-MiniLM-L6-v2"  # catalog name, hub id or local path (ModelSpec text)
    family: str = BI_ENCODER
    train: str = AUTO  # a training source (negviz.datasets.training) or a pairs file (CSV/TSV/JSONL/Parquet)
    heldout: str | None = None  # a pairs file or "nevir"; None: the source's default
    columns: str | None = None  # column mapping of a user file, as for `negviz eval --columns`
    heldout_fraction: float = 0.3  # share of passages held out when a source is split
    epochs: int = 5
    lr: float = 2e-5
    batch_size: int = 16
    warmup_ratio: float = 0.1
    scale: float = 20.0  # MNRL's scale (1/temperature); MaxSim scores enter the softmax unscaled
    seed: int = 0
    limit_train: int | None = None  # first N training pairs (quick runs, tests)
    limit_heldout: int | None = None
    transfer: int = 0  # ExcluIR queries scored per epoch as a transfer check (0: none)
    train_kind: str = "pairs"  # a training file's layout: pairs (q1, d1, q2, d2) or triplets
    train_layers: int = 0  # train only the top N transformer layers (0: all weights)
    demetr_sample: int = 200  # sentence data: DEMETR negation items measured per epoch (a fixed sample)
    lora_rank: int = 0  # LoRA adapters of this rank on the trained layers' linear maps (0: the weights themselves)
    general: int = 100  # HotpotQA questions re-ranked per epoch: retrieval without negation (finetune.general)

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"family must be one of {', '.join(FAMILIES)}, not {self.family!r}")
        if self.epochs < 1:
            raise ValueError(f"epochs must be at least 1, not {self.epochs}")
        if not 0 < self.heldout_fraction < 1:
            raise ValueError(f"heldout_fraction must lie strictly between 0 and 1, not {self.heldout_fraction}")
        if self.batch_size < 2:
            raise ValueError("batch_size must be at least 2 (in-batch negatives need company)")
        if self.train_kind not in TRAIN_KINDS:
            raise ValueError(f"train_kind must be one of {', '.join(TRAIN_KINDS)}, not {self.train_kind!r}")
        if self.train_layers < 0:
            raise ValueError(f"train_layers must be 0 (all) or a number of top layers, not {self.train_layers}")
        if self.lora_rank < 0:
            raise ValueError(f"lora_rank must be 0 (no adapters) or a positive rank, not {self.lora_rank}")
        if self.general < 0:
            raise ValueError(f"general must be 0 (off) or a number of questions, not {self.general}")
        if self.lr <= 0:
            raise ValueError(f"lr must be positive, not {self.lr}")

    @property
    def eval_family(self) -> str:
        return EVAL_FAMILY[self.family]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "FinetuneSpec":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})

    def with_(self, **changes: Any) -> "FinetuneSpec":
        return replace(self, **changes)

    def cli_args(self) -> list[str]:
        """`negviz finetune` arguments that make this spec (defaults left out)."""
        default = FinetuneSpec()
        out: list[str] = []
        for f in fields(self):
            value = getattr(self, f.name)
            if value == getattr(default, f.name) and f.name != "model":
                continue
            out += [f"--{f.name.replace('_', '-')}", str(value)]
        return out
