"""Inside a PyTorch encoder: integrated gradients of a score difference, and the hidden states of
every layer. Used by negviz.analyses.attribution and negviz.analyses.layers; a scorer takes part
through ``encoder_parts()`` (bi-encoders loaded with sentence-transformers; ONNX exports and
lexical models have no gradients and no layers to show, and return None).

Integrated gradients (Sundararajan et al., 2017) over the word-piece input embeddings of the
query and both documents at once, ``steps`` midpoint-rule steps on the straight line from the
baseline: every word piece's input embedding set to zero, special tokens ([CLS], [SEP]) and the
position embeddings the model adds kept. A piece's attribution is (x - x') . mean gradient;
they sum to F(x) - F(x') up to the integration error, which ``completeness`` reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from negviz.core.heavy import heavy_import
from negviz.scorers.base import Progress, no_progress

IG_STEPS = 32
STEPS_DESC = "integration steps"  # what integrated gradients' progress counts
BASELINE = "zero input embedding for every word piece (special tokens and positions kept)"


@dataclass
class EncoderParts:
    """What gradient and layer analyses need from a scorer's model."""

    tokenizer: Any
    transformer: Any  # a Hugging Face model taking inputs_embeds and returning hidden_states
    pool: Callable[[Any, Any], Any]  # (token states [B, L, H], attention mask [B, L]) -> [B, H]
    similarity: str  # "dot" or "cosine", applied after pooling
    max_length: int
    prefixes: tuple[str, str] = ("", "")  # (query, document) role prefixes, prepended to the text


@dataclass
class JointParts:
    """A cross-encoder's model, which reads query and document as one sequence: gradients only
    (there is no representation of a document alone to compare layer by layer)."""

    tokenizer: Any
    model: Any  # a Hugging Face sequence classifier taking inputs_embeds
    label: int  # the logit that means relevant
    max_length: int


def sentence_transformer_parts(model: Any, similarity: str, prefixes: tuple[str, str] = ("", "")) -> EncoderParts:
    """EncoderParts of a sentence-transformers model: module 0 is the Transformer; the rest
    (Pooling, Normalize, Dense, ...) turn token states into the sentence vector."""
    first = model[0]
    rest = list(model)[1:]

    def pool(states, mask):
        features = {"token_embeddings": states, "attention_mask": mask}
        for module in rest:
            features = module(features)
        return features["sentence_embedding"]

    return EncoderParts(model.tokenizer, first.auto_model, pool, similarity, int(model.max_seq_length), prefixes)


def _encode(parts: EncoderParts, texts: Sequence[str]):
    return parts.tokenizer(
        list(texts),
        padding=True,
        truncation=True,
        max_length=parts.max_length,
        return_tensors="pt",
        return_offsets_mapping=True,
        return_special_tokens_mask=True,
    )


def _similarity(a, b, similarity: str):
    torch = heavy_import("torch")

    if similarity == "cosine":
        return torch.nn.functional.cosine_similarity(a, b, dim=-1)
    return (a * b).sum(-1)


def _embedded(model: Any, enc) -> tuple[Any, Any, Any]:
    """(input embeddings x, the baseline x', attention mask) of a tokenized batch, on the model's
    device: x' is x with every word piece zeroed, special tokens and padding kept as they are."""
    torch = heavy_import("torch")

    device = next(model.parameters()).device
    mask, special = enc["attention_mask"], enc["special_tokens_mask"].bool()
    with torch.no_grad():
        x = model.get_input_embeddings()(enc["input_ids"].to(device)).float()
    keep = (special | (mask == 0)).to(device).unsqueeze(-1)
    return x, torch.where(keep, x, torch.zeros_like(x)), mask.to(device)


def _shifted(offsets: list, shift: int) -> list[tuple[int, int]]:
    """Word-piece offsets moved back by a role prefix's length, back into the text itself."""
    return [(max(s - shift, 0), max(e - shift, 0)) if e > 0 else (0, 0) for s, e in offsets]


@dataclass
class PieceAttribution:
    """Integrated gradients per word piece of each text, with the pieces' character offsets."""

    attributions: list[np.ndarray]  # per text: one value per piece (specials 0)
    offsets: list[list[tuple[int, int]]]  # per text: (start, end) in the text, (0, 0) for specials
    margin: float  # F(x)
    baseline_margin: float  # F(x')
    steps: int


