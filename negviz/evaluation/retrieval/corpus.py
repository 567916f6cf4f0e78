"""A corpus: the documents a query is retrieved from (``doc_id, text`` + optional ``title``).

Where a corpus comes from, by the name given to ``--corpus`` / ``load_corpus``:
- ``offline``: the shipped test corpus (data/corpus/offline.parquet, built by
  scripts/build_corpus.py from the other shipped data; see data/SOURCES.md);
- ``excluir``: ExcluIR's own corpus (90,406 HotpotQA paragraphs). Its authors publish it as
  ``corpus.json`` on Google Drive, not on the Hub under a known id, so negviz loads it from the
  Hub dataset named by ``$NEGVIZ_EXCLUIR_CORPUS_HUB`` (a copy someone uploaded), or from a file;
- ``hf:OWNER/NAME[:SPLIT]``: any Hub dataset with doc_id/text columns (map others with columns=);
- a file path (CSV/TSV/JSONL/JSON/Parquet), read and validated like every user dataset.
Every corpus is validated as the ``corpus`` dataset kind: ids unique and non-empty, texts
non-empty strings; ``title`` is kept when present (models read ``text`` only).
"""

from __future__ import annotations

import functools
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import pandas as pd

from negviz.core.errors import DatasetUnavailableError
from negviz.core.paths import DATA_DIR
from negviz.core.registry import UnknownNameError
from negviz.core.schema import CORPUS
from negviz.datasets import short_title
from negviz.datasets.userfile import load_file
from negviz.datasets.validate import validate

OFFLINE_FILE = DATA_DIR / "corpus" / "offline.parquet"
EXCLUIR_SIZE = 90406  # paragraphs in ExcluIR's corpus.json (paper, Sec. 2)
EXCLUIR_HUB_ENV = "NEGVIZ_EXCLUIR_CORPUS_HUB"
NAMES = ("offline", "excluir")


@dataclass(frozen=True, eq=False)
class Corpus:
    """A validated corpus. ``frame`` has doc_id, text, title (title "" when absent)."""

    name: str
    frame: pd.DataFrame
    source: str
    licence: str

    @property
    def size(self) -> int:
        return len(self.frame)

    @functools.cached_property
    def hash(self) -> str:
        """sha256 prefix of the ids and texts in order: a run is tied to exactly this corpus."""
        digest = hashlib.sha256()
        for doc_id, text in zip(self.frame["doc_id"], self.frame["text"]):
            digest.update(doc_id.encode("utf-8") + b"\x00" + text.encode("utf-8") + b"\x01")
        return digest.hexdigest()[:16]

    @functools.cached_property
    def row_of(self) -> dict[str, int]:
        """doc_id -> row position."""
        return {d: i for i, d in enumerate(self.frame["doc_id"])}

    @property
    def texts(self) -> list[str]:
        return self.frame["text"].tolist()

    @property
    def ids(self) -> list[str]:
        return self.frame["doc_id"].tolist()

    def provenance(self) -> dict[str, object]:
        return {"corpus": self.name, "corpus_size": self.size, "corpus_hash": self.hash, "corpus_source": self.source}


def normalise(frame: pd.DataFrame, file: str) -> pd.DataFrame:
    """Validate as the corpus kind; ``title`` kept as text ("" where missing)."""
    frame = validate(frame, CORPUS, file=file)
    title = frame["title"] if "title" in frame.columns else pd.Series("", index=frame.index)
    frame = frame.assign(title=title.fillna("").astype(str))
    return frame[["doc_id", "text", "title"]].reset_index(drop=True)


