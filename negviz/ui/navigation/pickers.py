"""Shared sidebar pickers, bound to the URL so a link reproduces the view."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz.core import metric_text, times
from negviz.evaluation import run_choice
from negviz.ui.dataset_cache import clear_datasets, dataset_view
from negviz.ui.navigation.page_registry import DATASET_KEY, MODELS_KEY, PIN_KEY


def dataset_picker() -> str:
    # No format_func on URL-bound widgets: the URL would hold the formatted label.
    names = dataset_view().datasets()["name"].tolist()
    wanted = st.query_params.get(DATASET_KEY)
    if wanted and wanted not in names:  # perhaps added (`negviz datasets add`) since the list was read
        clear_datasets()
        names = dataset_view().datasets()["name"].tolist()
    return st.sidebar.selectbox(
        "Dataset",
        names,
        key=DATASET_KEY,
        bind="query-params",
        help="The benchmark every page shows; part of the URL (?dataset=...).",
    )


def models_picker(dataset: str) -> list[str]:
    """Models with stored runs on the dataset (all of them by default)."""
    runs = dataset_view(dataset).runs()
    stored = sorted(set(runs["model_name"])) if not runs.empty else []
    return st.sidebar.multiselect(
        "Models",
        stored,
        key=MODELS_KEY,
        bind="query-params",
        placeholder="all stored runs",
        help="Filter the stored runs shown; empty means all. Part of the URL.",
    )


def current_dataset() -> str:
    """The sidebar's dataset; before the picker ran, the first of the list, as the picker shows it."""
    return st.session_state.get(DATASET_KEY) or dataset_view().datasets()["name"].iloc[0]


def current_models() -> list[str]:
    return list(st.session_state.get(MODELS_KEY) or [])


# Without a model choice a page draws the best 16 models (a control shows more): the 13 shipped
# on NevIR all fit.
TOP_DEFAULT = 16


def shown_runs(dataset: str, key: str = "pinned_runs") -> pd.DataFrame:
    """The run that stands for each model on ``dataset`` (negviz.evaluation.run_choice: one policy for every
    page), named in an expander that also pins another run of a model (kept in the URL) and, in a
    large store, filters models by family and name and sets how many of the best are drawn."""
    state = st.session_state
    if key not in state:  # first render: pins come from the URL
        state[key] = list(st.query_params.get_all(PIN_KEY))
    every, chosen, labels, families = dataset_view(dataset).run_picker(  # kept like the run list it reads
        current_models(),
        state[key],
        state.get(f"{key}_family") or (),
        state.get(f"{key}_name") or "",
        top=int(state.get(f"{key}_top") or TOP_DEFAULT),
        over=TOP_DEFAULT,
    )
    if every == 0:
        return chosen
    state[key] = [p for p in state[key] if p in labels]  # a stale pin in a shared URL is dropped
    many = not current_models() and every > TOP_DEFAULT
    with st.expander(_runs_label(chosen, every), icon=":material/fact_check:"):
        st.multiselect(
            "Pinned runs",
            list(labels),
            format_func=labels.get,
            key=key,
            on_change=_pin_to_url,
            args=(key,),
            placeholder="none: the policy chooses",
            help=f"One run per model: {run_choice.POLICY}. A pin is part of the URL.",
        )
        if many:
            a, b, c = st.columns(3)
            a.number_input(
                "Best models drawn",
                1,
                every,
                TOP_DEFAULT,
                key=f"{key}_top",
                help="By the runs' headline metric; pick models in the sidebar to choose exactly.",
            )
            b.multiselect("Families", families, key=f"{key}_family", placeholder="all families")
            c.text_input("Model name contains", key=f"{key}_name")
        st.dataframe(shown_table(chosen), hide_index=True, key=f"{key}_table")
    return chosen


def shown_table(chosen: pd.DataFrame) -> pd.DataFrame:
    """The runs shown, as a person reads them: the model, the run in words (its options, a limited
    run's items: run_choice.run_name), items scored, when it was stored and why it was chosen."""
    return pd.DataFrame(
        {
            "model": chosen["model_name"],
            "run": [run_choice.run_name(r) for r in chosen.to_dict("records")],
            "items": [metric_text.n_of(n) for n in chosen["n"]],
            "stored": [times.readable(t) for t in chosen["created_at"]],
            "chosen by": chosen["chosen_by"],
        }
    )


def _runs_label(chosen: pd.DataFrame, total: int) -> str:
    named = lambda rows: ", ".join(  # each run in words (run_choice.run_name), never by its id
        run_choice.run_name(r) + (" (pinned)" if r["chosen_by"] == run_choice.PINNED else "")  # noqa: E731
        for r in rows.to_dict("records")
    )
    if len(chosen) > 6:  # too many to name; pinned runs still are, as they differ from the policy's choice
        pinned = chosen[chosen["chosen_by"] == run_choice.PINNED]
        return (
            f"Runs shown: {len(chosen)} of {total} models (one run each"
            + (f"; {named(pinned)}" if len(pinned) else "")
            + ")"
        )
    ids = named(chosen)
    return f"Runs shown: {ids}" + (f" (of {total} models)" if len(chosen) < total else "")


def _pin_to_url(key: str) -> None:
    # A page may pin runs of two datasets (sensitivity: DEMETR and CANNOT): the URL holds all pins.
    pins = [p for k, v in st.session_state.items() if str(k).startswith("pinned_") and isinstance(v, list) for p in v]
    if pins:
        st.query_params[PIN_KEY] = pins
    elif PIN_KEY in st.query_params:
        del st.query_params[PIN_KEY]
