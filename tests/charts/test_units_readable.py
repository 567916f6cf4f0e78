"""Readable at a glance: the units and legends of the drift and Overview figures, built from the
runs shipped in data/runs/ as the pages build them. One unit per axis (percent for proportions,
ratios never on a percent axis), a legend for every colour placed clear of the title, axis
ranges that hold every error bar, and the beside-the-papers table in percent."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from negviz import finetune as ft
from negviz.analyses.beside_published import beside_published, published_overlay, shown_beside
from negviz.analyses.leaderboard import leaderboard
from negviz.charts import drift as cd
from negviz.charts.leaderboard import PUBLISHED_NAME, leaderboard_bars
from negviz.core.paths import DATA_DIR
from negviz.datasets.facts import metric_baseline
from negviz.evaluation.published import load_reference
from negviz.evaluation.run_choice import choose_runs
from negviz.finetune import views
from negviz.results.dataset_view import DatasetView
from negviz.store.store import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = Store(f"sqlite:///{tmp_path_factory.mktemp('units') / 'results.sqlite'}")
    s.import_runs(DATA_DIR / "runs", lazy=True)
    return s


@pytest.fixture(scope="module")
def every_run(store):
    """The drift page with every shipped fine-tuning run selected: its frames and run notes."""
    view = DatasetView(store)
    runs = view.finetune_runs()
    epochs, cosines, _ = view.drift_frames(runs)
    notes = {r.label: ft.run_note(r) for r in runs.itertuples(index=False)}
    return runs, epochs, cosines, notes


def _axes(fig, letter: str) -> dict[str, object]:
    """The figure's axes of one letter ("y"), by the name traces use ("y", "y2", ...)."""
    layout = fig.layout.to_plotly_json()
    return {k.replace("axis", ""): fig.layout[k] for k in layout if k.startswith(f"{letter}axis")}


def _ends(trace) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest point each marker's error bar reaches."""
    y = np.asarray(trace.y, dtype=float)
    err = trace.error_y
    if err is None or not err.visible or err.array is None:
        return y, y
    up = np.asarray(err.array, dtype=float)
    down = np.asarray(err.arrayminus if err.arrayminus is not None else err.array, dtype=float)
    return y - down, y + up


def _ratio_runs(epochs: pd.DataFrame) -> set[str]:
    return {run for run, ep in epochs.groupby("run") if views.measure(ep) is views.DEMETR}


def _check_units(fig, ratio_runs: set[str]) -> None:
    axes = _axes(fig, "y")
    percent = {name for name, ax in axes.items() if "%" in (ax.title.text or "")}
    ratio_axes = set()
    for t in fig.data:
        if t.type != "scatter" or t.y is None:
            continue
        axis = t.yaxis or "y"
        lo, hi = _ends(t)
        ax = axes[axis]
        if axis in percent:
            assert t.name not in ratio_runs or "R@10" in (t.hovertemplate or ""), (
                f"{t.name}'s ratio is on the percent axis {ax.title.text!r}"
            )
            assert np.nanmin(lo) >= 0 and np.nanmax(hi) <= 100, f"{ax.title.text}: {lo}, {hi}"
        elif t.name in ratio_runs and "sensitivity" in (t.hovertemplate or "").lower():
            ratio_axes.add(axis)
            assert "ratio" in ax.title.text and "%" not in ax.title.text
        if ax.range is not None:  # every error bar inside the drawn range
            assert ax.range[0] <= np.nanmin(lo) and np.nanmax(hi) <= ax.range[1], (ax.title.text, ax.range, lo, hi)
    if ratio_runs:
        assert ratio_axes, "the DEMETR runs' ratios are drawn on an axis of their own"


def _legend_below_the_title(fig) -> None:
    legend = fig.layout.legend
    assert legend.orientation == "h"
    if legend.yref == "container":
        assert legend.y <= 0.05 and legend.yanchor == "bottom", "at the figure's foot"
    else:
        assert legend.y < 0 and legend.yanchor == "top", "under the plots, not in the title's margin"
    top = fig.layout.margin.t
    title = fig.layout.title
    assert title.text and top >= 40, "the title has a margin of its own"


def test_the_tradeoff_figure_has_one_unit_per_axis_with_every_run(every_run):
    _, epochs, _, notes = every_run
    table = views.tradeoff(epochs)
    ratio_runs = _ratio_runs(epochs)
    assert ratio_runs and set(table["run"]) - ratio_runs, "the shipped runs measure both"
    fig = cd.tradeoff_figure(table, notes)
    axes = _axes(fig, "y")
    titles = {name: ax.title.text for name, ax in axes.items()}
    assert sum("%" in t for t in titles.values()) == 2 and any("sensitivity ratio" in t for t in titles.values())
    _check_units(fig, ratio_runs)
    # the paired accuracy is in percent: the shipped NevIR run ends near 34%, not 0.34
    paired = next(
        t for t in fig.data if t.name not in ratio_runs and "%" in titles[t.yaxis] and "R@10" not in t.hovertemplate
    )
    assert 20 < max(paired.y) < 60
    _legend_below_the_title(fig)
    assert {t.name for t in fig.data if t.showlegend is not False} == set(table["run"]), "one legend entry per run"
    note = next(a for a in fig.layout.annotations if a.yanchor == "top" and a.y == 0)
    assert all(label in note.text for label in notes), "every run's data line, whole"
    assert max(len(line) for line in note.text.split("<br>")) <= 80, "wrapped to fit a 1,000 px page"


