"""LoRA adapters (Hu et al., 2022) on an encoder's linear maps, so a trained model ships small.

``inject`` wraps every ``nn.Linear`` of the chosen transformer layers: the base weight W stays
frozen and the layer computes ``x W^T + b + scale * (dropout(x) A^T) B^T`` with A (rank x in,
random) and B (out x rank, zeros), so training starts from the base model exactly. A checkpoint
is saved with ``merged``: W + scale * (B @ A) written in place of each wrapped layer, so it is a
plain sentence-transformers folder that any family loads. The factors themselves (``factors``)
are what negviz ships (negviz.scorers.delta), and ``merge_weight`` is the one formula both the
saved checkpoint and the shipped model are put together with, so the two are the same tensors.
"""

from __future__ import annotations

import contextlib
import math
from typing import Iterator

from negviz.core.heavy import heavy_import
from negviz.scorers.delta import LORA_FILE, merge_weight  # noqa: F401  (LORA_FILE: for train.py)
from negviz.scorers.delta import LORA_SCALE as SCALE


def _lora_linear_class():
    torch = heavy_import("torch")

    class LoraLinear(torch.nn.Module):
        def __init__(self, base: torch.nn.Linear, rank: int, dropout: float):
            super().__init__()
            self.base = base
            for p in base.parameters():
                p.requires_grad_(False)
            self.lora_a = torch.nn.Parameter(torch.empty(rank, base.in_features, device=base.weight.device))
            self.lora_b = torch.nn.Parameter(torch.zeros(base.out_features, rank, device=base.weight.device))
            torch.nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))
            self.dropout = torch.nn.Dropout(dropout)

        def forward(self, x):
            return self.base(x) + SCALE * (self.dropout(x) @ self.lora_a.T) @ self.lora_b.T

        def merged_linear(self) -> torch.nn.Linear:
            merged = torch.nn.Linear(self.base.in_features, self.base.out_features, bias=self.base.bias is not None)
            with torch.no_grad():
                merged.weight.copy_(merge_weight(self.base.weight, self.lora_a.detach(), self.lora_b.detach()))
                if self.base.bias is not None:
                    merged.bias.copy_(self.base.bias)
            return merged.to(self.base.weight.device)

    return LoraLinear


def top_layers(module, layers: int) -> list:
    """The top ``layers`` of the encoder's layer stack (all of them for 0)."""
    stacks = [m for name, m in module.named_modules() if name.endswith("encoder.layer")]
    if not stacks:
        raise ValueError("LoRA and train_layers need a BERT-like encoder (an encoder.layer stack)")
    stack = list(stacks[0])
    if layers > len(stack):
        raise ValueError(f"train_layers={layers}, but the encoder has {len(stack)} layers")
    return stack[-layers:] if layers else stack


def inject(module, layers: int, rank: int, dropout: float = 0.1) -> dict[str, object]:
    """Freeze ``module`` and wrap the linear maps of its top ``layers`` (0: all) with rank-``rank``
    adapters. Returns {parameter name of the wrapped weight in ``module``: the wrapper}."""
    torch = heavy_import("torch")

    LoraLinear = _lora_linear_class()
    for p in module.parameters():
        p.requires_grad_(False)
    chosen = {id(layer) for layer in top_layers(module, layers)}
    wrapped: dict[str, object] = {}
    for name, layer in list(module.named_modules()):
        if id(layer) not in chosen:
            continue
        for child_name, child in list(layer.named_modules()):
            if isinstance(child, torch.nn.Linear) and child_name:
                parent_name, _, attr = child_name.rpartition(".")
                parent = layer.get_submodule(parent_name) if parent_name else layer
                lora = LoraLinear(child, rank, dropout)
                setattr(parent, attr, lora)
                wrapped[f"{name}.{child_name}.weight"] = lora
    return wrapped


@contextlib.contextmanager
def merged(module, wrapped: dict[str, object]) -> Iterator[None]:
    """``module`` with every wrapper replaced by its merged nn.Linear (for saving), then restored."""
    swaps = []
    for name in wrapped:
        path = name.removesuffix(".weight")
        parent_name, _, attr = path.rpartition(".")
        parent = module.get_submodule(parent_name)
        lora = getattr(parent, attr)
        swaps.append((parent, attr, lora))
        setattr(parent, attr, lora.merged_linear())
    try:
        yield
    finally:
        for parent, attr, lora in swaps:
            setattr(parent, attr, lora)


def factors(wrapped: dict[str, object], prefix: str = "") -> dict[str, object]:
    """{``prefix`` + weight name + ".lora_a" / ".lora_b": tensor}: what a shipped adapter holds."""
    out = {}
    for name, lora in wrapped.items():
        out[f"{prefix}{name}.lora_a"] = lora.lora_a.detach().float().contiguous().cpu()
        out[f"{prefix}{name}.lora_b"] = lora.lora_b.detach().float().contiguous().cpu()
    return out
