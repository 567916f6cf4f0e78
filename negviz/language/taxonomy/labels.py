"""One negation type per item of a dataset, each with its label source and evidence."""

from __future__ import annotations

import re

import pandas as pd

from negviz.core.kinds import DatasetKind
from negviz.language.taxonomy.cues import Detection, detect, detect_one, explain_cue
from negviz.language.taxonomy.types import NONE, TAXONOMY, Taxonomy

GOLD_CUE = "gold_cue"  # NevIR: CondaQA's original cue word, typed by type_of_cue
DETECTED = "detected"  # the cue found in the words that differ between the two texts
DATASET_LABEL = "dataset_label"  # a column of a user's file
ANNOTATOR = "annotator"  # the latest annotations (labels["negation_type"])
ADJUDICATED = "adjudicated"  # a reviewer's decision on a disagreement (negviz.projects.review)
SOURCES = (GOLD_CUE, DETECTED, DATASET_LABEL, ANNOTATOR, ADJUDICATED)
# Each source as a person reads it (the inspector's type line, the heatmap's caption)
SOURCE_WORDS = {
    GOLD_CUE: "the dataset's cue word",
    DETECTED: "cue detected in the texts",
    DATASET_LABEL: "the dataset's own label",
    ANNOTATOR: "an annotator's label",
    ADJUDICATED: "a reviewer's decision",
}


def source_words(source: str) -> str:
    """A label source in words (an unknown one as it is)."""
    return SOURCE_WORDS.get(source, source)


LABEL_COLUMNS = ("item_id", "type", "cue", "label_source", "evidence", "where")
ANNOTATION_KEY = "negation_type"
CUE_COLUMN = "cue"
LABEL_COLUMN = "negation_type"

# Which two texts ``detect`` compares is the kind's ``detect_texts``, in order of preference; a kind
# with ``detect_alone`` (ExcluIR) has its cue in one text.


