"""Pair annotations: validated labels saved to the store, history, queues, export and import.

    label = Label(negation_type="affixal", validity="valid", query_ambiguous=False, note="")
    save(store, load("nevir"), "1230-2", "ana", label)      # -> version 1, 2, ... per annotator
    history(store, "nevir", "1230-2")                        # every version, newest first

The store keeps every version (append-only); these functions add what a person needs: clear
errors before anything is written, flat label columns, a seeded sample every annotator shares,
and CSV / JSONL files that carry the pair text and where the labels came from. An imported
file is parsed as text (csv / json), never executed or unpickled.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import PurePath

import numpy as np
import pandas as pd

from negviz import __version__
from negviz.core.errors import NegvizError
from negviz.datasets import Dataset
from negviz.language.taxonomy.types import TYPES
from negviz.language.text.csv_cells import csv_bytes, unneutralise_cell
from negviz.store import projects as project_rows

VALIDITY = ("valid", "invalid", "unsure")
OTHER = "other"
MAX_NOTE = 5_000
MAX_ANNOTATOR = 80
# Names travel into files, URLs and markdown captions: no markup characters in them.
NAME_RE = re.compile(r"[\w .@'’-]+")
MAX_IMPORT_BYTES = 20 * 1024 * 1024
LABEL_COLUMNS = ("negation_type", "validity", "query_ambiguous")
EXPORT_KEY = ("dataset", "item_id", "annotator", "version", "created_at", *LABEL_COLUMNS, "note")
FORMATS = ("csv", "jsonl")
IMPORTED = "imported_from"
TYPES_KEY = "negation_types"  # labels key of every type of a multi-type label, the first included  # labels key holding an imported row's original version and time


class AnnotationError(NegvizError, ValueError):
    """A label that cannot be saved or a file that cannot be imported; nothing was written."""


@dataclass(frozen=True)
class Label:
    """What an annotator says about one pair (stored as labels + note)."""

    negation_type: str
    validity: str | None = None  # None: not chosen yet, and refused by check_label (no form pre-selects one)
    query_ambiguous: bool = False
    note: str = ""
    # Further negation types of a pair with more than one cue (a project with several type tags
    # per pair); negation_type stays the first, so agreement and the heatmap read one type.
    more_types: tuple[str, ...] = ()

    def labels(self) -> dict:
        out = {
            "negation_type": self.negation_type,
            "validity": self.validity,
            "query_ambiguous": bool(self.query_ambiguous),
        }
        if self.more_types:
            out[TYPES_KEY] = [self.negation_type, *self.more_types]
        return out

    @classmethod
    def from_labels(cls, labels: dict | None, note: str | None = "") -> "Label":
        """The Label a stored labels dict holds (fields another tool left out take the form's defaults)."""
        labels = labels or {}
        validity = labels.get("validity") if labels.get("validity") in VALIDITY else VALIDITY[0]
        kinds = [t for t in (labels.get(TYPES_KEY) or []) if t != labels.get("negation_type")]
        return cls(
            labels.get("negation_type"),
            validity,
            bool(labels.get("query_ambiguous")),
            note or "",
            tuple(dict.fromkeys(kinds)),
        )


def type_options() -> list[str]:
    """Negation types an annotator may choose: the taxonomy's list, then "other"."""
    keys = [getattr(t, "key", t) for t in TYPES]
    return [*keys, OTHER] if OTHER not in keys else keys


# ---------------------------------------------------------------- validation and saving
def clean_annotator(name: str | None) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise AnnotationError("Enter your annotator name first: every label is saved with who gave it.")
    if len(name) > MAX_ANNOTATOR:
        raise AnnotationError(f"The annotator name is {len(name)} characters long; at most {MAX_ANNOTATOR}.")
    if not NAME_RE.fullmatch(name):
        raise AnnotationError("Use letters, digits, spaces and . _ - ' @ in the annotator name.")
    return name


def check_label(label: Label, types: list[str] | None = None) -> None:
    types = type_options() if types is None else types
    if not label.negation_type:
        raise AnnotationError('Choose a negation type (or "other"); nothing was saved.')
    if label.negation_type not in types:
        raise AnnotationError(f"Unknown negation type {label.negation_type!r}; choose one of {', '.join(types)}.")
    if label.validity is None:
        raise AnnotationError(f"Choose the pair's validity ({', '.join(VALIDITY)}); nothing was saved.")
    if label.validity not in VALIDITY:
        raise AnnotationError(f"Validity must be one of {', '.join(VALIDITY)}, not {label.validity!r}.")
    if not isinstance(label.query_ambiguous, (bool, np.bool_)):
        raise AnnotationError(f"'query ambiguous' must be true or false, not {label.query_ambiguous!r}.")
    for extra in label.more_types:
        if extra not in types:
            raise AnnotationError(f"Unknown negation type {extra!r}; choose from {', '.join(types)}.")
    if label.negation_type in label.more_types or len(set(label.more_types)) < len(label.more_types):
        raise AnnotationError("Each negation type of a pair counts once; remove the repeated one.")
    if len(label.note or "") > MAX_NOTE:
        raise AnnotationError(
            f"The note is {len(label.note):,} characters long; at most {MAX_NOTE:,}. Nothing was saved."
        )


def check_item(ds: Dataset, item_id: str) -> None:
    if str(item_id) not in _ids(ds):
        raise AnnotationError(f"{ds.spec.name} has no pair {item_id!r}; nothing was saved.")


def _ids(ds: Dataset) -> set[str]:
    return set(ds.kind.item_ids(ds.frame))


def save(store, ds: Dataset, item_id: str, annotator: str, label: Label, types: list[str] | None = None) -> int:
    """Validate, then append one label for a pair; returns its version for this annotator.

    Saving the label the annotator already has writes nothing and returns its version, so
    the history holds changes only."""
    annotator = clean_annotator(annotator)
    check_label(label, types)
    check_item(ds, item_id)
    label = Label(
        label.negation_type, label.validity, bool(label.query_ambiguous), label.note or "", tuple(label.more_types)
    )
    now, version = current_label(store, ds.spec.name, str(item_id), annotator)
    if now == label:
        return version
    return store.add_annotation(ds.spec.name, str(item_id), annotator, label.labels(), label.note)


# ---------------------------------------------------------------- reading
def flatten(frame: pd.DataFrame) -> pd.DataFrame:
    """The store's annotation frame with the labels dict spread into LABEL_COLUMNS."""
    out = frame.drop(columns=["labels"]).copy()
    for name in LABEL_COLUMNS:
        out[name] = [(lab or {}).get(name) for lab in frame["labels"]]
    return out


def latest(store, dataset: str, annotator: str | None = None) -> pd.DataFrame:
    """The newest label of every (pair, annotator), flat."""
    return flatten(store.annotations(dataset, annotator=annotator))


def current_label(store, dataset: str, item_id: str, annotator: str | None) -> tuple[Label | None, int]:
    """An annotator's newest label of one pair and its version (to prefill a form), or (None, 0)."""
    if not annotator:
        return None, 0
    rows = store.annotations(dataset, item_id=str(item_id), annotator=annotator)
    if rows.empty:
        return None, 0
    r = rows.iloc[0]
    return Label.from_labels(r["labels"], r["note"]), int(r["version"])


def adjudicated(store, dataset: str) -> pd.DataFrame:
    """The reviewers' newest decision per pair of a dataset, across its projects, flat: the gold
    label where annotators disagreed."""
    return flatten(project_rows.newest_decisions(store.engine, dataset))


def history(store, dataset: str, item_id: str) -> pd.DataFrame:
    """Every version of every annotator's label of one pair, newest first."""
    frame = flatten(store.annotations(dataset, item_id=str(item_id), latest=False))
    cols = ["created_at", "annotator", "version", *LABEL_COLUMNS, "note"]
    return frame.sort_values(["created_at", "version"], ascending=False)[cols].reset_index(drop=True)


# ---------------------------------------------------------------- queue
def sample_ids(ids: list[str], size: int | None, seed: int = 0) -> list[str]:
    """A seeded random sample of ids, kept in the order given (so the list's sort applies).

    Which ids are drawn depends only on the set of ids, the size and the seed, not on their
    order: every annotator with the same list gets the same pairs. None or a size >= len(ids)
    keeps them all."""
    if size is None or size >= len(ids):
        return list(ids)
    if size < 0:
        raise AnnotationError(f"sample size must be positive, not {size}")
    pool = sorted(set(map(str, ids)))
    rng = np.random.default_rng(seed)
    chosen = {pool[i] for i in rng.choice(len(pool), size=int(size), replace=False)}
    return [i for i in ids if str(i) in chosen]


def queue(ids: list[str], done: set[str] | list[str]) -> list[str]:
    """The ids not labelled yet (by the annotator whose labels ``done`` holds), in order."""
    done = set(done)
    return [i for i in ids if i not in done]


# ---------------------------------------------------------------- export
def export_frame(store, ds: Dataset, all_versions: bool = False) -> pd.DataFrame:
    """Labels of one dataset with the pair text and provenance, one row per label version."""
    raw = store.annotations(ds.spec.name, latest=not all_versions)
    flat = flatten(raw)
    flat["created_at"] = flat["created_at"].map(lambda t: t.isoformat())
    texts = ds.frame.assign(item_id=ds.kind.item_ids(ds.frame).to_numpy())
    text_cols = [c for c in (*ds.kind.text_columns, "cue", "edit_type") if c in texts]
    out = flat[list(EXPORT_KEY)].merge(texts[["item_id", *text_cols]], on="item_id", how="left")
    out = out.merge(_adjudicated_columns(store, ds.spec.name), on="item_id", how="left")
    out["dataset_split"] = ds.spec.split
    out["dataset_source"] = ds.source
    out["negviz_version"] = __version__
    out["exported_at"] = datetime.now(timezone.utc).isoformat()
    return out


ADJUDICATED_PREFIX = "adjudicated_"


def _adjudicated_columns(store, dataset: str) -> pd.DataFrame:
    """Per pair, the reviewer's decision (negviz.projects.review) as adjudicated_* columns, the gold
    label of a pair whose annotators disagreed; empty columns where no one decided."""
    decided = adjudicated(store, dataset)
    cols = {c: ADJUDICATED_PREFIX + c for c in LABEL_COLUMNS} | {"reviewer": ADJUDICATED_PREFIX + "by"}
    if decided.empty:
        return pd.DataFrame(columns=["item_id", *cols.values()])
    return decided[["item_id", *cols]].rename(columns=cols)


def to_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    if fmt == "csv":
        return csv_bytes(frame)  # formula-like cells neutralised (read_export undoes it)
    if fmt == "jsonl":
        records = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
        return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records).encode("utf-8")
    raise AnnotationError(f"unknown export format {fmt!r}; use csv or jsonl")


