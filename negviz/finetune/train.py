"""The two training loops: a bi-encoder with sentence-transformers' MultipleNegativesRankingLoss,
and MaxSim over an encoder's token embeddings with an in-batch + hard-negative contrastive loss.

Both are plain torch loops (sentence-transformers' Trainer needs ``accelerate``, and a plain
loop lets the caller check a cancel flag and report loss between any two steps). A batch of n
pairs holds the 2n triplets (q1, d1, d2) and (q2, d2, d1) (data.triplets); every other
document of the batch is an in-batch negative, and each document is encoded once. On CUDA
the forward pass runs under autocast (bf16, else fp16 with a
gradient scaler); on CPU in float32.

A trainer saves checkpoints in the layout its evaluation family loads: a sentence-transformers
folder for ``bi-encoder``, a plain transformers folder (config, weights, tokenizer) for
``maxsim``, so ``negviz eval --model DIR`` and the MaxSim explorer's "After" box read them. A
``maxsim`` checkpoint can also be written in the ColBERT layout (negviz.finetune.colbert_export,
``negviz finetune --save-layout colbert``), which the ``colbert`` family scores identically.
"""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from negviz.core.heavy import heavy_import
from negviz.finetune.data import Pair, triplets
from negviz.finetune.spec import BI_ENCODER, FinetuneSpec

MAX_GRAD_NORM = 1.0
# on_step(step, steps, loss) after every optimiser step; should_stop() before every step.
OnStep = Callable[[int, int, float], None]


class Cancelled(Exception):
    """Raised between two steps when the caller asked to stop."""


def seed_everything(seed: int) -> None:
    import random

    torch = heavy_import("torch")

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class _Loop:
    """Optimiser, warmup + linear decay schedule, mixed precision and the step loop."""

    def __init__(self, spec: FinetuneSpec, device: str, total_steps: int):
        self.spec, self.device, self.total_steps = spec, device, max(1, total_steps)
        self.cuda = str(device).startswith("cuda")

    def _setup(self, params) -> None:
        torch = heavy_import("torch")
        get_linear_schedule_with_warmup = heavy_import("transformers", "get_linear_schedule_with_warmup")

        self.params = [p for p in params if p.requires_grad]
        self.opt = torch.optim.AdamW(self.params, lr=self.spec.lr)
        warmup = int(math.ceil(self.spec.warmup_ratio * self.total_steps))
        self.sched = get_linear_schedule_with_warmup(self.opt, warmup, self.total_steps)
        self.dtype = None
        if self.cuda:
            self.dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        self.scaler = torch.amp.GradScaler("cuda") if self.dtype == torch.float16 else None

    def _autocast(self):
        torch = heavy_import("torch")

        return torch.autocast("cuda", dtype=self.dtype) if self.cuda else contextlib.nullcontext()

    def loss(self, batch: Sequence[Pair]):
        raise NotImplementedError

    def train_epoch(self, batches: list[list[Pair]], on_step: OnStep, should_stop: Callable[[], bool]) -> float:
        """One pass over the batches; returns the mean training loss."""
        torch = heavy_import("torch")

        self.module.train()
        losses = []
        for i, batch in enumerate(batches):
            if should_stop():
                raise Cancelled()
            with self._autocast():
                loss = self.loss(batch)
            if not torch.isfinite(loss):
                raise FloatingPointError(
                    f"the training loss became {loss.item()} at step {i + 1}; lower the learning rate"
                )
            if self.scaler is not None:
                self.scaler.scale(loss).backward()
                self.scaler.unscale_(self.opt)
            else:
                loss.backward()
            torch.nn.utils.clip_grad_norm_(self.params, MAX_GRAD_NORM)
            if self.scaler is not None:
                self.scaler.step(self.opt)
                self.scaler.update()
            else:
                self.opt.step()
            self.sched.step()
            self.opt.zero_grad(set_to_none=True)
            losses.append(float(loss.detach()))
            on_step(i + 1, len(batches), float(np.mean(losses)))
        return float(np.mean(losses)) if losses else float("nan")


