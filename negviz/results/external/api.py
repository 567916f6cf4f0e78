"""``negviz.evaluate``: any retriever, from a notebook or a script, through the CLI's own code.

    import negviz
    result = negviz.evaluate(model, "nevir")          # a SentenceTransformer, a CrossEncoder, an
    result                                            #   object with encode(), score(queries, docs),
    result.items                                      #   or a catalog name / spec string
    result.compare(negviz.evaluate("bm25", "nevir"))  # McNemar on the shared items
    result.save(name="my-model")                      # a stored run: every page shows it

A catalog name or spec goes through ``negviz.evaluation.runner.run_eval`` exactly as `negviz eval` does; an
object is wrapped as a Scorer (negviz.scorers.external) and scored by the same
``evaluate_scorer``. So one model gets one set of verdicts through the API, the CLI and the pages;
a run of the spec stored already (a shipped one included) is reused, as the CLI reuses it.
Scores are cached on disk as the CLI caches them when the model has a stable identity (a catalog
spec; a sentence-transformers model, by its name and a fingerprint of its weights); any other
object or function only when it is given ``name=``.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from negviz.core.errors import NegvizError
from negviz.core.limits import check_name
from negviz.core.schema import DatasetSpec, ModelSpec


@dataclass
class Evaluation:
    """One model on one dataset: the run's record (spec, summary), its per-item scores and the
    dataset. Not stored until ``save``."""

    record: Any  # negviz.store.RunRecord
    scores: pd.DataFrame  # long: item_id, slot, score
    dataset: Any  # negviz.datasets.base.Dataset
    reused: bool = False
    _items: pd.DataFrame | None = field(default=None, repr=False)

    # ------------------------------------------------------------ the numbers
    @property
    def summary(self) -> dict:
        return self.record.summary

    @property
    def metric(self) -> str:
        from negviz.evaluation.summaries import headline

        return headline(self.summary)[0]

    @property
    def value(self) -> float | None:
        from negviz.evaluation.summaries import headline

        return headline(self.summary)[1]

    @property
    def ci(self) -> tuple[float | None, float | None]:
        from negviz.evaluation.summaries import headline_ci

        return headline_ci(self.summary)

    @property
    def n(self) -> int:
        return int(self.record.n or 0)

    @property
    def correct(self) -> int | None:
        """Items counted right, where the metric counts items (None for ratios and similarities)."""
        if self.metric not in ("paired_accuracy", "right_rank"):
            return None
        return int(self.items["correct"].astype(bool).sum())

    @property
    def items(self) -> pd.DataFrame:
        """One row per item: its scores per slot, verdict, error category and margins (the
        columns of the pages' item downloads); a corpus run: each query's d+ and d− rank."""
        if self._items is None:
            self._items = item_frame(self.record, self.scores, self.dataset)
        return self._items

    # ------------------------------------------------------------ comparing and storing
    def compare(self, other: "Evaluation") -> dict:
        """McNemar's test against another evaluation on the items both scored (each judged
        under its own tie rule): negviz.analyses.compare, as `negviz compare` computes it."""
        from negviz.analyses.compare import compare

        if self.record.dataset_name != other.record.dataset_name:
            raise NegvizError(
                f"these evaluations are on different datasets ({self.record.dataset_name} and "
                f"{other.record.dataset_name}); compare evaluations of one dataset"
            )
        return compare(self.record, _wide(self.scores), other.record, _wide(other.scores))

    def save(self, store_url: str | None = None, name: str | None = None) -> str:
        """Store this evaluation as a run (the default store unless ``store_url``), under the
        model name ``name`` if given; returns the run id. A run of the same spec already stored
        is kept and its id returned (a spec is stored once)."""
        from negviz.evaluation.runner import store_once
        from negviz.store import open_store

        if self.dataset.spec.name.startswith(FRAME_PREFIX):
            raise NegvizError(
                "this evaluation is of an in-memory DataFrame, which no page can show; add the data as a "
                "dataset first (`negviz datasets add NAME FILE --kind ...`, or the Add dataset page) and "
                "evaluate that name"
            )
        record = self.record
        name = check_name(name, "the name given to save()") if name else name
        if name and name != record.model_name:
            record = renamed(record, name)
        check_name_free(record)
        store = open_store(store_url)
        existing = store.find_run(record.spec_key)
        if existing is not None:
            return existing.run_id
        from negviz.datasets.added import content_hash

        stored, _ = store_once(store, record, self.scores, added_sha256=content_hash(self.dataset.spec))
        return stored.run_id

    # ------------------------------------------------------------ showing
    def headline(self) -> str:
        from negviz.core import metric_text
        from negviz.datasets.facts import metric_label
        from negviz.evaluation.summaries import items_of

        lo, hi = self.ci  # formatted from the metric's one declaration, as on every page
        ci = "" if lo is None else f" [95% CI {metric_text.ci(self.metric, lo, hi)}]"
        count = f" ({self.correct:,}/{self.n:,})" if self.correct is not None else f" (n={self.n:,})"
        if of := items_of(self.summary, self.record.dataset_spec):
            count += f" on {metric_text.n_of(self.n, of)} items"
        return f"{metric_label(self.metric)} {metric_text.value(self.metric, self.value)}{ci}{count}"

    def __repr__(self) -> str:
        r = self.record
        return (
            f"<negviz Evaluation: {r.model_name} ({r.family}) on {r.dataset_name}:{r.split} — "
            f"{self.headline()}{' [stored run reused]' if self.reused else ''}>"
        )

    def _repr_html_(self) -> str:
        r = self.record
        rows = [
            ("model", f"{r.model_name} ({r.family})"),
            ("dataset", f"{r.dataset_name}:{r.split}, n={self.n:,}"),
            ("result", self.headline()),
            ("device", str(r.device)),
            ("seconds", f"{(r.wall_seconds or 0):.1f}"),
        ]
        body = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows
        )
        return f"<table><caption>negviz evaluation</caption>{body}</table>"


FRAME_PREFIX = "dataframe:"


def _wide(scores: pd.DataFrame) -> pd.DataFrame:
    return scores.pivot(index="item_id", columns="slot", values="score")


def item_frame(record, scores: pd.DataFrame, dataset) -> pd.DataFrame:
    """Per-item table of an evaluation (see Evaluation.items)."""
    from negviz.store.record import RETRIEVAL

    if record.kind == RETRIEVAL:
        from negviz.evaluation.retrieval.rank_metrics import RR_CUTOFF, right_rank_items

        ranks = scores[scores["slot"].isin(["pos_rank", "neg_rank"])].pivot(
            index="item_id", columns="slot", values="score"
        )
        ranks = ranks.astype(int).reset_index()
        ranks["correct"] = right_rank_items(ranks["pos_rank"], ranks["neg_rank"], RR_CUTOFF)
        return ranks[["item_id", "pos_rank", "neg_rank", "correct"]]
    from negviz.analyses.inspector import model_verdicts
    from negviz.core.outcomes import tie_rule

    items = model_verdicts(dataset.kind, dataset.frame, _wide(scores), tie_rule(record.options))
    return items[["item_id", *[c for c in items.columns if c != "item_id"]]]  # the id first, as downloads show it


def renamed(record, name: str):
    """The record of the same evaluation under another model name (a new spec key)."""
    import dataclasses

    from negviz.evaluation.runner import run_key

    model = ModelSpec.from_dict({**record.model_spec, "name": name})
    key = run_key(model, record.model_revision or "", DatasetSpec.from_dict(record.dataset_spec), record.options)
    return dataclasses.replace(record, model_name=name, model_spec=model.to_dict(), spec_key=key)


def check_name_free(record) -> None:
    """A session's model is never stored under the name of a catalog model of another family:
    the pages would take it for that model."""
    from negviz.evaluation.catalog import catalog_row

    row = catalog_row(record.model_name)
    if row is not None and row["family"] != record.family:
        raise NegvizError(
            f"{record.model_name!r} is the catalog's {row['family']} model; store this {record.family} model under "
            f"another name: .save(name='my-{record.model_name}')"
        )


def evaluate(
    model: Any,
    dataset: Any,
    *,
    name: str | None = None,
    split: str = "test",
    limit: int | None = None,
    kind: str | None = None,
    columns: str | dict | None = None,
    corpus: str | None = None,
    top_k: int = 100,
    plan: str = "auto",
    tie_rule: str = "strict",
    checked_only: bool = False,
    similarity: str | None = None,
    device: str | None = None,
    batch_size: int | None = None,
    progress: bool = True,
    store_url: str | None = None,
) -> Evaluation:
    """Evaluate ``model`` on ``dataset`` (see the module doc).

    model: a catalog name or spec string (``"bm25[k1=1.2]"``), a SentenceTransformer or
        CrossEncoder, an object with ``encode(list[str])`` (``encode_queries``/``encode_corpus``
        used when present), or a function ``score(queries, documents) -> floats``.
    dataset: a shipped or added dataset name, a file path (``kind``/``columns`` as the CLI
        takes them), or a DataFrame in such a layout (``kind``, default pairs).
    corpus: "offline" (or another corpus the CLI takes) for retrieval over a corpus; then
        ``dataset`` is an exclusion dataset (ExcluIR) and ``top_k`` documents are retrieved.
    plan: with a corpus, how a bi-encoder's run encodes: "auto" (the default: with a ``limit``, the
        shipped codes' two-stage search when it encodes fewer texts, its ranks exact among the
        candidates only and stored apart; over all queries, exact), "exact" (encode the corpus
        texts not yet cached) or "cheapest" (two-stage whenever it encodes fewer texts);
        negviz.evaluation.retrieval.plan says the rule, and ``.summary["encoding_plan"]`` the choice.
    name: the model's name in results and stored runs; an object without a stable identity
        (not a sentence-transformers model) is cached on disk only when named.
    store_url: the store that added datasets are read from, and where a stored run of the spec
        is looked up (default: the default store, holding the shipped runs: see
        negviz.store.open_store). A stored run is reused, not recomputed (``.reused``, and the
        repr says so); nothing is stored until ``.save()``.
    """
    from negviz.core.cache import ScoreCache
    from negviz.core.progress import TqdmProgress
    from negviz.evaluation.runner import evaluate_scorer, run_eval
    from negviz.scorers.external import wrap
    from negviz.store import open_store

    bar = TqdmProgress(enabled=progress, auto=True)
    lookup = open_store(store_url)  # the shipped runs are in it, as in the CLI's and the app's
    try:
        if corpus is not None:
            return _corpus(model, dataset, corpus, name, top_k, split, limit, device, batch_size, bar, lookup, plan)
        if isinstance(model, (str, ModelSpec)):
            spec = ModelSpec.parse(model) if isinstance(model, str) else model
            if similarity:
                spec = spec.with_options(similarity=similarity)
            if name:
                raise NegvizError("name= names a model object; a catalog spec is named by itself")
            ds_spec = _dataset_spec(dataset, split, limit, kind, columns)
            if ds_spec is None:
                raise NegvizError(
                    "a catalog model is evaluated on a dataset name or file; for a DataFrame, pass a model object"
                )
            result = run_eval(
                spec, ds_spec, store=lookup, save=False, device=device, batch_size=batch_size, progress=bar,
                tie_rule=tie_rule, checked_only=checked_only, datasets_from=lookup,
            )  # fmt: skip
            from negviz.datasets import load

            return _result(result, load(ds_spec, store=lookup), lookup)
        ds = _load(dataset, split, limit, kind, columns, lookup)
        if similarity is None and ds.kind.sentence_similarity:
            similarity = "cosine"  # as run_eval's metric_spec does for bi-encoders on DEMETR and CANNOT
        scorer = wrap(
            model, name=name, similarity=similarity, cache=ScoreCache(), batch_size=batch_size, task_name=ds.spec.name
        )
        result = evaluate_scorer(scorer, ds, progress=bar, tie_rule=tie_rule, checked_only=checked_only)
        return Evaluation(result.record, result.scores, ds)
    finally:
        bar.close()


def _result(result, ds, store) -> Evaluation:
    """The Evaluation of a run_eval / run_corpus_eval result: a stored run reused (a shipped one,
    or one saved before) is read from the store and says so."""
    scores = store.scores(result.record.run_id) if result.scores is None else result.scores
    return Evaluation(result.record, scores, ds, reused=result.reused)


def _dataset_spec(dataset, split, limit, kind, columns) -> DatasetSpec | None:
    if isinstance(dataset, DatasetSpec):
        return dataset
    if isinstance(dataset, pd.DataFrame):
        return None
    if not isinstance(dataset, (str, bytes)) and not hasattr(dataset, "__fspath__"):
        raise NegvizError(f"dataset must be a dataset name, a file path or a DataFrame, not a {type(dataset).__name__}")
    options = {}
    if kind:
        options["kind"] = kind
    if columns:
        from negviz.datasets.userfile import format_columns, parse_columns

        options["columns"] = format_columns(parse_columns(columns))
    return DatasetSpec.make(str(dataset), split, limit, **options)


def _load(dataset, split, limit, kind, columns, store):
    from negviz.datasets import load

    spec = _dataset_spec(dataset, split, limit, kind, columns)
    if spec is not None:
        return load(spec, store=store)
    return frame_dataset(dataset, kind or "pairs", columns, limit)


def frame_dataset(frame: pd.DataFrame, kind, columns, limit: int | None):
    """A DataFrame in a layout the CLI accepts, mapped and validated as a file would be."""
    import hashlib

    from negviz.datasets import apply_limit
    from negviz.datasets.base import Dataset
    from negviz.datasets.userfile import apply_mapping, parse_columns
    from negviz.datasets.validate import check_kind, validate

    kind = check_kind(kind, "DataFrame")  # the caller's name, or a kind object
    mapped = apply_mapping(frame, parse_columns(columns), "DataFrame")
    valid = validate(mapped, kind, file="DataFrame").infer_objects()
    digest = hashlib.sha256(pd.util.hash_pandas_object(valid, index=False).to_numpy().tobytes()).hexdigest()[:16]
    spec = DatasetSpec.make(f"{FRAME_PREFIX}{digest}", "test", limit, kind=kind.name)
    return Dataset(spec, kind, apply_limit(valid, kind, limit), "DataFrame", "in memory", "the caller's", "")


def _corpus(model, dataset, corpus, name, top_k, split, limit, device, batch_size, bar, store, plan) -> Evaluation:
    from negviz.core.cache import ScoreCache
    from negviz.datasets import load
    from negviz.evaluation.retrieval.evaluate import run_corpus_eval
    from negviz.evaluation.retrieval.plan import tell_plan
    from negviz.scorers.external import wrap

    ds_spec = _dataset_spec(dataset, split, limit, None, None)
    if ds_spec is None:
        raise NegvizError("corpus retrieval takes an exclusion dataset by name or file (e.g. 'excluir')")
    if not isinstance(model, (str, ModelSpec)):
        model = wrap(model, name=name, cache=ScoreCache(), batch_size=batch_size, task_name=ds_spec.name)
    said = tell_plan if bar.enabled else None  # the route and its cost, before the work
    result = run_corpus_eval(
        model, ds_spec, corpus, top_k=top_k, store=store, save=False, device=device, batch_size=batch_size,
        progress=bar, plan=plan, on_plan=said,
    )  # fmt: skip
    return _result(result, load(ds_spec), store)