# ---------------------------------------------------------------- import
@dataclass(frozen=True)
class ImportResult:
    rows: int  # rows in the file
    added: int  # labels appended to the store
    unchanged: int  # (pair, annotator) whose current label already equals the file's


def read_export(data: bytes, filename: str) -> pd.DataFrame:
    """Parse an exported CSV or JSONL file into strings and plain values (no code runs)."""
    if len(data) > MAX_IMPORT_BYTES:
        raise AnnotationError(f"{filename} is {len(data) / 2**20:.1f} MiB; at most {MAX_IMPORT_BYTES // 2**20} MiB.")
    fmt = PurePath(filename).suffix.lower().lstrip(".")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AnnotationError(f"{filename} is not UTF-8 text") from exc
    if fmt == "csv":
        try:
            frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise AnnotationError(f"{filename} is not a readable CSV file: {exc}") from exc
        frame = frame.map(unneutralise_cell)  # the quote to_bytes put before formula-like cells
    elif fmt == "jsonl":
        rows = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise AnnotationError(f"{filename} line {n} is not JSON: {exc.msg}") from exc
            if not isinstance(row, dict):
                raise AnnotationError(f"{filename} line {n} is not a JSON object")
            rows.append(row)
        frame = pd.DataFrame(rows)
    else:
        raise AnnotationError(f"{filename}: import reads .csv or .jsonl files exported by negviz")
    missing = [c for c in ("dataset", "item_id", "annotator", *LABEL_COLUMNS, "note") if c not in frame]
    if missing:
        raise AnnotationError(f"{filename} lacks the columns {missing}; is it a negviz annotation export?")
    return frame


