"""The inspector's "why" panel: one item's token attributions (occlusion for every family,
integrated gradients where the model has a PyTorch encoder), the cue's share, and for encoders the
per-layer curve of the two documents, for any shown model (negviz.analyses.attribution, .layers).
Nothing here is family-specific: a model takes part through the Scorer interface.

The panel's model, score difference and method are its own choices, kept in the URL (why_model,
why_contrast, why_method, why_on), so a link reproduces an explanation. Before the work starts
the panel says its cost: the passes it scores and a time from the rate measured on this machine;
work estimated over EXPLICIT_AFTER seconds waits for a click on Start. While it runs, a bar counts
the scorer's batches or the integration steps with the time left (negviz.core.progress.Eta), beside a
Cancel button.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Mapping

import pandas as pd
import streamlit as st

from negviz.analyses import attribution as A
from negviz.analyses import layers as L
from negviz.analyses.sensitivity import spec_label
from negviz.charts.layers import layer_curves
from negviz.core.kinds import DatasetKind
from negviz.core.progress import duration_text
from negviz.scorers import families_of_architecture, scores_only
from negviz.scorers.external import unavailable_message
from negviz.ui import resources
from negviz.ui.navigation import links
from negviz.ui.widgets import ProgressBar, safe_md, show_error

METHOD_HELP = (
    "**occlusion**: remove each word, re-score (every model) · **integrated gradients**: PyTorch encoders "
    "and cross-encoders · **gradient x input**: PyTorch bi-encoders; one pass, fastest."
)
STEPS = 32  # integration steps of the panel (the library's default)
EXPLICIT_AFTER = 30.0  # seconds: work estimated to take longer starts only on a click
KEEP = 64  # finished explanations kept per process
# Passes timed to estimate the cost: a few, in one batch (one pass alone would overstate the
# time of the batched work), and few enough that timing a 135M-parameter LLM takes seconds.
PROBE = 4
GO, STOPPED, LAST = "why_go", "why_stopped", "why_last"  # session state: started, cancelled, last report


@st.cache_resource(show_spinner=False)  # process memory of explanations computed here: no read of results
def _memory() -> dict:
    """This process's finished explanations (by request, the newest KEEP) and the seconds per
    pass measured for each model and kind of method, shared by every session."""
    return {"results": OrderedDict(), "rates": {}, "lock": threading.Lock()}


def default_model(models: list[str], families: Mapping[str, str]) -> str:
    """The first model that explains quickly: not scores-only (no model here) and not generative
    (an LLM's occlusion scores each variant with a 135M+ model); else the first."""
    slow = set(families_of_architecture("generative"))
    quick = [m for m in models if not scores_only(families[m]) and families[m] not in slow]
    return (quick or models)[0]


def show(kind: DatasetKind, runs: pd.DataFrame, item_id: str, row: Mapping, dataset: str | None = None) -> None:
    """The panel for the item ``row``; computes only once the user asks (the toggle; a long
    explanation also waits for Start)."""
    st.markdown("**Why: token attributions and where the cue fades**")
    if runs.empty:
        st.caption("No stored runs for this dataset: evaluate a model to explain its verdicts here.")
        return
    models = list(runs["model_name"])
    families = dict(zip(runs["model_name"], runs["family"]))
    # bound selectboxes put their options in the URL: labels, not ids (why_contrast=s(q2,d2) - s(q2,d1))
    contrasts = {c.label: c for c in A.contrasts(kind, row)}
    methods = {title: method for method, title in A.METHOD_TITLES.items()}
    cols = st.columns(3, vertical_alignment="bottom")
    model = cols[0].selectbox(
        "Model to explain",
        models,
        index=models.index(default_model(models, families)),
        key="why_model",
        bind="query-params",
        help="This panel's own choice, kept in the URL; the sidebar's model filters and sorts the list only.",
    )
    pick = cols[1].selectbox("Score difference", list(contrasts), key="why_contrast", bind="query-params")
    title = cols[2].selectbox("Method", list(methods), key="why_method", bind="query-params", help=METHOD_HELP)
    method = methods[title]
    # Imported scores or a notebook's object: nothing here to attribute with, so no Explain toggle.
    if scores_only(families[model]):
        st.info(safe_md(unavailable_message(families[model], model)), icon=":material/block:")
        return
    # under the pickers, not a fourth column: a seventh of the page at 1,000 px cut its word
    on = st.toggle(
        "Explain",
        key="why_on",
        bind="query-params",
        help="Computes the attributions of this pair; the cost is said first, and work estimated over "
        f"{EXPLICIT_AFTER:.0f} s starts only when you click Start. Cached afterwards.",
    )
    if not on:
        st.caption("Turn on *Explain* to see which words move this model's score difference.")
        return
    if dataset:
        link = links.explanation(dataset, item_id, model, title, pick)
        st.caption(f"[Link to this explanation]({link}) (model, score difference and method are in it).")
    spec = spec_label(runs.set_index("model_name").loc[model, "model_spec"])
    contrast = contrasts[pick]
    att = _explained(spec, model, contrast, method)
    if att is None:
        return
    share = att.cue_share
    m = st.columns(3)
    m[0].metric(
        "Cue's share of |attribution|",
        "–" if pd.isna(share) else f"{share:.1%}",
        help="Sum of |attribution| over the cue words (the negation edit) / over all words.",
    )
    m[1].metric(
        contrast.label,
        f"{att.margin:+.4f}",
        help="The score difference explained: > 0 means the model prefers the right document.",
    )
    m[2].metric("Scored passes", f"{att.forward_passes:,}")
    st.html(A.shaded_html(att))
    comp = att.completeness
    if "gap" in comp:
        st.caption(
            f"{safe_md(model)}, {safe_md(att.method)}. Completeness: attributions sum to {comp['sum']:+.5f}; "
            f"F(x) − F(baseline) = {comp['margin'] - comp['baseline_margin']:+.5f} (gap {comp['gap']:+.2e})."
        )
    else:
        st.caption(
            f"{safe_md(model)}, {safe_md(att.method)}: "
            + (
                "a word's value is the score difference minus the score difference without it."
                if att.method == A.OCCLUSION
                else "gradient times the input's distance from the baseline, summed over each word's pieces."
            )
        )
    st.dataframe(A.top_words(att), hide_index=True, key="why_top")
    _layers(kind, row, runs, model, spec)


# ---------------------------------------------------------------- cost, start, progress, cancel
def _rate_key(spec: str, method: str) -> tuple[str, str]:
    """Occlusion's passes are scored pairs; every gradient method's are forward and backward passes."""
    return spec, ("pairs" if method == A.OCCLUSION else "gradients")


def _rate(spec: str, model: str, contrast: A.Contrast, method: str, request: tuple) -> tuple[float, str]:
    """Seconds per pass of this model and kind of method on this machine, and where that comes
    from: its last explanation in this process, else PROBE passes of this item timed now, after
    the model has loaded and run once. An LLM's estimate takes tens of seconds: its steps are said
    beside a Cancel button, which takes effect between two steps (the next st call)."""
    memory = _memory()
    key = _rate_key(spec, method)
    if key in memory["rates"]:
        return memory["rates"][key]
    slot = st.empty()
    with slot.container():
        left, right = st.columns([6, 1], vertical_alignment="bottom")
        right.button(
            "Cancel", key="why_cancel_estimate", on_click=_mark, args=(STOPPED, request), icon=":material/stop:"
        )
        step = left.empty()
    st.session_state[LAST] = "while estimating the cost"
    with st.spinner("Estimating the cost…", show_time=True):
        step.caption(f"Estimating the cost, step 1 of 3: loading {safe_md(model)}…")
        scorer = resources.scorer(spec)
        step.caption(f"Estimating the cost, step 2 of 3: one pass to warm {safe_md(model)} up…")
        _timed(scorer, contrast, method, 1)  # warms the model up (threads, lazy set-up): not timed
        step.caption(f"Estimating the cost, step 3 of 3: timing {PROBE} passes of this pair…")
        seconds, passes = _timed(scorer, contrast, method, PROBE)
    slot.empty()
    memory["rates"][key] = seconds / passes, f"{passes} passes of this pair timed here"
    return memory["rates"][key]


def _timed(scorer, contrast: A.Contrast, method: str, passes: int) -> tuple[float, int]:
    """(seconds, passes) of about ``passes`` passes of the work: occlusion's first pairs, or
    integration steps over the contrast's texts."""
    start = time.perf_counter()
    if method == A.OCCLUSION:
        pairs = A.occlusion_pairs(contrast)[:passes]
        A.uncached(scorer).score([q for q, _ in pairs], [d for _, d in pairs])
        done = len(pairs)
    else:
        texts = A.planned_passes(A.AT_INPUT, contrast)  # the texts of one step
        done = A.integrated_gradients(scorer, contrast, steps=max(1, passes // texts)).forward_passes
    return time.perf_counter() - start, done


def cost_text(model: str, method: str, passes: int, rate: float, source: str) -> str:
    """What the work will do and roughly how long it takes, said as an estimate."""
    what = (
        f"scores {passes:,} (query, document) pairs"
        if method == A.OCCLUSION
        else f"runs {passes:,} forward and backward passes"
        + (f" ({STEPS} integration steps per text)" if method == A.INTEGRATED_GRADIENTS else "")
    )
    return (
        f"{A.METHOD_TITLES[method].capitalize()} with {safe_md(model)} {what}: "
        f"{duration_text(passes * rate)} on this machine, estimated from {rate:.2g} s per pass ({source})."
    )


def _explained(spec: str, model: str, contrast: A.Contrast, method: str) -> A.Attribution | None:
    """The attribution, from this process's memory or computed now (None: waiting for Start,
    cancelled, or failed, each said on the page)."""
    memory = _memory()
    request = (spec, repr(contrast), method, STEPS)  # the texts themselves: item ids repeat across datasets
    if request in memory["results"]:
        return memory["results"][request]
    passes = A.planned_passes(method, contrast, STEPS)
    stopped = st.session_state.get(STOPPED) == request
    if stopped and _rate_key(spec, method) not in memory["rates"]:  # cancelled while estimating
        return _wait_for_start(request, stopped, None)
    try:
        rate, source = _rate(spec, model, contrast, method, request)
    except Exception as exc:  # a model that cannot load offline, or no gradients: say so, keep the page
        show_error(exc)
        return None
    cost = cost_text(model, method, passes, rate, source)
    if stopped or (passes * rate > EXPLICIT_AFTER and st.session_state.get(GO) != request):
        return _wait_for_start(request, stopped, cost)
    return _run(spec, model, request, contrast, method, cost)


def _wait_for_start(request: tuple, stopped: bool, cost: str | None) -> None:
    """The cancel said (if any), the cost (once estimated) and a Start button; nothing computed."""
    if stopped:
        st.warning(f"Cancelled {st.session_state.get(LAST, '')}; nothing was kept.", icon=":material/stop:")
    if cost:
        st.info(cost, icon=":material/schedule:")
    st.button("Start", key="why_start", on_click=_mark, args=(GO, request), icon=":material/play_arrow:")
    return None


def _mark(key: str, request: tuple) -> None:
    st.session_state[key] = request
    if key == GO:  # a new start forgets an earlier cancel
        st.session_state.pop(STOPPED, None)


def _run(spec: str, model: str, request: tuple, contrast: A.Contrast, method: str, cost: str) -> A.Attribution | None:
    """Compute with the cost, a bar and a Cancel button (gone once done). A click on Cancel reruns the page: Streamlit stops
    this run at the bar's next update (its next st call), so the work ends between two batches or
    integration steps, as ``should_stop`` ends it in the library; the rerun then says so."""
    memory = _memory()
    slot = st.empty()
    with slot.container():
        st.caption(cost)
        left, right = st.columns([6, 1], vertical_alignment="bottom")
        right.button("Cancel", key="why_cancel", on_click=_mark, args=(STOPPED, request), icon=":material/stop:")
        with left:
            bar = ProgressBar(f"{A.METHOD_TITLES[method].capitalize()} with {safe_md(model)}")
    st.session_state[LAST] = "before its first batch"
    start = [time.perf_counter()]

    def report(done: int, total: int, desc: str) -> None:
        st.session_state[LAST] = f"at {desc} {done:,}/{total:,}, after {time.perf_counter() - start[0]:.0f} s"
        bar(done, total, desc)

    try:
        scorer = resources.scorer(spec)
        scorer.model  # loaded (if it was evicted since the estimate) before the clock starts
        start[0] = time.perf_counter()
        att = A.attribute(scorer, contrast, method, STEPS, progress=report)
    except Exception as exc:  # a model that cannot load offline, or no gradients: say so, keep the page
        slot.empty()
        show_error(exc)
        return None
    slot.empty()
    with memory["lock"]:
        seconds = time.perf_counter() - start[0]
        passes = max(att.forward_passes, 1)
        memory["rates"][_rate_key(spec, method)] = seconds / passes, f"its last explanation here, {passes:,} passes"
        memory["results"][request] = att
        while len(memory["results"]) > KEEP:
            memory["results"].popitem(last=False)
    return att


# A loaded model's computation on two texts, keyed by its inputs (no read of the store).
@st.cache_data(show_spinner=False, max_entries=64)
def _curve(spec: str, a: str, b: str) -> pd.DataFrame:
    return L.cue_fade(resources.scorer(spec), a, b)


def _layers(kind: DatasetKind, row: Mapping, runs: pd.DataFrame, model: str, spec: str) -> None:
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