def integrated_gradients(
    parts: EncoderParts,
    query: str,
    good: str,
    bad: str | None,
    steps: int = IG_STEPS,
    chunk: int = 8,
    at_input: bool = False,
    progress: Progress = no_progress,
) -> PieceAttribution:
    """IG of F = sim(E(query), E(good)) - sim(E(query), E(bad)) (just the first when bad is None)
    with respect to the input embeddings of all three texts; ``chunk`` steps per forward pass.

    ``at_input``: gradient x input instead, (x - x') . grad F(x), one forward and backward pass
    (the fast first-order estimate for dataset-wide runs; it does not sum to F(x) - F(x'))."""
    torch = heavy_import("torch")

    texts = [parts.prefixes[0] + query, parts.prefixes[1] + good] + (
        [parts.prefixes[1] + bad] if bad is not None else []
    )
    enc = _encode(parts, texts)
    x, baseline, mask = _embedded(parts.transformer, enc)
    device = x.device
    n = len(texts)

    def margin(inputs):  # inputs: [k * n, L, H] -> [k] margins
        states = parts.transformer(
            inputs_embeds=inputs, attention_mask=mask.repeat(len(inputs) // n, 1)
        ).last_hidden_state
        vecs = parts.pool(states, mask.repeat(len(inputs) // n, 1)).view(-1, n, states.shape[-1])
        out = _similarity(vecs[:, 0], vecs[:, 1], parts.similarity)
        if n == 3:
            out = out - _similarity(vecs[:, 0], vecs[:, 2], parts.similarity)
        return out

    grads = torch.zeros_like(x)
    if at_input:
        steps = 1
    alphas = (
        torch.ones(1, device=device)
        if at_input
        else (torch.arange(steps, dtype=torch.float32, device=device) + 0.5) / steps
    )
    for start in range(0, steps, chunk):
        a = alphas[start : start + chunk].view(-1, 1, 1, 1)
        path = (baseline.unsqueeze(0) + a * (x - baseline).unsqueeze(0)).reshape(-1, *x.shape[1:])
        path.requires_grad_(True)
        values = margin(path)
        values.sum().backward()
        grads += path.grad.view(len(a), *x.shape).sum(0)
        if at_input:
            at_x = float(values[0].detach())
        progress(min(start + chunk, steps), steps, STEPS_DESC)
    if at_input:  # no path integral: F(x') is not needed
        ends = (at_x, float("nan"))
    else:
        with torch.no_grad():
            ends = margin(torch.cat([x, baseline]))
    piece = ((x - baseline) * grads / steps).sum(-1).detach().cpu().numpy().astype(np.float64)
    lengths = mask.sum(1).tolist()
    shift = [len(parts.prefixes[0])] + [len(parts.prefixes[1])] * (n - 1)
    offsets = [_shifted(enc["offset_mapping"][i][: lengths[i]].tolist(), shift[i]) for i in range(n)]
    return PieceAttribution([piece[i, : lengths[i]] for i in range(n)], offsets, float(ends[0]), float(ends[1]), steps)


def integrated_gradients_joint(
    parts: JointParts,
    query: str,
    good: str,
    bad: str | None,
    steps: int = IG_STEPS,
    chunk: int = 8,
    progress: Progress = no_progress,
) -> PieceAttribution:
    """IG of F = logit(query, good) - logit(query, bad) for a cross-encoder, over the input
    embeddings of both (query, document) sequences; a query piece's attribution is the sum of its
    two copies' (it is read once beside each document)."""
    torch = heavy_import("torch")

    docs = [good] + ([bad] if bad is not None else [])
    enc = parts.tokenizer(
        [query] * len(docs),
        docs,
        padding=True,
        truncation="only_second",
        max_length=parts.max_length,
        return_tensors="pt",
        return_offsets_mapping=True,
        return_special_tokens_mask=True,
    )
    x, baseline, mask = _embedded(parts.model, enc)
    device = x.device
    extra = {k: enc[k].to(device) for k in ("token_type_ids",) if k in enc}
    n = len(docs)
    sign = torch.tensor([1.0, -1.0][:n], device=device)

    def margin(inputs):  # [k * n, L, H] -> [k]
        k = len(inputs) // n
        logits = parts.model(
            inputs_embeds=inputs,
            attention_mask=mask.repeat(k, 1),
            **{name: v.repeat(k, 1) for name, v in extra.items()},
        ).logits[:, parts.label]
        return (logits.view(k, n) * sign).sum(1)

    grads = torch.zeros_like(x)
    alphas = (torch.arange(steps, dtype=torch.float32, device=device) + 0.5) / steps
    for start in range(0, steps, chunk):
        a = alphas[start : start + chunk].view(-1, 1, 1, 1)
        path = (baseline.unsqueeze(0) + a * (x - baseline).unsqueeze(0)).reshape(-1, *x.shape[1:])
        path.requires_grad_(True)
        margin(path).sum().backward()
        grads += path.grad.view(len(a), *x.shape).sum(0)
        progress(min(start + chunk, steps), steps, STEPS_DESC)
    with torch.no_grad():
        ends = margin(torch.cat([x, baseline]))
    piece = ((x - baseline) * grads / steps).sum(-1).detach().cpu().numpy().astype(np.float64)
    query_values: dict[tuple[int, int], float] = {}
    doc_parts = []
    for i in range(n):
        seq = enc.sequence_ids(i)
        offs = enc["offset_mapping"][i].tolist()
        doc_vals, doc_offs = [], []
        for j, (which, (s0, e0)) in enumerate(zip(seq, offs)):
            if which == 0 and e0 > s0:
                query_values[(s0, e0)] = query_values.get((s0, e0), 0.0) + float(piece[i, j])
            elif which == 1 and e0 > s0:
                doc_vals.append(float(piece[i, j]))
                doc_offs.append((s0, e0))
        doc_parts.append((np.array(doc_vals), doc_offs))
    q_offs = sorted(query_values)
    attributions = [np.array([query_values[o] for o in q_offs])] + [v for v, _ in doc_parts]
    offsets = [q_offs] + [o for _, o in doc_parts]
    return PieceAttribution(attributions, offsets, float(ends[0]), float(ends[1]), steps)


def gradient_x_input_many(
    parts: EncoderParts, triples: Sequence[tuple[str, str, str | None]]
) -> list[PieceAttribution]:
    """Gradient x input of many (query, good, bad) margins in one forward and backward pass: each
    text is a row of a padded batch (queries in one, documents in another), so their gradients do
    not mix. The fast path of dataset-wide runs (one pass for a batch of items instead of one per
    comparison)."""
    if any(bad is None for _, _, bad in triples):  # a single similarity: one pass each
        return [integrated_gradients(parts, q, g, b, at_input=True) for q, g, b in triples]
    # Queries and documents in two padded batches: a 15-token query padded to a 230-token
    # document's length would cost as much as the document.
    batches = [
        [parts.prefixes[0] + q for q, _, _ in triples],
        [parts.prefixes[1] + t for _, g, b in triples for t in (g, b)],
    ]
    encoded, pieces, vectors = [], [], []
    for texts in batches:
        enc = _encode(parts, texts)
        x, baseline, mask = _embedded(parts.transformer, enc)
        inputs = x.clone().requires_grad_(True)
        states = parts.transformer(inputs_embeds=inputs, attention_mask=mask).last_hidden_state
        vectors.append(parts.pool(states, mask))
        encoded.append((enc, mask.sum(1).tolist()))
        pieces.append((x, baseline, inputs))
    q_vecs, d_vecs = vectors[0], vectors[1].view(len(triples), 2, -1)
    margins = _similarity(q_vecs, d_vecs[:, 0], parts.similarity) - _similarity(q_vecs, d_vecs[:, 1], parts.similarity)
    margins.sum().backward()
    values = [
        ((x - base) * inputs.grad).sum(-1).detach().cpu().numpy().astype(np.float64) for x, base, inputs in pieces
    ]
    out = []
    for k in range(len(triples)):
        doc_shift = len(parts.prefixes[1])
        rows = [(0, k, len(parts.prefixes[0])), (1, 2 * k, doc_shift), (1, 2 * k + 1, doc_shift)]
        attributions, offsets = [], []
        for batch, i, shift in rows:
            enc, lengths = encoded[batch]
            attributions.append(values[batch][i, : lengths[i]])
            offsets.append(_shifted(enc["offset_mapping"][i][: lengths[i]].tolist(), shift))
        out.append(PieceAttribution(attributions, offsets, float(margins[k].detach()), float("nan"), 1))
    return out


def hidden_states(parts: EncoderParts, texts: Sequence[str]) -> list[dict]:
    """Every layer's token states of each text (layer 0 = the embedding output): one dict per
    text with ``states`` [layers + 1, tokens, H] (padding dropped), ``ids`` and ``mask``."""
    torch = heavy_import("torch")

    enc = _encode(parts, [parts.prefixes[1] + t for t in texts])
    device = next(parts.transformer.parameters()).device
    with torch.no_grad():
        out = parts.transformer(
            input_ids=enc["input_ids"].to(device),
            attention_mask=enc["attention_mask"].to(device),
            output_hidden_states=True,
        )
    stacked = torch.stack(out.hidden_states, dim=1).float().cpu().numpy()  # [B, layers + 1, L, H]
    lengths = enc["attention_mask"].sum(1).tolist()
    return [
        {
            "states": stacked[i, :, : lengths[i]],
            "ids": enc["input_ids"][i, : lengths[i]].tolist(),
            "special": enc["special_tokens_mask"][i, : lengths[i]].bool().numpy(),
        }
        for i in range(len(texts))
    ]
