"""Per-type accuracy and error preference over stored runs (Petcu et al. Fig. 3-4, NevIR Fig. 4).

Pure functions over DataFrames; the heatmap and error pages only place their results:

    outcomes = negviz.core.outcomes.run_outcomes(kind, {"tfidf": (run_id, wide, "strict"), ...})
    meta = item_meta(ds.kind, ds.frame, label_pairs(ds))
    groups = item_groups("type", meta)                      # item_id -> column of the heatmap
    cells = cell_table(outcomes, groups, min_n=MIN_N)        # model x column: n, value, 95% CI
    prefs = preference_table(outcomes)                      # model x category: count, share

The page and the report draw the same results: ``per_type_cells`` (a heatmap's cells, columns and
labels), ``ordered_preference`` (error preference in a given model order) and ``margin_table``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from negviz.core import metrics, sample_size
from negviz.core.kinds import DatasetKind
from negviz.language.taxonomy import TAXONOMY

AXES = {
    "type": "negation type",
    "edit_type": "CondaQA edit type",
    "cue": "cue word (top k)",
    "perturbation": "DEMETR perturbation",
}
EDIT_TYPES = {2: "scope (2)", 3: "affirmative (3)"}
MIN_N = sample_size.MIN_N  # cells with fewer items are flagged (the heatmap's default, the report's)
CELL_COLUMNS = ("model", "column", "n", "value", "ci_low", "ci_high", "enough")


# ---------------------------------------------------------------- items -> heatmap columns
def item_meta(kind: DatasetKind, frame: pd.DataFrame, labels: pd.DataFrame | None = None) -> pd.DataFrame:
    """item_id plus what the column axes group by: type, cue, label_source, edit_type, perturbation."""
    meta = pd.DataFrame({"item_id": kind.item_ids(frame).to_numpy()})
    if labels is not None:
        meta = meta.merge(labels[["item_id", "type", "cue", "label_source"]], on="item_id", how="left")
    if "edit_type" in frame:
        edit = frame["edit_type"].map(lambda e: EDIT_TYPES.get(int(e), str(e)) if pd.notna(e) else None)
        meta["edit_type"] = edit.to_numpy()
    if "cue" in frame:  # the gold cue wins over a detected one
        meta["cue"] = frame["cue"].astype(str).str.lower().to_numpy()
    typed_by = kind.typed_by
    if typed_by:  # DEMETR's perturbation
        meta[typed_by] = frame[typed_by].to_numpy()
    return meta


def available_axes(kind: DatasetKind, meta: pd.DataFrame) -> list[str]:
    """The column axes this dataset supports, in AXES order."""
    have = {
        "type": "type" in meta,
        "edit_type": "edit_type" in meta,
        "cue": "cue" in meta and meta["cue"].fillna("").ne("").any(),
        "perturbation": kind.typed_by == "perturbation",
    }
    return [a for a in AXES if have[a]]


def item_groups(axis: str, meta: pd.DataFrame, top_k: int = 10) -> pd.Series:
    """item_id -> heatmap column for ``axis``; items outside every column are left out."""
    if axis not in AXES:
        raise ValueError(f"unknown axis {axis!r}; use one of {list(AXES)}")
    if axis not in meta:
        raise ValueError(f"this dataset has no {AXES[axis]}")
    values = meta.set_index("item_id")[axis]
    if axis == "type":
        values = values.fillna("none")
    if axis == "cue":
        values = values[values.fillna("").ne("")]
        top = values.value_counts().sort_index().sort_values(ascending=False, kind="stable").index[:top_k]
        values = values[values.isin(top)]
    return values.dropna().astype(str)


def column_order(axis: str, groups: pd.Series) -> list[str]:
    """Natural order of the columns: taxonomy order, edit type, frequency, or name."""
    present = list(pd.unique(groups))
    if axis == "type":
        rank = {k: i for i, k in enumerate(TAXONOMY.keys)}
        return sorted(present, key=lambda k: (rank.get(k, len(rank)), k))
    if axis == "cue":
        counts = groups.value_counts()
        return sorted(present, key=lambda k: (-counts[k], k))
    return sorted(present)


# ---------------------------------------------------------------- cells
def cell_table(
    outcomes: pd.DataFrame,
    groups: pd.Series,
    min_n: int = MIN_N,
    reference: str | None = None,
    seed: int = metrics.SEED,
) -> pd.DataFrame:
    """Model x column: n, value (accuracy, or the difference to ``reference`` on shared items) and
    its seeded bootstrap 95% CI; ``enough`` is n >= min_n."""
    joined = outcomes.merge(groups.rename("column"), left_on="item_id", right_index=True)
    ref = None
    if reference is not None:
        ref = outcomes[outcomes["model"] == reference].set_index("item_id")["correct"]
        if ref.empty:
            raise ValueError(f"no outcomes of the reference model {reference!r}")
    rows = []
    resamples = metrics.Resamples(seed=seed)  # every model has a column's n items: one draw per n
    for (model, column), part in joined.groupby(["model", "column"], sort=False):
        values = part["correct"].to_numpy(dtype=np.float64)
        if ref is not None:
            shared = part[part["item_id"].isin(ref.index)]
            theirs = ref.loc[shared["item_id"]].to_numpy(dtype=np.float64)
            values = shared["correct"].to_numpy(dtype=np.float64) - theirs
        n = len(values)
        lo, hi = metrics.bootstrap_ci(values, seed=seed, resamples=resamples)
        rows.append((model, column, n, float(values.mean()) if n else float("nan"), lo, hi, n >= min_n))
    return pd.DataFrame(rows, columns=list(CELL_COLUMNS))


@dataclass
class PerTypeCells:
    """One heatmap: ``cells`` (CELL_COLUMNS: model x column, n, value = accuracy or the difference
    to ``reference`` on shared items, 95% CI, enough = n >= min_n), its columns in order with their
    labels (taxonomy titles on the type axis), and ``groups`` (item_id -> column)."""

    axis: str
    axis_label: str
    groups: pd.Series
    cells: pd.DataFrame
    columns: list[str]
    column_labels: dict[str, str]
    min_n: int
    reference: str | None


def per_type_cells(
    outcomes: pd.DataFrame,
    meta: pd.DataFrame,
    kind: DatasetKind,
    axis: str | None = None,
    top_k: int = 10,
    min_n: int = MIN_N,
    reference: str | None = None,
    column_sort: str = "natural",
) -> PerTypeCells:
    """The heatmap of the per-type page and the report: ``axis`` defaults to the dataset's first
    available one."""
    axis = axis or available_axes(kind, meta)[0]
    groups = item_groups(axis, meta, top_k)
    cells = cell_table(outcomes, groups, min_n, reference)
    columns = sort_columns(cells, column_order(axis, groups), column_sort)
    labels = {k: TAXONOMY.label(k) for k in columns} if axis == "type" else {}
    return PerTypeCells(axis, AXES[axis], groups, cells, columns, labels, min_n, reference)


N_RATIO = 0.25  # a model's n in a column under this share of another's is "very different n"


def n_imbalance(cells: pd.DataFrame, models: list[str] | None = None, ratio: float = N_RATIO) -> pd.DataFrame:
    """Cells whose n is under ``ratio`` times the largest n of another shown model in the same
    column (a 100-item run beside full runs): model, column, n, max_n, max_model."""
    part = cells if models is None else cells[cells["model"].isin(models)]
    rows = []
    for column, col in part.groupby("column", sort=False):
        n, model = col["n"].to_numpy(), col["model"].to_numpy()
        top = int(np.argmax(n))
        rows += [(m, column, int(k), int(n[top]), model[top]) for m, k in zip(model, n) if k < ratio * n[top]]
    return pd.DataFrame(rows, columns=["model", "column", "n", "max_n", "max_model"])


def n_warning(
    cells: pd.DataFrame,
    models: list[str] | None = None,
    labels: dict[str, str] | None = None,
    ratio: float = N_RATIO,
    columns: list[str] | None = None,
) -> str | None:
    """One sentence naming the models scored on far fewer items per column than others, with their
    n beside the others' (n_imbalance), or None when the shown models' n are comparable."""
    few = n_imbalance(cells, models, ratio)
    if few.empty:
        return None
    order = list(dict.fromkeys(models or few["model"]))
    cols = list(columns or labels or dict.fromkeys(cells["column"]))
    parts = []
    for model in sorted(set(few["model"]), key=lambda m: order.index(m) if m in order else len(order)):
        mine = few[few["model"] == model]
        rank = mine["column"].map(lambda c: cols.index(c) if c in cols else len(cols))
        mine = mine.iloc[np.argsort(rank.to_numpy(), kind="stable")]
        name = [(labels or {}).get(c, c) for c in mine["column"]]
        mine_n = ", ".join(f"{n:,}" + (f" ({c})" if c else "") for n, c in zip(mine["n"], name))  # "" : no facet
        theirs = ", ".join(f"{n:,}" for n in mine["max_n"])
        parts.append(f"{model} is scored on n = {mine_n} items, where another model has {theirs}")
    return (
        f"Very different n: {'; '.join(parts)}. Under {ratio:.0%} of the items, a cell's CI is far "
        "wider: compare it with care."
    )


def model_order(outcomes: pd.DataFrame, by: str = "accuracy") -> list[str]:
    """Rows: best overall accuracy first, or by name."""
    if by == "name":
        return sorted(outcomes["model"].unique())
    acc = outcomes.groupby("model")["correct"].mean()
    return sorted(acc.index, key=lambda m: (-acc[m], m))


def sort_columns(cells: pd.DataFrame, natural: list[str], by: str = "natural") -> list[str]:
    """Columns: natural order, most items first, or hardest (lowest mean value over models) first."""
    if by == "natural":
        return [c for c in natural if c in set(cells["column"])]
    if by == "n":
        n = cells.groupby("column")["n"].max()
        return sorted(n.index, key=lambda c: (-n[c], natural.index(c) if c in natural else 0))
    if by == "hardest":
        mean = cells.groupby("column")["value"].mean()
        return sorted(mean.index, key=lambda c: (mean[c], c))
    raise ValueError(f"unknown column order {by!r}; use natural, n or hardest")


def cell_items(
    outcomes: pd.DataFrame,
    groups: pd.Series | None,
    meta: pd.DataFrame,
    model: str,
    column: str | None = None,
    category: str | None = None,
) -> pd.DataFrame:
    """The items behind one heatmap cell or one error-bar segment, with cue, margins and verdict."""
    part = outcomes[outcomes["model"] == model]
    if column is not None:
        part = part[part["item_id"].isin(groups.index[groups == column])]
    if category is not None:
        part = part[part["category"] == category]
    keep = [c for c in ("item_id", "type", "cue", "edit_type", "perturbation", "label_source") if c in meta]
    out = part.merge(meta[keep], on="item_id", how="left")
    margins = ["margin1"] + (["margin2"] if out["margin2"].notna().any() else [])
    cols = ["item_id"] + [c for c in keep if c != "item_id"] + ["category", "correct"] + margins
    return out[cols].rename(columns={"category": "verdict"}).reset_index(drop=True)


# ---------------------------------------------------------------- error preference
def preference_table(outcomes: pd.DataFrame, kind: DatasetKind, facet: pd.Series | None = None) -> pd.DataFrame:
    """Model (x facet) x category: count, share of the model's items, n. Every category appears."""
    data = outcomes.copy()
    data["facet"] = "all" if facet is None else data["item_id"].map(facet)
    data = data.dropna(subset=["facet"])
    rows = []
    for (model, fac), part in data.groupby(["model", "facet"], sort=True):
        n = len(part)
        counts = part["category"].value_counts()
        for cat in kind.categories:
            rows.append((model, fac, cat, int(counts.get(cat, 0)), counts.get(cat, 0) / n, n))
    return pd.DataFrame(rows, columns=["model", "facet", "category", "count", "share", "n"])


