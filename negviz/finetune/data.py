"""Training and held-out pairs for fine-tuning, and the triplets and batches made from them.

Sources (FinetuneSpec.train; each declared once in negviz.datasets.training, loaded here):
- ``nevir-train``: NevIR train from the Hub (needs network); held out: the shipped NevIR test.
- ``nevir-split``: offline. The shipped NevIR test split, seeded, into passage-disjoint parts
  (CondaQA passage ids: every pair of a passage lands on the same side), so no held-out
  document was seen in training.
- a pairs file: split the same way (by ``passage_id`` when the file has one, else by pair).
- ``auto``: ``nevir-train`` when the Hub is reachable, else ``nevir-split``.
``heldout`` overrides the held-out set with a pairs file or ``nevir`` (the shipped test).

Sentence data gives (anchor, positive, negative) triplets instead of pairs (``TrainingData.kind``):
- ``cannot``: offline. The shipped CANNOT files' negated pairs (label 1) of the dataset's
  ``train`` part; held out: its ``heldout`` part (the same seeded rule as
  ``negviz eval --dataset cannot --split heldout``). The per-source files carry no paraphrases,
  so the positive is the sentence itself, encoded a second time under dropout (SimCSE-style),
  and its negation is the hard negative: the loss pulls a sentence to itself and pushes its
  negation (and the batch's other sentences) away. The provenance records this.
- ``excluir-split``: offline. The shipped ExcluIR sample as (query, document to retrieve,
  excluded document) triplets, split by query (seeded); held-out triplets sharing a text with
  training are dropped. Held out: Right Rank of the held-out queries.
- a triplet file (``train_kind="triplets"``; the HedgeTriple layout): columns anchor, positive,
  negative (or a mapping, e.g. ``anchor=premise,positive=hypothesis,negative=contradiction``),
  CSV/TSV/JSONL/Parquet, validated as datasets are; split by anchor, seeded.

Every figure states the split: ``TrainingData.note``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from negviz.core.errors import DataValidationError, NegvizError
from negviz.core.schema import EXCLUSION, PAIRS, DatasetSpec
from negviz.datasets.training import AUTO, CANNOT, EXCLUIR_SPLIT, NEVIR_SPLIT, NEVIR_TRAIN, SOURCES
from negviz.finetune.spec import FinetuneSpec

GROUP_COLUMN = "passage_id"


@dataclass
class TrainingData:
    train: pd.DataFrame  # pairs: pair_id, q1, d1, q2, d2 (+ metadata)
    heldout: pd.DataFrame
    source: str  # resolved source: nevir-split, nevir-train or the file path
    note: str  # one line for every figure, e.g. "offline split: NevIR test, passage-disjoint 70/30, ..."
    provenance: dict[str, Any]  # what the run key needs: source, split rule, sizes, file hashes
    heldout_spec: DatasetSpec  # the dataset whose rows the held-out pairs are (texts for pair cards)
    kind: str = PAIRS  # PAIRS, or TRIPLETS: train/heldout hold item_id, anchor, positive, negative

    @property
    def dataset_name(self) -> str:
        """The store's dataset_name for the run. Deliberately not a shipped dataset's name:
        a fine-tuning run is not a run on all of NevIR, so pages that list NevIR runs skip it."""
        return f"finetune:{self.provenance['heldout_name']}"


# The sizes in a run's note, in words; notes stored before they were (a shipped run's) said
# "n_train=400, n_heldout=412": readable_note rewrites those as a new note says them.
SIZE_WORDS = {"n_train=": "training items ", "n_heldout=": "held-out items "}


def sizes_note(n_train: int, n_heldout: int, of: list[str]) -> str:
    """e.g. "training items 400 (first 400 of 969), held-out items 412"; ``of``: each size's
    "(first n of N)" note or ""."""
    (train_words, held_words) = SIZE_WORDS.values()
    return f"{train_words}{n_train:,}{of[0]}, {held_words}{n_heldout:,}{of[1]}"


def readable_note(note: str) -> str:
    """A stored run note as a person reads it (an older note's option-style sizes in words)."""
    for key, words in SIZE_WORDS.items():
        note = note.replace(key, words)
    return note


def resolve_source(train: str) -> str:
    if train != AUTO:
        return train
    from negviz.datasets.hub import hub_reachable, offline

    return NEVIR_TRAIN if not offline() and hub_reachable() else NEVIR_SPLIT


def as_trained(spec: FinetuneSpec, data: TrainingData) -> FinetuneSpec:
    """The spec a run stores (its key, options, checkpoint file and shipped delta): ``auto``
    replaced by the source it resolved to, so what a checkpoint trained on is read from the spec
    (catalog.checkpoint_training, the held-out rule, the board, the drift page) and a resumed or
    repeated run trains on the same data. The request stays visible in the note (``AUTO_CHOSE``)."""
    return spec.with_(train=data.source) if spec.train == AUTO else spec


AUTO_CHOSE = "chosen by --train auto"


def group_split(frame: pd.DataFrame, fraction: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(train, held-out): a seeded share ``fraction`` of the groups (passage_id, else pair_id)
    is held out, so both sides never share a passage."""
    groups = frame[GROUP_COLUMN] if GROUP_COLUMN in frame.columns else frame["pair_id"]
    groups = groups.astype(str)
    unique = np.array(sorted(groups.unique()))
    if len(unique) < 2:
        raise NegvizError("cannot split fewer than two passages into training and held-out parts")
    rng = np.random.default_rng(seed)
    n_held = min(max(1, int(round(fraction * len(unique)))), len(unique) - 1)
    held = set(rng.permutation(unique)[:n_held])
    mask = groups.isin(held).to_numpy()
    return frame[~mask].reset_index(drop=True), frame[mask].reset_index(drop=True)


def _load_pairs(name: str, columns: str | None = None, split: str = "test"):
    from negviz.datasets import load

    options = {"columns": columns} if columns else {}
    ds = load(DatasetSpec.make(name, split, None, **options))
    if ds.kind.name != PAIRS:
        raise NegvizError(f"{name} holds {ds.kind.name}, not pairs (q1, d1, q2, d2): fine-tuning needs pairs")
    return ds


def _limit(frame: pd.DataFrame, n: int | None) -> pd.DataFrame:
    return frame if n is None else frame.iloc[: int(n)].reset_index(drop=True)


TRIPLETS = "triplets"
TRIPLET_COLUMNS = ("item_id", "anchor", "positive", "negative")
# A triplet file is read as the exclusion kind (query, positive document, excluded document).
_AS_EXCLUSION = {"item_id": "query_id", "anchor": "query", "positive": "pos_doc", "negative": "neg_doc"}
SELF_POSITIVE = (
    "the sentence itself, encoded a second time under dropout (SimCSE-style): the CANNOT "
    "per-source files carry no paraphrases"
)


HEDGE_TRIPLE = "hf:joey234/hedge_triple"  # HedgeMPNet's HedgeTriple on the Hub (anchor, positive, negative)


def load_triplet_file(path: str, columns: str | None = None):
    """A triplet file as a frame (item_id, anchor, positive, negative, ...), with the datasets'
    checks and messages; ``columns`` maps anchor/positive/negative (and item_id) to the file's.
    ``hf:OWNER/NAME[:SPLIT]`` (e.g. HEDGE_TRIPLE; split train by default) reads a Hub dataset."""
    from negviz.datasets import load_file
    from negviz.datasets.userfile import parse_columns

    if str(path).startswith("hf:"):
        path = hub_copy(path if ":" in path[3:] else f"{path}:train")

    mapping = {target: target for target in ("anchor", "positive", "negative")}
    mapping.update(parse_columns(columns, path))
    unknown = sorted(set(mapping) - set(_AS_EXCLUSION))
    if unknown:
        raise DataValidationError(
            f"the column mapping names {unknown[0]!r}; a triplet file maps {', '.join(_AS_EXCLUSION)}.", file=path
        )
    if "item_id" not in mapping and not _file_has(path, "item_id"):
        mapping.pop("item_id", None)
    ds = load_file(path, EXCLUSION, {_AS_EXCLUSION[k]: v for k, v in mapping.items()}, number_rows=True)
    frame = ds.frame.rename(columns={v: k for k, v in _AS_EXCLUSION.items()})
    return frame, ds


def hub_copy(ref: str) -> str:
    """A Hub dataset split as a Parquet file in the cache folder, so it is read, checked and
    hashed like any triplet file (negviz.datasets.hub: offline, a clear message at once)."""
    from negviz.core.cache import default_cache_dir
    from negviz.datasets.hub import hub_file

    data, name = hub_file(ref)
    out = default_cache_dir() / "hub" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    return str(out)


def _file_has(path: str, column: str) -> bool:
    from pathlib import Path

    from negviz.datasets.formats import infer_format, read_frame

    p = Path(path)
    return p.is_file() and column in read_frame(p, infer_format(p, None), path).columns


def cannot_triplets(frame: pd.DataFrame) -> pd.DataFrame:
    """CANNOT rows -> triplets (sentence, sentence, its negation) of the negated pairs (label 1)."""
    neg = frame[frame["label"] == 1]
    return pd.DataFrame(
        {
            "item_id": neg["pair_id"].astype(str).to_numpy(),
            "anchor": neg["sentence1"].to_numpy(),
            "positive": neg["sentence1"].to_numpy(),
            "negative": neg["sentence2"].to_numpy(),
            "source": neg["source"].to_numpy(),
        }
    )


def excluir_triplets(frame: pd.DataFrame) -> pd.DataFrame:
    """ExcluIR rows -> triplets (query, the document to retrieve, the document it excludes)."""
    return pd.DataFrame(
        {
            "item_id": frame["query_id"].astype(str).to_numpy(),
            "anchor": frame["query"].to_numpy(),
            "positive": frame["pos_doc"].to_numpy(),
            "negative": frame["neg_doc"].to_numpy(),
        }
    )


def _excluir_split(spec: FinetuneSpec) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """(train, held-out, dropped): the shipped ExcluIR sample split by query, seeded; a held-out
    triplet whose document or excluded document was trained on is dropped (ExcluIR queries
    share documents), so no held-out text was seen in training."""
    from negviz.datasets import load

    triplets = excluir_triplets(load(DatasetSpec.make("excluir")).frame)
    grouped = triplets.assign(passage_id=triplets["item_id"], pair_id=triplets["item_id"])
    train, heldout = (
        f.drop(columns=["passage_id", "pair_id"]) for f in group_split(grouped, spec.heldout_fraction, spec.seed)
    )
    seen = set(train["anchor"]) | set(train["positive"]) | set(train["negative"])
    leaked = (heldout["positive"].isin(seen) | heldout["negative"].isin(seen) | heldout["anchor"].isin(seen)).to_numpy()
    return train, heldout[~leaked].reset_index(drop=True), int(leaked.sum())


def _triplet_data(spec: FinetuneSpec, source: str) -> TrainingData:
    from negviz.datasets import load

    dropped = 0
    if source == EXCLUIR_SPLIT:
        train, heldout, dropped = _excluir_split(spec)
        held_spec = DatasetSpec.make("excluir")
        pct = f"{round(100 * (1 - spec.heldout_fraction))}/{round(100 * spec.heldout_fraction)}"
        what = f"offline split: ExcluIR sample, query-disjoint {pct}, seed {spec.seed}"
        prov: dict[str, Any] = {
            "source": EXCLUIR_SPLIT,
            "split": "query-disjoint",
            "heldout_fraction": spec.heldout_fraction,
            "heldout_name": "excluir-heldout",
            "positive": "the document to retrieve (pos_doc)",
            "hard_negative": "the document the query excludes (neg_doc)",
            "dropped_heldout_triplets": dropped,
        }
    elif source == CANNOT:
        train = cannot_triplets(load(DatasetSpec.make("cannot", "train")).frame)
        held_spec = DatasetSpec.make("cannot", "heldout")
        heldout = cannot_triplets(load(held_spec).frame)
        what = "CANNOT per-source files, negated pairs; held out: the dataset's seeded 'heldout' part (by sentence1)"
        prov = {
            "source": CANNOT,
            "split": "cannot heldout (seeded by sentence1)",
            "heldout_name": "cannot-heldout",
            "positive": SELF_POSITIVE,
            "hard_negative": "the sentence's negation (CANNOT label 1)",
        }
    else:
        frame, ds = load_triplet_file(source, spec.columns)
        label = ds.spec.name.rsplit("/", 1)[-1]
        groups = frame.assign(passage_id=frame["anchor"], pair_id=frame["item_id"])
        train, heldout = group_split(groups, spec.heldout_fraction, spec.seed)
        train, heldout = train.drop(columns=["passage_id", "pair_id"]), heldout.drop(columns=["passage_id", "pair_id"])
        held_spec = ds.spec
        pct = f"{round(100 * (1 - spec.heldout_fraction))}/{round(100 * spec.heldout_fraction)}"
        what = f"triplets of {label}, anchor-disjoint {pct}, seed {spec.seed}"
        prov = {
            "source": source,
            "file_hash": ds.spec.opts.get("file_hash"),
            "split": "anchor-disjoint",
            "heldout_fraction": spec.heldout_fraction,
            "heldout_name": f"{label}-heldout",
            "positive": "the file's positive",
            "hard_negative": "the file's negative",
        }
    full = (len(train), len(heldout))
    # Triplets in a seeded order (files are often sorted by source), so the limits take seeded
    # samples of all sources; batches are shuffled anyway.
    train, heldout = (f.sample(frac=1.0, random_state=spec.seed).reset_index(drop=True) for f in (train, heldout))
    train, heldout = _limit(train, spec.limit_train), _limit(heldout, spec.limit_heldout)
    of = [
        f" (seeded sample {n:,} of {whole:,})" if n < whole else ""
        for n, whole in zip((len(train), len(heldout)), full)
    ]
    prov.update(n_train=len(train), n_heldout=len(heldout), loss="MultipleNegativesRankingLoss with hard negatives")
    note = f"{what}, {sizes_note(len(train), len(heldout), of)}"
    if dropped:
        note += f" ({dropped} held-out triplets sharing a text with training dropped)"
    return TrainingData(
        train.reset_index(drop=True), heldout.reset_index(drop=True), source, note, prov, held_spec, TRIPLETS
    )


def load_training_data(spec: FinetuneSpec) -> TrainingData:
    source = resolve_source(spec.train)
    if (source in SOURCES and SOURCES[source].triplets) or spec.train_kind == TRIPLETS:
        return _triplet_data(spec, source)
    pct = f"{round(100 * (1 - spec.heldout_fraction))}/{round(100 * spec.heldout_fraction)}"
    prov: dict[str, Any] = {"source": source}
    if source == NEVIR_TRAIN:
        train = _load_pairs("nevir", split="train").frame
        heldout, what, held_spec = None, "NevIR train (Hub)", DatasetSpec.make("nevir")
        prov["heldout_name"] = "nevir"
    else:
        if source == NEVIR_SPLIT:
            ds, what, label = _load_pairs("nevir"), "offline split: NevIR test", "nevir"
        else:
            ds = _load_pairs(source, spec.columns)
            what, label = f"split of {ds.spec.name.rsplit('/', 1)[-1]}", ds.spec.name.rsplit("/", 1)[-1]
            prov["file_hash"] = ds.spec.opts.get("file_hash")
        held_spec = ds.spec
        by = "passage" if GROUP_COLUMN in ds.frame.columns else "pair"
        train, heldout = group_split(ds.frame, spec.heldout_fraction, spec.seed)
        what = f"{what}, {by}-disjoint {pct}, seed {spec.seed}"
        prov.update(split=f"{by}-disjoint", heldout_fraction=spec.heldout_fraction, heldout_name=f"{label}-heldout")
    if spec.heldout is not None:
        ds = _load_pairs(spec.heldout, spec.columns if spec.heldout != "nevir" else None)
        heldout, held_spec = ds.frame, ds.spec
        prov["heldout_name"] = ds.spec.name.rsplit("/", 1)[-1]
        prov["heldout_hash"] = ds.spec.opts.get("file_hash")
        what += f"; held out: {prov['heldout_name']}"
    elif heldout is None:
        heldout = _load_pairs("nevir").frame
        what += "; held out: NevIR test"
    full = (len(train), len(heldout))
    train, heldout = _limit(train, spec.limit_train), _limit(heldout, spec.limit_heldout)
    of = [f" (first {n:,} of {whole:,})" if n < whole else "" for n, whole in zip((len(train), len(heldout)), full)]
    # A document can recur under another passage id: such held-out pairs are dropped, so no
    # held-out document was ever trained on.
    seen = set(train["d1"]) | set(train["d2"])
    leaked = (heldout["d1"].isin(seen) | heldout["d2"].isin(seen)).to_numpy()
    heldout = heldout[~leaked].reset_index(drop=True)
    prov.update(n_train=len(train), n_heldout=len(heldout), dropped_heldout_pairs=int(leaked.sum()))
    note = f"{what}, {sizes_note(len(train), len(heldout), of)}"
    if leaked.any():
        note += f" ({int(leaked.sum())} held-out pairs sharing a document with training dropped)"
    if spec.train == AUTO:
        note += f"; {source} {AUTO_CHOSE}"
    return TrainingData(train, heldout, source, note, prov, held_spec)


# ---------------------------------------------------------------- batches
Pair = tuple[str, str, str, str]  # (q1, d1, q2, d2)


def pair_tuples(frame: pd.DataFrame) -> list[Pair]:
    return list(frame[["q1", "d1", "q2", "d2"]].itertuples(index=False, name=None))


def triplets(pairs: list[Pair]) -> tuple[list[str], list[str], list[str]]:
    """(queries, positives, hard negatives) of a batch of pairs: (q1, d1, d2) for every pair,
    then (q2, d2, d1). Each document is a positive once and a hard negative once, so every
    document of the batch appears exactly twice among the candidates; the softmax's
    denominator doubles for all alike, which adds the constant log 2 to the loss and changes
    no gradient. Each document is therefore encoded once (``docs``) and used in both roles."""
    q1, d1, q2, d2 = (list(col) for col in zip(*pairs))
    return q1 + q2, d1 + d2, d2 + d1


Triplet = tuple[str, str, str]  # (anchor, positive, negative)


def triplet_tuples(frame: pd.DataFrame) -> list[Triplet]:
    return list(frame[["anchor", "positive", "negative"]].itertuples(index=False, name=None))


def triplet_batches(items: list[Triplet], batch_size: int, seed: int) -> list[list[Triplet]]:
    """Seeded batches of ``batch_size`` triplets, each used once per epoch (sentences are short:
    no length grouping)."""
    order = [int(i) for i in np.random.default_rng(seed).permutation(len(items))]
    return [[items[i] for i in order[k : k + batch_size]] for k in range(0, len(order), batch_size)]


def batches(pairs: list[Pair], batch_size: int, seed: int, pool: int = 8) -> list[list[Pair]]:
    """Seeded batches of ``batch_size // 2`` pairs (``batch_size`` triplets), each pair used
    once per epoch. Within each pool of ``pool`` batches the pairs are grouped by document
    length, so a batch pads little (documents dominate the cost); the batch order is shuffled."""
    rng = np.random.default_rng(seed)
    per = max(1, batch_size // 2)
    order = [int(i) for i in rng.permutation(len(pairs))]
    out: list[list[Pair]] = []
    for start in range(0, len(order), per * pool):
        chunk = sorted(order[start : start + per * pool], key=lambda i: -max(len(pairs[i][1]), len(pairs[i][3])))
        out += [[pairs[i] for i in chunk[k : k + per]] for k in range(0, len(chunk), per)]
    return [out[i] for i in rng.permutation(len(out))]
