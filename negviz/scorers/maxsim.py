"""MaxSim over the contextual token embeddings of any transformer encoder.

No projection and no [MASK] augmentation: the vectors are the encoder's last hidden state.
This is how negviz looks at token alignments offline (over the bundled all-MiniLM-L6-v2),
and asks whether late interaction alone, without ColBERT's training, notices negation.

Options: ``similarity`` cosine (default) or l2; ``skip_special`` (default True) keeps [CLS] /
[SEP] out of MaxSim on both sides (they are still shown as tokens); ``mask_punctuation``
(default True) masks punctuation on the document side, as ColBERT does; ``max_length`` (256,
MiniLM's max_seq_length) truncates queries and documents alike. A text left with no token
that takes part (e.g. DEMETR's empty candidate ".") falls back to all its tokens, so MaxSim
stays defined.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from negviz.core.errors import ModelUnavailableError
from negviz.core.heavy import heavy_import
from negviz.core.options import Option
from negviz.scorers.late_interaction import (
    SIMILARITIES,
    LateInteractionScorer,
    TokenEmbeddings,
    count_content_tokens,
    is_punct_token,
    token_kinds,
    word_ids_of,
)


def transformer_folder(folder: str | Path) -> Path:
    """Where the HF model files of a checkpoint are: the root, or a sentence-transformers
    Transformer module's subfolder (``0_Transformer/`` in older saves)."""
    folder = Path(folder)
    modules = folder / "modules.json"
    if modules.is_file():
        for module in json.loads(modules.read_text()):
            if str(module.get("type", "")).endswith("Transformer"):
                sub = folder / module.get("path", "")
                if (sub / "config.json").is_file():
                    return sub
    if (folder / "config.json").is_file():
        return folder
    if (folder / "0_Transformer" / "config.json").is_file():
        return folder / "0_Transformer"
    raise ModelUnavailableError(f"no transformer model (config.json) in {folder} or its 0_Transformer/ subfolder")


class EncoderMaxSim(LateInteractionScorer):
    family: ClassVar[str] = "maxsim"
    declared_options: ClassVar[tuple[Option, ...]] = (
        Option("similarity", str, "cosine", "token similarity inside MaxSim", choices=SIMILARITIES),
        Option("skip_special", bool, True, "leave special tokens ([CLS], [SEP]) out of MaxSim"),
        Option("mask_punctuation", bool, True, "leave document punctuation out of MaxSim"),
        Option("max_length", int, 256, "tokens kept per text", ge=1, le=8192),
    )

    def _load(self) -> tuple[Any, Any]:
        AutoModel, AutoTokenizer = heavy_import("transformers", "AutoModel", "AutoTokenizer")

        from negviz.core.device import inference_dtype

        folder = transformer_folder(self.source)
        tokenizer = AutoTokenizer.from_pretrained(folder)
        model = AutoModel.from_pretrained(folder, dtype=inference_dtype(self.device))
        return tokenizer, model.to(self.device).eval()

    def _encode_batch(self, texts: list[str], role: str) -> list[TokenEmbeddings]:
        torch = heavy_import("torch")

        tokenizer, model = self.model
        max_length = int(self.options["max_length"])
        enc = tokenizer(
            texts,
            padding=True,
            truncation=True,
            max_length=max_length,
            return_tensors="pt",
            return_special_tokens_mask=True,
        )
        special_mask = enc.pop("special_tokens_mask")
        with torch.inference_mode():
            hidden = model(**{k: v.to(self.device) for k, v in enc.items()}).last_hidden_state
        vectors = hidden.float().cpu().numpy()
        lengths = count_content_tokens(tokenizer, texts)
        n_special = tokenizer.num_special_tokens_to_add()
        mask_punct = role == "document" and self.options["mask_punctuation"]

        out = []
        for row in range(len(texts)):
            keep = enc["attention_mask"][row].numpy().astype(bool)
            tokens = tokenizer.convert_ids_to_tokens(enc["input_ids"][row].tolist())
            special = special_mask[row].numpy().astype(bool)
            punct = np.array([is_punct_token(t) and not s for t, s in zip(tokens, special)])
            kinds = token_kinds(word_ids_of(enc, row, tokens, special), punct)
            mask = keep.copy()
            if self.options["skip_special"]:
                mask &= ~special
            if mask_punct:
                mask &= ~punct
            if not mask.any():  # nothing left (e.g. the text "."): every real token takes part
                mask = keep.copy()
            out.append(
                TokenEmbeddings(
                    tokens=[t for t, k in zip(tokens, keep) if k],
                    vectors=np.ascontiguousarray(vectors[row][keep]),
                    mask=mask[keep],
                    kinds=[k for k, kept in zip(kinds, keep) if kept],
                    truncated=lengths[row] + n_special > max_length,
                )
            )
        return out