def freeze_all_but_top(module, layers: int) -> list[str]:
    """Leave only the top ``layers`` transformer layers trainable (0: everything); returns the
    names of the trainable parameters (what a delta over the base has to carry)."""
    if layers:
        from negviz.finetune.lora import top_layers

        chosen = top_layers(module, layers)
        for p in module.parameters():
            p.requires_grad_(False)
        for layer in chosen:
            for p in layer.parameters():
                p.requires_grad_(True)
    return [name for name, p in module.named_parameters() if p.requires_grad]


class BiEncoderTrainer(_Loop):
    """sentence-transformers model + MultipleNegativesRankingLoss (anchor, positive, negative).
    A batch is NevIR pairs (4-tuples) or triplets (3-tuples: anchor, positive, hard negative);
    a positive equal to its anchor is encoded separately, so dropout makes the two views differ."""

    def __init__(self, source: str, spec: FinetuneSpec, device: str, total_steps: int):
        super().__init__(spec, device, total_steps)
        SentenceTransformer = heavy_import("sentence_transformers", "SentenceTransformer")
        MultipleNegativesRankingLoss = heavy_import(
            "sentence_transformers.sentence_transformer.losses", "MultipleNegativesRankingLoss"
        )

        self.model = SentenceTransformer(source, device=device)
        self.module = self.model
        self.lora: dict[str, object] = {}
        if spec.lora_rank:  # adapters on the HF model, so their names are the saved weights' names
            from negviz.finetune.lora import inject

            self.lora = inject(self.model[0].auto_model, spec.train_layers, spec.lora_rank)
            self.trainable = [n for n, p in self.model.named_parameters() if p.requires_grad]
        else:
            self.trainable = freeze_all_but_top(self.model, spec.train_layers)
        self.loss_fn = MultipleNegativesRankingLoss(self.model, scale=spec.scale)
        self._setup(self.model.parameters())

    def _embed(self, texts: list[str]):
        batch_to_device = heavy_import("sentence_transformers.util", "batch_to_device")

        return self.model(batch_to_device(self.model.preprocess(texts), self.device))["sentence_embedding"]

    def loss(self, batch: Sequence[Pair]):
        torch = heavy_import("torch")
        batch_to_device = heavy_import("sentence_transformers.util", "batch_to_device")

        if len(batch[0]) == 3:  # (anchor, positive, negative)
            columns = [list(col) for col in zip(*batch)]
            return self.loss_fn.compute_loss_from_embeddings([self._embed(texts) for texts in columns], None)
        queries, docs, _ = triplets(batch)
        embed = [
            self.model(batch_to_device(self.model.preprocess(texts), self.device))["sentence_embedding"]
            for texts in (queries, docs)
        ]
        q, d = embed
        n = len(batch)
        negatives = torch.cat([d[n:], d[:n]])  # (q1, d1, d2) and (q2, d2, d1): each document encoded once
        # Every document is a candidate twice (data.triplets): minus log 2, this is InfoNCE over the batch's documents.
        return self.loss_fn.compute_loss_from_embeddings([q, d, negatives], None) - math.log(2)

    def save(self, path: Path) -> Path:
        """A plain sentence-transformers folder (adapters merged in), plus the adapters themselves
        in lora.safetensors for a delta to ship."""
        if not self.lora:
            self.model.save(str(path))
            return path
        save_file = heavy_import("safetensors.torch", "save_file")

        from negviz.finetune.lora import LORA_FILE, factors, merged

        with merged(self.model[0].auto_model, self.lora):
            self.model.save(str(path))
        save_file(factors(self.lora), str(Path(path) / LORA_FILE))
        return path