def load_corpus(name: str, columns: str | Mapping[str, str] | None = None, format: str | None = None) -> Corpus:
    """A corpus by name (offline, excluir, hf:OWNER/NAME[:SPLIT]) or file path. Read each call:
    the app caches it in negviz/ui (corpus_index), the CLI reads it once per run."""
    if name == "offline":
        return offline_corpus()
    if name == "excluir":
        hub_id = os.environ.get(EXCLUIR_HUB_ENV, "").strip()
        if not hub_id:
            raise DatasetUnavailableError(
                f"ExcluIR's corpus ({EXCLUIR_SIZE:,} HotpotQA paragraphs) is not shipped, and its authors publish "
                "it as corpus.json on Google Drive (github.com/zwh-sdu/ExcluIR), not on the Hugging Face Hub. "
                f"Set {EXCLUIR_HUB_ENV}=OWNER/NAME to a Hub copy, or pass the file: --corpus corpus.parquet "
                "(columns doc_id,text; doc_id = the paragraph's index in corpus.json, as the ExcluIR queries "
                "refer to it). `--corpus offline` is the shipped test corpus."
            )
        return _from_hub(hub_id, "train", columns, label="excluir")
    if name.startswith("hf:"):
        hub_id, _, split = name[3:].partition(":")
        return _from_hub(hub_id, split or "train", columns, label=name)
    path = Path(name)
    if not path.is_file():
        raise UnknownNameError(
            f"unknown corpus {name!r}: not a file, and not one of {', '.join(NAMES)} or hf:OWNER/NAME[:SPLIT]."
        )
    ds = load_file(path, kind=CORPUS, columns=columns, format=format)
    return Corpus(path.name, normalise(ds.frame, str(path)), str(path), "user file (its owner's licence)")


def offline_corpus() -> Corpus:
    if not OFFLINE_FILE.is_file():
        raise DatasetUnavailableError(f"{OFFLINE_FILE} is missing; build it with `python scripts/build_corpus.py`.")
    frame = pd.read_parquet(OFFLINE_FILE)
    return Corpus(
        "offline",
        normalise(frame, str(OFFLINE_FILE)),
        "data/corpus/offline.parquet: ExcluIR sample documents + NevIR, CANNOT and DEMETR distractors",
        "mixed: see data/SOURCES.md (HotpotQA/Wikipedia CC BY-SA 4.0, NevIR MIT, CANNOT CC BY-SA 4.0, DEMETR MIT)",
    )


def _from_hub(hub_id: str, split: str, columns, label: str) -> Corpus:
    """A Hub dataset as a corpus (needs network; offline, a clear message instead of retries)."""
    where = f"hf://datasets/{hub_id} ({split})"
    from negviz.datasets.hub import hub_frame
    from negviz.datasets.userfile import apply_mapping, parse_columns

    frame = hub_frame(hub_id, split, "corpus")
    mapping = parse_columns(columns, where)
    if not mapping and "doc_id" not in frame.columns and "_id" in frame.columns:
        mapping = {"doc_id": "_id"}  # BEIR/MTEB corpora
    frame = apply_mapping(frame, mapping, where)
    return Corpus(label, normalise(frame, where), where, "as published on the Hub")


# The offline corpus's ids (scripts/build_corpus.py): "<dataset>-<item>-<role>" for the shipped
# datasets' texts, the paragraph's index for ExcluIR's. The roles and items in words:
_ROLES = {"d1": "document d1", "d2": "document d2", "s1": "sentence 1", "s2": "sentence 2"}
_ROLES.update(ref="reference", mt="machine translation")
_ITEMS = {"nevir": "pair", "cannot": "pair", "demetr": "item"}


def doc_label(doc_id: str, title: str = "") -> str:
    """A corpus document as a person reads it: "NevIR pair 1230-2, document d1", "CANNOT pair
    sem anto neg #5507, sentence 1", an ExcluIR paragraph by its title ("Henry Fonda, paragraph
    22060"); a document of another corpus by its title, else its own id."""
    source, _, rest = str(doc_id).partition("-")
    item, _, role = rest.rpartition("-")
    if source in _ITEMS and item and role in _ROLES:
        item = item.replace("_", " ").replace(":", " #")
        return f"{short_title(source)} {_ITEMS[source]} {item}, {_ROLES[role]}"
    if title:
        return f"{title}, paragraph {doc_id}" if str(doc_id).isdigit() else str(title)
    return str(doc_id)
