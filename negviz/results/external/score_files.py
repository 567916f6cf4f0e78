"""Read a file of scores computed elsewhere, streamed, and check it against a dataset before
anything is stored (negviz import-scores, the Import scores page).

Two layouts, CSV / TSV / JSON Lines / Parquet (data only: nothing is executed or unpickled):

- by id: ``item_id, query_slot, doc_slot, score``: the dataset's item id and the names of the
  columns that hold the query and the document (NevIR: q1/q2 and d1/d2; ExcluIR: query and
  pos_doc/neg_doc; DEMETR: reference and candidate/perturbed/empty, item ids
  ``<perturbation>:<item_id>``; CANNOT: sentence1 and sentence2). A ``slot`` column with negviz's
  slot name (``q1_d2``) may stand for the two. `negviz export-run --format csv` writes this layout.
- by text: ``query, document, score``: matched to the dataset's texts exactly (every item slot
  with that query and document text gets the score).

Problems are counted with their first examples: unknown ids, slots of another dataset kind,
duplicates, missing items (refused unless partial), scores that are not finite numbers, texts that
match nothing, a missing column, an empty file. A file is read in chunks and given up as soon as it
holds more rows than the dataset could (items x slots, twice over), a row longer than a row can be
(negviz.core.limits.MAX_RECORD_BYTES, met while streaming) or a cell longer than its column's limit
(CELL_LIMITS), so a huge file, row or cell is never read into memory whole; a message shows only the
first characters of an offending value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Iterator

import numpy as np
import pandas as pd

from negviz.core.errors import DataValidationError
from negviz.core.limits import MAX_ID_CHARS, MAX_NUMBER_CHARS, MAX_RECORD_BYTES, MAX_TEXT_CHARS, shown
from negviz.core.kinds import DatasetKind, registered
from negviz.results.external.bounded import bounded_lines
from negviz.language.text.words import counted

CHUNK_ROWS = 50_000
ID_LAYOUT = ("item_id", "query_slot", "doc_slot", "score")
TEXT_LAYOUT = ("query", "document", "score")
FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}
EXAMPLES = 3
IDS = ("item_id", "query_slot", "doc_slot", "slot")
CELL_LIMITS = {**dict.fromkeys(IDS, MAX_ID_CHARS), "query": MAX_TEXT_CHARS, "document": MAX_TEXT_CHARS}
CELL_LIMITS["score"] = MAX_NUMBER_CHARS
CELL_WHAT = {**dict.fromkeys(IDS, "an id or slot name"), "query": "a text", "document": "a text", "score": "a score"}


def slot_names(kind: DatasetKind) -> dict[tuple[str, str], str]:
    """(query column, document column) -> negviz slot, for one dataset kind (DEMETR's empty
    baseline document is named ``empty``)."""
    return {(q, slot if d.startswith("=") else d): slot for slot, (q, d) in kind.slots.items()}


def layout_examples(kind: DatasetKind, frame: pd.DataFrame) -> pd.DataFrame:
    """One row per layout a score file may have (layout, columns, example row), the examples made
    from the dataset's first item (its id, slot columns and texts), so each is one it accepts."""
    from negviz.core.schema import EXCLUSION
    from negviz.evaluation.item_scoring import scoring_inputs

    queries, docs, items, slots = scoring_inputs(kind, frame.head(1))
    columns = {slot: pair for pair, slot in slot_names(kind).items()}[slots[0]]

    def clip(text: str) -> str:  # one line, short, quoted as a CSV text with commas is
        text = " ".join(str(text).split())
        return '"' + (text if len(text) <= 24 else text[:23] + "…") + '"'

    rows = [
        ("by id", ", ".join(ID_LAYOUT), f"{items[0]}, {columns[0]}, {columns[1]}, 0.4703"),
        ("by text (exact texts)", ", ".join(TEXT_LAYOUT), f"{clip(queries[0])}, {clip(docs[0])}, 0.4703"),
    ]
    trec, example = "TREC run (.trec, .run, .txt)", "ExcluIR-style datasets only: a corpus ranking"
    if kind.name == EXCLUSION:  # space separated, best first per query
        example = f"{items[0]} Q0 DOC_ID 1 14.2 my-run"
    rows.append((trec, "qid Q0 docid rank score tag", example))
    return pd.DataFrame(rows, columns=["layout", "columns", "example row"])


