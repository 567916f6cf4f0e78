"""Which stored run stands for a model: one policy, used by every page, the CLI and the report.

For each model on a dataset, among its complete evaluation runs: a run on the model's
evaluation split there (``preferred_split``: the held-out split for a model trained on part of
the dataset, catalog.TRAINED_ON; else the first of the dataset's splits, e.g. NevIR test) before
runs on other splits, then the run with the most items, and among runs of equal size the newest.
A quick ``--limit 50`` run therefore never hides the full run, a run on NevIR's larger train
split never hides the test run, and a newer full run replaces an older one; a model evaluated
only on another split is still shown. A user may pin any other run of a model (by run id, e.g.
from the URL); a pin always wins for its model.

    chosen = choose_runs(store.runs(dataset="nevir", kind="eval"), models=["tfidf"], pinned=["9f2c..."])
    chosen[["model_name", "run_id", "n", "created_at", "chosen_by"]]
"""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from negviz.core import times
from negviz.core.options import in_words

POLICY = (
    "the complete run on the dataset's evaluation split (else another split) with the most items, "
    "newest first among equals (a pinned run wins)"
)
PINNED = "pinned"
BY_POLICY = "most items, newest"


def ranked(runs: pd.DataFrame, split: str | None = None, kind: str = "eval") -> pd.DataFrame:
    """Complete runs of ``kind`` (Store.runs rows; evaluations unless asked, e.g. "attribution")
    in the policy's order: best candidate first."""
    if runs.empty:
        return runs.assign(chosen_by=pd.Series(dtype=object))
    part = runs[(runs["status"] == "complete") & (runs["kind"] == kind)]
    if split is not None and "split" in part:
        part = part[part["split"].fillna(split) == split]
    columns = ["model_name", "dataset_name", "split"]
    on_eval_split = (
        [preferred_split(m, d) in (None, s) for m, d, s in part[columns].itertuples(index=False)]
        if set(columns) <= set(part.columns)
        else True
    )
    order = part.assign(_eval=on_eval_split, _n=part["n"].fillna(0))
    order = order.sort_values(["_eval", "_n", "created_at", "run_id"], ascending=False)
    return order.drop(columns=["_eval", "_n"])


def preferred_split(model: str, dataset: str) -> str | None:
    """The split whose run stands for ``model`` on a shipped ``dataset``: its held-out split when
    it was trained on part of the dataset (negviz.evaluation.catalog.evaluation_split), else the first of the
    dataset's splits; None for other names (added datasets and files have one split)."""
    from negviz.datasets import DATASETS
    from negviz.evaluation.catalog import evaluation_split

    if held_out := evaluation_split(model, dataset):
        return held_out
    return DATASETS.entry(dataset).meta["splits"][0] if dataset in DATASETS else None


def choose_runs(
    runs: pd.DataFrame,
    models: Iterable[str] | None = None,
    pinned: Iterable[str] = (),
    split: str | None = None,
    kind: str = "eval",
) -> pd.DataFrame:
    """One run per model (all models with runs, or only ``models``), sorted by model name, with a
    ``chosen_by`` column saying whether the policy or a pin chose it. Unknown pins are ignored."""
    order = ranked(runs, split, kind)
    models = list(models or [])
    if models:
        order = order[order["model_name"].isin(models)]
    pins = {str(p) for p in pinned}
    pinned_rows = order[order["run_id"].isin(pins)].drop_duplicates("model_name").assign(chosen_by=PINNED)
    rest = order[~order["model_name"].isin(pinned_rows["model_name"])]
    by_policy = rest.drop_duplicates("model_name").assign(chosen_by=BY_POLICY)
    chosen = pd.concat([pinned_rows, by_policy]) if len(pinned_rows) else by_policy
    return chosen.sort_values("model_name").reset_index(drop=True)


def alternatives(runs: pd.DataFrame, model: str, split: str | None = None) -> pd.DataFrame:
    """Every complete run of one model, in the policy's order (the first is the default choice)."""
    order = ranked(runs, split)
    return order[order["model_name"] == model].reset_index(drop=True)


def run_label(row) -> str:
    """A run in words for pickers and captions: name (with its options) · family · items · when it
    was stored, e.g. "tfidf · tfidf · 1,383 items · 21 Nov 2026, 08:17"; never its id."""
    n = int(row["n"]) if pd.notna(row["n"]) else 0
    return f"{run_name(row)} · {row.get('family') or '?'} · {n:,} items · {times.readable(row['created_at'])}"