def label_pairs(
    dataset,
    source: str = "auto",
    *,
    annotations: pd.DataFrame | None = None,
    store=None,
    label_column: str = LABEL_COLUMN,
    adjudicated: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Type every item: DataFrame[item_id, type, cue, label_source, evidence, where].

    ``dataset`` is a Dataset, a DatasetSpec or a name. ``source="auto"`` takes the gold cue if
    the frame has a ``cue`` column, else ``label_column`` if present, else detection; then the
    latest annotator label (from ``annotations``, or ``store``) replaces it where one exists, and
    an adjudicated label (from ``adjudicated``, or ``store``) replaces that: the reviewer's
    decision is the gold label. ``source="annotator"`` returns only the annotated items,
    ``source="adjudicated"`` only the adjudicated ones."""
    from negviz.datasets import Dataset, load

    ds = dataset if isinstance(dataset, Dataset) else load(dataset)
    frame = ds.frame.reset_index(drop=True)
    if source not in ("auto", *SOURCES):
        raise ValueError(f"unknown label source {source!r}; use auto or one of {SOURCES}")
    if store is not None and annotations is None and source in ("auto", ANNOTATOR):
        annotations = store.annotations(dataset=ds.spec.name)
    if store is not None and adjudicated is None and source in ("auto", ADJUDICATED):
        from negviz.store.projects import newest_decisions

        adjudicated = newest_decisions(store.engine, ds.spec.name)
    if source == ANNOTATOR:
        return _from_annotations(annotations)
    if source == ADJUDICATED:
        return _from_adjudicated(adjudicated)
    base = source
    if source == "auto":
        base = GOLD_CUE if CUE_COLUMN in frame else DATASET_LABEL if label_column in frame else DETECTED
    if base == GOLD_CUE:
        out = _from_gold_cues(ds.kind, frame)
    elif base == DATASET_LABEL:
        out = _from_column(ds.kind, frame, label_column)
    else:
        out = shipped_detection(ds.spec.name, ds.kind, frame)
        out = _detected(ds.kind, frame) if out is None else out
    if source == "auto" and annotations is not None and len(annotations):
        ann = _from_annotations(annotations).set_index("item_id")
        out = out.set_index("item_id")
        hit = out.index.intersection(ann.index)
        out.loc[hit, list(ann.columns)] = ann.loc[hit, list(ann.columns)]
        out = out.reset_index()
    if source == "auto" and adjudicated is not None and len(adjudicated):
        gold = _from_adjudicated(adjudicated).set_index("item_id")
        out = out.set_index("item_id")
        hit = out.index.intersection(gold.index)
        out.loc[hit, list(gold.columns)] = gold.loc[hit, list(gold.columns)]
        out = out.reset_index()
    return out[list(LABEL_COLUMNS)]


def _ids(kind: DatasetKind, frame: pd.DataFrame) -> list[str]:
    return kind.item_ids(frame).tolist()


def _from_gold_cues(kind: DatasetKind, frame: pd.DataFrame) -> pd.DataFrame:
    if CUE_COLUMN not in frame:
        raise ValueError("this dataset has no 'cue' column; use source='detected'")
    text_cols = [c for c in ("q1", "d1", "q2", "d2") if c in frame]
    rows = []
    for item_id, cue, texts in zip(_ids(kind, frame), frame[CUE_COLUMN], frame[text_cols].itertuples(index=False)):
        kind_, why = explain_cue(str(cue))
        pattern = re.compile(rf"\b{re.escape(str(cue))}\b", re.IGNORECASE)
        where = "+".join(c for c, t in zip(text_cols, texts) if pattern.search(str(t)))
        rows.append((item_id, kind_, str(cue).lower(), GOLD_CUE, f"CondaQA cue {str(cue)!r} -> {kind_}: {why}", where))
    return pd.DataFrame(rows, columns=list(LABEL_COLUMNS))


def _from_column(kind: DatasetKind, frame: pd.DataFrame, column: str) -> pd.DataFrame:
    labels = frame[column].map(lambda x: NONE if pd.isna(x) or str(x).strip() == "" else str(x).strip())
    return pd.DataFrame(
        {
            "item_id": _ids(kind, frame),
            "type": labels,
            "cue": "",
            "label_source": DATASET_LABEL,
            "evidence": f"column {column!r} of the dataset",
            "where": "",
        }
    )


def _detected(kind: DatasetKind, frame: pd.DataFrame) -> pd.DataFrame:
    rows = []
    alone = kind.detect_alone
    for item_id, (_, row) in zip(_ids(kind, frame), frame.iterrows()):
        if alone:
            d = detect_one(row[alone], alone)
        else:
            d = Detection(NONE, "", "", "this kind of dataset names no texts to compare")
            for a, b in kind.detect_texts:
                d = detect(str(row[a]), str(row[b]), (a, b))
                if d.type != NONE:
                    break
        rows.append((item_id, d.type, d.cue, DETECTED, d.evidence, d.where))
    return pd.DataFrame(rows, columns=list(LABEL_COLUMNS))


# Detection over DEMETR's 35,000 items takes 13-20 s, over CANNOT's 25,948 pairs about 10 s; the
# results ship (made by scripts/build_detected_types.py) and are used for every item whose texts
# are unchanged.
SHIPPED_DETECTION = {"demetr": "demetr_detected.parquet", "cannot": "cannot_detected.parquet"}


def detection_texts(kind: DatasetKind, frame: pd.DataFrame) -> list[str]:
    """Per item, a digest of the texts detection compares (so a shipped result is used only for
    the very texts it was computed from)."""
    import hashlib

    cols = list(dict.fromkeys(c for pair in kind.detect_texts for c in pair))
    joined = [""] * len(frame)
    for i, col in enumerate(cols):  # column by column: a row-wise join over DEMETR's 35,000 rows took seconds
        texts = frame[col].astype(str).tolist()
        joined = texts if i == 0 else [f"{a}\x1f{b}" for a, b in zip(joined, texts)]
    return [hashlib.sha1(t.encode()).hexdigest()[:16] for t in joined]


def shipped_detection(name: str, kind: DatasetKind, frame: pd.DataFrame) -> pd.DataFrame | None:
    """The shipped detection of a shipped dataset's items (any subset, in ``frame``'s order), or
    None when it has none or an item's texts differ from those it was computed from."""
    from negviz.core.paths import DATA_DIR

    path = DATA_DIR / "taxonomy" / SHIPPED_DETECTION.get(name, "-")
    if name not in SHIPPED_DETECTION or not path.is_file():
        return None
    stored = pd.read_parquet(path).set_index("item_id")
    ids = _ids(kind, frame)
    if not stored.index.is_unique or not set(ids) <= set(stored.index):
        return None
    part = stored.loc[ids]
    if list(part["text_digest"]) != detection_texts(kind, frame):
        return None
    return part.reset_index()[list(LABEL_COLUMNS)]