def ordered_preference(
    outcomes: pd.DataFrame, kind: DatasetKind, order: list[str], facet: pd.Series | None = None
) -> pd.DataFrame:
    """preference_table with its models in ``order`` (the page: best first; the report: the model,
    then its comparisons)."""
    prefs = preference_table(outcomes, kind, facet)
    return prefs.set_index("model").loc[[m for m in order if m in set(prefs["model"])]].reset_index()


MARGIN_COLUMNS = ("model", "margin", "n", "mean", "q25", "median", "q75", "share_negative", "ties")


def margin_table(outcomes: pd.DataFrame, kind: DatasetKind) -> pd.DataFrame:
    """Per model and margin (the kind's margin_labels): n of finite margins, mean, quartiles,
    the share below 0 (the wrong text ranked first) and exact ties; MARGIN_COLUMNS."""
    rows = []
    for model, part in outcomes.groupby("model", sort=False):
        for col, label in zip(("margin1", "margin2"), kind.margin_labels):
            if label is None:
                continue
            v = part[col].to_numpy(dtype=np.float64)
            v = v[np.isfinite(v)]
            if not len(v):
                continue
            q1, med, q3 = np.percentile(v, [25, 50, 75])
            share = float((v < 0).mean())
            rows.append((model, label, len(v), v.mean(), q1, med, q3, share, int((v == 0).sum())))
    return pd.DataFrame(rows, columns=list(MARGIN_COLUMNS))