def run_name(row) -> str:
    """What tells two runs of one model apart, in words: the model, its options as run (e.g. the
    prompt template; an option's name in words) and a limited run's item count, e.g.
    'smollm2-135m (max reasoning tokens 128, template rank1) · first 25 items'. Store.runs rows;
    a row without the specs gives the model name alone."""
    spec = row.get("model_spec") if isinstance(row.get("model_spec"), dict) else {}
    options = in_words(spec.get("options") or {})
    data = row.get("dataset_spec") if isinstance(row.get("dataset_spec"), dict) else {}
    limit = data.get("limit")
    return (
        str(row["model_name"])
        + (f" ({options})" if options else "")
        + (f" · first {int(limit):,} items" if limit else "")
    )


def resolve_run(
    runs: pd.DataFrame, ref: str, dataset: str | None = None, *, by_model: bool = True, listing: str = "`negviz runs`"
) -> str:
    """A run id from what a user typed: a run id, a unique prefix of one (8+ characters, as the
    listings show), or (``by_model``) a model name, which stands for the run this policy chooses
    on ``dataset``. ``listing``: the command that lists ``runs``, named in the messages."""
    from negviz.core.errors import NegvizError

    ids = runs["run_id"].astype(str)
    if (ids == ref).any():
        return ref
    if len(ref) >= 8:
        hits = ids[ids.str.startswith(ref)]
        if len(hits) == 1:
            return hits.iloc[0]
        if len(hits) > 1:
            listed = runs.loc[hits.index].head(5)
            candidates = "; ".join(f"{r.run_id} ({r.model_name} on {r.dataset_name})" for r in listed.itertuples())
            more = f"; and {len(hits) - len(listed)} more" if len(hits) > len(listed) else ""
            raise NegvizError(
                f"run id prefix {ref[:40]!r} matches {len(hits)} runs: {candidates}{more}; give more characters"
            )
    if by_model and (runs["model_name"] == ref).any():
        if dataset is None:
            raise NegvizError(f"{ref!r} is a model name: add --dataset to say whose run stands for it")
        chosen = choose_runs(runs[runs["dataset_name"] == dataset], [ref])
        if chosen.empty:
            raise NegvizError(f"model {ref!r} has no complete run on {dataset!r}; list runs with {listing}")
        return chosen["run_id"].iloc[0]
    short = " (a prefix needs 8 characters or more)" if len(ref) < 8 else ""
    if by_model:
        raise NegvizError(f"no stored run or model {ref[:40]!r}{short}; list them with {listing}")
    raise NegvizError(f"no run {ref[:40]!r} in the store{short}; list runs with {listing}")


def chosen_mask(runs: pd.DataFrame) -> pd.Series:
    """True for the runs this policy shows for their model on their dataset (for listings)."""
    if runs.empty:
        return pd.Series(dtype=bool)
    shown = set()
    for _, part in runs.groupby("dataset_name", sort=False):
        shown |= set(choose_runs(part)["run_id"])
    return runs["run_id"].isin(shown)


def filter_models(chosen: pd.DataFrame, families: Iterable[str] = (), name: str = "") -> pd.DataFrame:
    """Runs whose family is among ``families`` (empty: any) and whose model name contains ``name``."""
    keep = pd.Series(True, index=chosen.index)
    if families:
        keep &= chosen["family"].isin(list(families))
    if name.strip():
        keep &= chosen["model_name"].str.contains(name.strip(), case=False, regex=False)
    return chosen[keep]


def top_models(chosen: pd.DataFrame, n: int, lower_is_better: bool = False) -> pd.DataFrame:
    """The ``n`` best of the chosen runs by their headline metric (pinned runs always stay), for
    pages that would be unreadable with every model of a large store."""
    from negviz.evaluation.summaries import headline

    if len(chosen) <= n:
        return chosen
    value = pd.Series([headline(s or {})[1] for s in chosen["summary"]], index=chosen.index, dtype=float)
    order = value.sort_values(ascending=lower_is_better, na_position="last").index
    best = set(order[:n]) | set(chosen.index[chosen["chosen_by"] == PINNED])
    return chosen.loc[sorted(best, key=lambda i: chosen.loc[i, "model_name"])]
