"""Parse a data file into a raw frame: CSV, TSV, JSON Lines, JSON array or Parquet.

Data only (no pickle, no eval). Text must be UTF-8; an undecodable byte is reported with
its line, and where it can be told, its data row and column. Column names are the file's own.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import logging
import re
from pathlib import Path
from typing import Any

import pandas as pd

from negviz.core.errors import DataValidationError

log = logging.getLogger(__name__)

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",  # a JSON array, or JSON Lines despite the name (CondaQA does that)
    ".parquet": "parquet",
    ".pq": "parquet",
}
# Compressed files given as text: their first bytes, the packer's name, what unpacks them.
_PACKED = (
    (b"\x1f\x8b", "gzip", "gunzip"),
    (b"PK\x03\x04", "zip", "unzip"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
)
# Lone surrogates: undecodable bytes after errors="surrogateescape", or JSON "\\udXXX" escapes.
_SURROGATE = re.compile("[\ud800-\udfff]")


def infer_format(path: Path, format: str | None) -> str:
    if format:
        fmt = format.lower().lstrip(".")
        fmt = FORMATS.get("." + fmt, fmt)
        if fmt not in set(FORMATS.values()):
            raise DataValidationError(
                f"unknown format {format!r}; use one of {', '.join(sorted(set(FORMATS.values())))}.", file=str(path)
            )
        return fmt
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise DataValidationError(
            f"cannot tell the format from the extension {path.suffix or '(none)'!r}; use one of "
            f"{', '.join(FORMATS)} or pass format=csv|tsv|jsonl|json|parquet.",
            file=str(path),
        )
    return fmt


def _decode(raw: bytes, fmt: str, file: str) -> str:
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        row, column = _locate_bad_byte(raw, err.start, fmt)
        line = raw[: err.start].count(b"\n") + 1
        where = " in the header" if row == 0 else ""
        raise DataValidationError(
            f"bytes that are not UTF-8 (0x{raw[err.start]:02x} on line {line}{where}); save the file as UTF-8.",
            file=file,
            row=row or None,
            column=column,
        ) from None


def _locate_bad_byte(raw: bytes, start: int, fmt: str) -> tuple[int | None, str | None]:
    """(1-based data row, column) of an undecodable byte; 0 = the header; None if unknown."""
    try:
        if fmt in ("csv", "tsv"):
            prefix = raw[:start].decode("utf-8")
            records = list(_csv_reader(prefix, fmt))
            if not prefix or prefix.endswith(("\n", "\r")):
                index, field = len(records), 0  # the bad byte starts a new record
            else:
                index, field = len(records) - 1, len(records[-1]) - 1
            header = records[0] if records and index > 0 else []
            return index, header[field] if field < len(header) else None
        text = raw.decode("utf-8", errors="surrogateescape")  # bad bytes become lone surrogates
        found = _find_surrogate(_json_records(text, fmt, file=""))
        if found:
            return found
    except (csv.Error, DataValidationError, ValueError):
        pass
    return None, None


def _find_surrogate(records: list[dict]) -> tuple[int, str | None] | None:
    """(1-based row, key) of the first record holding a lone surrogate."""
    for i, record in enumerate(records, start=1):
        for key, value in record.items():
            if _SURROGATE.search(str(key)):
                return i, None
            if isinstance(value, str) and _SURROGATE.search(value):
                return i, str(key)
    return None


def _csv_reader(text: str, fmt: str):
    sep = delimiter(text, fmt)
    if sep == "\t" and fmt == "tsv":  # TSV has no quoting: a quote is text (as in CANNOT's files)
        return csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    return csv.reader(io.StringIO(text), delimiter=sep)


DELIMITERS = (",", ";", "\t", "|")  # what a delimited file may use (Excel writes ";" where the decimal mark is ",")
EXTENSION_DELIMITER = {"csv": ",", "tsv": "\t"}
_NAMES = {",": "','", ";": "';'", "\t": "a tab", "|": "'|'"}
_PLURALS = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "pipes"}


def header_counts(header: str) -> dict[str, int]:
    """How often each of DELIMITERS stands in a header line outside double quotes (a quoted
    column name may hold any of them: '"query; first"' or '"a, b"')."""
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    for char in header:
        if char == '"':
            quoted = not quoted  # a doubled quote inside a quoted name flips twice: still quoted
        elif not quoted and char in counts:
            counts[char] += 1
    return counts


def delimiter(text: str, fmt: str) -> str:
    """The delimiter of a CSV or TSV text, from its header line: the one of DELIMITERS standing
    most often there outside quotes, the extension's own on a tie or when none stands there. A
    TSV header with a tab is tab-delimited whatever else it holds (its quotes are text)."""
    header = text.split("\n", 1)[0].rstrip("\r")
    own = EXTENSION_DELIMITER[fmt]
    if fmt == "tsv" and "\t" in header:
        return own
    counts = header_counts(header)
    best = max(DELIMITERS, key=lambda d: (counts[d], d == own))
    return best if counts[best] else own


def csv_delimiter(text: str) -> str:
    """The delimiter of a ".csv" file (``delimiter(text, "csv")``)."""
    return delimiter(text, "csv")


def delimiter_note(text: str, fmt: str, file: str) -> str | None:
    """One line when the file's delimiter is not its extension's: which one was found and how the
    file was read (None when they agree)."""
    sep, own = delimiter(text, fmt), EXTENSION_DELIMITER[fmt]
    if sep == own:
        return None
    found = header_counts(text.split("\n", 1)[0].rstrip("\r"))[sep]
    return (
        f"{file}: its header is delimited by {_PLURALS[sep]} ({found} outside quotes), not by {_PLURALS[own]} as "
        f".{fmt} says; read with {_PLURALS[sep]} as the delimiter, quotes respected"
    )


def _read_delimited(text: str, fmt: str, file: str) -> pd.DataFrame:
    sep = delimiter(text, fmt)
    kwargs: dict[str, Any] = {"sep": sep}
    if fmt == "tsv" and sep == "\t":
        kwargs["quoting"] = csv.QUOTE_NONE
    note = delimiter_note(text, fmt, file)
    if note:
        log.warning(note)
    try:
        # dtype=str and no NA parsing: "NA", "None", "null" are texts, ids keep leading zeros.
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, **kwargs)
    except pd.errors.EmptyDataError:
        raise DataValidationError("the file is empty.", file=file) from None
    except pd.errors.ParserError as err:
        m = re.search(r"line (\d+)", str(err))
        row = int(m.group(1)) - 1 if m else None  # line 1 is the header
        shown = _NAMES[sep]
        hint = (
            " (a tab inside a text?)"
            if kwargs.get("quoting") == csv.QUOTE_NONE
            else f" (delimiter {shown}, found in the header; an unquoted {shown} or quote inside a text?)"
        )
        detail = str(err).strip().removeprefix("Error tokenizing data. C error: ")
        raise DataValidationError(f"malformed {fmt.upper()}: {detail}{hint}", file=file, row=row) from None
    if note:
        frame.attrs["note"] = note
    return frame


def _json_records(text: str, fmt: str, file: str) -> list[dict]:
    stripped = text.lstrip()
    if fmt == "json" and stripped.startswith("["):
        try:
            records = json.loads(text)
        except json.JSONDecodeError as err:
            raise DataValidationError(
                f"malformed JSON on line {err.lineno}, column {err.colno}: {err.msg}.", file=file
            ) from None
        for i, record in enumerate(records, start=1):
            if not isinstance(record, dict):
                raise DataValidationError(f"item is a {type(record).__name__}, not an object.", file=file, row=i)
        return records
    records = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataValidationError(
                f"malformed JSON on line {lineno}, column {err.colno}: {err.msg}. Each line must be one JSON object.",
                file=file,
                row=len(records) + 1,
            ) from None
        if not isinstance(record, dict):
            raise DataValidationError(
                f"line {lineno} is a JSON {type(record).__name__}, not an object.", file=file, row=len(records) + 1
            )
        records.append(record)
    return records


def _read_parquet(source: Path | bytes, file: str) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(pa.BufferReader(source) if isinstance(source, bytes) else source)
        # ignore_metadata: build plain columns, never reconstruct stored pandas objects.
        frame = table.to_pandas(ignore_metadata=True)
    except (pa.ArrowException, OSError, ValueError) as err:  # ArrowInvalid is a ValueError
        raise DataValidationError(f"not a readable Parquet file: {err}", file=file) from None
    except UnicodeDecodeError as err:
        raise DataValidationError(f"bytes that are not UTF-8 in a text column: {err}", file=file) from None
    return frame.drop(columns=[c for c in frame.columns if str(c).startswith("__index_level_")])


def read_frame(path: Path | bytes, fmt: str, file: str) -> pd.DataFrame:
    """The file's records (from a path, or its bytes: an upload) with the file's own column
    names, stripped (no kind checks yet)."""
    frame = _read_records(path, fmt, file)
    frame.columns = [str(c).strip() for c in frame.columns]  # "id, q1, d1" headers
    return frame


def _read_records(source: Path | bytes, fmt: str, file: str) -> pd.DataFrame:
    if fmt == "parquet":
        return _read_parquet(source, file)
    raw = source if isinstance(source, bytes) else source.read_bytes()
    if not raw.strip():
        raise DataValidationError("the file is empty.", file=file)
    for magic, kind, undo in _PACKED:
        if raw.startswith(magic):  # else its bytes would be reported as "not UTF-8"
            raise DataValidationError(
                f"the file looks {kind}-compressed, not {fmt.upper()} text; {undo} it and give the "
                f"{fmt.upper()} file inside.",
                file=file,
            )
    text = _decode(raw, fmt, file)
    if fmt in ("csv", "tsv"):
        return _read_delimited(text, fmt, file)
    records = _json_records(text, fmt, file)
    if not records:
        raise DataValidationError("the file has no records.", file=file)
    found = _find_surrogate(records)
    if found:  # valid JSON, but a "\\udXXX" escape that is no character
        raise DataValidationError("text holds a lone surrogate escape (not valid Unicode).",
                                  file=file, row=found[0], column=found[1])  # fmt: skip
    # dtype=object: JSON values stay as written (an id 2 next to 1.5 stays "2", not "2.0").
    return pd.DataFrame(records, dtype=object)
