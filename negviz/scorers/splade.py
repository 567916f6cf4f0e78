"""SPLADE (``naver/splade*``): a sparse vocabulary-sized representation from the MLM head.

    rep(t)[v] = max over tokens i of t (attention-masked) of log(1 + relu(logits[i, v]))
              = log(1 + relu(max_i logits[i, v]))   (both functions are monotone)
    score(q, d) = rep(q) . rep(d)

as in the NevIR code (``splade.models.transformer_rep.Splade(agg="max")``, queries encoded
with the same encoder as documents). ``top_terms`` shows what a text expands to, e.g. whether
"not" survives in the representation at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from negviz.core.heavy import heavy_import
from negviz.core.options import Option
from negviz.scorers.base import Progress, Scorer, no_progress

# Largest logits tensor (batch x length x vocab elements) computed at once: the vocabulary
# axis (30,522 for BERT) makes full batches of long texts take gigabytes.
LOGITS_BUDGET = 2**26


@dataclass(frozen=True, eq=False)
class SparseRep:
    """Non-zero entries of a SPLADE representation, sorted by vocabulary id."""

    ids: np.ndarray  # int64
    weights: np.ndarray  # float32, > 0

    def dot(self, other: "SparseRep") -> float:
        _, i, j = np.intersect1d(self.ids, other.ids, assume_unique=True, return_indices=True)
        return float(np.dot(self.weights[i].astype(np.float64), other.weights[j].astype(np.float64)))

    def dense(self, size: int) -> np.ndarray:
        out = np.zeros(size, dtype=np.float32)
        out[self.ids] = self.weights
        return out


class Splade(Scorer):
    family: ClassVar[str] = "splade"
    declared_options: ClassVar[tuple[Option, ...]] = (
        Option("max_length", int, 512, "tokens kept per text", ge=1, le=8192),
    )
    symmetric: ClassVar[bool] = True  # one encoder for both sides, then a dot product
    heavy: ClassVar[bool] = False

    def _load(self) -> tuple[Any, Any]:
        AutoModelForMaskedLM, AutoTokenizer = heavy_import("transformers", "AutoModelForMaskedLM", "AutoTokenizer")

        from negviz.core.device import inference_dtype

        tokenizer = AutoTokenizer.from_pretrained(self.source)
        model = AutoModelForMaskedLM.from_pretrained(self.source, dtype=inference_dtype(self.device))
        return tokenizer, model.to(self.device).eval()

    # -- representations
    def encode(self, texts: Sequence[str], progress: Progress = no_progress) -> list[SparseRep]:
        """Sparse representations of texts, in input order (longest-first batches)."""
        texts = list(texts)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out: list[SparseRep | None] = [None] * len(texts)
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            for i, rep in zip(idx, self._encode_batch([texts[i] for i in idx])):
                out[i] = rep
            progress(min(start + self.batch_size, len(order)), len(order), "encoding texts")
        return out  # type: ignore[return-value]

    def _encode_batch(self, texts: list[str]) -> list[SparseRep]:
        torch = heavy_import("torch")

        tokenizer, model = self.model
        enc = tokenizer(
            texts, padding=True, truncation=True, max_length=int(self.options["max_length"]), return_tensors="pt"
        )
        rows = max(1, LOGITS_BUDGET // (enc["input_ids"].shape[1] * model.config.vocab_size))
        reps = []
        with torch.inference_mode():
            for start in range(0, len(texts), rows):
                part = {k: v[start : start + rows].to(self.device) for k, v in enc.items()}
                logits = model(**part).logits
                # log1p and relu are monotone, so the max over tokens commutes with them: take the
                # max of the raw logits over the unmasked tokens first, then log(1 + relu(.)) of
                # one vocabulary vector per text (the same numbers, a fraction of the work).
                logits = logits.masked_fill(~part["attention_mask"].bool().unsqueeze(-1), float("-inf"))
                best = logits.max(dim=1).values.float()
                reps.append(torch.log1p(torch.relu(best)).cpu().numpy())
        dense = np.concatenate(reps)
        return [SparseRep(np.flatnonzero(row), row[row > 0].astype(np.float32)) for row in dense]

    def top_terms(self, text: str, k: int = 20) -> list[tuple[str, float]]:
        """The k heaviest vocabulary terms of a text's representation, heaviest first."""
        (rep,) = self.encode([text])
        tokenizer, _ = self.model
        best = np.argsort(-rep.weights, kind="stable")[:k]
        names = tokenizer.convert_ids_to_tokens(rep.ids[best].tolist())
        return [(name, float(w)) for name, w in zip(names, rep.weights[best])]

    # -- scoring
    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        # One encoder for both roles: each unique text is encoded once, reps kept for this call only.
        unique = list(dict.fromkeys(queries + docs))
        reps = dict(zip(unique, self.encode(unique, progress)))
        return np.array([reps[q].dot(reps[d]) for q, d in zip(queries, docs)], dtype=np.float64)
