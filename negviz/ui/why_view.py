"""The inspector's "why" panel: one item's token attributions (occlusion for every family,
integrated gradients where the model has a PyTorch encoder), the cue's share, and for encoders the
per-layer curve of the two documents, for any shown model (negviz.analyses.attribution, .layers).
Nothing here is family-specific: a model takes part through the Scorer interface."""

from __future__ import annotations

from typing import Mapping

import pandas as pd
import streamlit as st

from negviz.analyses import attribution as A
from negviz.analyses import layers as L
from negviz.analyses.sensitivity import spec_label
from negviz.charts.layers import layer_curves
from negviz.scorers import scores_only
from negviz.scorers.external import unavailable_message
from negviz.ui import resources
from negviz.ui.widgets import safe_md, show_error

METHODS = {
    "occlusion": "occlusion (remove each word, re-score; every model)",
    "integrated-gradients": "integrated gradients (PyTorch encoders and cross-encoders)",
    "gradient-x-input": "gradient × input (PyTorch bi-encoders; one pass, fastest)",
}


@st.cache_data(show_spinner=False, max_entries=64)
def _attribution(spec: str, kind: str, row: dict, contrast: int, method: str, steps: int) -> dict:
    scorer = resources.scorer(spec)
    c = A.contrasts(kind, row)[contrast]
    if method == "occlusion":
        att = A.occlusion(scorer, c)
    else:
        att = A.integrated_gradients(scorer, c, steps, at_input=method == "gradient-x-input")
    return {
        "method": att.method,
        "margin": att.margin,
        "tokens": att.tokens,
        "completeness": att.completeness,
        "passes": att.forward_passes,
    }


@st.cache_data(show_spinner=False, max_entries=64)
def _curve(spec: str, a: str, b: str) -> pd.DataFrame:
    return L.cue_fade(resources.scorer(spec), a, b)


def show(kind: str, runs: pd.DataFrame, item_id: str, row: Mapping, default_model: str | None) -> None:
    """The panel for the item ``row``; computes only once the user asks (the toggle)."""
    st.markdown("**Why: token attributions and where the cue fades**")
    if runs.empty:
        st.caption("No stored runs for this dataset: evaluate a model to explain its verdicts here.")
        return
    models = list(runs["model_name"])
    cols = st.columns([2, 2, 2, 1], vertical_alignment="bottom")
    model = cols[0].selectbox(
        "Model to explain", models, key="why_model", index=models.index(default_model) if default_model in models else 0
    )
    family = runs.loc[runs["model_name"] == model, "family"].iloc[0]
    if scores_only(family):  # imported scores, a notebook's object: no model here to attribute with
        st.info(safe_md(unavailable_message(family, model)), icon=":material/block:")
        return
    contrasts = A.contrasts(kind, row)
    pick = cols[1].selectbox(
        "Score difference", range(len(contrasts)), key="why_contrast", format_func=lambda i: contrasts[i].label
    )
    method = cols[2].selectbox("Method", list(METHODS), key="why_method", format_func=METHODS.get)
    steps = 32
    on = cols[3].toggle(
        "Explain",
        key="why_on",
        bind="query-params",
        help="Computes the attributions of this pair (occlusion of a NevIR pair with MiniLM: about 8 s on "
        "a 2-core CPU, a GPU much less; gradient × input: half a second; cached afterwards).",
    )
    if not on:
        st.caption("Turn on *Explain* to see which words move this model's score difference.")
        return
    spec = spec_label(runs.set_index("model_name").loc[model, "model_spec"])
    try:
        with st.spinner(f"Attributing with {model}…"):
            att = _attribution(spec, kind, dict(row), int(pick), method, steps)
    except Exception as exc:  # a model that cannot load offline, or no gradients: say so, keep the page
        show_error(exc)
        return
    tokens = att["tokens"]
    result = A.Attribution(
        att["method"], contrasts[int(pick)], att["margin"], tokens, att["passes"], att["completeness"]
    )
    share = result.cue_share
    m = st.columns(3)
    m[0].metric(
        "Cue's share of |attribution|",
        "–" if pd.isna(share) else f"{share:.1%}",
        help="Sum of |attribution| over the cue words (the negation edit) / over all words.",
    )
    m[1].metric(
        contrasts[int(pick)].label,
        f"{att['margin']:+.4f}",
        help="The score difference explained: > 0 means the model prefers the right document.",
    )
    m[2].metric("Scored passes", f"{att['passes']:,}")
    st.html(A.shaded_html(result))
    comp = att["completeness"]
    if "gap" in comp:
        st.caption(
            f"{safe_md(att['method'])}. Completeness: attributions sum to {comp['sum']:+.5f}; "
            f"F(x) − F(baseline) = {comp['margin'] - comp['baseline_margin']:+.5f} (gap {comp['gap']:+.2e})."
        )
    else:
        st.caption(
            safe_md(att["method"]) + ": a word's value is the score difference minus the score difference without it."
        )
    st.dataframe(A.top_words(result), hide_index=True, key="why_top")
    _layers(kind, row, runs, model, spec)


def _layers(kind: str, row: Mapping, runs: pd.DataFrame, model: str, spec: str) -> None:
    twins = L.twins(kind)
    if not twins:
        return
    try:
        if not L.supports_layers(resources.scorer(spec)):
            st.caption(
                f"{safe_md(model)} has no PyTorch encoder layers to read (ONNX, lexical or generative): "
                "the per-layer curve is for encoders."
            )
            return
    except Exception as exc:
        show_error(exc)
        return
    others = [m for m, f in zip(runs["model_name"], runs["family"]) if m != model and not scores_only(f)]
    also = st.multiselect(
        "Compare the curve with",
        others,
        key="why_also",
        help="e.g. NegMiniLM against MiniLM: where training changed the representation.",
    )
    pair = st.selectbox("Texts", range(len(twins)), key="why_twin", format_func=lambda i: " vs ".join(twins[i]))
    a, b = (str(row[c]) for c in twins[int(pair)])
    curves = []
    for name in [model, *also]:
        s = spec_label(runs.set_index("model_name").loc[name, "model_spec"])
        try:
            if name != model and not L.supports_layers(resources.scorer(s)):
                st.caption(f"{safe_md(name)}: no encoder layers to read; left out.")
                continue
            curves.append(_curve(s, a, b).assign(label=name))
        except Exception as exc:
            show_error(exc)
    if curves:
        title = f"Where the edit fades: {' vs '.join(twins[int(pair)])}, 1 − cos per layer"
        st.plotly_chart(layer_curves(pd.concat(curves, ignore_index=True), title), key="why_layers")
