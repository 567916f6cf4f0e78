"""Tiny cross-encoder checkpoints (BertForSequenceClassification) built offline and loaded
back through ``CrossEncoder(path)``: a 3-way NLI head (contradiction/entailment/neutral, in
the label order of cross-encoder/nli-* models) and a single-logit relevance head (as
cross-encoder/ms-marco-*)."""

from __future__ import annotations

from pathlib import Path

from tests.support.tiny.bert import save_bert_tokenizer, tiny_bert_config

NLI_LABELS = {0: "contradiction", 1: "entailment", 2: "neutral"}


def build_tiny_cross_encoder(path: str | Path, num_labels: int = 1, seed: int = 0) -> Path:
    import torch
    from transformers import BertForSequenceClassification

    labels = NLI_LABELS if num_labels == 3 else {i: f"LABEL_{i}" for i in range(num_labels)}
    config = tiny_bert_config(num_labels=num_labels, id2label=labels, label2id={v: k for k, v in labels.items()})
    torch.manual_seed(seed)
    path = save_bert_tokenizer(path)
    BertForSequenceClassification(config).save_pretrained(path)
    return path