def file_format(name: str) -> str:
    fmt = FORMATS.get(Path(name).suffix.lower())
    if fmt is None:
        raise DataValidationError(
            f"cannot tell the format from the extension {Path(name).suffix or '(none)'!r}; a score file is "
            f"{', '.join(FORMATS)} (a TREC run file for corpus retrieval: .trec, .run or .txt).",
            file=name,
        )
    return fmt


def chunks(handle: IO[bytes], fmt: str, name: str) -> Iterator[pd.DataFrame]:
    """The file's rows, a chunk at a time, every column as text (scores are read later). A text
    file is read through the limit on a row (RecordTooLong the moment one is over it)."""
    try:
        if fmt in ("csv", "tsv"):
            reader = pd.read_csv(
                bounded_lines(handle, name, MAX_RECORD_BYTES, quoted=True, what="row"),
                sep="\t" if fmt == "tsv" else ",", dtype=str, keep_default_na=False,
                chunksize=CHUNK_ROWS, encoding="utf-8",
            )  # fmt: skip
            yield from reader
        elif fmt == "jsonl":
            yield from _json_lines(bounded_lines(handle, name, MAX_RECORD_BYTES, quoted=False, what="line"), name)
        else:
            yield from _parquet(handle, name)
    except pd.errors.EmptyDataError:
        return
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataValidationError(f"cannot read this {fmt} file: {first}.", file=name) from None


def _json_lines(lines: IO[bytes], name: str) -> Iterator[pd.DataFrame]:
    """JSON Lines, one object a line (blank lines skipped); any other line is refused by its number."""
    records: list[dict] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:  # UnicodeDecodeError included
            detail = getattr(exc, "msg", None) or type(exc).__name__
            raise DataValidationError(
                f"line {number:,} is not JSON ({detail}): {shown(line.decode('utf-8', 'replace').strip())}. "
                "A JSON Lines score file holds one object a line, e.g. "
                '{"item_id": "1052-2", "query_slot": "q1", "doc_slot": "d1", "score": 0.5}.',
                file=name,
            ) from None
        if not isinstance(record, dict):
            raise DataValidationError(
                f"line {number:,} is a JSON {type(record).__name__}, not an object: "
                f"{shown(line.decode('utf-8', 'replace').strip())}. A JSON Lines score file holds one object a "
                'line, e.g. {"item_id": "1052-2", "query_slot": "q1", "doc_slot": "d1", "score": 0.5}.',
                file=name,
            )
        records.append(record)
        if len(records) == CHUNK_ROWS:
            yield pd.DataFrame.from_records(records)
            records = []
    if records:
        yield pd.DataFrame.from_records(records)


def _parquet(handle: IO[bytes], name: str) -> Iterator[pd.DataFrame]:
    """The columns a score file uses, a batch at a time; a column whose stored size is more than its
    rows' cells could hold (CELL_LIMITS) is refused before it is decompressed."""
    import pyarrow.parquet as pq

    parquet = pq.ParquetFile(handle)
    columns = [c for c in parquet.schema_arrow.names if str(c).strip() in CELL_LIMITS]
    if not columns:
        _layout(parquet.schema_arrow.names, name)  # says which columns a score file has
    meta = parquet.metadata
    for group in range(meta.num_row_groups):
        rows = meta.row_group(group).num_rows
        for index in range(meta.num_columns):
            chunk = meta.row_group(group).column(index)
            column = chunk.path_in_schema
            if column not in columns:
                continue
            most = rows * (4 * CELL_LIMITS[column.strip()] + 16) + (1 << 16)  # UTF-8, offsets, headers
            if chunk.total_uncompressed_size > most:
                raise DataValidationError(
                    f"its column {shown(column)} holds {chunk.total_uncompressed_size:,} bytes for {rows:,} rows "
                    f"(row group {group + 1}): more than values of at most {CELL_LIMITS[column.strip()]:,} "
                    "characters could. Is this the right file?",
                    file=name,
                )
    for batch in parquet.iter_batches(batch_size=CHUNK_ROWS, columns=columns):
        yield batch.to_pandas()


