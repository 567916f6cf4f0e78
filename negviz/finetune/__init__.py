"""Fine-tuning with per-epoch measurements of cosine drift (NevIR App. C Fig. 8, Fig. 5).

    from negviz.finetune import FinetuneSpec, run_finetune
    from negviz.store import Store
    result = run_finetune(FinetuneSpec("all-MiniLM-L6-v2", epochs=3), Store())
    result.epochs[["epoch", "paired_accuracy", "cos_mean", "cos_std"]]

Modules: ``spec`` (what to train), ``data`` (training/held-out pairs, triplets, batches),
``train`` (the torch loops), ``measure`` (per-epoch metrics through the library's scorers),
``run`` (one run, stored epoch by epoch), ``history`` (reading runs back). Background jobs for
the pages are in ``negviz.finetune.jobs``. Importing this package does not import torch.
"""

from negviz.finetune.data import TrainingData, group_split, load_training_data
from negviz.finetune.history import epochs, items, items_wide, run_note, training_run_label
from negviz.finetune.run import FinetuneResult, Plan, StepProgress, default_save_dir, plan, run_finetune
from negviz.finetune.spec import BI_ENCODER, FAMILIES, LATE_INTERACTION, FinetuneSpec
from negviz.finetune.train import Cancelled

__all__ = [
    "BI_ENCODER",
    "FAMILIES",
    "LATE_INTERACTION",
    "Cancelled",
    "FinetuneResult",
    "FinetuneSpec",
    "Plan",
    "StepProgress",
    "TrainingData",
    "default_save_dir",
    "epochs",
    "group_split",
    "items",
    "items_wide",
    "load_training_data",
    "plan",
    "run_finetune",
    "training_run_label",
    "run_note",
]
