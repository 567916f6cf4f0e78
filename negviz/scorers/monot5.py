"""MonoT5 rerankers (castorini/monot5-*), as pygaggle scores them.

Input ``Query: {q} Document: {d} Relevant:``; one decoder step from the start token; the
score is log P("true") after a softmax over just the two logits of "true" and "false".
A log-probability, not a probability: exp() would round near-certain pairs to 1.0 and
make ties.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from negviz.core.errors import ModelUnavailableError
from negviz.core.heavy import heavy_import
from negviz.core.options import Option
from negviz.scorers.base import Progress, Scorer

TEMPLATE = "Query: {query} Document: {doc} Relevant:"
MAX_LENGTH = 512  # pygaggle's limit; the document end is cut


def token_id(tokenizer, word: str) -> int:
    """Vocabulary id of a word as a sentence start ("▁true"), else its first sub-token."""
    vocab = tokenizer.get_vocab()
    for piece in (f"▁{word}", word):
        if piece in vocab:
            return vocab[piece]
    ids = tokenizer.encode(word, add_special_tokens=False)
    if not ids:
        raise ValueError(f"the tokenizer has no token for {word!r}")
    return ids[0]


class MonoT5(Scorer):
    family = "monot5"
    heavy = True
    # mT5 rerankers (unicamp-dl/mt5-*) answer "yes"/"no" instead.
    declared_options = (
        Option("true_token", str, "true", "the decoded token that means relevant"),
        Option("false_token", str, "false", "the decoded token that means not relevant"),
    )

    def _load(self) -> Any:
        AutoTokenizer, T5ForConditionalGeneration = heavy_import(
            "transformers", "AutoTokenizer", "T5ForConditionalGeneration"
        )

        from negviz.core.device import inference_dtype

        try:
            tokenizer = AutoTokenizer.from_pretrained(self.source)
            # fp16 on CUDA; transformers' T5 clamps fp16 activations against overflow.
            model = T5ForConditionalGeneration.from_pretrained(self.source, dtype=inference_dtype(self.device))
            ids = [token_id(tokenizer, self.options["false_token"]), token_id(tokenizer, self.options["true_token"])]
        except (OSError, ValueError) as exc:
            raise ModelUnavailableError(f"cannot load {self.name!r} as a MonoT5 model: {exc}") from exc
        model.to(self.device).eval()
        return tokenizer, model, ids

    def _score_pairs(self, queries: list[str], docs: list[str], progress: Progress) -> np.ndarray:
        torch = heavy_import("torch")

        tokenizer, model, false_true = self.model
        step, out = self.batch_size, []
        for start in range(0, len(queries), step):
            texts = [
                TEMPLATE.format(query=q, doc=d)
                for q, d in zip(queries[start : start + step], docs[start : start + step])
            ]
            enc = tokenizer(texts, padding=True, truncation=True, max_length=MAX_LENGTH, return_tensors="pt").to(
                self.device
            )
            start_ids = torch.full(
                (len(texts), 1), model.config.decoder_start_token_id, dtype=torch.long, device=self.device
            )
            with torch.inference_mode():
                logits = model(**enc, decoder_input_ids=start_ids).logits[:, 0, false_true]
            log_probs = torch.log_softmax(logits.float(), dim=-1)[:, 1]
            out.append(log_probs.cpu().numpy().astype(np.float64))
            progress(start + len(texts), len(queries), "scoring")
        return np.concatenate(out)
