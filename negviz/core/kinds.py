"""Dataset kinds: one registered object per kind holds everything that differs by kind.

How an item is identified, its columns and text groups, what gets scored (slots), its metrics,
how a verdict and an error category are made, how a run is summarised. Every place that used
to branch on a kind asks the registry instead, so a new kind is one ``register(DatasetKind(...))``
(tests/core/test_kinds.py registers a toy kind and runs it from a file to its outcomes):

    kind = kind_of("pairs")                   # a name becomes the object once, where it enters
    kind.item_ids(frame)                      # the score-frame id of each row
    kind.record(frame.iloc[0])                # one item as a typed record (Dataset.item(id))
    kind.outcomes(wide, rule)                 # per-item verdicts, margins and categories
    kind.summarize(frame, wide, rule, False)  # what a run stores
    metrics.metric(kind.metric).label         # "paired accuracy"

Code below the edges takes the object (``Dataset.kind``, ``DatasetFacts.kind``); the name
(``kind.name``) is what the store, specs, URLs and data tables hold. A public function that must
also take a name from a user accepts both through ``as_kind``.

Which pages draw a kind is declared by each page (negviz.ui.navigation.page_registry's ``kinds``, as LIT's
components declare what they are compatible with); their refusal names the kind's ``title``.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from negviz.core import metrics

PAIRS = "pairs"  # NevIR-style contrast pairs: q1 answered by d1 only, q2 by d2 only
EXCLUSION = "exclusion"  # ExcluIR-style: one query, a positive and an excluded document
PERTURBATION = "perturbation"  # DEMETR-style: reference, candidate and perturbed candidate
SENTENCE_PAIRS = "sentence_pairs"  # CANNOT-style: a sentence and its negation/paraphrase
CORPUS = "corpus"  # a document collection to retrieve from (doc_id, text, optional title); no slots

# DEMETR's empty baseline: m(reference, ".") (base_id33_empty uses "." as the translation).
EMPTY_CANDIDATE = "."
# DEMETR severities, in the order the NegBLEURT paper draws them.
SEVERITIES = ("critical", "major", "minor", "base")
# DEMETR's negation perturbation, NegBLEURT Fig. 4's negation column: a perturbation run's headline
# is its sensitivity ratio (negviz.evaluation.summaries.headline); the antonym swap is its foil.
NEGATION_PERTURBATION = "critical_id8_negation"
ANTONYM_PERTURBATION = "critical_id7_antonym"
WRONG = "wrong"  # ExcluIR: the excluded document ranked first; DEMETR: the perturbed one scored higher
OUTCOME_COLUMNS = ("item_id", "correct", "category", "margin1", "margin2", "margin")
# Each verdict category as a person reads it (tables, cards, legends: charts.per_type colours them)
CATEGORY_WORDS = {
    metrics.CORRECT: "correct",
    metrics.PREFERS_ORIGINAL: "prefers original (d1) for both",
    metrics.PREFERS_EDITED: "prefers edited (d2) for both",
    metrics.REVERSED: "both rankings reversed",
    WRONG: "wrong document first",
    metrics.TIE: "tie",
}


# The same, short, for a table that must fit beside five other columns at 1,000 px (the
# inspector's model table; its pair card names d1 and d2)
CATEGORY_SHORT = {
    metrics.PREFERS_ORIGINAL: "prefers d1",
    metrics.PREFERS_EDITED: "prefers d2",
    metrics.REVERSED: "reversed",
    WRONG: "wrong",
}


def category_words(category: str, short: bool = False) -> str:
    """A verdict category in words (an unknown one as it is); ``short``: its short form."""
    return (short and CATEGORY_SHORT.get(category)) or CATEGORY_WORDS.get(category, category)


Outcomes = Callable[["DatasetKind", pd.DataFrame, str], pd.DataFrame]
Summary = Callable[["DatasetKind", pd.DataFrame, pd.DataFrame, str, bool], dict]


@dataclass(frozen=True)
class ItemTexts:
    """One item's queries and documents as the explorers read them (the MaxSim explorer and the
    report's matrices): the documents' names, and the item's gold cue where it has one."""

    queries: list[str]
    docs: list[str]
    doc_names: list[str]
    gold: str | None = None


ItemTextsOf = Callable[[Mapping[str, Any]], ItemTexts]