def preference_n_warning(prefs: pd.DataFrame, models: list[str] | None = None) -> str | None:
    """n_warning over the bars of preference_table (one n per model and facet): which models are
    scored on far fewer items than others."""
    cells = prefs.drop_duplicates(["model", "facet"]).rename(columns={"facet": "column"})
    return n_warning(cells[["model", "column", "n"]], models, {"all": ""})  # unfaceted bars: just n


def preference_n_note(prefs: pd.DataFrame, faceted: bool = False) -> str:
    """What a preference figure's title may say of n: one n when every bar has it, else where
    each bar's own n is shown (under the model's name, or on hover when faceted)."""
    n = prefs.drop_duplicates(["model", "facet"])["n"]
    if n.nunique() == 1:
        return f"n = {int(n.iloc[0]):,} items each"
    return "n per bar on hover" if faceted else "each model's n under its name"


def filter_items(meta: pd.DataFrame, types: list[str] | None = None, edit_types: list[str] | None = None) -> set[str]:
    """Item ids whose type and edit type are among the chosen ones (empty choice = all)."""
    keep = pd.Series(True, index=meta.index)
    if types and "type" in meta:
        keep &= meta["type"].isin(types)
    if edit_types and "edit_type" in meta:
        keep &= meta["edit_type"].isin(edit_types)
    return set(meta.loc[keep, "item_id"])


