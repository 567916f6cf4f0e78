"""A tiny MonoT5-shaped checkpoint built offline: T5ForConditionalGeneration + a Unigram
T5 tokenizer whose vocabulary holds "▁true" and "▁false", saved with save_pretrained and
loaded back through AutoTokenizer / T5ForConditionalGeneration.from_pretrained like
castorini/monot5-*. Random weights: it proves plumbing, not relevance.
"""

from __future__ import annotations

import string
from pathlib import Path

from tests.support.tiny.bert import WORDS

# Whole words as "▁word" pieces, plus single characters so that any ASCII text tokenizes.
_PIECES = ["▁true", "▁false", "▁Query:", "▁Document:", "▁Relevant:"] + [f"▁{w}" for w in WORDS]
_CHARS = list(string.ascii_letters + string.digits + string.punctuation)


def t5_vocab() -> list[tuple[str, float]]:
    """Unigram (piece, log-prob) list; T5's layout puts <pad>, </s>, <unk> at ids 0, 1, 2."""
    vocab = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁", -2.0)]
    vocab += [(p, -5.0) for p in dict.fromkeys(_PIECES)]
    vocab += [(c, -8.0) for c in _CHARS] + [(f"▁{c}", -7.0) for c in _CHARS]
    return vocab


def build_tiny_t5(path: str | Path, seed: int = 0) -> Path:
    import torch
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tokenizer = T5Tokenizer(vocab=t5_vocab(), extra_ids=0, model_max_length=512)
    tokenizer.save_pretrained(path)
    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=32,
        d_kv=8,
        d_ff=64,
        num_layers=2,
        num_decoder_layers=2,
        num_heads=4,
        decoder_start_token_id=tokenizer.pad_token_id,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    torch.manual_seed(seed)
    T5ForConditionalGeneration(config).save_pretrained(path)
    return path