@dataclass(frozen=True, eq=False, repr=False)  # one object per kind: compared and hashed by identity
class DatasetKind:
    """One kind of dataset. ``slots``: what gets scored per item, slot -> (query column, document
    column), a column starting with "=" being a literal text. ``categories``: the outcome
    categories, success first (empty: items are a similarity with no verdict). ``margin_slots``:
    per margin, (the slot that should win, the one it should beat)."""

    name: str
    title: str  # what a user calls such a dataset (messages, pickers, a page's refusal)
    columns: tuple[str, ...]  # required, in this order; loaders may add metadata after them
    id_column: str
    text_columns: tuple[str, ...]  # texts a model reads: non-empty strings
    help: str | None = None  # the columns as the Add-a-dataset page explains them; None: not addable
    slots: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    key_columns: tuple[str, ...] = ()  # what makes an item unique; default (id_column,)
    int_ids: bool = False  # ids that are all integers stay int (DEMETR's)
    # A column that types the items itself (DEMETR's perturbation): the heatmap's axis and the
    # sensitivity analyses, in place of negation-type labels (which such items do not get).
    typed_by: str | None = None
    limit_by: str | None = None  # a limit keeps the first N items of each group of this column
    # A score is a sentence similarity m(a, b) (DEMETR, CANNOT), not a retrieval score: a
    # bi-encoder uses cosine there unless told otherwise (negviz.evaluation.runner.metric_spec).
    sentence_similarity: bool = False
    defaults: Mapping[str, Any] = field(default_factory=dict)  # columns a user file may leave out
    column_types: Mapping[str, str] = field(default_factory=dict)  # other columns: text, str, bool or int
    categories: tuple[str, ...] = ()
    margin_slots: tuple[tuple[str, str | None], ...] = ()
    margin_labels: tuple[str | None, str | None] = (None, None)
    metric: str | None = None  # the headline metric a run reports (summaries.headline)
    item_metric: str | None = None  # the per-item success rate pages draw (None: no verdicts)
    detect_texts: tuple[tuple[str, str], ...] = ()  # text pairs the cue detector compares, in order
    detect_alone: str | None = None  # or the one text column whose own cue it finds (ExcluIR's query)
    query_verdicts: tuple[str, ...] = ()  # outcome columns of each query's own verdict (pairs: c1, c2)
    # The inspector's card: groups of text columns (a group of two is diffed when ``diffed``), what
    # each column is called, and per column a flag column that adds to its title when true.
    text_groups: tuple[tuple[str, ...], ...] = ()  # default: each text column alone
    diffed: bool = False
    column_titles: Mapping[str, str] = field(default_factory=dict)
    title_flags: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    verdict_columns: tuple[str, ...] = ()  # per model in the inspector; default: category and margin
    category_note: str = ""  # what the error page adds to the list of categories
    label_fields: tuple[str, ...] = ("negation_type", "validity")  # what an annotator says of an item
    outcomes_of: Outcomes | None = None
    summary_of: Summary | None = None
    # An item's queries and documents, for the explorers (None: its items hold none to pick)
    texts_of: ItemTextsOf | None = None
    item_noun: str = "item"  # what a picker of its items says ("pair", "query")

    def __repr__(self) -> str:
        return f"DatasetKind({self.name!r})"

    def __reduce__(self):  # a pickled kind (a cached Dataset, a worker's) comes back as the registered one
        return kind_of, (self.name,)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.key_columns or (self.id_column,)

    @property
    def card_groups(self) -> tuple[tuple[str, ...], ...]:
        return self.text_groups or tuple((c,) for c in self.text_columns)

    @property
    def verdict_table_columns(self) -> tuple[str, ...]:
        if self.verdict_columns:
            return self.verdict_columns
        return ("model", "category", "margin") if self.categories else ("model",)

    def column_title(self, column: str, row: Mapping[str, Any]) -> str:
        flag, added = self.title_flags.get(column, (None, ""))
        title = self.column_titles.get(column, column)
        return title + added if flag is not None and bool(row.get(flag, False)) else title

    @property
    def has_verdicts(self) -> bool:
        """Whether items are right or wrong (CANNOT-style pairs are only a similarity)."""
        return bool(self.categories)

    @property
    def failure_categories(self) -> tuple[str, ...]:
        return self.categories[1:]

    @functools.cached_property
    def item_type(self) -> type:
        """The typed record of one item (like an ir_datasets ``GenericQuery``), made once per kind:
        ``item_id`` (the score-frame id), the kind's columns, and ``meta`` (the loader's extra
        columns); ``.kind`` is this kind, ``.as_row()`` the frame row. A column named ``item_id``
        (DEMETR's id within a perturbation) is part of the key and stays in ``meta``."""
        fields = [("item_id", str), *((c, Any) for c in self.columns if c != "item_id")]
        fields.append(("meta", Mapping[str, Any]))
        name = "".join(part.title() for part in self.name.split("_")) + "Item"
        namespace = {"kind": self, "as_row": _as_row, "__reduce__": _reduce_item}
        return dataclasses.make_dataclass(name, fields, frozen=True, namespace=namespace)

    def record(self, row: Mapping[str, Any]):
        """One frame row (a Series or a dict) as this kind's typed record (``item_type``)."""
        row = row.to_dict() if isinstance(row, pd.Series) else dict(row)
        columns = {c: row[c] for c in self.columns if c != "item_id"}
        meta = {c: v for c, v in row.items() if c not in self.columns}
        if "item_id" in self.columns:  # the frame's own item_id column is not the key (DEMETR)
            meta = {"item_id": row["item_id"], **meta}
        return self.item_type(item_id=self.item_key(row), **columns, meta=meta)

    def item_ids(self, frame: pd.DataFrame) -> pd.Series:
        """The score-frame item id of each row (DEMETR's ids repeat across perturbations:
        "perturbation:item_id")."""
        parts = [frame[c].astype(str) for c in self.keys]
        out = parts[0]
        for part in parts[1:]:
            out = out + ":" + part
        return out

    def item_key(self, row: Mapping[str, Any]) -> str:
        return ":".join(str(row[c]) for c in self.keys)

    def outcomes(self, wide: pd.DataFrame, rule: str = metrics.STRICT) -> pd.DataFrame:
        """One row per item of one run (``wide``: Store.scores_wide, items as index, slots as
        columns): OUTCOME_COLUMNS, plus each query's own verdict (c1, c2) for pairs."""
        if self.outcomes_of is None:
            raise ValueError(f"{self.title} have no per-item outcomes")
        return self.outcomes_of(self, wide, rule)

    def summarize(self, frame: pd.DataFrame, wide: pd.DataFrame, rule: str, checked_only: bool) -> dict:
        """A run's summary (rates are fractions; every aggregate has n and a CI) from ``wide``,
        the scores with one column per slot in ``frame``'s row order."""
        if self.summary_of is None:
            raise ValueError(f"{self.title} are not scored")
        return self.summary_of(self, frame, wide, rule, checked_only)