def test_the_drift_figure_puts_each_measure_on_its_own_axis(every_run):
    _, epochs, cosines, notes = every_run
    ratio_runs = _ratio_runs(epochs)
    fig = cd.drift_figure(epochs, cosines, notes, baseline=0.25)
    _check_units(fig, ratio_runs)
    titles = [ax.title.text for ax in _axes(fig, "y").values()]
    assert any("%" in t for t in titles) and any("ratio" in t and "%" not in t for t in titles)
    _legend_below_the_title(fig)


def test_the_overview_bars_name_every_family_and_overlay_the_papers(store):
    reference = load_reference()
    for dataset in ("nevir", "excluir", "demetr"):
        board = leaderboard(choose_runs(DatasetView(store, dataset).runs()))
        for metric in board["metric"].unique():
            part = board[board["metric"] == metric]
            pub, missing = published_overlay(reference, dataset, metric)
            fig = leaderboard_bars(part, metric, metric_baseline(metric), metric, pub if len(pub) else None)
            shown = {t.name for t in fig.data if t.showlegend is not False}
            assert set(part["family"]) <= shown and fig.layout.showlegend, f"{dataset}: a legend entry per family"
            for t in fig.data:
                if t.name != PUBLISHED_NAME:
                    assert len(set(np.atleast_1d(t.marker.color))) == 1, "one colour per legend entry"
            _legend_below_the_title(fig)
            percent = "%" in fig.layout.xaxis.title.text
            assert percent == (metric_baseline(metric) is not None and "ratio" not in metric)
            xs = np.concatenate([np.asarray(t.x, dtype=float) for t in fig.data])
            if percent:
                assert xs.min() >= 0 and xs.max() <= 100 and xs.max() > 1, "proportions in percent"
            if pub.empty:  # the toggle says why it draws nothing
                assert missing.startswith("No published numbers of ") and dataset in missing
            else:
                assert PUBLISHED_NAME in shown and not missing
    demetr = published_overlay(reference, "demetr", "sensitivity_ratio (negation)")[0]
    assert {"NegMPNet", "all-mpnet-base-v2"} <= set(demetr["model"]), "NegBLEURT's DEMETR ratios, same protocol"
    assert published_overlay(reference, "excluir", "right_rank")[0].empty
    assert "another way" in published_overlay(reference, "excluir", "right_rank")[1], "the full-corpus protocol"


def test_beside_the_papers_is_in_percent_with_the_protocol_early(store):
    reference = load_reference()
    view = DatasetView(store, "nevir")
    beside = beside_published(pd.concat([choose_runs(view.runs()), view.retrieval_runs()]), reference)
    tables = dict(shown_beside(beside))
    assert list(tables) == ["%"]
    shown = tables["%"]
    assert list(shown.columns)[:3] == ["model", "protocol", "source"], "what tells a model's rows apart, early"
    assert all(c.endswith("(%)") for c in shown.columns if c.split(" (")[0] in ("negviz", "published"))
    assert all(c.endswith("(pp)") for c in shown.columns if c.startswith("difference")), "rates differ by points"
    mpnet = shown[(shown["model"] == "all-mpnet-base-v2") & (shown["source"] == "NevIR Table 2")].iloc[0]
    assert mpnet["negviz (%)"] == pytest.approx(8.1, abs=0.05) and mpnet["published (%)"] == pytest.approx(8.1)
    assert mpnet["95% CI low (%)"] < 8.1 < mpnet["95% CI high (%)"]
    # on ExcluIR one model's rows differ by metric: it comes right after the protocol
    view = DatasetView(store, "excluir")
    beside = beside_published(pd.concat([choose_runs(view.runs()), view.retrieval_runs()]), reference)
    tables = dict(shown_beside(beside))
    shown = tables["%"]
    assert list(shown.columns)[:2] == ["model", "protocol"]
    assert shown["negviz (%)"].max() > 1, "ExcluIR's proportions in percent too"
    if "pp" in tables:  # ΔR@1, a difference of rates: in points, its difference to the paper too
        assert "negviz (pp)" in tables["pp"] and "difference (pp)" in tables["pp"]
    # DEMETR's ratios stay ratios, and the perturbation tells its rows apart
    view = DatasetView(store, "demetr")
    beside = beside_published(choose_runs(view.runs()), reference)
    tables = dict(shown_beside(beside))
    assert "ratio" in tables and "%" not in tables
    ratio = tables["ratio"]
    assert list(ratio.columns)[:3] == ["model", "perturbation", "protocol"] and "negviz (ratio)" in ratio
    assert ratio["negviz (ratio)"].max() < 5