def _check_cells(part: pd.DataFrame, first_row: int, name: str) -> None:
    """Every cell within its column's limit (CELL_LIMITS); the first one over it is refused by row."""
    for column in part.columns:
        text = part[column].astype(str)
        lengths = text.str.len().to_numpy()
        over = np.flatnonzero(lengths > CELL_LIMITS[column])
        if len(over):
            at = int(over[0])
            raise DataValidationError(
                f"the value has {int(lengths[at]):,} characters ({shown(text.iat[at])}); {CELL_WHAT[column]} has "
                f"at most {CELL_LIMITS[column]:,}. Is this the right file?",
                file=name,
                row=first_row + at,
                column=column,
            )


@dataclass
class Problems:
    """Problems by kind, each with a count and its first examples."""

    found: dict[str, list] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, examples, count: int | None = None) -> None:
        examples = list(examples)
        count = len(examples) if count is None else count
        if not count:
            return
        self.counts[kind] = self.counts.get(kind, 0) + count
        kept = self.found.setdefault(kind, [])
        kept += examples[: EXAMPLES - len(kept)]

    def first(self, kind: str) -> str:
        """The first examples; ids and texts quoted (their first characters), row descriptions
        ("row 3: 'nan'") as they are."""
        return ", ".join(e if kind in DESCRIBED else _quoted(e) for e in self.found.get(kind, []))


def _quoted(example) -> str:
    if isinstance(example, tuple):
        return f"({', '.join(map(shown, example))})"
    return shown(example)


DESCRIBED = {"score", "format"}  # problems whose examples already say where they are


def rows_word(n: int, one: str = "row", many: str = "rows") -> str:
    return counted(n, one, many)


@dataclass
class ScoreFile:
    """A checked score file: the long score frame of the items it covers completely."""

    scores: pd.DataFrame  # item_id, slot, score
    items: list[str]  # ids of the items it scores, every slot of each
    missing: int  # dataset items it does not score completely
    rows: int  # rows read
    layout: str  # "id" or "text"


