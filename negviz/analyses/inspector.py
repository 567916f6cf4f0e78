"""The inspector's list of items: per-model verdicts, filters, sort order, previous / next.

Pure functions over DataFrames, so the page only places widgets:

    verdicts = verdict_table(ds.kind, ds.frame, {"tfidf": (store.scores_wide(run_id), "strict")})
    items = item_table(ds.kind, ds.frame, automatic_types(ds), store.annotations("nevir"), "ana")
    ids = filter_items(items, verdicts, Filters(negation_type="affixal", model="tfidf", verdict="failed"))
    prev_id, next_id = neighbours(ids, "1230-2")
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from negviz.core import kinds, metrics, outcomes
from negviz.core.kinds import DatasetKind
from negviz.language.taxonomy import TAXONOMY

ANY = "any"
CORRECT = outcomes.CORRECT
FAILED = "failed"
ANNOTATED = ("any", "annotated", "not annotated", "not annotated by me")
SORTS = ("id", "margin", "margin desc")


def verdict_options(kind: DatasetKind) -> list[str]:
    """Values of the verdict filter for a dataset kind."""
    if not kind.has_verdicts:
        return [ANY]
    return [ANY, CORRECT, FAILED, *kind.failure_categories]


# ---------------------------------------------------------------- verdicts per model
def model_verdicts(
    kind: DatasetKind, frame: pd.DataFrame, wide: pd.DataFrame, tie_rule: str = metrics.STRICT
) -> pd.DataFrame:
    """One row per scored item of the dataset, in dataset order: the slot scores and the run's
    outcome (negviz.core.outcomes, under the run's tie rule). Items the run did not score are left out."""
    ids = kind.item_ids(frame)
    wide = wide.loc[[i for i in ids if i in wide.index], list(kind.slots)]
    verdicts = outcomes.item_outcomes(kind, wide, tie_rule)
    return pd.concat([wide.reset_index(drop=True), verdicts.reset_index(drop=True)], axis=1)


def verdict_table(kind: DatasetKind, frame: pd.DataFrame, runs: dict[str, tuple[pd.DataFrame, str]]) -> pd.DataFrame:
    """model_verdicts of several models (name -> (Store.scores_wide, tie rule)), stacked with ``model``."""
    return stack_verdicts({name: model_verdicts(kind, frame, wide, rule) for name, (wide, rule) in runs.items()})


def stack_verdicts(per_model: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """model_verdicts of several models (name -> its verdicts), stacked with ``model`` (the pages
    cache each model's verdicts by run id and stack them here)."""
    parts = [verdicts.assign(model=name) for name, verdicts in per_model.items()]
    if not parts:
        return pd.DataFrame(columns=["item_id", "model", "correct", "category", "margin"])
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------- items
def automatic_types(dataset) -> pd.DataFrame:
    """The taxonomy's type of every item (NevIR: the gold cue's type; else the detected cue),
    without annotator labels: item_id, type, cue, label_source, evidence, where. Detection over
    DEMETR's 35,000 items takes seconds: read it through DatasetView.automatic_types, which keeps it."""
    from negviz.language.taxonomy import label_pairs

    return label_pairs(dataset)


def item_table(
    kind: DatasetKind,
    frame: pd.DataFrame,
    types: pd.DataFrame | None = None,
    annotations: pd.DataFrame | None = None,
    annotator: str | None = None,
) -> pd.DataFrame:
    """One row per item in dataset order: id, cue, edit type (NevIR), negation type, how many
    annotators labelled it, and whether ``annotator`` did.

    ``types`` is automatic_types(...) (item_id, type, cue); ``annotations`` the store's
    latest-per-annotator frame for the dataset."""
    ids = kind.item_ids(frame).reset_index(drop=True)
    out = pd.DataFrame({"item_id": ids})
    by_id = types.set_index("item_id") if types is not None else None
    if "cue" in frame:  # a gold cue beats a detected one
        out["cue"] = frame["cue"].astype(str).str.lower().to_numpy()
    else:
        out["cue"] = ids.map(by_id["cue"]).fillna("").to_numpy() if by_id is not None else ""
    out["edit_type"] = frame["edit_type"].to_numpy() if "edit_type" in frame else pd.NA
    out["negation_type"] = ids.map(by_id["type"]).fillna("").to_numpy() if by_id is not None else ""
    rank = {item: i for i, item in enumerate(sorted(ids, key=natural_key))}
    out["order"] = ids.map(rank).to_numpy()  # natural id order ("2-3" before "10-2"), computed once
    return with_annotations(out, annotations, annotator)


def with_annotations(items: pd.DataFrame, annotations: pd.DataFrame | None, annotator: str | None) -> pd.DataFrame:
    """``items`` with how many annotators labelled each item and whether ``annotator`` did (the only
    columns that change while the app runs, so the rest can be computed once per dataset)."""
    ann = annotations if annotations is not None else pd.DataFrame(columns=["item_id", "annotator"])
    counts = ann.groupby("item_id")["annotator"].nunique() if len(ann) else pd.Series(dtype=int)
    mine = set(ann.loc[ann["annotator"] == annotator, "item_id"]) if annotator else set()
    return items.assign(
        annotators=items["item_id"].map(counts).fillna(0).astype(int).to_numpy(),
        mine=items["item_id"].isin(mine).to_numpy(),
    )


def options(items: pd.DataFrame, column: str) -> list:
    """Distinct values of an item column for a filter, most frequent first ("" dropped)."""
    counts = items[column].dropna().value_counts()
    return [v for v in counts.index if v != ""]


# ---------------------------------------------------------------- filters
@dataclass(frozen=True)
class Filters:
    """What the inspector lists; every field is a URL query parameter on the page."""

    negation_type: str | None = None
    cue: str | None = None
    edit_type: int | None = None
    model: str | None = None  # whose verdict, error category and margin the next three use
    verdict: str = ANY
    margin_min: float | None = None
    margin_max: float | None = None
    annotated: str = ANY
    sort: str = "id"
    lexical_lean: str | None = None  # where BM25 leans (negviz.analyses.lexical.item_lean); items need the column


def natural_key(item_id: str) -> list:
    """Sort "2-3" before "10-2": digit runs compare as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", str(item_id)) if part]


def filter_items(items: pd.DataFrame, verdicts: pd.DataFrame, f: Filters) -> list[str]:
    """Item ids that pass every filter, in the chosen order."""
    keep = pd.Series(True, index=items.index)
    if f.negation_type:
        keep &= items["negation_type"] == f.negation_type
    if f.cue:
        keep &= items["cue"] == f.cue.lower()
    if f.edit_type is not None:
        keep &= items["edit_type"].astype("Int64") == int(f.edit_type)
    if f.annotated == "annotated":
        keep &= items["annotators"] > 0
    elif f.annotated == "not annotated":
        keep &= items["annotators"] == 0
    elif f.annotated == "not annotated by me":
        keep &= ~items["mine"]
    if f.lexical_lean:
        keep &= items["lexical_lean"] == f.lexical_lean
    chosen = items.loc[keep, ["item_id", "order"]]
    if f.model:
        mine = verdicts.loc[verdicts["model"] == f.model, ["item_id", "correct", "category", "margin"]]
        chosen = chosen.merge(mine, on="item_id", how="left")
        chosen = chosen[_verdict_mask(chosen, f)]
    by_id = chosen.sort_values("order")
    if not (f.sort.startswith("margin") and "margin" in chosen):
        return by_id["item_id"].tolist()
    # A stable sort of the id-ordered list: equal margins keep id order; no margin goes last.
    ordered = by_id.sort_values("margin", ascending=f.sort != "margin desc", na_position="last", kind="stable")
    return ordered["item_id"].tolist()


def _verdict_mask(rows: pd.DataFrame, f: Filters) -> pd.Series:
    keep = pd.Series(True, index=rows.index)
    if f.verdict == CORRECT:
        keep &= rows["category"] == CORRECT
    elif f.verdict == FAILED:
        keep &= rows["category"].notna() & (rows["category"] != CORRECT) & (rows["category"] != "")
    elif f.verdict != ANY:
        keep &= rows["category"] == f.verdict
    if f.margin_min is not None:
        keep &= rows["margin"] >= f.margin_min
    if f.margin_max is not None:
        keep &= rows["margin"] <= f.margin_max
    return keep


def listing(items: pd.DataFrame, verdicts: pd.DataFrame, ids: list[str], model: str | None) -> pd.DataFrame:
    """The filtered items in list order, with one model's verdict and margin, for a table; a type
    and a verdict in words ("exclusion (exceptor)", "prefers edited (d2) for both"), not their keys."""
    out = items.set_index("item_id").loc[ids].reset_index().drop(columns=["mine", "order"])
    if model:
        mine = verdicts.loc[verdicts["model"] == model, ["item_id", "category", "margin"]]
        out = out.merge(mine, on="item_id", how="left")
    if "negation_type" in out:
        out["negation_type"] = [TAXONOMY.label(t) if t else t for t in out["negation_type"]]
    if "category" in out:
        out["category"] = [kinds.category_words(c) if isinstance(c, str) else c for c in out["category"]]
    return out


def neighbours(ids: list[str], current: str | None) -> tuple[str | None, str | None]:
    """The previous and next id around ``current`` in a filtered list (None at the ends).

    When ``current`` is not in the list, "next" is the list's first id."""
    if current not in ids:
        return None, (ids[0] if ids else None)
    i = ids.index(current)
    return (ids[i - 1] if i > 0 else None), (ids[i + 1] if i + 1 < len(ids) else None)


def position(ids: list[str], current: str | None) -> str:
    """ "12 of 340", or "340 items, this one not among them", for the page header."""
    if current in ids:
        return f"{ids.index(current) + 1:,} of {len(ids):,}"
    return f"{len(ids):,} items, this one not among them"
