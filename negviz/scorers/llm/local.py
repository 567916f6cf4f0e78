"""The local back end: a causal LM through ``transformers`` (a Hub folder, a local folder, or a
GGUF file that transformers de-quantizes through the ``gguf`` package).

Scoring is one forward pass per batch, never ``generate``: prompts are right-padded (causal
attention never looks at the padding, so a pair scores the same alone or in any batch) and the
logits are read at each prompt's last token. Reasoning (Rank1) is generated greedily first, in
left-padded batches, and then scored like any prompt. Half precision on CUDA.

Every prompt of a template starts with the same tokens (the chat template's system turn and the
instruction up to the query): their keys and values are computed once per loaded model and
reused by every batch (``prefix_ids``). The prefix is fixed by the template, not by the prompts of
one call, so a pair's score does not depend on which other pairs share its call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np

from negviz.core.errors import ModelUnavailableError
from negviz.core.heavy import heavy_import
from negviz.scorers.llm.prompts import Template, answer_prefix, reasoning_of, true_log_prob

# Below this many shared tokens the copy of the cached prefix costs about what it saves.
MIN_PREFIX_TOKENS = 8
_QUERY_MARK = "\u2063negviz-query\u2063"  # a string no template holds: where the query starts


def gguf_file(folder: str, wanted: str = "") -> str | None:
    """The GGUF file to load from ``folder``: ``wanted``, else the only one when the folder has no
    transformers checkpoint (config.json); None for an ordinary checkpoint."""
    path = Path(folder)
    if wanted:
        if not (path / wanted).is_file():
            raise ModelUnavailableError(f"no GGUF file {wanted!r} in {folder}; drop the gguf_file option or fix it")
        return wanted
    if (path / "config.json").is_file():
        return None
    found = sorted(p.name for p in path.glob("*.gguf"))
    if len(found) > 1:
        raise ModelUnavailableError(f"{folder} holds several GGUF files ({', '.join(found)}); pick one with gguf_file=")
    return found[0] if found else None


class LocalLM:
    """A causal LM, its tokenizer and the ids of the answer words of one template."""

    def __init__(self, source: str, device: str, template: Template | None, gguf: str = "", name: str = ""):
        AutoModelForCausalLM, AutoTokenizer = heavy_import("transformers", "AutoModelForCausalLM", "AutoTokenizer")

        from negviz.core.device import LARGE_MODEL_PRECISION, inference_dtype

        self.template, self.device = template, device
        try:
            file = gguf_file(source, gguf)
            kw: dict[str, Any] = {"gguf_file": file} if file else {}
            self.tokenizer = AutoTokenizer.from_pretrained(source, **kw)
            dtype = inference_dtype(device, LARGE_MODEL_PRECISION)
            model = AutoModelForCausalLM.from_pretrained(source, dtype=dtype, **kw)
        except (OSError, ValueError, ImportError) as exc:
            raise ModelUnavailableError(f"cannot load {name or source!r} as a causal language model: {exc}") from exc
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        if (template is None or template.chat) and not getattr(self.tokenizer, "chat_template", None):
            raise ModelUnavailableError(
                f"{name or source!r} has no chat template; use an instruct model (or, pointwise, template=rank1)"
            )
        self.model = model.to(device).eval()
        self.prefix_ids: list[int] = []
        self.prefix_tokens_reused = 0  # prompt tokens not computed again (provenance)
        self._prefix_cache = None
        if template is not None:  # None: chat generation only (listwise)
            trues, falses = template.answer_words()
            self.true_ids, self.false_ids = self._first_ids(trues), self._first_ids(falses)
            self.prefix_ids = self._template_prefix()

    def _template_prefix(self) -> list[int]:
        """The token ids every prompt of the template starts with: the text before the query,
        less its last token (the query's first characters could merge with it)."""
        head = self.prompt(_QUERY_MARK, "").split(_QUERY_MARK, 1)[0]
        ids = self.tokenizer(head, add_special_tokens=not self.template.chat)["input_ids"][:-1]
        return ids if len(ids) >= MIN_PREFIX_TOKENS else []

    def _first_ids(self, words: tuple[str, ...]) -> list[int]:
        ids = [self.tokenizer.encode(w, add_special_tokens=False)[:1] for w in words]
        return sorted({i[0] for i in ids if i})

    def prompt(self, query: str, doc: str) -> str:
        t = self.template
        if not t.chat:
            return t.raw(query, doc)
        return self.tokenizer.apply_chat_template(t.messages(query, doc), tokenize=False, add_generation_prompt=True)

    def _encode(self, texts: list[str], side: str):
        self.tokenizer.padding_side = side
        # Chat templates already hold the BOS token where the model wants one.
        return self.tokenizer(texts, padding=True, return_tensors="pt", add_special_tokens=not self.template.chat)

    def answer_scores(self, texts: list[str]) -> np.ndarray:
        """log P(true) at the end of each full prompt (reasoning included), one batch."""
        torch = heavy_import("torch")

        hidden = self._after_prefix(texts) if self.prefix_ids else None
        if hidden is None:
            enc = self._encode(texts, "right").to(self.device)
            last = enc["attention_mask"].sum(dim=1) - 1
            with torch.inference_mode():
                hidden = self.model.get_decoder()(**enc).last_hidden_state[torch.arange(len(texts)), last]
        with torch.inference_mode():
            # The vocabulary projection at the answer position only (a fifth of a small model's
            # work if it ran over every position).
            logits = self.model.get_output_embeddings()(hidden)
        rows = torch.log_softmax(logits.float(), dim=-1).cpu().numpy()
        return np.array([true_log_prob(r[self.true_ids], r[self.false_ids]) for r in rows])

    def _after_prefix(self, texts: list[str]):
        """Hidden states at each prompt's last token, the shared prefix read from its cached keys
        and values; None when a prompt does not start with the prefix (then the plain path)."""
        import copy

        torch = heavy_import("torch")

        ids = self.tokenizer(texts, add_special_tokens=not self.template.chat)["input_ids"]
        p = len(self.prefix_ids)
        if any(len(i) <= p or i[:p] != self.prefix_ids for i in ids):
            return None
        decoder = self.model.get_decoder()
        with torch.inference_mode():
            if self._prefix_cache is None:
                prefix = torch.tensor([self.prefix_ids], device=self.device)
                self._prefix_cache = decoder(input_ids=prefix, use_cache=True).past_key_values
            tails = [i[p:] for i in ids]
            lengths = torch.tensor([len(t) for t in tails], device=self.device)
            width = int(lengths.max())
            pad = self.tokenizer.pad_token_id
            tail_ids = torch.tensor([t + [pad] * (width - len(t)) for t in tails], device=self.device)
            mask = (torch.arange(width, device=self.device)[None, :] < lengths[:, None]).long()
            mask = torch.cat([torch.ones(len(tails), p, dtype=torch.long, device=self.device), mask], dim=1)
            positions = torch.arange(p, p + width, device=self.device).expand(len(tails), width)
            cache = copy.deepcopy(self._prefix_cache)  # the forward pass appends to it
            if len(tails) > 1:
                cache.batch_repeat_interleave(len(tails))
            out = decoder(
                input_ids=tail_ids, attention_mask=mask, position_ids=positions, past_key_values=cache, use_cache=True
            )
        self.prefix_tokens_reused += p * len(tails)
        return out.last_hidden_state[torch.arange(len(tails)), lengths - 1]

    def generate(self, texts: list[str], max_new_tokens: int, chat: bool | None = None) -> list[str]:
        """Greedy continuations of prompts, one left-padded batch."""
        torch = heavy_import("torch")

        chat = self.template.chat if chat is None else chat
        self.tokenizer.padding_side = "left"
        enc = self.tokenizer(texts, padding=True, return_tensors="pt", add_special_tokens=not chat).to(self.device)
        with torch.inference_mode():
            out = self.model.generate(
                **enc, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=self.tokenizer.pad_token_id
            )
        return self.tokenizer.batch_decode(out[:, enc["input_ids"].shape[1] :], skip_special_tokens=True)

    def chat(self, conversations: list[list[dict[str, str]]], max_new_tokens: int) -> list[str]:
        """Greedy answers to chat conversations (RankGPT), one batch."""
        texts = [
            self.tokenizer.apply_chat_template(c, tokenize=False, add_generation_prompt=True) for c in conversations
        ]
        return self.generate(texts, max_new_tokens, chat=True)

    def score_pairs(
        self, queries: list[str], docs: list[str], batch: int, budget: int, report: Callable[[int], None]
    ) -> tuple[np.ndarray, list[str]]:
        """Scores and reasonings ("" without a reasoning step) of aligned pairs."""
        prompts = [self.prompt(q, d) for q, d in zip(queries, docs)]
        reasons = [""] * len(prompts)
        out = []
        for start in range(0, len(prompts), batch):
            part = prompts[start : start + batch]
            if self.template.reasons:
                generated = self.generate(part, budget)
                reasons[start : start + batch] = [reasoning_of(self.template, g) for g in generated]
            full = [p + answer_prefix(self.template, r) for p, r in zip(part, reasons[start : start + batch])]
            out.append(self.answer_scores(full))
            report(start + len(part))
        return np.concatenate(out), reasons
