"""Where models run: CUDA when present (half precision for inference), else CPU."""

from __future__ import annotations

import os


def pick_device(requested: str | None = None) -> str:
    """``requested`` or $NEGVIZ_DEVICE wins; otherwise cuda if available, else cpu."""
    requested = requested or os.environ.get("NEGVIZ_DEVICE")
    if requested:
        return requested
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def inference_dtype(device: str):
    """float16 on CUDA (inference only), float32 elsewhere."""
    import torch

    return torch.float16 if str(device).startswith("cuda") else torch.float32


# Batch sizes per device; texts are sorted by length so padding stays small.
_BATCH = {"cpu": 32, "cuda": 256, "mps": 64}


def default_batch_size(device: str, heavy: bool = False) -> int:
    """Per-device batch size; ``heavy`` models (cross-encoders, T5) take a quarter."""
    base = _BATCH.get(str(device).split(":")[0], 32)
    return max(4, base // 4) if heavy else base
