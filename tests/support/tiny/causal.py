"""A tiny causal LM built offline (LlamaConfig: 2 layers, hidden 32) with a byte-level BPE
tokenizer trained here on a few sentences, a ChatML chat template, saved with save_pretrained
and loaded back through AutoTokenizer / AutoModelForCausalLM like a Hub instruct model.
Random weights: it proves plumbing (templates, answer positions, batching), not relevance.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.tiny.bert import WORDS

CHATML = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
_CORPUS = [
    " ".join(WORDS),
    "yes no Yes No true false True False </think> <think> Query: Document: Passage: Answer",
    "Determine if the following passage is relevant to the query. Answer only with 'true' or 'false'.",
    "Does the document answer the query? Answer yes or no. [1] > [2] Rank the passages",
]


def build_tiny_causal_lm(path: str | Path, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600, special_tokens=SPECIAL, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    bpe.train_from_iterator(_CORPUS * 5, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        bos_token="<|endoftext|>",
        model_max_length=2048,
    )
    tokenizer.chat_template = CHATML
    tokenizer.save_pretrained(path)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
        bos_token_id=tokenizer.bos_token_id,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    LlamaForCausalLM(config).save_pretrained(path)
    return path
