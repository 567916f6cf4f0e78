"""Where the cue fades: layer by layer, how different an encoder's representations of two texts
that differ by a negation edit are (NevIR's d1 and d2, or q1 and its negated twin q2).

    curve = cue_fade(scorer, "The cat is on the mat.", "The cat is not on the mat.")
    curve[["layer", "pooled_distance", "cue_distance"]]     # layer 0 = the embedding output

Per layer l, with h the hidden states of ``negviz.scorers.introspect.hidden_states``:
- pooled_distance: 1 - cos(mean of h_l over the text's word pieces, specials left out), for
  each text;
- cue_distance: 1 - cos(h_l at the cue position of text a, h_l at the cue position of text b),
  the cue position being the first word piece where the two texts differ (for "is" / "is not":
  "not" against the word that follows "is" in the other text).
Layer 0's distances are the reference: a curve that falls towards 0 in the top layers means the
model has smoothed the edit away before it pools.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from negviz.core.kinds import DatasetKind
from negviz.scorers.base import Progress, Scorer, no_progress

CURVE_COLUMNS = ("layer", "pooled_distance", "cue_distance")


def supports_layers(scorer: Scorer) -> bool:
    """Whether the scorer encodes a text alone (a bi-encoder), so two texts' layers can be compared."""
    from negviz.scorers.introspect import EncoderParts

    return isinstance(scorer.encoder_parts(), EncoderParts)


def _cosine_distance(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return float("nan")
    return float(1.0 - np.dot(a, b) / (na * nb))


def first_difference(ids_a: Sequence[int], ids_b: Sequence[int]) -> int | None:
    """Index of the first word piece where two tokenizations differ (None: identical)."""
    for i, (x, y) in enumerate(zip(ids_a, ids_b)):
        if x != y:
            return i
    return None if len(ids_a) == len(ids_b) else min(len(ids_a), len(ids_b)) - 1


def curve_of(a: dict, b: dict) -> pd.DataFrame:
    """The distances of two texts' states (``introspect.hidden_states`` entries), layer by layer."""
    cue = first_difference(a["ids"], b["ids"])
    rows = []
    for layer in range(a["states"].shape[0]):
        pooled_a = a["states"][layer][~a["special"]].mean(0)
        pooled_b = b["states"][layer][~b["special"]].mean(0)
        at_cue = np.nan if cue is None else _cosine_distance(a["states"][layer][cue], b["states"][layer][cue])
        rows.append((layer, _cosine_distance(pooled_a, pooled_b), at_cue))
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))


def cue_fade(scorer: Scorer, text_a: str, text_b: str) -> pd.DataFrame:
    """The per-layer curve of two texts (see the module docstring)."""
    from negviz.scorers import introspect

    parts = _parts(scorer)
    a, b = introspect.hidden_states(parts, [text_a, text_b])
    return curve_of(a, b)


def _parts(scorer: Scorer):
    from negviz.scorers.introspect import EncoderParts

    parts = scorer.encoder_parts()
    if not isinstance(parts, EncoderParts):
        raise ValueError(
            f"{scorer.name!r} ({scorer.family}) has no encoder layers to read; the layer curve needs "
            "a PyTorch encoder (a bi-encoder loaded with sentence-transformers)"
        )
    return parts


def twins(kind: DatasetKind) -> list[tuple[str, str]]:
    """The column pairs of a kind that differ by an edit (NevIR: d1/d2 and q1/q2)."""
    if not kind.diffed:
        return []
    return [tuple(group) for group in reversed(kind.card_groups) if len(group) == 2]


