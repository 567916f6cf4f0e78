"""NevIR train/validation from the Hugging Face Hub (only the test split is shipped).

Offline, this fails fast with DatasetUnavailableError instead of the `datasets` library's
~25 s of retries: with HF_HUB_OFFLINE=1 (or HF_DATASETS_OFFLINE=1) it does not even try
(and does not import `datasets`, whose offline flag would then stick for the process);
otherwise a 3 s reachability check runs first.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlparse

import pandas as pd

from negviz.core.errors import DatasetUnavailableError
from negviz.core.heavy import heavy_import
from negviz.core.schema import PAIRS
from negviz.datasets.validate import validate

HUB_ID = "orionweller/NevIR"
_TRUE = {"1", "true", "yes", "on"}


def offline() -> bool:
    return any(os.environ.get(v, "").strip().lower() in _TRUE for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))


def hub_reachable(timeout: float = 3.0) -> bool:
    url = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname or "", port), timeout=timeout):
            return True
    except OSError:
        return False


def _unavailable(split: str, why: str) -> DatasetUnavailableError:
    return DatasetUnavailableError(
        f"NevIR {split} is not shipped: only the test split is available offline. {why} "
        f"Run with network access (or with {HUB_ID} pre-downloaded into the Hugging Face cache) "
        "to load train/validation, or load a local copy as a file "
        "(columns pair_id,q1,d1,q2,d2, or map them with columns=...)."
    )


def load_nevir_split(split: str) -> pd.DataFrame:
    """NevIR ``split`` as a pairs frame (pair_id, q1, d1, q2, d2, passage_id, edit_type)."""
    if offline():
        raise _unavailable(split, "HF_HUB_OFFLINE is set, so negviz did not try the Hub.")
    if not hub_reachable():
        raise _unavailable(split, "The Hugging Face Hub is not reachable.")
    try:
        load_dataset = heavy_import("datasets", "load_dataset")

        hf = load_dataset(HUB_ID, split=split)
    except Exception as exc:  # the library raises many kinds (ConnectionError, FileNotFoundError, ...)
        raise _unavailable(split, f"Loading it failed ({type(exc).__name__}: {str(exc)[:200]}).") from exc
    return to_pairs(hf.to_pandas(), split)


def to_pairs(hub_frame: pd.DataFrame, split: str) -> pd.DataFrame:
    """The Hub's columns (id, WorkerId, q1, doc1, q2, doc2) as a validated pairs frame."""
    frame = hub_frame.rename(columns={"id": "pair_id", "doc1": "d1", "doc2": "d2"})
    # The pair id is CondaQA's PassageID-PassageEditID (see docs/REFERENCE.md).
    parts = frame["pair_id"].astype(str).str.split("-", n=1, expand=True).reindex(columns=[0, 1])
    frame["passage_id"] = pd.to_numeric(parts[0], errors="coerce").astype("Int64")
    frame["edit_type"] = pd.to_numeric(parts[1], errors="coerce").astype("Int64")
    return validate(frame, PAIRS, file=f"hf://datasets/{HUB_ID} ({split})")


HUB_PREFIX = "hf:"


def parse_hub_ref(ref: str, default_split: str = "test") -> tuple[str, str]:
    """``hf:OWNER/NAME[:SPLIT]`` -> (hub id, split)."""
    body = ref[len(HUB_PREFIX) :] if ref.startswith(HUB_PREFIX) else ref
    hub_id, _, split = body.partition(":")
    if hub_id.count("/") != 1 or not all(hub_id.split("/")):
        raise DatasetUnavailableError(f"{ref!r} is not a Hub dataset id; write hf:OWNER/NAME or hf:OWNER/NAME:SPLIT.")
    return hub_id, split or default_split


def hub_frame(hub_id: str, split: str, what: str = "dataset") -> pd.DataFrame:
    """One split of a Hub dataset as a DataFrame (needs network; offline, a clear message at once
    instead of retries). The one place negviz reads an arbitrary Hub dataset."""
    where = f"hf://datasets/{hub_id} ({split})"
    if offline():
        raise DatasetUnavailableError(
            f"{what} {where} needs the Hugging Face Hub, and HF_HUB_OFFLINE is set; "
            "download the file elsewhere and give its path instead."
        )
    if not hub_reachable():
        raise DatasetUnavailableError(
            f"{what} {where}: the Hugging Face Hub is not reachable from here; give a local file instead."
        )
    try:
        load_dataset = heavy_import("datasets", "load_dataset")

        return load_dataset(hub_id, split=split).to_pandas()
    except Exception as exc:  # the library raises many kinds
        raise DatasetUnavailableError(
            f"{what} {where}: loading failed ({type(exc).__name__}: {str(exc)[:200]})"
        ) from exc


def hub_file(ref: str) -> tuple[bytes, str]:
    """A Hub dataset split as Parquet bytes and a file name, so it enters negviz exactly like an
    uploaded file (same validation, same sha256, same size limit)."""
    import io

    hub_id, split = parse_hub_ref(ref)
    buffer = io.BytesIO()
    hub_frame(hub_id, split).to_parquet(buffer, index=False)
    return buffer.getvalue(), f"{hub_id.replace('/', '__')}__{split}.parquet"
