"""Published reference numbers, transcribed from the papers (data/reference/*.csv).

Every file is long format with one shared schema (``REFERENCE_COLUMNS``): one row per
(model, dataset, split, metric[, perturbation, negation type, epoch]) value, with the value
exactly as printed (``unit`` says percent, ratio, fraction, count or correlation_x100) and
its ``source`` table. Rows of different (source, metric) must never be mixed in a chart or a
ranking: the protocols differ (e.g. ExcluIR Table 6 ranks a 90k corpus, HedgeMPNet scores a pair).

``load_reference()`` adds three columns to the files' own: ``table`` (the file stem),
``value_text`` (the value as written in the file) and ``value`` as a float.
See data/reference/README.md for each table's provenance and its doubtful cells.
"""

from __future__ import annotations

import functools
import math

import pandas as pd

from negviz.core.paths import DATA_DIR

REFERENCE_DIR = DATA_DIR / "reference"
REFERENCE_COLUMNS = (
    "source",
    "paper",
    "model",
    "hub_id",
    "family",
    "category",
    "training_data",
    "params_m",
    "dataset",
    "split",
    "metric",
    "value",
    "unit",
    "perturbation",
    "negation_type",
    "epoch",
    "notes",
)
# Columns that must be filled in on every row.
REQUIRED_VALUES = ("source", "paper", "model", "dataset", "metric", "value", "unit")
UNITS = ("percent", "ratio", "fraction", "count", "correlation_x100")


def reference_tables() -> list[str]:
    """The stems of the shipped reference tables, sorted (e.g. ``nevir_table2``)."""
    return sorted(p.stem for p in REFERENCE_DIR.glob("*.csv"))


def _read_table(stem: str) -> pd.DataFrame:
    path = REFERENCE_DIR / f"{stem}.csv"
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in REFERENCE_COLUMNS if c not in df.columns]
    extra = [c for c in df.columns if c not in REFERENCE_COLUMNS]
    if missing or extra:
        raise ValueError(
            f"reference table {path}: columns differ from the shared schema "
            f"(missing {missing}, unexpected {extra}); expected {list(REFERENCE_COLUMNS)}"
        )
    for col in REQUIRED_VALUES:
        empty = df.index[df[col].str.strip() == ""]
        if len(empty):
            raise ValueError(
                f"reference table {path}: column {col!r} is empty on data row(s) {[i + 2 for i in empty[:5]]}"
            )
    bad_units = sorted(set(df["unit"]) - set(UNITS))
    if bad_units:
        raise ValueError(f"reference table {path}: unknown unit(s) {bad_units}; known: {list(UNITS)}")
    values = pd.to_numeric(df["value"], errors="coerce")
    bad = df.index[~values.apply(math.isfinite)]  # NaN (unparsable) and inf both fail
    if len(bad):
        i = bad[0]
        raise ValueError(f"reference table {path}: value {df.at[i, 'value']!r} on line {i + 2} is not a number")
    for col in ("params_m", "epoch"):
        nums = pd.to_numeric(df[col].replace("", None), errors="coerce")
        if (nums.isna() & (df[col] != "")).any():
            i = df.index[nums.isna() & (df[col] != "")][0]
            raise ValueError(f"reference table {path}: {col} {df.at[i, col]!r} on line {i + 2} is not a number")
    out = df.copy()
    out.insert(0, "table", stem)
    out["value_text"] = df["value"]
    out["value"] = values.astype(float)
    out["params_m"] = pd.to_numeric(df["params_m"].replace("", None), errors="coerce")
    out["epoch"] = pd.to_numeric(df["epoch"].replace("", None), errors="coerce").astype("Int64")
    return out


@functools.lru_cache(maxsize=None)
def _load(table: str | None) -> pd.DataFrame:
    if table is not None:
        if table not in reference_tables():
            raise ValueError(
                f"no reference table {table!r} in {REFERENCE_DIR}; tables: {', '.join(reference_tables())}"
            )
        return _read_table(table)
    frames = [_read_table(stem) for stem in reference_tables()]
    if not frames:
        return pd.DataFrame(columns=["table", *REFERENCE_COLUMNS, "value_text"])
    return pd.concat(frames, ignore_index=True)


def load_reference(table: str | None = None) -> pd.DataFrame:
    """All reference tables concatenated (``table=None``) or one table by file stem.

    Returns a fresh copy (the parsed files are cached). Raises ValueError naming the file
    when a table does not follow the shared schema.
    """
    return _load(table).copy()


def for_model(name: str) -> pd.DataFrame:
    """Published rows of one model (see ``model_rows``), from the shipped reference tables."""
    return model_rows(load_reference(), name).drop(columns="relation")


def model_rows(reference: pd.DataFrame, name: str) -> pd.DataFrame:
    """Published rows of one model: a catalog name or a hub id, with a ``relation`` column.

    Matched on the catalog's ``hub_id`` ("same weights"), its ``published_as`` ("other format":
    the same weights exported differently), its ``reproduces`` ("reproduction": negviz re-trained
    it with the paper's recipe) and, for a catalog name, its family (one hub id may back several
    families: MiniLM as bi-encoder and as MaxSim). Fileless families such as TF-IDF match on
    ``family`` among rows without a hub id ("same method").
    """
    from negviz.evaluation.catalog import catalog_row

    row = catalog_row(name)
    if row:
        relation_of = {
            row[col].lower(): rel
            for col, rel in (
                ("reproduces", "reproduction"),
                ("published_as", "other format"),
                ("hub_id", "same weights"),
            )
            if row.get(col)
        }
    else:
        relation_of = {name.lower(): "same weights"}
    if relation_of:
        relation = reference["hub_id"].str.lower().map(relation_of)
        hit = relation.notna()
        if row:
            hit &= reference["family"].isin([row["family"], ""])
    elif row:
        hit = (reference["hub_id"] == "") & (reference["family"] == row["family"])
        relation = pd.Series("same method", index=reference.index)
    else:
        hit = pd.Series(False, index=reference.index)
        relation = pd.Series(None, index=reference.index, dtype=object)
    return reference[hit].assign(relation=relation[hit]).reset_index(drop=True)
