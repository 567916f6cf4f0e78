"""Loaders for the four datasets shipped as Parquet in data/ (built by scripts/build_data.py).

Each loader takes a DatasetSpec and returns ``(frame, notes)``; negviz.datasets.load wraps
that in a Dataset with the registry's metadata. File reads are cached once per process;
callers get copies, so nobody can change the cached frame.
"""

from __future__ import annotations

import functools

import pandas as pd

from negviz.core.errors import DatasetUnavailableError
from negviz.core.paths import DATA_DIR
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND, PERTURBATION_KIND, SENTENCE_PAIRS_KIND
from negviz.core.schema import DatasetSpec
from negviz.datasets.base import apply_limit, check_options, check_split, choose, list_option

FILES = {
    "nevir": "nevir/test.parquet",
    "excluir": "excluir/sample.parquet",
    "demetr": "demetr/demetr.parquet",
    "cannot": "cannot/cannot.parquet",
}
NEVIR_SPLITS = ("test", "train", "validation")
_SPLIT_ALIASES = {"dev": "validation", "val": "validation"}


@functools.lru_cache(maxsize=None)
def _read(relpath: str) -> pd.DataFrame:
    import pyarrow.parquet as pq

    path = DATA_DIR / relpath
    if not path.is_file():
        raise DatasetUnavailableError(f"shipped file {path} is missing; rebuild it with scripts/build_data.py.")
    return pq.read_table(path).to_pandas()


def read_shipped(name: str) -> pd.DataFrame:
    """A private copy of a shipped table (the cache itself is never handed out)."""
    return _read(FILES[name]).copy()


def _declared(name: str):
    """The options a shipped dataset declares in its registry entry (negviz.datasets)."""
    from negviz.datasets import DATASETS

    return DATASETS.entry(name).meta.get("options", ())


def load_nevir(spec: DatasetSpec) -> tuple[pd.DataFrame, str]:
    check_options(spec, ())
    split = _SPLIT_ALIASES.get(spec.split, spec.split)
    if split not in NEVIR_SPLITS:
        check_split(spec, NEVIR_SPLITS)
    if split != "test":
        from negviz.datasets.hub import load_nevir_split

        frame = load_nevir_split(split)
        note = f"NevIR {split} split from the Hub (orionweller/NevIR); no cue."
        return apply_limit(frame, PAIRS_KIND, spec.limit), note
    frame = apply_limit(read_shipped("nevir"), PAIRS_KIND, spec.limit)
    return frame, "cue, edit_type, d1_is_original and d2_is_edited come from the CondaQA join."


def load_excluir(spec: DatasetSpec) -> tuple[pd.DataFrame, str]:
    check_options(spec, ())
    check_split(spec, ("test",))
    frame = apply_limit(read_shipped("excluir"), EXCLUSION_KIND, spec.limit)
    return frame, "Seed-42 sample of 1,000 manual test queries; no corpus, so Right Rank only."


def load_demetr(spec: DatasetSpec) -> tuple[pd.DataFrame, str]:
    opts = check_options(spec, _declared("demetr"))
    check_split(spec, ("test",))
    frame = read_shipped("demetr")
    notes = []
    if opts.get("perturbations") is not None:
        wanted = choose("DEMETR perturbation", list_option(opts["perturbations"]), frame["perturbation"].unique())
        frame = frame[frame["perturbation"].isin(wanted)]
        notes.append(f"perturbations {', '.join(wanted)}")
    # Limit before the checked filter, so every perturbation draws on the same item ids.
    frame = apply_limit(frame.reset_index(drop=True), PERTURBATION_KIND, spec.limit)
    if opts.get("checked_only", False):
        dropped = int((~frame["checked"]).sum())
        frame = frame[frame["checked"]].reset_index(drop=True)
        notes.append(f"checked_only dropped {dropped} items that were not really perturbed")
    return frame, "; ".join(notes)


# CANNOT has one split; negviz cuts a seeded held-out part off it (by sentence1, so no held-out
# sentence was trained on) for models trained on the rest (negminilm): "train" and "heldout".
CANNOT_SPLITS = ("test", "train", "heldout")
CANNOT_HELDOUT_FRACTION, CANNOT_HELDOUT_SEED = 0.1, 0


def cannot_heldout_mask(
    frame: pd.DataFrame, fraction: float = CANNOT_HELDOUT_FRACTION, seed: int = CANNOT_HELDOUT_SEED
) -> pd.Series:
    """True for the rows of the held-out part: a seeded share of the distinct sentence1 texts."""
    import numpy as np

    unique = np.array(sorted(frame["sentence1"].unique()))
    held = set(np.random.default_rng(seed).permutation(unique)[: int(round(fraction * len(unique)))])
    return frame["sentence1"].isin(held)


def load_cannot(spec: DatasetSpec) -> tuple[pd.DataFrame, str]:
    opts = check_options(spec, _declared("cannot"))
    check_split(spec, CANNOT_SPLITS)
    frame = read_shipped("cannot")
    notes = "label: 1 = sentence2 negates sentence1, 0 = paraphrase (raw CANNOT meaning)"
    if spec.split != "test":  # split before the sources filter, so the parts do not depend on it
        held = cannot_heldout_mask(frame)
        frame = frame[held if spec.split == "heldout" else ~held].reset_index(drop=True)
        notes += (
            f"; {spec.split} part: {'' if spec.split == 'heldout' else 'all but '}a seeded "
            f"{CANNOT_HELDOUT_FRACTION:.0%} of the sentence1 texts (seed {CANNOT_HELDOUT_SEED}), "
            "held out from negminilm's training"
        )
    if opts.get("sources") is not None:
        wanted = choose("CANNOT source", list_option(opts["sources"]), frame["source"].unique())
        frame = frame[frame["source"].isin(wanted)].reset_index(drop=True)
        notes += f"; sources {', '.join(wanted)}"
    return apply_limit(frame, SENTENCE_PAIRS_KIND, spec.limit), notes
