"""ColBERT checkpoints (``colbert-ir/colbertv2.0``, ColBERTv1 converted to the same layout).

A checkpoint folder holds a BERT ``config.json`` (architectures ``HF_ColBERT``), one weights
file (``model.safetensors`` or ``pytorch_model.bin``) whose keys are ``bert.*`` plus the
projection ``linear.weight`` ([dim, hidden], no bias), the BERT tokenizer, and an
``artifact.metadata`` JSON with query_maxlen, doc_maxlen, similarity, mask_punctuation,
attend_to_mask_tokens and the marker tokens ([Q] = ``[unused0]``, [D] = ``[unused1]``).
A folder holding one ColBERT v0.2 training checkpoint (``colbert-v1.dnn``: a dict whose
``model_state_dict`` has the same keys) loads too; its config and tokenizer come from the BERT
it was trained from (``bert-base-uncased``, resolved like any model).

Encoding follows the ColBERT code (the NevIR protocol): the text gets a ". " placeholder
after [CLS] that is overwritten by the marker; queries are padded to query_maxlen and the
padding turned into [MASK] tokens, which take part in MaxSim (attended to only if
attend_to_mask_tokens); documents are truncated at doc_maxlen and their punctuation tokens
(the first piece of each ``string.punctuation`` symbol) are masked. Vectors are the
projection of BERT's last hidden state, L2-normalised. fp16 on CUDA (NevIR ran with amp).

Three ``artifact.metadata`` keys that ColBERT's own files lack describe checkpoints that negviz
wrote from its late-interaction fine-tune (negviz.finetune.colbert_export), which trains MaxSim
over the plain encoder: ``markers`` (false: no ". " placeholder and no [Q]/[D] marker),
``mask_augmentation`` (false: queries are not [MASK]-padded, only padded to their batch) and
``skip_special`` (true: [CLS]/[SEP] stay out of MaxSim on both sides; a text left with no token
that takes part then falls back to all its tokens, as the ``maxsim`` family does). Absent, they
mean ColBERT's behaviour (true, true, false). They are properties of how the checkpoint was
trained, so they come from the metadata only, not from the model spec's options.

``masked_doc_tokens`` picks how masked document tokens are treated. ``exclude`` (default):
they never win the max, as in ColBERTv2's cosine scoring. ``zero``: they are zero vectors
that still compete, as in the ColBERT v0.2 code NevIR ran (``D = D * mask`` then a max over
all columns), i.e. each query token scores at least 0 (cosine) or -1 (l2) when the document
has a punctuation token. (v0.2 also zero-pads a document to its batch mate's length; that
depends on the batch, so it is not reproduced.)

PyLate vs. plain transformers: plain transformers. ``pip install --dry-run pylate==1.6.0``
would replace torch 2.13.0 by 2.11.0, transformers 5.23 by 5.3.0 and sentence-transformers
6.2 by 5.3.0 and pull in ~3 GB of CUDA wheels (fast-plaid, fastkmeans, usearch); negviz needs
neither PLAID indexing nor training, only the forward pass above, which is ~100 lines.
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass
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
    token_kinds,
    word_ids_of,
)

METADATA_FILE = "artifact.metadata"
# Used when neither the spec nor artifact.metadata gives a value (ColBERT's own defaults).
FALLBACKS = {
    "similarity": "cosine",
    "query_maxlen": 32,
    "doc_maxlen": 180,
    "mask_punctuation": True,
    "attend_to_mask_tokens": False,
}
MASKED_DOC_TOKENS = ("exclude", "zero")
# How texts are encoded, from artifact.metadata only (negviz's own exports set them; see above).
ENCODING_FALLBACKS = {"markers": True, "mask_augmentation": True, "skip_special": False}


def read_metadata(folder: str | Path) -> dict[str, Any]:
    """artifact.metadata of a checkpoint folder ({} if absent); flat or under "config"."""
    path = Path(folder) / METADATA_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    return data.get("config", data) if isinstance(data, dict) else {}


def read_state_dict(folder: Path) -> dict[str, Any]:
    """The tensors of an HF-layout checkpoint: model.safetensors, else pytorch_model.bin."""
    torch = heavy_import("torch")

    if (folder / "model.safetensors").is_file():
        load_file = heavy_import("safetensors.torch", "load_file")

        return load_file(str(folder / "model.safetensors"))
    if (folder / "pytorch_model.bin").is_file():
        return torch.load(folder / "pytorch_model.bin", map_location="cpu", weights_only=True)
    found = ", ".join(sorted(p.name for p in folder.iterdir())) or "nothing"
    raise ModelUnavailableError(
        f"ColBERT checkpoint {folder} has no model.safetensors or pytorch_model.bin (found: {found})"
    )


def read_dnn(path: Path) -> tuple[dict[str, Any], str]:
    """A ColBERT v0.2 training checkpoint (``colbert-v1.dnn``): its model tensors and the hub id
    or path of the BERT it was trained from (config and tokenizer come from there)."""
    torch = heavy_import("torch")

    try:  # tensors, numbers, strings and dicts only: no arbitrary pickled objects
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:
        reason = str(exc).splitlines()[0][:200]
        raise ModelUnavailableError(f"cannot read the ColBERT checkpoint {path}: {reason}") from exc
    state = checkpoint.get("model_state_dict", checkpoint)
    state = {k.removeprefix("module."): v for k, v in state.items()}  # saved from DataParallel
    arguments = checkpoint.get("arguments")
    base = (arguments.get("model") if isinstance(arguments, dict) else None) or "bert-base-uncased"  # as ColBERT does
    return state, base


def locate_checkpoint(folder: Path) -> tuple[dict[str, Any], Path, Path]:
    """(tensors, config folder, tokenizer folder) of a colbertv2.0-layout folder or of a folder
    holding one v0.2 ``.dnn`` file (ColBERTv1 as the NevIR README links it)."""
    if (folder / "config.json").is_file():
        return read_state_dict(folder), folder, folder
    dnn = sorted(folder.glob("*.dnn"))
    if len(dnn) != 1:
        names = ", ".join(p.name for p in dnn)
        what = f"{len(dnn)} .dnn files ({names}); keep one per folder" if dnn else "no config.json and no .dnn file"
        raise ModelUnavailableError(f"{folder} is not a ColBERT checkpoint folder: {what}")
    from negviz.scorers.loading import resolve_source

    state, base = read_dnn(dnn[0])
    base_dir = Path(resolve_source(base).path)
    has_tokenizer = any((folder / f).is_file() for f in ("tokenizer.json", "vocab.txt", "tokenizer_config.json"))
    return state, base_dir, folder if has_tokenizer else base_dir


@dataclass
class _Parts:
    """What a loaded ColBERT is made of."""

    tokenizer: Any
    encoder: Any  # the BERT body
    linear: Any  # the projection to dim
    q_marker: int | None  # None: the checkpoint uses no markers
    d_marker: int | None
    punct_ids: frozenset[int]


class ColBERT(LateInteractionScorer):
    family: ClassVar[str] = "colbert"
    # None = take the checkpoint's artifact.metadata value (filled in at construction).
    declared_options: ClassVar[tuple[Option, ...]] = (
        Option("similarity", str, None, "token similarity (default: the checkpoint's)", choices=SIMILARITIES),
        Option(
            "query_maxlen", int, None, "query length in tokens, [MASK]-padded (default: the checkpoint's)", ge=4, le=512
        ),
        Option("doc_maxlen", int, None, "document length in tokens (default: the checkpoint's)", ge=4, le=512),
        Option("mask_punctuation", bool, None, "leave document punctuation out (default: the checkpoint's)"),
        Option("attend_to_mask_tokens", bool, None, "let queries attend to [MASK] padding (default: the checkpoint's)"),
        Option(
            "masked_doc_tokens",
            str,
            "exclude",
            "masked document tokens: left out or zero vectors",
            choices=MASKED_DOC_TOKENS,
        ),
    )

    def _resolve_options(self) -> None:
        self.metadata = read_metadata(self.source) if Path(self.source).is_dir() else {}
        for key, fallback in FALLBACKS.items():
            if self.options.get(key) is None:
                self.options[key] = self.metadata.get(key, fallback)
        self.encoding = {key: self.metadata.get(key, fallback) for key, fallback in ENCODING_FALLBACKS.items()}
        for key, value in self.encoding.items():
            if not isinstance(value, bool):
                raise ValueError(f"colbert {key} in {METADATA_FILE} must be true or false, not {value!r}")
        for key in ("query_maxlen", "doc_maxlen"):
            if not isinstance(self.options[key], int) or self.options[key] < 4:
                raise ValueError(f"colbert {key} must be an integer >= 4, not {self.options[key]!r}")
        if self.options["masked_doc_tokens"] not in MASKED_DOC_TOKENS:
            raise ValueError(
                f"colbert masked_doc_tokens must be 'exclude' or 'zero', not {self.options['masked_doc_tokens']!r}"
            )

    # -- loading
    def _load(self) -> _Parts:
        torch = heavy_import("torch")
        AutoConfig, AutoModel, AutoTokenizer = heavy_import("transformers", "AutoConfig", "AutoModel", "AutoTokenizer")

        from negviz.core.device import inference_dtype

        folder = Path(self.source)
        state, config_dir, tokenizer_dir = locate_checkpoint(folder)
        tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
        encoder = AutoModel.from_config(AutoConfig.from_pretrained(config_dir))  # weights come from `state`
        if "linear.weight" not in state:
            raise ModelUnavailableError(f"{folder} has no projection 'linear.weight'; is it a ColBERT checkpoint?")
        weight = state.pop("linear.weight")
        # HF_ColBERT keeps the body under the base model prefix ("bert." for BERT).
        prefix = encoder.base_model_prefix + "."
        body = {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}
        missing, _unexpected = encoder.load_state_dict(body, strict=False)
        missing = [k for k in missing if not k.startswith("pooler.") and not k.endswith("position_ids")]
        if missing:
            raise ModelUnavailableError(f"ColBERT checkpoint {folder} lacks encoder weights: {missing[:5]}")
        linear = torch.nn.Linear(weight.shape[1], weight.shape[0], bias=False)
        with torch.no_grad():
            linear.weight.copy_(weight)
        dtype = inference_dtype(self.device)
        encoder.to(self.device, dtype).eval()
        linear.to(self.device, dtype).eval()
        markers = self.encoding["markers"]
        return _Parts(
            tokenizer,
            encoder,
            linear,
            self._marker_id(tokenizer, "query_token_id", "[unused0]") if markers else None,
            self._marker_id(tokenizer, "doc_token_id", "[unused1]") if markers else None,
            # ColBERT's skiplist: the first piece of every punctuation symbol.
            frozenset(tokenizer.encode(s, add_special_tokens=False)[0] for s in string.punctuation),
        )

    def _marker_id(self, tokenizer: Any, key: str, default: str) -> int:
        token = self.metadata.get(key, default)
        token_id = tokenizer.convert_tokens_to_ids(token)
        if token_id is None or token_id == tokenizer.unk_token_id:
            raise ModelUnavailableError(f"the tokenizer of {self.source} has no {token!r} token for the ColBERT marker")
        return int(token_id)

    # -- encoding
    def _encode_batch(self, texts: list[str], role: str) -> list[TokenEmbeddings]:
        torch = heavy_import("torch")

        m: _Parts = self.model
        tok = m.tokenizer
        is_query = role == "query"
        markers, skip_special = self.encoding["markers"], self.encoding["skip_special"]
        augment = is_query and self.encoding["mask_augmentation"]
        maxlen = self.options["query_maxlen" if is_query else "doc_maxlen"]
        # ". " reserves position 1 for the marker, exactly as ColBERT's tokenizers do.
        enc = tok(
            [". " + t for t in texts] if markers else texts,
            padding="max_length" if augment else "longest",
            truncation=True,
            max_length=maxlen,
            return_tensors="pt",
        )
        ids, attention = enc["input_ids"], enc["attention_mask"]
        if markers:
            ids[:, 1] = m.q_marker if is_query else m.d_marker
        mask_aug = torch.zeros_like(ids, dtype=torch.bool)
        if augment:  # [MASK] augmentation: padding becomes [MASK] and takes part in MaxSim
            mask_aug = ids == tok.pad_token_id
            ids[mask_aug] = tok.mask_token_id
            if self.options["attend_to_mask_tokens"]:
                attention[mask_aug] = 1
        with torch.inference_mode():
            inputs = {"input_ids": ids.to(self.device), "attention_mask": attention.to(self.device)}
            hidden = m.encoder(**inputs).last_hidden_state
            vectors = torch.nn.functional.normalize(m.linear(hidden), p=2, dim=-1).float().cpu().numpy()

        lengths = count_content_tokens(tok, texts)
        n_special = tok.num_special_tokens_to_add() + (1 if markers else 0)  # [CLS], [SEP] and the marker
        out = []
        for row in range(len(texts)):
            # An augmented query keeps all maxlen positions ([MASK]s included); other texts drop their padding.
            keep = np.ones(ids.shape[1], dtype=bool) if augment else attention[row].numpy().astype(bool)
            row_ids = ids[row].tolist()
            tokens = tok.convert_ids_to_tokens(row_ids)
            special = [i in (tok.cls_token_id, tok.sep_token_id) for i in row_ids]
            punct = [i in m.punct_ids for i in row_ids]
            kinds = token_kinds(word_ids_of(enc, row, tokens, special), punct)
            if markers:
                kinds[1] = "marker"
                tokens[1] = "[Q]" if is_query else "[D]"
            for pos in np.flatnonzero(mask_aug[row].numpy()):
                kinds[pos] = "mask_aug"
            vecs = vectors[row]
            mask = np.ones(len(row_ids), dtype=bool)
            if skip_special:
                mask &= ~np.array(special)
            if not is_query and self.options["mask_punctuation"]:
                is_punct = np.array(punct)
                if self.options["masked_doc_tokens"] == "zero":
                    vecs = np.where(is_punct[:, None], 0.0, vecs).astype(np.float32)
                else:
                    mask &= ~is_punct
            if not (mask & keep).any():  # nothing left (e.g. the text "." without [CLS]/[SEP]): all tokens
                mask = np.ones(len(row_ids), dtype=bool)
            out.append(
                TokenEmbeddings(
                    tokens=[t for t, k in zip(tokens, keep) if k],
                    vectors=np.ascontiguousarray(vecs[keep]),
                    mask=mask[keep],
                    kinds=[k for k, kept in zip(kinds, keep) if kept],
                    truncated=lengths[row] + n_special > maxlen,
                )
            )
        return out
