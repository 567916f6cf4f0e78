"""Where models run: CUDA when present (fp32 unless $NEGVIZ_PRECISION=fp16), else CPU."""

from __future__ import annotations

import os
import re

from negviz.core.errors import DeviceError
from negviz.core.heavy import heavy_import

_DEVICE = re.compile(r"^(cpu|mps|cuda)(?::(\d+))?$")


def pick_device(requested: str | None = None) -> str:
    """``requested`` or $NEGVIZ_DEVICE wins (checked: see ``requested_device``); otherwise
    cuda if available, else cpu."""
    chosen = requested_device(requested)
    if chosen:
        return chosen
    torch = heavy_import("torch")

    return "cuda" if torch.cuda.is_available() else "cpu"


def requested_device(requested: str | None = None) -> str | None:
    """The device asked for (``requested``, else $NEGVIZ_DEVICE), checked against this machine
    before anything loads; None when nothing was asked for. Every family goes through here, so
    a run never records a device it did not have. Imports torch only for cuda/mps requests."""
    source = "--device" if requested else "$NEGVIZ_DEVICE"
    text = (requested or os.environ.get("NEGVIZ_DEVICE") or "").strip()
    if not text:
        return None
    m = _DEVICE.match(text.lower())
    if not m:
        raise DeviceError(f"{source} {text!r} is not a device; use cpu, cuda, cuda:N (N = GPU index) or mps")
    kind, index = m.group(1), m.group(2)
    if kind == "cpu":
        if index is not None:
            raise DeviceError(f"{source} {text!r}: cpu takes no index; use cpu")
        return "cpu"
    torch = heavy_import("torch")

    if kind == "mps":
        backend = getattr(torch.backends, "mps", None)
        if backend is None or not backend.is_available():
            raise DeviceError(f"{source} mps was asked for but this machine has no Apple GPU (MPS); use cpu")
        return "mps"
    if not torch.cuda.is_available():
        raise DeviceError(
            f"{source} {text} was asked for but CUDA is not available on this machine "
            "(no NVIDIA GPU, or torch built without CUDA); use cpu, or leave it out to pick automatically"
        )
    count = torch.cuda.device_count()
    if index is not None and int(index) >= count:
        raise DeviceError(f"{source} {text}: this machine has {count} CUDA device(s), cuda:0 to cuda:{count - 1}")
    return f"cuda:{index}" if index is not None else "cuda"


MAX_BATCH_SIZE = 65_536  # texts per forward pass: more fits no GPU's memory for any model here


def check_batch_size(batch_size: int | None) -> int | None:
    """None (the device's default) or a whole number from 1 to MAX_BATCH_SIZE."""
    if batch_size is None:
        return None
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or not 1 <= batch_size <= MAX_BATCH_SIZE:
        raise DeviceError(
            f"batch size must be a whole number >= 1 and at most {MAX_BATCH_SIZE:,} (got {batch_size!r}); "
            "leave it out for the default"
        )
    return batch_size


PRECISIONS = ("fp32", "fp16")
# Causal LMs default to fp16 on CUDA: a 7B model takes 28 GB in fp32, a 32B one fits no GPU.
LARGE_MODEL_PRECISION = "fp16"


def cuda_precision(default: str = "fp32") -> str:
    """The precision of inference on CUDA: $NEGVIZ_PRECISION, else ``default``. fp32 is the
    default for the encoders, so a GPU run gives the CPU's verdicts (measured on an H100: all
    1,383 NevIR pairs alike; in fp16 15 of MiniLM's verdicts changed, for a 1.2x speed-up:
    benchmarks/README.md, "GPU"). An fp16 run records it and caches its vectors apart."""
    text = (os.environ.get("NEGVIZ_PRECISION") or default).strip().lower()
    if text not in PRECISIONS:
        raise DeviceError(f"$NEGVIZ_PRECISION {text!r} is not a precision; use fp32 or fp16 (CUDA only)")
    return text


def half_precision(device: str, default: str = "fp32") -> bool:
    """Whether inference on ``device`` runs in fp16 (on CUDA, as cuda_precision says)."""
    return str(device).startswith("cuda") and cuda_precision(default) == "fp16"


def inference_dtype(device: str, default: str = "fp32"):
    """float16 where half_precision says so (inference only), float32 otherwise."""
    torch = heavy_import("torch")

    return torch.float16 if half_precision(device, default) else torch.float32


# Batch sizes per device; texts are sorted by length so padding stays small.
_BATCH = {"cpu": 32, "cuda": 256, "mps": 64}


def default_batch_size(device: str, heavy: bool = False) -> int:
    """Per-device batch size; ``heavy`` models (cross-encoders, T5) take a quarter."""
    base = _BATCH.get(str(device).split(":")[0], 32)
    return max(4, base // 4) if heavy else base
