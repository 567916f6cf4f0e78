"""Fine-tuning drift as a section: per epoch the pair cosines and the held-out measure of
fine-tuning runs (NevIR App. C Fig. 8 and Fig. 5), each run's numbers at epoch 0 and at the end,
and, where measured, the negation gain against retrieval without negation; drawn by the
Fine-tuning drift page and the report (negviz.finetune.views, negviz.charts.drift).

    picked, note, trained = runs_of(everything, "negminilm", catalog)   # the report's runs of a model
    s = section(everything, picked)               # everything = DatasetView(store): every training dataset
    s.data["comparison"], s.figures["drift"], s.caption.text()
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from negviz.core import metrics
from negviz.core.json_values import plain
from negviz.sections.base import Caption, Section

FIGURE, TRADEOFF = "drift", "tradeoff"
PAIRED = "paired_accuracy"  # the held-out measure of a NevIR-trained run
CAPTION = Caption(
    "Before fine-tuning, a bi-encoder embeds the two documents of a NevIR pair almost identically (cosine near "
    "1). Training on contrast pairs, with the pair's other document as the hard negative, pushes them apart and "
    "spreads them out while held-out paired accuracy rises. Runs trained on sentence/negation pairs (CANNOT, "
    "triplet files) and on ExcluIR triplets show the cosine of a held-out sentence with its negation (or of a "
    "query with the document it excludes) falling while the DEMETR negation sensitivity ratio rises. Epoch 0 is "
    "before training."
)


def runs_of(everything, model: str, catalog: pd.DataFrame) -> tuple[pd.DataFrame, str, bool]:
    """The fine-tuning runs that tell ``model``'s drift (of ``everything.finetune_runs()``): the runs
    that made it, else those that start from it, complete ones first; with a note saying which,
    and whether negviz trained the model."""
    from negviz.finetune.provenance import trained_runs

    runs = everything.finetune_runs()
    if runs.empty:
        return runs, "No fine-tuning runs are stored.", False
    made = runs[trained_runs(runs, model, catalog)]
    start = runs[runs["model_name"] == model]
    if len(made):
        picked, trained, note = made, True, f"{model} was trained in negviz: the runs that made it."
    elif len(start):
        picked, trained = start, False
        note = (
            f"{model} was not trained in negviz; shown are the fine-tuning runs that start from it "
            "(epoch 0 is the model itself)."
        )
    else:
        return start, f"{model} was not trained in negviz and no fine-tuning run starts from it.", False
    picked = picked[picked["status"] == "complete"] if (picked["status"] == "complete").any() else picked
    return picked, note, trained


def section(everything, picked: pd.DataFrame, *, shape: str = "violin") -> Section:
    """The drift of ``picked`` (rows of DatasetView.finetune_runs) read through ``everything`` (the
    whole store's view); ``tables["epochs"]`` is empty while they have no measured epoch."""
    from negviz import finetune as ft
    from negviz.charts.drift import drift_figure, tradeoff_figure
    from negviz.finetune import views

    epochs, cosines, wide = everything.drift_frames(picked)
    notes = {r.label: ft.run_note(r) for r in picked.itertuples(index=False)}
    baseline = metrics.metric(PAIRED).chance  # held-out NevIR pairs' chance level
    figures = {FIGURE: drift_figure(epochs, cosines, notes, shape=shape, baseline=baseline)}
    captions = {FIGURE: CAPTION}
    comparison = views.comparison(picked, epochs)
    data: dict[str, Any] = {
        "runs": [
            plain(
                {
                    "run_id": r["run_id"],
                    "label": r["label"],
                    "status": r["status"],
                    "recipe": (r.get("options") or {}).get("finetune", {}),
                    "data": (r.get("options") or {}).get("data", {}),
                    "note": (r.get("options") or {}).get("note"),
                    "checkpoint": (r["summary"] or {}).get("checkpoint"),
                }
            )
            for r in picked.to_dict("records")
        ],
        "comparison": plain(comparison),
        "epochs": plain(epochs),
        "figure": FIGURE,
    }
    tables = {"epochs": epochs, "cosines": cosines, "wide": wide, "comparison": comparison, "notes": notes}
    if views.has_general(epochs):  # negation gain against retrieval without negation
        from negviz.finetune.general import DEFINITION

        trade = views.tradeoff(epochs)
        figures[TRADEOFF] = tradeoff_figure(trade, notes)
        data.update(tradeoff=plain(trade), tradeoff_figure=TRADEOFF, general_definition=DEFINITION)
        tables["tradeoff"] = trade
    return Section("drift", data, figures, captions, tables)