def _as_row(item) -> dict[str, Any]:
    """An item record as its frame row: the kind's columns, then the metadata (what the card and
    the explorers read)."""
    fields = {f.name: getattr(item, f.name) for f in dataclasses.fields(item) if f.name not in ("item_id", "meta")}
    meta = dict(item.meta)
    row = {"item_id": meta.pop("item_id")} if "item_id" in meta else {}
    return {**row, **fields, **meta}


def _reduce_item(item):  # a record's class is made at run time: pickle it as its kind's name and row
    return _item_of, (item.kind.name, item.as_row())


def _item_of(name: str, row: Mapping[str, Any]):
    return kind_of(name).record(row)


# ---------------------------------------------------------------- the registry
_REGISTRY: dict[str, DatasetKind] = {}


class UnknownKindError(KeyError):
    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def register(kind: DatasetKind) -> DatasetKind:
    if kind.name in _REGISTRY:
        raise ValueError(f"dataset kind {kind.name!r} is registered already")
    _REGISTRY[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Take a kind out again (a test's toy kind)."""
    _REGISTRY.pop(name, None)


def kind_of(name: str) -> DatasetKind:
    """The registered kind of this name: where a name enters (a store record, a spec, a user's pick)."""
    try:
        return _REGISTRY[_name(name)]
    except KeyError:
        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise UnknownKindError(f"unknown dataset kind {name!r}.{hint} Kinds: {', '.join(_REGISTRY)}.") from None


def as_kind(kind: DatasetKind | str) -> DatasetKind:
    """A kind object from the object or its name: for public functions that users call with a
    name (the notebook API, the CLI); code below them passes the object."""
    return kind if isinstance(kind, DatasetKind) else kind_of(kind)


def _name(key: object) -> object:
    """A lookup's key: a kind name. A kind object is refused (read its own fields), since a lookup by
    it would otherwise find nothing and say so silently."""
    if isinstance(key, DatasetKind):
        raise TypeError(f"{key!r} is a kind object; this lookup is keyed by name (read the kind's own fields)")
    return key


def registered() -> tuple[DatasetKind, ...]:
    return tuple(_REGISTRY.values())


class KindNames(Sequence[str]):
    """The names of the registered kinds (those ``which`` holds for), read when used: a kind
    registered later is in it."""

    def __init__(self, which: Callable[[DatasetKind], bool] = lambda k: True):  # noqa: ARG005
        self._which = which

    def _names(self) -> list[str]:
        return [name for name, kind in list(_REGISTRY.items()) if self._which(kind)]

    def __getitem__(self, i):  # type: ignore[override]
        return self._names()[i]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, name: object) -> bool:
        kind = _REGISTRY.get(_name(name))  # type: ignore[arg-type]
        return kind is not None and self._which(kind)

    def __repr__(self) -> str:
        return repr(tuple(self._names()))


class KindTable(Mapping[str, Any]):
    """kind name -> one field of its registered kind (``COLUMNS[kind]``, ``SLOTS[kind]``), read
    from the registry when used. A kind whose field is None is not in the table."""

    def __init__(self, read: Callable[[DatasetKind], Any]):
        self._read = read

    def __getitem__(self, name: str) -> Any:
        kind = _REGISTRY.get(_name(name))  # type: ignore[arg-type]
        value = None if kind is None else self._read(kind)
        if value is None:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return (name for name, kind in list(_REGISTRY.items()) if self._read(kind) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(dict(self))


VERDICT_KINDS = KindNames(lambda k: k.has_verdicts)  # kinds whose items are right or wrong
QUERY_KINDS = KindNames(lambda k: k.texts_of is not None)  # items whose query and documents explorers pick


# ---------------------------------------------------------------- the texts of an item
def _gold_cue(row: Mapping[str, Any]) -> str | None:
    cue = row.get("cue")
    return cue if isinstance(cue, str) else None


def pair_texts(row: Mapping[str, Any]) -> ItemTexts:
    """NevIR: both queries and both documents; the gold cue where the dataset has one."""
    return ItemTexts([row["q1"], row["q2"]], [row["d1"], row["d2"]], ["d1", "d2"], _gold_cue(row))


def exclusion_texts(row: Mapping[str, Any]) -> ItemTexts:
    """ExcluIR: the query, its positive and its excluded document."""
    return ItemTexts([row["query"]], [row["pos_doc"], row["neg_doc"]], ["positive", "excluded"])


# ---------------------------------------------------------------- outcomes of the shipped kinds
def pair_outcomes(kind: DatasetKind, wide: pd.DataFrame, rule: str) -> pd.DataFrame:
    """NevIR: a pair is right iff both queries are (metrics.pair_verdicts); ``margin`` is the
    smaller of the two query margins."""
    v = metrics.pair_verdicts(*(wide[s] for s in kind.slots), rule)
    m1, m2 = v["margin1"].to_numpy(), v["margin2"].to_numpy()
    return pd.DataFrame(
        {
            "item_id": wide.index.astype(str),
            "correct": v["correct"].to_numpy(),
            "category": v["category"].to_numpy(),
            "margin1": m1,
            "margin2": m2,
            "margin": np.minimum(m1, m2),
            "c1": v["c1"].to_numpy(),  # each query's own verdict
            "c2": v["c2"].to_numpy(),
        }
    )


def margin_outcomes(kind: DatasetKind, wide: pd.DataFrame, rule: str) -> pd.DataFrame:  # noqa: ARG001
    """One choice per item: right iff the slot that should win scores higher (a tie fails)."""
    ((good, bad),) = kind.margin_slots
    margin = (wide[good] - wide[bad]).to_numpy(dtype=np.float64)
    category = np.where(margin > 0, metrics.CORRECT, np.where(margin == 0, metrics.TIE, WRONG))
    return pd.DataFrame(
        {
            "item_id": wide.index.astype(str),
            "correct": margin > 0,
            "category": category,
            "margin1": margin,
            "margin2": np.nan,
            "margin": margin,
        }
    )


def similarity_outcomes(kind: DatasetKind, wide: pd.DataFrame, rule: str) -> pd.DataFrame:  # noqa: ARG001
    """A similarity, no verdict: ``correct`` is NA."""
    ids = wide.index.astype(str)
    return pd.DataFrame(
        {
            "item_id": ids,
            "correct": pd.array([pd.NA] * len(ids), dtype="boolean"),
            "category": "",
            "margin1": np.nan,
            "margin2": np.nan,
            "margin": np.nan,
        }
    )


# ---------------------------------------------------------------- summaries of the shipped kinds
def pairs_summary(kind: DatasetKind, frame: pd.DataFrame, wide: pd.DataFrame, rule: str, checked_only: bool) -> dict:  # noqa: ARG001
    return metrics.pairs_summary(*(wide[s] for s in kind.slots), rule)


def right_rank_summary(
    kind: DatasetKind,  # noqa: ARG001
    frame: pd.DataFrame,  # noqa: ARG001
    wide: pd.DataFrame,
    rule: str,  # noqa: ARG001
    checked_only: bool,  # noqa: ARG001
) -> dict:
    return metrics.right_rank_summary(wide["pos"], wide["neg"])


def perturbation_summary(
    kind: DatasetKind,
    frame: pd.DataFrame,
    wide: pd.DataFrame,
    rule: str,  # noqa: ARG001
    checked_only: bool,
) -> dict:
    """DEMETR: detection accuracy and sensitivity ratio per perturbation, by severity."""
    # The frame's text columns share the slot names, so the scores join under other names.
    slot_scores = wide[["candidate", "perturbed", "empty"]].add_prefix("score_")
    rows = perturbation_rows(frame.reset_index(drop=True).join(slot_scores), checked_only)
    order = {sev: i for i, sev in enumerate(SEVERITIES)}
    rows.sort(key=lambda r: (order.get(r["severity"], 9), r["perturbation"]))
    return {"metric": kind.metric, "n": len(frame), "checked_only": checked_only, "perturbations": rows}


def perturbation_row(summary: Mapping[str, Any], name: str) -> dict | None:
    """The row of perturbation ``name`` in a perturbation run's summary (perturbation_summary),
    None where the run did not score it."""
    return next((p for p in summary.get("perturbations", []) if p.get("perturbation") == name), None)


def perturbation_rows(items: pd.DataFrame, checked_only: bool, seed: int = metrics.SEED) -> list[dict]:
    """Per perturbation, in ``items``' order, its severity and metrics.demetr_summary; ``items``
    holds score_candidate, score_perturbed, score_empty, checked, perturbation and severity (the
    stored summary and the sensitivity page's tables both come from here)."""
    resamples = metrics.Resamples(seed=seed)  # 1,000 items in each perturbation: one draw for all
    rows = []
    for name, part in items.groupby("perturbation", sort=False):
        s = metrics.demetr_summary(
            part["score_candidate"],
            part["score_perturbed"],
            part["score_empty"],
            part["checked"],
            checked_only,
            seed=seed,
            resamples=resamples,
        )
        rows.append({"perturbation": name, "severity": part["severity"].iloc[0], **s})
    return rows


def sentence_pairs_summary(
    kind: DatasetKind,  # noqa: ARG001
    frame: pd.DataFrame,
    wide: pd.DataFrame,
    rule: str,  # noqa: ARG001
    checked_only: bool,  # noqa: ARG001
) -> dict:
    """CANNOT: mean similarity overall and per source."""
    joined = frame.reset_index(drop=True).join(wide[["sim"]])
    overall = metrics.sentence_pairs_summary(joined["sim"], joined["label"])
    per_source = [
        {"source": src, **metrics.sentence_pairs_summary(part["sim"], part["label"])}
        for src, part in joined.groupby("source", sort=True)
    ]
    return {**overall, "sources": per_source}


# ---------------------------------------------------------------- the shipped kinds
# Each also as its object (PAIRS_KIND is kind_of(PAIRS)), for code that names a shipped kind.
PAIRS_KIND = register(
    DatasetKind(
        PAIRS,
        "NevIR-style contrast pairs",
        columns=("pair_id", "q1", "d1", "q2", "d2"),
        id_column="pair_id",
        text_columns=("q1", "d1", "q2", "d2"),
        help="NevIR-style contrast pairs q1, d1, q2, d2",
        slots={"q1_d1": ("q1", "d1"), "q1_d2": ("q1", "d2"), "q2_d1": ("q2", "d1"), "q2_d2": ("q2", "d2")},
        # NevIR Fig. 4's failure categories
        categories=(metrics.CORRECT, *metrics.ERROR_CATEGORIES),
        margin_slots=(("q1_d1", "q1_d2"), ("q2_d2", "q2_d1")),
        margin_labels=("s(q1,d1) - s(q1,d2)", "s(q2,d2) - s(q2,d1)"),
        metric="paired_accuracy",
        item_metric="paired_accuracy",
        detect_texts=(("q1", "q2"), ("d1", "d2")),
        query_verdicts=("c1", "c2"),
        label_fields=("negation_type", "validity", "query_ambiguous"),
        text_groups=(("q1", "q2"), ("d1", "d2")),
        diffed=True,
        title_flags={"d1": ("d1_is_original", " (original)"), "d2": ("d2_is_edited", " (edited)")},
        # each query's own verdict (c1, c2) is in the category already ("prefers d2": both queries)
        verdict_columns=("model", "category", "margin1", "margin2"),
        category_note="d1 = the original CondaQA passage, d2 = the edited one; a tie on either query is a tie",
        outcomes_of=pair_outcomes,
        summary_of=pairs_summary,
        texts_of=pair_texts,
        item_noun="pair",
    )
)
EXCLUSION_KIND = register(
    DatasetKind(
        EXCLUSION,
        "ExcluIR-style exclusion queries",
        columns=("query_id", "query", "pos_doc", "neg_doc"),
        id_column="query_id",
        text_columns=("query", "pos_doc", "neg_doc"),
        help="ExcluIR-style query, pos_doc, neg_doc",
        slots={"pos": ("query", "pos_doc"), "neg": ("query", "neg_doc")},
        categories=(metrics.CORRECT, WRONG, metrics.TIE),
        margin_slots=(("pos", "neg"),),
        margin_labels=("s(q,pos) - s(q,neg)", None),
        detect_alone="query",  # the exclusion is in the query
        label_fields=("negation_type", "validity", "query_ambiguous"),
        # two different passages: cues are marked, nothing is diffed
        text_groups=(("query",), ("pos_doc", "neg_doc")),
        column_titles={"pos_doc": "positive document", "neg_doc": "excluded document"},
        metric="right_rank",
        item_metric="right_rank",
        outcomes_of=margin_outcomes,
        summary_of=right_rank_summary,
        texts_of=exclusion_texts,
        item_noun="query",
    )
)
PERTURBATION_KIND = register(
    DatasetKind(
        PERTURBATION,
        "DEMETR-style perturbations",
        columns=("item_id", "perturbation", "severity", "reference", "candidate", "perturbed", "checked"),
        id_column="item_id",
        text_columns=("reference", "candidate", "perturbed"),
        help="DEMETR-style reference, candidate, perturbed",
        slots={
            "candidate": ("reference", "candidate"),
            "perturbed": ("reference", "perturbed"),
            "empty": ("reference", "=" + EMPTY_CANDIDATE),
        },
        key_columns=("perturbation", "item_id"),  # ids repeat across perturbations
        int_ids=True,
        sentence_similarity=True,
        typed_by="perturbation",
        limit_by="perturbation",  # the same items compared across perturbations
        defaults={"severity": "unknown", "checked": True},
        column_types={"perturbation": "text", "severity": "str", "checked": "bool"},
        categories=(metrics.CORRECT, WRONG, metrics.TIE),
        margin_slots=(("candidate", "perturbed"),),
        margin_labels=("s(ref,candidate) - s(ref,perturbed)", None),
        metric="sensitivity_ratio",
        item_metric="detection_accuracy",
        detect_texts=(("candidate", "perturbed"),),
        text_groups=(("reference",), ("candidate", "perturbed")),
        diffed=True,
        column_titles={"candidate": "candidate (correct translation)", "perturbed": "perturbed translation"},
        outcomes_of=margin_outcomes,
        summary_of=perturbation_summary,
    )
)
SENTENCE_PAIRS_KIND = register(
    DatasetKind(
        SENTENCE_PAIRS,
        "CANNOT-style sentence pairs",
        columns=("pair_id", "sentence1", "sentence2", "label", "source"),
        id_column="pair_id",
        text_columns=("sentence1", "sentence2"),
        help="CANNOT-style sentence1, sentence2, label (1 = negation)",
        slots={"sim": ("sentence1", "sentence2")},
        sentence_similarity=True,
        defaults={"source": "user"},
        column_types={"label": "int", "source": "str"},
        margin_slots=(("sim", None),),
        metric="mean_similarity",
        detect_texts=(("sentence1", "sentence2"),),
        text_groups=(("sentence1", "sentence2"),),
        diffed=True,
        column_titles={"sentence1": "sentence 1", "sentence2": "sentence 2"},
        outcomes_of=similarity_outcomes,
        summary_of=sentence_pairs_summary,
    )
)
CORPUS_KIND = register(
    DatasetKind(CORPUS, "a document corpus", columns=("doc_id", "text"), id_column="doc_id", text_columns=("text",))
)