class MaxSimTrainer(_Loop):
    """MaxSim over the encoder's last hidden state, trained with cross-entropy over
    S(q, d) for the batch's documents (positives and hard negatives); masks as the ``maxsim``
    family draws them: special tokens out on both sides, punctuation out of documents."""

    def __init__(self, source: str, spec: FinetuneSpec, device: str, total_steps: int, options: dict[str, Any]):
        super().__init__(spec, device, total_steps)
        AutoModel, AutoTokenizer = heavy_import("transformers", "AutoModel", "AutoTokenizer")

        from negviz.scorers.maxsim import EncoderMaxSim, transformer_folder

        self.options = {**EncoderMaxSim.default_options, **options}
        if self.options["similarity"] != "cosine":
            raise ValueError("late-interaction fine-tuning trains cosine MaxSim; drop similarity=l2")
        if spec.lora_rank:
            raise ValueError("LoRA adapters are for bi-encoder fine-tuning; train MaxSim models with lora_rank 0")
        folder = transformer_folder(source)
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.module = AutoModel.from_pretrained(folder).to(device)
        self._setup(self.module.parameters())

    def _masks(self, enc, special, role: str):
        """[batch, length] bool: the tokens that take part in MaxSim (as EncoderMaxSim)."""
        torch = heavy_import("torch")

        from negviz.scorers.late_interaction import is_punct_token

        keep = enc["attention_mask"].bool()
        mask = keep.clone()
        if self.options["skip_special"]:
            mask &= ~special.bool()
        if role == "document" and self.options["mask_punctuation"]:
            punct = [
                [is_punct_token(t) and not s for t, s in zip(self.tokenizer.convert_ids_to_tokens(ids), sp)]
                for ids, sp in zip(enc["input_ids"].tolist(), special.tolist())
            ]
            mask &= ~torch.tensor(punct, dtype=torch.bool)
        empty = ~mask.any(dim=1)
        mask[empty] = keep[empty]  # a text with no content token: all its tokens take part
        return mask

    def encode(self, texts: list[str], role: str):
        """(L2-normalised token vectors [batch, length, dim], MaxSim mask [batch, length])."""
        torch = heavy_import("torch")

        enc = self.tokenizer(
            texts,
            padding=True,
            truncation=True,
            max_length=int(self.options["max_length"]),
            return_tensors="pt",
            return_special_tokens_mask=True,
        )
        special = enc.pop("special_tokens_mask")
        mask = self._masks(enc, special, role)
        hidden = self.module(**{k: v.to(self.device) for k, v in enc.items()}).last_hidden_state
        return torch.nn.functional.normalize(hidden.float(), dim=-1), mask.to(self.device)

    @staticmethod
    def maxsim_scores(q, q_mask, d, d_mask):
        """S[i, j] = sum over query i's tokens of the max cosine over document j's tokens."""
        torch = heavy_import("torch")

        sim = torch.einsum("qih,djh->qdij", q, d)
        sim = sim.masked_fill(~d_mask[None, :, None, :], float("-inf"))
        best = sim.max(dim=-1).values  # [q, d, i]
        return (best * q_mask[:, None, :].float()).sum(dim=-1)

    def loss(self, batch: Sequence[Pair]):
        torch = heavy_import("torch")

        queries, docs, _ = triplets(batch)  # q1s + q2s; d1s + d2s: query i's positive is document i
        q, q_mask = self.encode(queries, "query")
        d, d_mask = self.encode(docs, "document")
        scores = self.maxsim_scores(q, q_mask, d, d_mask)  # [2n, 2n]; the pair's other document is among them
        return torch.nn.functional.cross_entropy(scores, torch.arange(len(queries), device=scores.device))

    def save(self, path: Path) -> Path:
        self.module.save_pretrained(path)
        self.tokenizer.save_pretrained(path)
        return path


def make_trainer(source: str, spec: FinetuneSpec, device: str, total_steps: int, options: dict[str, Any]) -> _Loop:
    if spec.family == BI_ENCODER:
        return BiEncoderTrainer(source, spec, device, total_steps)
    return MaxSimTrainer(source, spec, device, total_steps, options)


def write_provenance(path: Path, payload: dict[str, Any]) -> None:
    """negviz_finetune.json next to the weights: which run and epoch made this checkpoint."""
    from negviz.evaluation.catalog import TRAINING_FILE

    (Path(path) / TRAINING_FILE).write_text(json.dumps(payload, indent=2, default=str))