# ---------------------------------------------------------------- type distribution vs Petcu et al.
PETCU_CATEGORY_LABELS = {
    "sentential": "sentential",
    "affixal": "affixal",
    "implicit": "implicit",
    "exclusionary": "exclusion",
    "other": "no negation",
    "remaining_types": "other types",
}


def petcu_category(type_key: str, categories: set[str]) -> str:
    """Our type -> the coarser category Petcu et al. report for a dataset (Sec. 6.2, 6.3)."""
    if type_key == "none":
        return "other"
    if type_key in categories:
        return type_key
    if type_key in TAXONOMY and TAXONOMY.get(type_key).group == "exclusion" and "exclusionary" in categories:
        return "exclusionary"
    return "remaining_types"


def distribution_vs_petcu(dist: pd.DataFrame, reference: pd.DataFrame, dataset: str, source_label: str) -> pd.DataFrame:
    """Shares per Petcu category: this dataset's labels beside the paper's reported distribution.

    ``dist`` is taxonomy.type_distribution; ``reference`` is load_reference('petcu_distributions').
    Returns category, label, source, count, share, n (an empty frame when the paper has no row)."""
    ref = reference[(reference["dataset"] == dataset) & (reference["metric"] == "count")]
    ref = ref[ref["negation_type"] != "total"]
    if ref.empty:
        return pd.DataFrame(columns=["category", "label", "source", "count", "share", "n"])
    cats = list(ref["negation_type"])
    total = float(
        reference[
            (reference["dataset"] == dataset)
            & (reference["metric"] == "count")
            & (reference["negation_type"] == "total")
        ]["value"].iloc[0]
    )
    split = ref["split"].iloc[0]
    paper = f"Petcu et al. ({dataset} {split}, n={total:,.0f}, GPT-4o-mini)"
    mine = dist.assign(category=[petcu_category(t, set(cats)) for t in dist["type"]])
    mine = mine.groupby("category", sort=False)["count"].sum()
    n = int(dist["count"].sum())
    label = PETCU_CATEGORY_LABELS.get
    rows = [(c, label(c, c), source_label, int(mine.get(c, 0)), mine.get(c, 0) / n if n else np.nan, n) for c in cats]
    rows += [(c, label(c, c), paper, int(v), v / total, int(total)) for c, v in zip(cats, ref["value"])]
    return pd.DataFrame(rows, columns=["category", "label", "source", "count", "share", "n"])
