"""Tiny late-interaction and sparse checkpoints, written in the layouts of the real ones.

``build_tiny_colbert`` mirrors the Hub folder of ``colbert-ir/colbertv2.0``: a BERT
``config.json`` (architectures ``HF_ColBERT``), one weights file whose keys are ``bert.*``
plus the projection ``linear.weight`` (no bias), a BERT tokenizer holding ``[unused0]`` /
``[unused1]`` (the [Q] / [D] markers) and a flat ``artifact.metadata`` JSON. ``ColBERT``
loads it through the same code as the real checkpoint. ``build_tiny_colbert_v1`` writes the
ColBERT v0.2 ``.dnn`` format of ColBERTv1, ``build_tiny_splade`` a BertForMaskedLM (the
layout of naver/splade-*), ``build_tiny_encoder`` a plain BERT for MaxSim over encoder tokens.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.tiny.bert import save_bert_tokenizer, tiny_bert_config

# The keys of colbertv2.0's artifact.metadata that negviz reads (the real file has many more).
COLBERT_METADATA = {
    "query_token_id": "[unused0]",
    "doc_token_id": "[unused1]",
    "query_token": "[Q]",
    "doc_token": "[D]",
    "similarity": "cosine",
    "query_maxlen": 32,
    "doc_maxlen": 180,
    "mask_punctuation": True,
    "attend_to_mask_tokens": False,
    "interaction": "colbert",
    "dim": 16,
}


def save_tokenizer(path: str | Path) -> Path:
    """The tiny BERT WordPiece tokenizer (shared with tests/support/tiny/bert.py)."""
    return save_bert_tokenizer(path)


def colbert_state(seed: int = 0, dim: int = 16) -> dict:
    """Tensors of a tiny HF_ColBERT: ``bert.*`` plus ``linear.weight`` [dim, hidden]."""
    import torch
    from transformers import BertModel

    torch.manual_seed(seed)
    bert = BertModel(tiny_bert_config())
    linear = torch.nn.Linear(bert.config.hidden_size, dim, bias=False)
    state = {f"bert.{k}": v.contiguous() for k, v in bert.state_dict().items()}
    state["linear.weight"] = linear.weight.detach().contiguous()
    return state


def build_tiny_colbert(
    path: str | Path, seed: int = 0, dim: int = 16, weights: str = "safetensors", **metadata
) -> Path:
    """A ColBERT checkpoint folder: tiny BERT + ``linear`` projection to ``dim`` dims.

    ``weights`` picks ``model.safetensors`` or ``pytorch_model.bin`` (the Hub repo has had
    both); ``metadata`` overrides artifact.metadata entries (e.g. ``similarity="l2"``).
    """
    import torch

    path = save_tokenizer(path)
    config = tiny_bert_config()
    config.architectures = ["HF_ColBERT"]
    config.save_pretrained(path)
    state = colbert_state(seed, dim)
    if weights == "safetensors":
        from safetensors.torch import save_file

        save_file(state, str(path / "model.safetensors"), metadata={"format": "pt"})
    elif weights == "bin":
        torch.save(state, path / "pytorch_model.bin")
    else:
        raise ValueError(f"weights must be 'safetensors' or 'bin', not {weights!r}")
    meta = {**COLBERT_METADATA, "dim": dim, **metadata}
    (path / "artifact.metadata").write_text(json.dumps(meta, indent=4))
    return path


def build_tiny_colbert_v1(path: str | Path, seed: int = 0, dim: int = 16) -> Path:
    """A folder holding one ColBERT v0.2 training checkpoint, ``colbert-v1.dnn`` (the format of
    the ColBERTv1 weights the NevIR README links), plus the tiny BERT it names as its base
    (the real one names none, so ColBERT's loader falls back to bert-base-uncased)."""
    import torch

    path = Path(path)
    base = save_tokenizer(path / "base")
    tiny_bert_config().save_pretrained(base)
    state = colbert_state(seed, dim)
    checkpoint = {
        "epoch": 0,
        "batch": 200000,
        "model_state_dict": state,
        "optimizer_state_dict": {
            "state": {0: {"step": torch.tensor(1.0), "exp_avg": torch.zeros(2)}},
            "param_groups": [{"lr": 3e-6, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0, "params": [0]}],
        },
        "arguments": {"model": str(base), "similarity": "l2", "dim": dim, "query_maxlen": 32, "doc_maxlen": 180},
    }
    (path / "ckpt").mkdir(parents=True, exist_ok=True)
    torch.save(checkpoint, path / "ckpt" / "colbert-v1.dnn")
    return path / "ckpt"


def build_tiny_splade(path: str | Path, seed: int = 0) -> Path:
    """A BertForMaskedLM checkpoint with its tokenizer (the layout of naver/splade-*)."""
    import torch
    from transformers import BertForMaskedLM

    torch.manual_seed(seed)
    path = save_tokenizer(path)
    BertForMaskedLM(tiny_bert_config()).save_pretrained(path)
    return path


def build_tiny_encoder(path: str | Path, seed: int = 0, layout: str = "root") -> Path:
    """A plain BertModel + tokenizer for MaxSim over encoder tokens.

    ``layout="root"``: the files at the folder root (HF layout, and the sentence-transformers
    layout of the bundled MiniLM). ``layout="0_Transformer"``: an older sentence-transformers
    folder whose modules.json points at a ``0_Transformer/`` subfolder.
    """
    import torch
    from transformers import BertModel

    torch.manual_seed(seed)
    path = Path(path)
    model_dir = path / "0_Transformer" if layout == "0_Transformer" else path
    save_tokenizer(model_dir)
    BertModel(tiny_bert_config()).save_pretrained(model_dir)
    if layout == "0_Transformer":
        modules = [
            {"idx": 0, "name": "0", "path": "0_Transformer", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        ]
        (path / "modules.json").write_text(json.dumps(modules, indent=2))
    elif layout != "root":
        raise ValueError(f"layout must be 'root' or '0_Transformer', not {layout!r}")
    return path
