"""Live scoring of typed inputs: score grids with verdicts, document cosines, demo presets.

The convention of every grid: query i is answered by document i (NevIR: q1 -> d1, q2 -> d2;
ExcluIR: the query -> its positive document, d2 = the excluded one); further documents are
distractors. A query's verdict is strict, as in the NevIR code: its document must score
above every other document (a tie is a failure).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from negviz.core import metrics, outcomes
from negviz.core.kinds import EXCLUSION_KIND, PAIRS_KIND, DatasetKind
from negviz.core.schema import EXCLUSION, PAIRS
from negviz.scorers import LATE_INTERACTION as LATE_INTERACTION_ARCH
from negviz.scorers import families_of_architecture

LATE_INTERACTION = families_of_architecture(LATE_INTERACTION_ARCH)  # maxsim, colbert
DEFAULT_MODELS = (
    "all-MiniLM-L6-v2",
    "negminilm",
    "maxsim-all-MiniLM-L6-v2",
    "ms-marco-MiniLM-L-12-v2-int8",
    "tfidf",
    "bm25",
)
TEXT_LIMIT = 5000  # characters per typed text (the pages say when they cut one)
# The typed example both explore pages open with (NevIR's shape: q1 -> d1, q2 -> d2): NevIR pair
# 1283-3, where all-MiniLM-L6-v2 is fooled by "not" on q2 and NegMiniLM ranks both right.
SAMPLE_PAIR = ("nevir", "1283-3")  # the stored pair of SAMPLE: the MaxSim explorer opens on it
SAMPLE = {
    "q1": "Which volcano is unique because of producing both basaltic and silicic lava?",
    "q2": "Which volcano is not unique because of producing both basaltic and silicic lava?",
    "d1": "The Long Valley volcano is unusual in that it has produced eruptions of both basaltic and silicic "
    "lava in the same geological place.",
    "d2": "The Long Valley volcano has produced eruptions of both basaltic and silicic lava, but this is hardly "
    "surprising given that the volcano's location has shifted along with the plates.",
}


# ---------------------------------------------------------------- which models can run here
def model_table(
    catalog: pd.DataFrame, families: Sequence[str] | None = None, offline: Callable[[str], bool] | None = None
) -> pd.DataFrame:
    """Catalog rows (optionally of some families) with an ``available`` column: loads without
    network (file-less families, a local Hugging Face cache or a bundled copy). ``offline``:
    hub id -> available (default scorers.loading.is_available_offline; the app passes a cached one)."""
    from negviz.evaluation.catalog import loads_here

    rows = catalog if families is None else catalog[catalog["family"].isin(families)]
    rows = rows.copy()
    rows["available"] = [loads_here(fam, hub, offline) for fam, hub in zip(rows["family"], rows["hub_id"])]
    return rows


def late_interaction_spec(text: str) -> str:
    """A model the explorer can draw: a local sentence-transformers folder (e.g. a fine-tuned
    checkpoint) becomes MaxSim over its tokens; specs with a family are kept as typed."""
    from negviz.core.schema import ModelSpec
    from negviz.evaluation.catalog import catalog_row, guess_family

    spec = ModelSpec.parse(text)
    if spec.family or catalog_row(spec.name):
        return text.strip()
    family = guess_family(spec.name)
    if family in (None, "bi-encoder"):  # a bi-encoder's token vectors are its encoder's last layer
        return str(ModelSpec(spec.name, "maxsim", spec.revision, spec.options))
    return str(ModelSpec(spec.name, family, spec.revision, spec.options))


# ---------------------------------------------------------------- scoring a grid
def score_grid(scorer: Any, queries: Sequence[str], docs: Sequence[str]) -> np.ndarray:
    """scores[i, j] = s(queries[i], docs[j]), in one scorer call (BM25's collection = these docs)."""
    qs = [q for q in queries for _ in docs]
    ds = [d for _ in queries for d in docs]
    return np.asarray(scorer.score(qs, ds), dtype=np.float64).reshape(len(queries), len(docs))


def grid_verdicts(grid: np.ndarray) -> pd.DataFrame:
    """Per query i (answered by document i): its score, the best other score, the margin and
    whether it is ranked first (strict). ``pair_correct``: every query right (NevIR's pair)."""
    grid = np.asarray(grid, dtype=np.float64)
    n_q, n_d = grid.shape
    if n_d < 2 or n_q > n_d:
        raise ValueError(f"a grid needs at least two documents and one per query, not {n_q} x {n_d}")
    own = grid[np.arange(n_q), np.arange(n_q)]
    others = np.array([np.delete(grid[i], i).max() for i in range(n_q)])
    margin = own - others
    out = pd.DataFrame(
        {
            "query": [f"q{i + 1}" for i in range(n_q)],
            "document": [f"d{i + 1}" for i in range(n_q)],
            "score": own,
            "best_other": others,
            "margin": margin,
            "correct": margin > 0,
        }
    )
    out["pair_correct"] = bool(out["correct"].all())
    return out


def grid_verdict_table(grid: np.ndarray, queries: Sequence[str], docs: Sequence[str]) -> pd.DataFrame:
    """A grid as the pages show it: one row per query, its scores, the document it ranks
    first, and whether that is its own (strict); ``pair`` when there are several queries."""
    v = grid_verdicts(grid)
    table = pd.DataFrame({"query": list(queries)})
    for j, name in enumerate(docs):
        table[f"S(q, {name})"] = grid[:, j]
    table["ranked first"] = [docs[int(np.argmax(row))] if len(set(row)) > 1 else "tie" for row in grid]
    table["verdict"] = np.where(v["correct"], "right", "wrong")
    if len(queries) > 1:
        table["pair"] = "right" if v["pair_correct"].iloc[0] else "wrong"
    return table


def nevir_verdict(grid: np.ndarray) -> pd.Series:
    """The NevIR verdict of a 2 x 2 grid through negviz.core.metrics (category included)."""
    v = metrics.pair_verdicts([grid[0, 0]], [grid[0, 1]], [grid[1, 0]], [grid[1, 1]])
    return v.iloc[0]


def doc_cosines(scorer: Any, docs: Sequence[str]) -> np.ndarray | None:
    """Cosine between every two documents for a model with document embeddings, else None.
    (NevIR App. C: a bi-encoder sees the two documents of a pair as nearly the same.)"""
    if not callable(getattr(scorer, "embed", None)):
        return None
    vecs = np.asarray(scorer.embed(list(docs), "document"), dtype=np.float64)
    vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    return vecs @ vecs.T


def results_table(
    grids: dict[str, np.ndarray], version: str | None = None, units: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """Long table of model x query with each document's score, margin and verdict; with ``units``
    (model -> what its score is, negviz.scorers.score_unit) the unit of its scores and margins."""
    rows = []
    for model, grid in grids.items():
        verdicts = grid_verdicts(grid)
        for i, v in verdicts.iterrows():
            row = {"model": model, "query": v["query"]}
            row.update({f"d{j + 1}": grid[i, j] for j in range(grid.shape[1])})
            row.update({"margin": v["margin"], "correct": bool(v["correct"])})
            if units is not None:
                row["unit"] = units.get(model, "score")
            if version:
                row["version"] = version
            rows.append(row)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- demo presets
@dataclass(frozen=True)
class Preset:
    key: str  # "nevir:1230-2" / "excluir:excluir_31": also the explorer link
    label: str  # short button text
    why: str  # one line: what the stored runs say
    queries: tuple[str, ...]
    docs: tuple[str, ...]
    cue: str = ""


def _right(kind: DatasetKind, ids: pd.Index, scores: pd.DataFrame, rule: str) -> pd.Series:
    """Per item: right (True), wrong (False) or not scored (NaN), under the run's tie rule (negviz.core.outcomes)."""
    scored = scores.reindex(ids).dropna()
    verdicts = outcomes.item_outcomes(kind, scored, rule)
    return verdicts.set_index("item_id")["correct"].reindex(ids.astype(str))


def _wrong_for_all(
    kind: DatasetKind, ids: pd.Index, wide: Mapping[str, pd.DataFrame], rules: Mapping[str, str] | None = None
) -> np.ndarray:
    """Whether every model gets each item wrong (negviz.core.outcomes, under each run's tie rule; an
    item a model did not score is not wrong)."""
    failing = np.ones(len(ids), dtype=bool)
    for model, scores in wide.items():
        right = _right(kind, ids, scores, (rules or {}).get(model, metrics.STRICT))
        failing &= ~right.fillna(True).astype(bool).to_numpy()
    return failing


def nevir_presets(
    frame: pd.DataFrame,
    wide: dict[str, pd.DataFrame],
    cue: str | None = "not",
    n: int = 4,
    name: str = "nevir",
    title: str = "NevIR",
    rules: Mapping[str, str] | None = None,
) -> list[Preset]:
    """NevIR-style pairs with gold cue ``cue`` (any pair when None or the data has no cue) that
    every model in ``wide`` (model -> stored scores, indexed by pair_id, slots q1_d1 ...) gets
    wrong under its run's tie rule (``rules``: model -> rule, default strict); shortest
    documents first (readable in a demo)."""
    has_cue = cue is not None and "cue" in frame
    pool = (frame[frame["cue"].astype(str).str.lower() == cue.lower()] if has_cue else frame).set_index("pair_id")
    picked = pool[_wrong_for_all(PAIRS_KIND, pool.index, wide, rules)].assign(
        length=lambda f: f["d1"].str.len() + f["d2"].str.len()
    )
    picked = picked.sort_values(["length"], kind="stable")
    if "passage_id" in picked:  # one pair per CondaQA passage: more variety in a small gallery
        picked = picked[~picked["passage_id"].duplicated()]
    picked = picked.head(n)
    names = " and ".join(wide) or "no stored run"
    return [
        Preset(
            f"{name}:{pid}",
            f"{title} {pid}: {_short(r['q1'])}",
            (f"cue '{r['cue']}'; " if has_cue else "") + f"wrong for {names}",
            (r["q1"], r["q2"]),
            (r["d1"], r["d2"]),
            str(r["cue"]) if has_cue else "",
        )
        for pid, r in picked.iterrows()
    ]


def excluir_presets(
    frame: pd.DataFrame, wide: dict[str, pd.DataFrame], n: int = 2, name: str = "excluir", title: str = "ExcluIR"
) -> list[Preset]:
    """ExcluIR queries whose excluded document every model in ``wide`` ranks above the positive."""
    pool = frame.set_index("query_id")
    picked = pool[_wrong_for_all(EXCLUSION_KIND, pool.index, wide)].assign(
        length=lambda f: f["pos_doc"].str.len() + f["neg_doc"].str.len()
    )
    picked = picked.sort_values("length", kind="stable").head(n)
    names = " and ".join(wide) or "no stored run"
    return [
        Preset(
            f"{name}:{qid}",
            f"{title}: {_short(r['query'])}",
            f"excluded document ranked first by {names}",
            (r["query"],),
            (r["pos_doc"], r["neg_doc"]),
        )
        for qid, r in picked.iterrows()
    ]


# Pairs every one of these gets wrong start the demo; the contrast presets add pairs the
# cross-encoder (query and document read together) gets right and every bi-encoder gets wrong.
FAILING_MODELS = ("all-MiniLM-L6-v2", "maxsim-all-MiniLM-L6-v2")
CONTRAST_RIGHT = ("ms-marco-MiniLM-L-12-v2-int8",)
CONTRAST_WRONG = ("all-MiniLM-L6-v2", "all-mpnet-base-v2", "bge-small-en-v1.5-int8")
PRESET_MODELS = tuple(dict.fromkeys(FAILING_MODELS + CONTRAST_RIGHT + CONTRAST_WRONG))
PRESET_PICKERS = {"nevir": nevir_presets, "excluir": excluir_presets}


def contrast_presets(
    frame: pd.DataFrame, wide: Mapping[str, pd.DataFrame], n: int = 2, rules: Mapping[str, str] | None = None
) -> list[Preset]:
    """NevIR pairs that every CONTRAST_RIGHT model gets right and every CONTRAST_WRONG model gets
    wrong (each under its run's tie rule), shortest first; none unless all those models have runs."""
    right_models = [m for m in CONTRAST_RIGHT if m in wide]
    wrong_models = [m for m in CONTRAST_WRONG if m in wide]
    if len(right_models) < len(CONTRAST_RIGHT) or len(wrong_models) < len(CONTRAST_WRONG):
        return []
    pool = frame.set_index("pair_id")
    keep = _wrong_for_all(PAIRS_KIND, pool.index, {m: wide[m] for m in wrong_models}, rules)
    for m in right_models:
        keep &= (
            _right(PAIRS_KIND, pool.index, wide[m], (rules or {}).get(m, metrics.STRICT))
            .fillna(False)
            .astype(bool)
            .to_numpy()
        )
    picked = (
        pool[keep].assign(length=lambda f: f["d1"].str.len() + f["d2"].str.len()).sort_values("length", kind="stable")
    )
    return [
        Preset(
            f"nevir:{pid}",
            f"Cross-encoder right: {_short(r['q1'])}",
            f"cue '{r['cue']}'; right for {' and '.join(right_models)}, wrong for {', '.join(wrong_models)}",
            (r["q1"], r["q2"]),
            (r["d1"], r["d2"]),
            str(r["cue"]),
        )
        for pid, r in picked.head(n).iterrows()
    ]


def stored_presets(
    frames: Mapping[str, pd.DataFrame],
    wide: Mapping[str, Mapping[str, pd.DataFrame]],
    n_nevir: int = 4,
    n_excluir: int = 2,
    added: tuple[str, str] | None = None,
    rules: Mapping[str, Mapping[str, str]] | None = None,
) -> list[Preset]:
    """Presets picked by stored runs' real scores: NevIR pairs with cue "not" and ExcluIR
    queries that every model gets wrong; with ``added`` (name, kind) also the items of that added
    pairs or exclusion dataset every model gets wrong. ``frames``: dataset -> its frame; ``wide``:
    dataset -> model -> Store.scores_wide of the run that stands for the model (datasets without
    runs are left out); ``rules``: dataset -> model -> the run's tie rule."""
    rules = rules or {}
    out: list[Preset] = []
    failing = lambda models: {m: w for m, w in models.items() if m in FAILING_MODELS}  # noqa: E731
    if wide.get("nevir"):
        out += nevir_presets(frames["nevir"], failing(wide["nevir"]), n=n_nevir, rules=rules.get("nevir"))
        taken = {p.key for p in out}  # a pair both lists pick is shown once (keys are widget keys too)
        out += [
            p
            for p in contrast_presets(frames["nevir"], wide["nevir"], n=8, rules=rules.get("nevir"))
            if p.key not in taken
        ][:2]
    if wide.get("excluir"):
        out += excluir_presets(frames["excluir"], failing(wide["excluir"]), n=n_excluir)
    if added is not None and wide.get(added[0]) and added[1] in (PAIRS, EXCLUSION):
        name, kind = added
        if kind == PAIRS:
            out += nevir_presets(
                frames[name],
                failing(wide[name]) or dict(wide[name]),
                cue=None,
                n=n_nevir,
                name=name,
                title=name,
                rules=rules.get(name),
            )
        else:
            out += excluir_presets(
                frames[name], failing(wide[name]) or dict(wide[name]), n=n_nevir, name=name, title=name
            )
    return out


def _short(text: str, words: int = 7) -> str:
    """The first words of a text for a button label (markdown characters dropped)."""
    parts = text.translate({ord(c): None for c in "*_`[]<>#$~|\\"}).split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def clip(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters (the pages say so when it happens)."""
    return (text[:limit], True) if len(text) > limit else (text, False)