def _from_annotations(annotations: pd.DataFrame | None) -> pd.DataFrame:
    """Latest label per item; with several annotators, the most common label (then the newest)."""
    if annotations is None or annotations.empty:
        return pd.DataFrame(columns=list(LABEL_COLUMNS))
    ann = annotations.copy()
    ann["type"] = ann["labels"].map(lambda d: (d or {}).get(ANNOTATION_KEY) if isinstance(d, dict) else None)
    ann = ann.dropna(subset=["type"]).sort_values("created_at")
    rows = []
    for item_id, part in ann.groupby("item_id", sort=True):
        counts = part["type"].value_counts()
        best = counts[counts == counts.max()].index
        chosen = part[part["type"].isin(best)].iloc[-1]
        who = ", ".join(sorted(set(part["annotator"])))
        rows.append(
            (
                str(item_id),
                chosen["type"],
                str((chosen["labels"] or {}).get("cue", "")),
                ANNOTATOR,
                f"{int(counts.max())} of {len(part)} annotator(s) ({who})",
                "",
            )
        )
    return pd.DataFrame(rows, columns=list(LABEL_COLUMNS))


def _from_adjudicated(decisions: pd.DataFrame | None) -> pd.DataFrame:
    """The newest reviewer's decision per item, from the store's rows (negviz.store.projects
    .newest_decisions: the type is in each row's labels)."""
    if decisions is None or decisions.empty:
        return pd.DataFrame(columns=list(LABEL_COLUMNS))
    rows = [
        (
            str(r.item_id),
            (r.labels or {}).get(ANNOTATION_KEY),
            "",
            ADJUDICATED,
            f"adjudicated by {r.reviewer} ({r.project}, version {int(r.version)})",
            "",
        )
        for r in decisions.itertuples()
        if (r.labels or {}).get(ANNOTATION_KEY)
    ]
    return pd.DataFrame(rows, columns=list(LABEL_COLUMNS))


def taxonomy_for(labels: pd.DataFrame) -> Taxonomy:
    """The Petcu taxonomy when every label is one of its types, else one built from the labels."""
    if set(labels["type"]) <= set(TAXONOMY.keys):
        return TAXONOMY
    return Taxonomy.from_labels(labels["type"], "dataset labels")


def type_distribution(labels: pd.DataFrame, taxonomy: Taxonomy | None = None) -> pd.DataFrame:
    """Counts and shares per type, in taxonomy order (types with no item included, count 0)."""
    taxonomy = taxonomy or taxonomy_for(labels)
    n = len(labels)
    counts = labels["type"].value_counts()
    sources = labels.groupby("type")["label_source"].agg(lambda s: ", ".join(sorted(set(s))))
    keys = taxonomy.keys + [k for k in counts.index if k not in taxonomy.keys]
    return pd.DataFrame(
        {
            "type": keys,
            "label": [taxonomy.label(k) for k in keys],
            "count": [int(counts.get(k, 0)) for k in keys],
            "share": [counts.get(k, 0) / n if n else float("nan") for k in keys],
            "label_source": [sources.get(k, "") for k in keys],
            "n": n,
        }
    )


def distribution_summary(labels: pd.DataFrame, dataset: str = "", taxonomy: Taxonomy | None = None) -> dict:
    """What `negviz taxonomy --json` prints: n, how many items got a type, label sources, types."""
    dist = type_distribution(labels, taxonomy)
    return {
        "dataset": dataset,
        "n": int(len(labels)),
        "typed": int((labels["type"] != NONE).sum()),
        "no_negation_found": int((labels["type"] == NONE).sum()),
        "label_sources": {k: int(v) for k, v in labels["label_source"].value_counts().items()},
        "types": dist.drop(columns=["n"]).to_dict(orient="records"),
    }
