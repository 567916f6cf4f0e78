"""Why the cue is missed, as a section: each model's stored cue-influence run (which tokens the
score leans on: its median cue share with a 95% CI, by verdict and by type) and the lexical
confound against BM25 (does a model follow word overlap?); the report's, beside the Inspector's
Why panel and the Error preference page's lexical section (negviz.analyses.cue_influence,
negviz.analyses.lexical).

    s = section(view, outcomes, ["all-MiniLM-L6-v2", "bm25"])
    s.data["attribution"], s.data["lexical"]["table"]
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from negviz.core.json_values import plain
from negviz.sections.base import Section

SUMMARY_KEYS = ("method", "steps", "median_cue_share", "ci95", "n_comparisons")


def section(view, outcomes: pd.DataFrame, models: list[str]) -> Section:
    """Each of ``models``' cue-influence run on the dataset (the run policy of
    negviz.evaluation.run_choice, kind "attribution"), and the lexical confound of ``outcomes``
    against BM25 (DatasetView.lexical_margins: a stored run, else scored now, as on the page)."""
    from negviz.analyses import lexical as X
    from negviz.analyses.cue_influence import ANALYSIS as CUE_INFLUENCE
    from negviz.analyses.cue_influence import explain_command
    from negviz.evaluation.run_choice import choose_runs
    from negviz.store.record import ATTRIBUTION

    data: dict[str, Any] = {"attribution": [], "lexical": None, "command": explain_command(models[0], view.name)}
    found = choose_runs(view.attribution_runs(CUE_INFLUENCE), models, kind=ATTRIBUTION)
    for r in found.to_dict("records"):
        s = r["summary"] or {}
        data["attribution"].append(
            plain(
                {"model": r["model_name"], "run_id": r["run_id"], "n": r["n"]}
                | {k: s.get(k) for k in SUMMARY_KEYS}
                | {"by_verdict": s.get("by_verdict", []), "by_type": s.get("by_type", [])}
            )
        )
    lexical, source, bm25_run = view.lexical_margins()
    comps = X.comparisons(outcomes, lexical)
    table, follows = X.confound_table(comps), X.follows_lexicon(comps)
    data["lexical"] = {
        "measure": X.MEASURE,
        "source": source,
        "bm25_run": bm25_run,
        "table": plain(table),
        "follows": plain(follows),
    }
    return Section("why", data, tables={"confound": table, "follows": follows, "comparisons": comps})
