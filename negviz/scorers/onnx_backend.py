"""ONNX Runtime as a back end of the encoder families (an exported model folder: model.onnx and
a Hugging Face tokenizer). The bi-encoder and cross-encoder families use it when the folder holds
an ONNX export and no PyTorch weights; scores then come from the same Scorer code paths.

The session uses every core this process may run on (``os.sched_getaffinity``), or CUDA when
the family's device is a GPU and onnxruntime was built with it.

One sequence per call, never a padded batch: a dynamically quantized (INT8) graph quantizes its
activations with one scale per tensor, so in a batch a text's score would depend on the other
texts beside it and on the padding (up to 0.2 logits on the MiniLM cross-encoder). Scored alone,
a text (or pair) always gets the same score, as the score cache and the paired metrics assume.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from negviz.core.errors import ModelUnavailableError
from negviz.core.heavy import heavy_import

ONNX_FILE = "model.onnx"
TORCH_WEIGHTS = ("model.safetensors", "pytorch_model.bin", "0_Transformer/model.safetensors")


def is_onnx_folder(source: str) -> bool:
    """A folder holding an ONNX export and no PyTorch weights."""
    try:
        folder = Path(source)
        return (folder / ONNX_FILE).is_file() and not any((folder / w).is_file() for w in TORCH_WEIGHTS)
    except OSError:  # a hub id or a name too long to be a path
        return False


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class OnnxModel:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # a transformers fast tokenizer
    inputs: tuple[str, ...]  # the graph's input names (token_type_ids is optional)
    max_length: int

    def run(self, first: Sequence[str], second: Sequence[str] | None = None) -> list[np.ndarray]:
        """The graph's first output for each text (or text pair), each run alone (see above):
        [1, length, dim] token vectors or [1, labels] logits per item."""
        enc = self.tokenizer(
            list(first),
            list(second) if second is not None else None,
            padding=False,
            truncation=True,
            max_length=self.max_length,
        )
        out = []
        for i in range(len(enc["input_ids"])):
            feed = {name: np.asarray([enc[name][i]], dtype=np.int64) for name in self.inputs if name in enc}
            if "token_type_ids" in self.inputs and "token_type_ids" not in feed:
                feed["token_type_ids"] = np.zeros_like(feed["input_ids"])
            out.append(self.session.run(None, feed)[0])
        return out


def load(source: str, device: str, name: str) -> OnnxModel:
    """An ONNX Runtime session and tokenizer for the export in ``source``."""
    try:
        ort = heavy_import("onnxruntime")
        AutoTokenizer = heavy_import("transformers", "AutoTokenizer")
    except ImportError as exc:
        raise ModelUnavailableError(
            f"{name!r} is an ONNX export and needs onnxruntime: `make venv` installs it "
            f"(pinned in requirements.txt) ({exc})"
        ) from exc
    options = ort.SessionOptions()
    options.intra_op_num_threads = cores()
    options.inter_op_num_threads = 1
    providers = ["CPUExecutionProvider"]
    if device.startswith("cuda") and "CUDAExecutionProvider" in ort.get_available_providers():
        providers.insert(0, "CUDAExecutionProvider")
    try:
        session = ort.InferenceSession(str(Path(source) / ONNX_FILE), options, providers=providers)
        tokenizer = AutoTokenizer.from_pretrained(source)
    except Exception as exc:  # a broken export or tokenizer: one clear message, not a traceback
        raise ModelUnavailableError(f"cannot load the ONNX export of {name!r} from {source}: {exc}") from exc
    limit = int(getattr(tokenizer, "model_max_length", 512) or 512)
    return OnnxModel(session, tokenizer, tuple(i.name for i in session.get_inputs()), min(limit, 512))


def pool(hidden: np.ndarray, how: str) -> np.ndarray:
    """A sentence vector from one text's token vectors [1, length, dim]: the [CLS] vector or the mean."""
    if how == "cls":
        return hidden[0, 0]
    if how == "mean":
        return hidden[0].mean(axis=0)
    raise ValueError(f"unknown pooling {how!r}; use cls or mean")
