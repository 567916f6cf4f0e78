"""The two lighter tabs of the perturbation-sensitivity page: "perturb your own sentence" (typed
text through the DEMETR-style rules, scored live by each model with a stored DEMETR run) and the
CANNOT similarity distributions."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.analyses import sensitivity as sv
from negviz.charts.sensitivity import cannot_chart, own_sentence_chart
from negviz.evaluation.catalog import runs_here
from negviz.language.text import perturb
from negviz.ui import resources
from negviz.ui.navigation import pickers
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.widgets import csv_download, figure_downloads, no_runs_yet, safe_md

REF = "After two years of work, the new bridge was opened to traffic on Monday."
CAND = "The new bridge opened to traffic on Monday after two years of construction."


def demetr_controls() -> tuple[str, bool, bool]:
    """The DEMETR tabs' controls (value, pert_check items only, published columns), bound to the
    URL; the CANNOT tab draws none of them."""
    values = {label: value for value, label in sv.VALUES.items()}
    value = values[st.radio("Values", list(values), key="value", bind="query-params", horizontal=True)]
    c2, c3 = st.columns(2)  # two toggles a row: three columns cut their labels at 1,000 px
    checked = c2.toggle(
        "Only checked items",
        key="checked",
        bind="query-params",
        help="DEMETR checked each item (its pert_check): false marks one not really perturbed; the published "
        "scripts use all items.",
    )
    show_pub = c3.toggle(
        "Published columns",
        True,
        key="published",
        bind="query-params",
        disabled=value != sv.RATIO,
        help="NegBLEURT Fig. 4 (ratios only, all items): BLEURT20, NegBLEURT, all-mpnet-base-v2, NegMPNet",
    )
    return value, checked, show_pub


def own_sentence(tables: dict[str, pd.DataFrame], runs: pd.DataFrame) -> None:
    """Perturb a typed translation; score it with each model's stored DEMETR spec. The default
    models are those that run here (negviz.evaluation.catalog.runs_here)."""
    c1, c2 = st.columns(2)
    ref = c1.text_area("Reference", REF, key="own_ref", bind="query-params", max_chars=2000, height=90)
    cand = c2.text_area("Candidate (translation)", CAND, key="own_cand", bind="query-params", max_chars=2000, height=90)
    specs = {m: sv.spec_label(runs.set_index("model_name").loc[m, "model_spec"]) for m in sorted(tables)}
    here = [m for m, spec in specs.items() if runs_here(spec, resources.available_offline)]
    chosen = st.multiselect(
        "Models",
        list(specs),
        here,
        key="own_models",
        bind="query-params",
        format_func=lambda m: m if m in here else f"{m} (weights not on this machine)",
        help="Models with a stored DEMETR run, scored live with that run's exact spec; the default is "
        "every one whose weights are on this machine.",
    )
    edits = perturb.perturb_all(cand) if cand.strip() else {}
    applied = pd.DataFrame(
        [
            {  # in words: "noun removed", DEMETR's "critical" severity (not critical_id23_noun_removed)
                "perturbation": sv.short_label(perturb.BY_NAME[k].stem),
                "DEMETR severity": sv.severity_of(perturb.BY_NAME[k].stem),
                "perturbed": e.edited,
                "rule": e.rule,
            }
            for k, e in edits.items()
            if e
        ]
    )
    st.dataframe(applied, hide_index=True, key="own_edits")
    skipped = [perturb.BY_NAME[k] for k, e in edits.items() if e is None]
    if skipped:
        st.caption(
            "Not applied, as nothing in this sentence fits the rule: "
            + "; ".join(f"{r.name.replace('_', ' ')} ({r.description})" for r in skipped)
            + "."
        )
    if not (ref.strip() and len(applied) and chosen):
        return
    parts, problems = [], []
    progress = st.progress(0.0)
    matrix = sv.model_matrix(tables, None)
    for k, m in enumerate(chosen):
        progress.progress(k / len(chosen), text=f"Scoring your sentence with {m}: model {k + 1} of {len(chosen)}…")
        if m not in here:
            problems.append(
                f"{m} is not scored: its weights are not on this machine (its stored run is on the Heatmap tab)."
            )
            continue
        try:
            own, errors = sv.own_sentence_table({m: resources.scorer(specs[m])}, ref, cand, edits, matrix)
        except Exception as exc:  # one model that fails to load must not hide the others
            own, errors = pd.DataFrame(), {m: str(exc)}
        parts.append(own)
        problems += [f"{name} could not score your sentence: {why}" for name, why in errors.items()]
    progress.empty()
    for problem in problems:
        st.warning(safe_md(problem))
    own = pd.concat([p for p in parts if len(p)], ignore_index=True) if any(len(p) for p in parts) else pd.DataFrame()
    if len(own):
        ofig = own_sentence_chart(own, "Your sentence: ratio (t − h) / (t − e) per perturbation and model")
        st.plotly_chart(ofig, key="own_chart")
        st.dataframe(sv.own_sentence_shown(own), hide_index=True, key="own_table")
        st.caption(
            "◇ = the model's mean ratio on the same DEMETR file. BM25's collection is the few texts "
            "scored here, so its scale differs from its DEMETR run."
        )
        figure_downloads(ofig, "negviz-own-sentence", key="own")
        csv_download(own, "negviz-own-sentence.csv", key="dl-own")


def cannot() -> None:
    """CANNOT similarity of sentence / negated-sentence pairs per source file, per model."""
    cruns = pickers.shown_runs("cannot", key="pinned_cannot_runs")
    pairs = st.radio(
        "Pairs",
        list(sv.PAIR_LABELS),
        key="cannot_pairs",
        bind="query-params",
        horizontal=True,
        help="negated: a sentence and its negation (CANNOT label 1); paraphrase: label 0 (sem_anto_neg only)",
    )
    if cruns.empty:
        st.info(no_runs_yet("cannot", "CANNOT"))
        return
    dist = dataset_view("cannot").cannot_distribution(cruns, pairs)
    cfig = cannot_chart(
        dist,
        f"CANNOT · similarity of {pairs} pairs per source file · box = quartiles, "
        "whiskers 5th-95th percentile, ◆ = mean with 95% CI",
    )
    st.caption(
        "Lower similarity on negated pairs = more negation-aware. Each model on its own scale: "
        "BM25 and MaxSim scores are unbounded sums."
    )
    st.plotly_chart(cfig, key="cannot_chart")
    st.dataframe(dist, hide_index=True, key="cannot_table")
    figure_downloads(cfig, f"negviz-cannot-{pairs}", key="cannot")
    csv_download(dist, f"negviz-cannot-{pairs}.csv", label="Download per-source statistics (CSV)", key="dl-cannot")
