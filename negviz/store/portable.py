"""Portable run files: one Parquet file per run (its item scores), with the RunRecord as JSON in
the file's metadata. Precomputed runs ship this way in data/runs/ and load into any store.

Reading a file's record touches only the Parquet footer, so checking many files is cheap.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from negviz.core.errors import DataValidationError
from negviz.core.output_files import write_files
from negviz.core.schema import SCORE_COLUMNS
from negviz.store.db import dumps
from negviz.store.record import RunRecord

SUFFIX = ".parquet"
_RECORD_KEY = b"negviz.run"
_FORMAT_KEY = b"negviz.format"
_TEXTS_KEY = b"negviz.texts"  # optional: item texts (negviz.store.item_texts) as JSON records
FORMAT = b"1"


def write(path: Path, record: RunRecord, scores: pd.DataFrame, texts: pd.DataFrame | None = None) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(scores[list(SCORE_COLUMNS)], preserve_index=False)
    meta = {_RECORD_KEY: dumps(record.to_dict()).encode(), _FORMAT_KEY: FORMAT}
    if texts is not None and not texts.empty:
        meta[_TEXTS_KEY] = texts.to_json(orient="records").encode()
    table = table.replace_schema_metadata(meta)
    # renamed into place: a concurrent reader never sees half a file; never over a store or a device
    return write_files({path: lambda tmp: pq.write_table(table, tmp, compression="zstd")}, "the run file")[0]


def read_record(path: Path) -> RunRecord:
    import pyarrow.parquet as pq

    try:
        meta = pq.read_schema(path).metadata or {}
    except Exception as exc:  # pyarrow raises several types for a non-Parquet file
        raise DataValidationError(f"not a Parquet run file ({exc})", file=str(path)) from exc
    if meta.get(_FORMAT_KEY) != FORMAT or _RECORD_KEY not in meta:
        raise DataValidationError("Parquet file without a negviz run record (not made by export_run?)", file=str(path))
    return RunRecord.from_dict(json.loads(meta[_RECORD_KEY]))


def read_texts(path: Path) -> pd.DataFrame | None:
    """The run's item texts, None when the file carries none (all runs but generative ones)."""
    import io

    import pyarrow.parquet as pq

    raw = (pq.read_schema(path).metadata or {}).get(_TEXTS_KEY)
    return pd.read_json(io.BytesIO(raw), orient="records", dtype=False) if raw else None


def read_scores(path: Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=list(SCORE_COLUMNS)).to_pandas()


def run_files(path: Path) -> list[Path]:
    """The run files at path: the file itself, or a directory's *.parquet files, sorted."""
    if path.is_dir():
        return sorted(p for p in path.glob(f"*{SUFFIX}") if not p.name.startswith("."))
    if path.is_file():
        return [path]
    raise FileNotFoundError(f"no run file or directory at {path}")
