"""Bi-encoders: any sentence-transformers model, queries and documents embedded apart.

Scores are the dot product by default, as in the NevIR code whatever similarity a model
was trained with; ``similarity=cosine`` is the option. ``query_prefix``/``doc_prefix`` are
prepended per role (E5: "query: "/"passage: "); ``normalize`` L2-normalises embeddings.
``embed`` (from EmbeddingScorer) serves the cosine-drift and CANNOT analyses.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from negviz.errors import ModelUnavailableError
from negviz.options import Option
from negviz.scorers.base import EmbeddingScorer, Progress


class BiEncoder(EmbeddingScorer):
    family = "bi-encoder"
    symmetric = True  # one encoder, a symmetric similarity (given equal role prefixes, the default)
    declared_options = (
        Option("similarity", str, "dot", "score: dot product (the NevIR code) or cosine", choices=("dot", "cosine")),
        Option("query_prefix", str, "", 'text put before each query (E5: "query: ")'),
        Option("doc_prefix", str, "", 'text put before each document (E5: "passage: ")'),
        Option("normalize", bool, False, "L2-normalise embeddings"),
        Option("trust_remote_code", bool, False, "run code from the model repo (off unless asked for)"),
    )
    scoring_options = ("similarity", "query_prefix", "doc_prefix", "normalize")
    embedding_options = ("query_prefix", "doc_prefix", "normalize")

    def role_prefix(self, role: str) -> str:
        return str(self.options["query_prefix" if role == "query" else "doc_prefix"] or "")

    def _load(self) -> Any:
        from sentence_transformers import SentenceTransformer

        try:
            model = SentenceTransformer(
                self.source, device=self.device, trust_remote_code=bool(self.options["trust_remote_code"])
            )
        except (OSError, ValueError) as exc:
            raise ModelUnavailableError(f"cannot load {self.name!r} as a sentence-transformers model: {exc}") from exc
        if self.device.startswith("cuda"):
            model.half()  # inference only: half the memory, twice the speed
        model.eval()
        return model

    def _embed(self, texts: list[str], progress: Progress) -> np.ndarray:
        model, step = self.model, self.batch_size
        out = []
        for start in range(0, len(texts), step):
            batch = texts[start : start + step]
            out.append(
                model.encode(
                    batch,
                    batch_size=len(batch),
                    convert_to_numpy=True,
                    normalize_embeddings=bool(self.options["normalize"]),
                    show_progress_bar=False,
                ).astype(np.float32)
            )
            progress(start + len(batch), len(texts), "encoding")
        return np.concatenate(out)