def dataset_curves(
    scorer: Scorer,
    kind: DatasetKind,
    frame: pd.DataFrame,
    ids: Sequence[str],
    columns: tuple[str, str],
    batch: int = 16,
    progress: Progress = no_progress,
) -> pd.DataFrame:
    """The curve of every item (``ids`` aligned with ``frame``) for one twin of columns, long:
    item_id plus CURVE_COLUMNS. Texts go through the encoder longest first, ``batch`` at a time."""
    from negviz.scorers import introspect

    parts = _parts(scorer)
    texts = list(dict.fromkeys([*frame[columns[0]].astype(str), *frame[columns[1]].astype(str)]))
    order = sorted(texts, key=len, reverse=True)
    states: dict[str, dict] = {}
    for start in range(0, len(order), batch):
        chunk = order[start : start + batch]
        states.update(zip(chunk, introspect.hidden_states(parts, chunk)))
        progress(min(start + batch, len(order)), len(order), "encoding every layer")
    parts_out = [
        curve_of(states[str(a)], states[str(b)]).assign(item_id=i)
        for i, a, b in zip(ids, frame[columns[0]], frame[columns[1]])
    ]
    if not parts_out:
        return pd.DataFrame(columns=["item_id", *CURVE_COLUMNS])
    return pd.concat(parts_out, ignore_index=True)[["item_id", *CURVE_COLUMNS]]


def by_type(curves: pd.DataFrame, types: pd.DataFrame) -> pd.DataFrame:
    """Mean curve per negation type (``types``: item_id, type), with n and the layer-0 reference
    subtracted out as ``*_vs_layer0`` (the share of the layer-0 distance left)."""
    merged = curves.merge(types[["item_id", "type"]], on="item_id", how="left").fillna({"type": "unknown"})
    g = merged.groupby(["type", "layer"])
    out = g[["pooled_distance", "cue_distance"]].mean().join(g["item_id"].nunique().rename("n")).reset_index()
    first = out[out["layer"] == 0].set_index("type")
    for col in ("pooled_distance", "cue_distance"):
        out[f"{col}_vs_layer0"] = out[col] / out["type"].map(first[col]).replace(0, np.nan)
    return out


# ---------------------------------------------------------------- stored over a dataset
ANALYSIS = "layer curves"


def curve_scores(curves: pd.DataFrame) -> pd.DataFrame:
    """dataset_curves as a run's long scores: slot ``L<layer>:<measure>`` per item."""
    long = curves.melt(
        id_vars=["item_id", "layer"],
        value_vars=["pooled_distance", "cue_distance"],
        var_name="measure",
        value_name="score",
    ).dropna(subset=["score"])
    long["slot"] = "L" + long["layer"].astype(int).astype(str) + ":" + long["measure"]
    return long[["item_id", "slot", "score"]].reset_index(drop=True)


def stored_curves(wide: pd.DataFrame) -> pd.DataFrame:
    """The inverse of curve_scores, from Store.scores_wide: item_id plus CURVE_COLUMNS."""
    long = wide.reset_index(names="item_id").melt(id_vars=["item_id"], var_name="slot", value_name="value")
    parts = long["slot"].str.extract(r"^L(?P<layer>\d+):(?P<measure>\w+)$")
    long = pd.concat([long, parts], axis=1).dropna(subset=["layer"])
    out = long.pivot_table(index=["item_id", "layer"], columns="measure", values="value", aggfunc="first").reset_index()
    out["layer"] = out["layer"].astype(int)
    for col in ("pooled_distance", "cue_distance"):
        if col not in out:
            out[col] = np.nan
    return out.sort_values(["item_id", "layer"])[["item_id", *CURVE_COLUMNS]].reset_index(drop=True)


def summarize(curves: pd.DataFrame, types: pd.DataFrame, columns: Sequence[str]) -> dict:
    """A stored layer-curve run's summary: mean curves per negation type and the median ratio of
    the last layer's distance at the cue to layer 0's."""
    last = curves["layer"].max()
    at_cue = curves.set_index("item_id")["cue_distance"]
    ratio = (
        at_cue[curves["layer"].to_numpy() == last] / at_cue[curves["layer"].to_numpy() == 0].replace(0, np.nan)
    ).dropna()
    return {
        "metric": "cue_distance_last_vs_layer0",
        "analysis": ANALYSIS,
        "columns": list(columns),
        "n": int(curves["item_id"].nunique()),
        "by_type": by_type(curves, types).to_dict("records"),
        "cue_distance_last_vs_layer0": float(ratio.median()) if len(ratio) else float("nan"),
    }
