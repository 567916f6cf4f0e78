"""Tiny BERT-family checkpoints built offline from a config, for loading-path tests.

They are saved to disk and loaded back through the same calls as real checkpoints
(``SentenceTransformer(path)``, ``CrossEncoder(path)``, ``from_pretrained(path)``).
Random weights prove shapes and plumbing, not which document wins.
"""

from __future__ import annotations

import string
from pathlib import Path

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "[unused0]", "[unused1]"]
WORDS = (
    "the a an of to in is was are not no never none nobody nothing neither nor except but "
    "without un dis non less free all some every who what which when where why how does did do "
    "has have had be been being it its he she they we you i this that these those and or if then "
    "than as at by for from on with about into over after before under again can could would should "
    "will may might must new old good bad first last many much more most other such only own same so "
    "too very just city river film book team war king music game water year people time world"
).split()


def vocab() -> list[str]:
    letters = list(string.ascii_lowercase + string.digits)
    punct = list(string.punctuation)
    pieces = ["##" + c for c in string.ascii_lowercase + string.digits]
    seen: dict[str, None] = {}
    for tok in SPECIAL + punct + letters + pieces + WORDS:
        seen.setdefault(tok, None)
    return list(seen)


def save_bert_tokenizer(path: str | Path, model_max_length: int = 512) -> Path:
    """The tiny WordPiece tokenizer. transformers 5's BertTokenizerFast takes ``vocab=`` (a
    dict); ``vocab_file=`` is silently ignored and would read every word as [UNK]."""
    from transformers import BertTokenizerFast

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    words = vocab()
    (path / "vocab.txt").write_text("\n".join(words) + "\n")
    tok = BertTokenizerFast(
        vocab={w: i for i, w in enumerate(words)}, do_lower_case=True, model_max_length=model_max_length
    )
    tok.save_pretrained(path)
    return path


def tiny_bert_config(**overrides):
    from transformers import BertConfig

    params = dict(
        vocab_size=len(vocab()),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=512,
    )
    params.update(overrides)
    return BertConfig(**params)


def build_tiny_bert(path: str | Path, seed: int = 0, **config_overrides) -> Path:
    """A plain BertModel checkpoint with its tokenizer."""
    import torch
    from transformers import BertModel

    torch.manual_seed(seed)
    path = save_bert_tokenizer(path)
    BertModel(tiny_bert_config(**config_overrides)).save_pretrained(path)
    return path


def build_tiny_sentence_transformer(path: str | Path, seed: int = 0, normalize: bool = False) -> Path:
    """A sentence-transformers model directory (Transformer + mean pooling [+ Normalize])."""
    from sentence_transformers import SentenceTransformer, models

    path = Path(path)
    bert_dir = build_tiny_bert(path / "_bert", seed=seed)
    word = models.Transformer(str(bert_dir), max_seq_length=128)
    modules = [word, models.Pooling(word.get_embedding_dimension(), pooling_mode="mean")]
    if normalize:
        modules.append(models.Normalize())
    SentenceTransformer(modules=modules, device="cpu").save(str(path / "model"))
    return path / "model"