def _as_bool(value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return True
    if text in ("false", "0", "no", ""):
        return False
    raise AnnotationError(f"query_ambiguous {value!r} is not true or false")


def _version(value) -> int:
    return int(value) if str(value).strip().lstrip("-").isdigit() else 0


def import_annotations(store, ds: Dataset, data: bytes, filename: str) -> ImportResult:
    """Import an exported file into ``ds``'s labels; every row is checked before anything is written.

    Per (pair, annotator) the file's newest version is appended when it differs from the
    store's current label, so importing a file twice adds nothing. The original version and
    time are kept in the label's ``imported_from``."""
    frame = read_export(data, filename)
    types = type_options()
    ids = _ids(ds)
    problems: list[str] = []
    parsed = []
    for n, row in enumerate(frame.to_dict(orient="records"), start=2 if filename.endswith(".csv") else 1):
        try:
            if str(row["dataset"]) != ds.spec.name:
                raise AnnotationError(f"dataset {row['dataset']!r}, but this import is into {ds.spec.name!r}")
            item = str(row["item_id"])
            if item not in ids:
                raise AnnotationError(f"{ds.spec.name} has no pair {item!r}")
            texts = ds.item(item)  # its kind's record: the text columns are its fields
            for col in ds.kind.text_columns:
                if col in row and row[col] not in (None, "") and str(row[col]) != str(getattr(texts, col)):
                    raise AnnotationError(
                        f"the {col} text of {item} differs from {ds.spec.name}'s (another data version?)"
                    )
            label = Label(
                str(row["negation_type"]),
                str(row["validity"]),
                _as_bool(row["query_ambiguous"]),
                "" if row["note"] is None else str(row["note"]),
            )
            check_label(label, types)
            parsed.append(
                (
                    item,
                    clean_annotator(str(row["annotator"])),
                    label,
                    _version(row.get("version", 0)),
                    str(row.get("created_at") or ""),
                )
            )
        except AnnotationError as exc:
            problems.append(f"row {n}: {exc}")
    if problems:
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        raise AnnotationError(f"{filename}: nothing imported. " + "; ".join(problems[:5]) + more)

    newest: dict[tuple[str, str], tuple] = {}
    for order, (item, annotator, label, version, created) in enumerate(parsed):
        key = (item, annotator)
        if key not in newest or (version, order) >= (newest[key][3], newest[key][5]):
            newest[key] = (item, annotator, label, version, created, order)
    current = latest(store, ds.spec.name)
    now = {(r.item_id, r.annotator): ({c: getattr(r, c) for c in LABEL_COLUMNS}, r.note) for r in current.itertuples()}
    added = 0
    for (item, annotator), (_, _, label, version, created, _) in newest.items():
        if now.get((item, annotator)) == (label.labels(), label.note):
            continue
        labels = {
            **label.labels(),
            IMPORTED: {"file": PurePath(filename).name, "version": version, "created_at": created},
        }
        store.add_annotation(ds.spec.name, item, annotator, labels, label.note)
        added += 1
    return ImportResult(rows=len(frame), added=added, unchanged=len(newest) - added)