def read_scores(
    handle: IO[bytes], name: str, dataset, *, allow_partial: bool = False, fmt: str | None = None
) -> ScoreFile:
    """Read and check a score file for ``dataset`` (a loaded negviz Dataset); raises
    DataValidationError listing every problem found (``problems``)."""
    from negviz.evaluation.item_scoring import scoring_inputs

    kind = dataset.kind
    if not kind.slots:
        raise DataValidationError(f"{dataset.spec.name} is {kind.title}: nothing to score.", file=name)
    fmt = fmt or file_format(name)
    queries, docs, item_list, slot_list = scoring_inputs(kind, dataset.frame)
    expected = len(item_list)
    limit = 2 * expected + 1000
    parts, rows, layout = [], 0, None
    for chunk in chunks(handle, fmt, name):
        chunk.columns = [str(c).strip() for c in chunk.columns]
        layout = layout or _layout(chunk.columns, name)
        first_row = rows + 1
        rows += len(chunk)
        if rows > limit:
            raise DataValidationError(
                f"the file has more than {limit:,} rows; a score file for {dataset.spec.name} has at most "
                f"{expected:,} (one per item and slot). Is it the score file of another dataset?",
                file=name,
            )
        part = _keep_columns(chunk, layout)
        _check_cells(part, first_row, name)
        parts.append(part)
    if not rows:
        raise DataValidationError(
            "the file is empty: it holds no score rows. Columns expected: "
            f"{', '.join(ID_LAYOUT)} (or {', '.join(TEXT_LAYOUT)}).",
            file=name,
        )
    raw = pd.concat(parts, ignore_index=True)
    problems = Problems()
    values = pd.to_numeric(raw["score"].astype(str).str.strip(), errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(values)
    problems.add(
        "score", [f"row {i + 1}: {shown(raw['score'].iat[i])}" for i in np.flatnonzero(bad)[:EXAMPLES]], int(bad.sum())
    )
    if layout == "id":
        long = _by_id(raw, values, kind, dataset, item_list, problems, name)
    else:
        long = _by_text(raw, values, queries, docs, item_list, slot_list, problems)
    flagged = set(long.loc[~np.isfinite(long["score"].to_numpy()), "item_id"])  # said once, as bad scores
    long = long[np.isfinite(long["score"].to_numpy())]
    dupes = long.duplicated(["item_id", "slot"], keep=False)
    problems.add("duplicate", long.loc[dupes, ["item_id", "slot"]].drop_duplicates().itertuples(index=False, name=None),
                 int(long.loc[dupes, ["item_id", "slot"]].drop_duplicates().shape[0]))  # fmt: skip
    long = long.drop_duplicates(["item_id", "slot"], keep=False)
    n_slots = len(kind.slots)
    per_item = long.groupby("item_id")["slot"].nunique()
    complete = set(per_item.index[per_item == n_slots])
    ids = list(dict.fromkeys(item_list))
    missing = [i for i in ids if i not in complete]
    unsaid = [i for i in missing if i not in flagged]  # an item with a bad score is said once, there
    if unsaid and not allow_partial:
        problems.add("missing", unsaid, len(unsaid))
    _raise(problems, name, dataset, len(ids))
    kept = [i for i in ids if i in complete]
    if not kept:
        raise DataValidationError(f"no item of {dataset.spec.name} has a score for every slot.", file=name)
    scores = long[long["item_id"].isin(complete)].reset_index(drop=True)
    return ScoreFile(scores, kept, len(missing), rows, layout)


def _layout(columns, name: str) -> str:
    present = set(columns)
    if {"item_id", "score"} <= present and ({"query_slot", "doc_slot"} <= present or "slot" in present):
        return "id"
    if set(TEXT_LAYOUT) <= present:
        return "text"
    raise DataValidationError(
        f"the file's columns are {_column_list(columns)}; a score file has either "
        f"{', '.join(ID_LAYOUT)} (or item_id, slot, score) or {', '.join(TEXT_LAYOUT)}.",
        file=name,
    )


def _column_list(columns) -> str:
    shown_columns = ", ".join(shown(str(c)) for c in list(columns)[: EXAMPLES * 3])
    return shown_columns + (f" and {len(columns) - EXAMPLES * 3:,} more" if len(columns) > EXAMPLES * 3 else "")


def _keep_columns(chunk: pd.DataFrame, layout: str) -> pd.DataFrame:
    if layout == "text":
        cols = list(TEXT_LAYOUT)
    else:
        cols = ["item_id", "slot", "score"] if "slot" in chunk.columns else list(ID_LAYOUT)
    out = chunk[cols].copy()
    for c in cols:
        if c != "score":
            out[c] = out[c].astype(str).str.strip() if layout == "id" else out[c].astype(str)
    return out


def _by_id(
    raw: pd.DataFrame, values, kind: DatasetKind, dataset, item_list, problems: Problems, name: str
) -> pd.DataFrame:
    names = slot_names(kind)
    if "slot" in raw.columns:
        slots = raw["slot"]
        named = raw["slot"].to_numpy()
    else:
        named = np.array([names.get((q, d), "") for q, d in zip(raw["query_slot"], raw["doc_slot"])], dtype=object)
        slots = pd.Series(named)
    unknown_slot = ~pd.Series(named).isin(list(kind.slots)).to_numpy()
    if unknown_slot.any():
        given = (
            raw.loc[unknown_slot, "slot"]
            if "slot" in raw.columns
            else raw.loc[unknown_slot, "query_slot"] + "/" + raw.loc[unknown_slot, "doc_slot"]
        )
        other = _kind_of_slots(set(given), "slot" in raw.columns)
        if other and unknown_slot.all():
            raise DataValidationError(
                f"this file scores {other.title} (slots {', '.join(sorted(set(given))[:4])}), but the "
                f"dataset {dataset.spec.name} holds {kind.title}; import it for a dataset of that kind.",
                file=name,
            )
        problems.add("slot", dict.fromkeys(given).keys(), int(unknown_slot.sum()))
    known_ids = set(item_list)
    unknown_id = ~raw["item_id"].isin(known_ids).to_numpy()
    problems.add("id", dict.fromkeys(raw.loc[unknown_id, "item_id"]).keys(), int(unknown_id.sum()))
    keep = ~unknown_slot & ~unknown_id
    return pd.DataFrame(
        {"item_id": raw["item_id"].to_numpy()[keep], "slot": np.asarray(slots)[keep], "score": values[keep]}
    )


def _kind_of_slots(given: set[str], by_slot: bool) -> DatasetKind | None:
    """The dataset kind whose slots these are, when they are all one other kind's."""
    for kind in (k for k in registered() if k.slots):
        names = set(kind.slots) if by_slot else {f"{q}/{d}" for q, d in slot_names(kind)}
        if given <= names:
            return kind
    return None


def _by_text(raw, values, queries, docs, item_list, slot_list, problems: Problems) -> pd.DataFrame:
    where: dict[tuple[str, str], list[int]] = {}
    for n, pair in enumerate(zip(queries, docs)):
        where.setdefault(pair, []).append(n)
    rows_item, rows_slot, rows_score = [], [], []
    unmatched = []
    n_unmatched = 0
    seen: set[tuple[str, str]] = set()
    dupes = []
    for q, d, v in zip(raw["query"], raw["document"], values):
        hits = where.get((q, d))
        if hits is None:
            n_unmatched += 1
            if len(unmatched) < EXAMPLES:
                unmatched.append((q, d))
            continue
        if (q, d) in seen:
            dupes.append((q, d))
            continue
        seen.add((q, d))
        for n in hits:
            rows_item.append(item_list[n])
            rows_slot.append(slot_list[n])
            rows_score.append(v)
    problems.add("text", unmatched, n_unmatched)
    problems.add("duplicate", dupes, len(dupes))
    return pd.DataFrame({"item_id": rows_item, "slot": rows_slot, "score": rows_score})


MESSAGES = {
    "score": "{rows} a score that is not a finite number (first: {first}); every score must be a number, "
    "not NaN or infinite",
    "id": "{rows} items that are not in {dataset} (first: {first}); item ids are the dataset's {id_column}",
    "slot": "{rows} slots {dataset} does not have (first: {first}); its slots are {slots}",
    "duplicate": "{items} scored more than once (first: {first}); keep one row each",
    "missing": "{n:,} of {total:,} items of {dataset} have no score for every slot (first: {first}); score them, or "
    "allow a partial file (--allow-partial; the run then says 'n of N items')",
    "text": "{rows} a query and document that match no item of {dataset} exactly (first: {first}); "
    "texts must be the dataset's own, character for character",
}


def _raise(problems: Problems, name: str, dataset, total: int) -> None:
    if not problems.counts:
        return
    pairs = ", ".join(f"{q}/{d}" for q, d in slot_names(dataset.kind))
    slots = f"{pairs} (query_slot/doc_slot), or in a slot column {', '.join(dataset.kind.slots)}"
    keys = dataset.kind.keys
    id_column = keys[-1] + (f" as <{'>:<'.join(keys)}>" if len(keys) > 1 else "")  # DEMETR: perturbation:item_id
    errors = []
    for kind, count in problems.counts.items():
        words = {
            "n": count,
            "rows": rows_word(count, "row has", "rows have")
            if kind in ("score", "text")
            else rows_word(count, "row names", "rows name"),
            "items": rows_word(count, "item or text pair is", "items or text pairs are"),
            "first": problems.first(kind),
            "dataset": dataset.spec.name,
            "total": total,
            "slots": slots,
            "id_column": id_column,
        }
        errors.append(DataValidationError(MESSAGES[kind].format(**words) + ". Nothing was stored.", file=name))
    raise DataValidationError.of(errors)
