"""One dataset as every reader sees it: its items and facts, the runs stored on it, the run that stands
for each model, their scores and verdicts, its type labels, annotations and adjudicated labels, and
the fine-tuning runs held out on it. ``DatasetView(store)`` (no name) is the whole store: every run
of every dataset, every fine-tuning run.

    view = DatasetView(store, "nevir")
    view.facts.metric                          # what the dataset is measured by
    chosen = view.chosen(["all-MiniLM-L6-v2"])   # negviz.evaluation.run_choice's policy, one run per model
    view.outcomes(chosen)                      # negviz.core.outcomes' verdicts under each run's tie rule
    view.labels()                              # taxonomy types (gold cue / detected / annotated / adjudicated)
    DatasetView(store).finetune_runs()         # the drift page's runs, every training dataset

The report and the CLI read a dataset through this view, and the pages through one accessor
(negviz.ui.dataset_cache.dataset_view), so one dataset shows one set of numbers wherever it is read.
Every read goes through the view's ``cache`` (composition, not overriding): by default a memo for
the view's life (make a new view to see runs stored since); the pages pass one shared by every
session and keyed by the store's URL, which keeps each kind of read as long as it stays true.
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from typing import Any, Callable, Iterable, Mapping, Protocol

import pandas as pd

from negviz.core import outcomes as oc
from negviz.core.kinds import DatasetKind
from negviz.core.schema import queries_dataset
from negviz.evaluation import run_choice
from negviz.store.record import ATTRIBUTION, COMPLETE, EVAL, FINETUNE, RETRIEVAL


class ReadCache(Protocol):
    """Where a view keeps its reads: ``get(what, key, compute)`` returns the kept value of read
    ``what`` (one of READS) for ``key``, or ``compute()``'s."""

    def get(self, what: str, key: tuple, compute: Callable[[], Any]) -> Any: ...


# Every read a view makes, by how long its value stays true (the pages' cache keeps them so):
# the dataset's items and facts while its content is the same; a stored run's scores, verdicts
# and tables forever; run lists and records for seconds (other processes store runs; a running
# run's record changes), fine-tuning runs for a moment (the drift page follows training); type
# labels for half a minute (annotators relabel); annotations never (read each time).
READS = {
    "dataset": "content",
    "facts": "content",
    "labels": "labels",
    "lexical": "content",  # BM25's margins: of the stored BM25 run, or scored now (seconds)
    "runs": "seconds",
    "record": "seconds",
    "finetune_runs": "moment",
    "scores": "scores",  # forever too, but fewer at once: a DEMETR run's are 35,000 rows
    "texts": "forever",
    "outcomes": "forever",
    "verdicts": "forever",
    "perturbation_table": "forever",
    "drift": "forever",
    "annotations": "never",
    "added": "never",  # a dataset added or removed shows at once
    # the sensitivity and board pages' reads (hsect): DEMETR's item tables (35,000 rows with texts:
    # few at once), a cell's items and CANNOT's distributions of stored runs (forever), the board
    # and a fix against its base (seconds: a run may land meanwhile)
    "sensitivity_items": "scores",
    "cell_items": "forever",
    "cannot_distribution": "forever",
    "board": "seconds",
    "fixes": "seconds",
    # what the pages derive from them (the ui keeps no read cache of its own: tests/architecture):
    # the dataset list for seconds, like run lists (negviz.ui.dataset_cache.clear_datasets after an
    # add); the automatic types and the inspector's item table while the content is the same; the
    # run picker's choice for seconds, like the run list it reads; values of stored runs forever,
    # keyed by their run ids (and the items they cover).
    "datasets": "seconds",
    "automatic_types": "content",
    "inspector_items": "content",
    "score_layouts": "content",
    "run_picker": "seconds",
    "stacked_verdicts": "forever",
    "cue_mentions": "forever",
    "cue_share_table": "forever",
    "lexical_confound": "forever",
    "presets": "forever",
    "uncertainty": "forever",  # negviz.projects.view.ProjectView.uncertainty
}


class ViewMemo:
    """The default ReadCache: every read kept for the view's life but those READS says are never
    kept (annotations and added datasets, which people change while they work)."""

    def __init__(self):
        self._memo: dict[tuple, Any] = {}

    def get(self, what: str, key: tuple, compute: Callable[[], Any]) -> Any:
        if READS[what] == "never":
            return compute()
        if (what, key) not in self._memo:
            self._memo[what, key] = compute()
        return self._memo[what, key]


class DatasetView:
    def __init__(self, store, name: str | None = None, cache: ReadCache | None = None):
        self.store, self.name = store, name
        self.cache = cache if cache is not None else ViewMemo()

    def __repr__(self) -> str:
        return f"DatasetView({self.store!r}, {self.name!r})"

    def _read(self, what: str, key: tuple, compute: Callable[[], Any]) -> Any:
        return self.cache.get(what, key, compute)

    def whole_store(self) -> "DatasetView":
        """The view of every dataset, sharing this view's cache."""
        return DatasetView(self.store, None, self.cache)

    # ------------------------------------------------------------ the items
    @cached_property
    def dataset(self):
        from negviz.datasets import load

        return self._read("dataset", (self.name,), lambda: load(self.name, store=self.store))

    @property
    def kind(self) -> DatasetKind:
        return self.dataset.kind

    @cached_property
    def facts(self):
        from negviz.datasets import facts

        return self._read("facts", (self.name,), lambda: facts(self.dataset, store=self.store))

    # ------------------------------------------------------------ runs and scores
    def runs(self, kind: str | None = EVAL, status: str | None = COMPLETE) -> pd.DataFrame:
        """Runs of ``kind`` (None: every kind) stored on the dataset, newest first (Store.runs);
        status=None lists every status."""
        return self._read(
            "runs", (self.name, kind, status), lambda: self.store.runs(dataset=self.name, kind=kind, status=status)
        )

    def attribution_runs(self, analysis: str) -> pd.DataFrame:
        """The dataset's complete attribution runs of one analysis: the kind holds two, told apart
        by options["analysis"] (negviz.analyses.cue_influence.ANALYSIS, negviz.analyses.layers.ANALYSIS)."""
        stored = self.runs(ATTRIBUTION)
        if stored.empty:
            return stored
        return stored[stored["options"].map(lambda o: (o or {}).get("analysis")) == analysis]

    def retrieval_runs(self) -> pd.DataFrame:
        """Complete retrieval runs over a corpus whose queries are this dataset's (a corpus run is
        stored under "<queries>@<corpus>", e.g. excluir@offline)."""
        runs = self.whole_store().runs(RETRIEVAL)
        if self.name is None:
            return runs
        return runs[runs["dataset_name"].map(queries_dataset) == self.name].reset_index(drop=True)

    def chosen(
        self,
        models: Iterable[str] | None = None,
        pinned: Iterable[str] = (),
        kind: str = EVAL,
        split: str | None = None,
    ) -> pd.DataFrame:
        """The run that stands for each model (negviz.evaluation.run_choice.choose_runs)."""
        return run_choice.choose_runs(self.runs(kind), models, pinned, split=split, kind=kind)

    def scores(self, run_id: str) -> pd.DataFrame:
        """A run's scores, items x slots (Store.scores_wide), read once."""
        return self._read("scores", (run_id,), lambda: self.store.scores_wide(run_id))

    def record(self, run_id: str):
        """A run's RunRecord (its spec, options and summary)."""
        return self._read("record", (run_id,), lambda: self.store.get_run(run_id))

    def compare(self, run_a: str, run_b: str) -> dict:
        """McNemar's test of two runs on the items both scored (negviz.analyses.compare)."""
        from negviz.analyses.compare import compare

        return compare(self.record(run_a), self.scores(run_a), self.record(run_b), self.scores(run_b))

    def texts(self, run_id: str) -> pd.DataFrame:
        """The text a generative run kept per item (its reasoning: Store.item_texts)."""
        return self._read("texts", (run_id,), lambda: self.store.item_texts(run_id))

    def outcomes(self, chosen: pd.DataFrame) -> pd.DataFrame:
        """Per item and model, the verdict under each run's own tie rule (negviz.core.outcomes), with
        ``model`` and ``run_id``."""
        parts = [
            self.run_outcomes(r["run_id"], r["model_name"], oc.tie_rule(r["options"])) for _, r in chosen.iterrows()
        ]
        return pd.concat(parts, ignore_index=True) if parts else oc.run_outcomes(self.kind, {})

    def run_outcomes(self, run_id: str, model: str, tie_rule: str) -> pd.DataFrame:
        """One run's verdicts (a stored run never changes: the pages keep these by run id)."""
        return self._read(
            "outcomes",
            (self.name, run_id, model, tie_rule),
            lambda: oc.run_outcomes(self.kind, {model: (run_id, self.scores(run_id), tie_rule)}),
        )

    def item_verdicts(self, run_id: str, tie_rule: str) -> pd.DataFrame:
        """One run's slot scores and verdict per scored item, in dataset order (the inspector's
        table: negviz.analyses.inspector.model_verdicts)."""
        from negviz.analyses.inspector import model_verdicts

        ds = self.dataset
        return self._read(
            "verdicts",
            (self.name, run_id, tie_rule),
            lambda: model_verdicts(ds.kind, ds.frame, self.scores(run_id), tie_rule),
        )

    def lexical_margins(self) -> tuple[pd.DataFrame, str, str | None]:
        """BM25's margins per item for the lexical confound (negviz.analyses.lexical): from the
        stored BM25 run that stands for the model here, else scored now with negviz's BM25
        (seconds). Returns (item_id, margin1[, margin2]), where they come from, the run id or None.
        The page and the report both read this, so they never disagree on whether there is one."""
        from negviz.analyses import lexical

        chosen = self.chosen([lexical.LEXICAL_MODEL])
        if len(chosen):
            run_id = str(chosen.iloc[0]["run_id"])
            margins = self._read(
                "lexical",
                (self.name, run_id),
                lambda: lexical.lexical_margins(self.kind, self.dataset.frame, self.scores(run_id)),
            )
            return margins, "the stored BM25 run", run_id

        def scored_now():
            from negviz.evaluation.catalog import load_scorer
            from negviz.evaluation.item_scoring import score_dataset, wide_scores

            ds = self.dataset
            scores = score_dataset(ds.kind, ds.frame, load_scorer(lexical.LEXICAL_MODEL))
            wide = wide_scores(ds.kind, ds.frame, scores).set_index("item_id")
            return lexical.lexical_margins(ds.kind, ds.frame, wide)

        return self._read("lexical", (self.name, None), scored_now), lexical.SCORED_NOW, None

    def item_meta(self):
        """negviz.analyses.per_type.item_meta of the dataset with its type labels, the per-type
        heatmap's and error preference's columns (DEMETR's 35k items take ~13 s to type by
        detection: its axis is the perturbation, so items a column types go unlabelled)."""
        from negviz.analyses import per_type

        ds = self.dataset
        return per_type.item_meta(ds.kind, ds.frame, None if ds.kind.typed_by else self.labels())

    def perturbation_table(self, run, checked_only: bool = False) -> pd.DataFrame:
        """A stored run's perturbation table (negviz.analyses.sensitivity.run_table): its stored
        summary when made with the same ``checked_only``, else computed from its item table."""
        from negviz.analyses import sensitivity as sv

        def compute() -> pd.DataFrame:
            return self._read(
                "perturbation_table",
                (self.name, run["run_id"], checked_only),
                lambda: sv.perturbation_table(self.sensitivity_items(run["run_id"]), checked_only),
            )

        return sv.run_table(run, checked_only, compute)

    # ------------------------------------------------------------ labels
    def labels(self, source: str = "auto") -> pd.DataFrame:
        """One negation type per item (negviz.language.taxonomy.label_pairs, annotations and adjudications included)."""
        from negviz.language.taxonomy import label_pairs

        return self._read("labels", (self.name, source), lambda: label_pairs(self.dataset, source, store=self.store))

    def annotations(self) -> pd.DataFrame:
        """Every annotator's latest label, flat (negviz.results.annotations.latest)."""
        from negviz.results import annotations

        return self._read("annotations", ("latest", self.name), lambda: annotations.latest(self.store, self.name))

    def current_label(self, item_id: str, annotator: str):
        """An annotator's latest label of one item and its version (negviz.results.annotations.current_label)."""
        from negviz.results import annotations

        return self._read(
            "annotations",
            ("current", self.name, item_id, annotator),
            lambda: annotations.current_label(self.store, self.name, item_id, annotator),
        )

    def annotation_history(self, item_id: str) -> pd.DataFrame:
        """Every version of every annotator's label of one item, newest first."""
        from negviz.results import annotations

        return self._read(
            "annotations", ("history", self.name, item_id), lambda: annotations.history(self.store, self.name, item_id)
        )

    def annotation_export(self, all_versions: bool = False) -> pd.DataFrame:
        """The labels with the pair text, provenance and adjudicated columns (the export file)."""
        from negviz.results import annotations

        return self._read(
            "annotations",
            ("export", self.name, all_versions),
            lambda: annotations.export_frame(self.store, self.dataset, all_versions),
        )

    def adjudicated(self) -> pd.DataFrame:
        """The reviewers' newest decision per pair (negviz.results.annotations.adjudicated)."""
        from negviz.results.annotations import adjudicated

        return self._read("annotations", ("adjudicated", self.name), lambda: adjudicated(self.store, self.name))

    # ------------------------------------------------------------ fine-tuning history
    def finetune_runs(self, status: str | None = None) -> pd.DataFrame:
        """Fine-tuning runs held out on the dataset (every dataset for a whole-store view), newest
        first, each with its short ``label`` (negviz.finetune.history)."""
        from negviz.finetune.history import training_run_label

        def labelled() -> pd.DataFrame:
            runs = self.store.runs(dataset=self.name, kind=FINETUNE, status=status)
            labels = pd.Series([training_run_label(r) for r in runs.itertuples(index=False)], dtype=object)
            # runs alike to the minute: the later ones numbered (2), (3) ..., so every label picks one
            # run and an older run keeps its label (a URL that names it) when a new one lands
            nth = labels.groupby(labels).cumcount(ascending=False)
            runs["label"] = [f"{lab} ({k + 1})" if k else lab for lab, k in zip(labels, nth)]
            return runs

        return self._read("finetune_runs", (self.name, status), labelled)

    def drift_frames(self, runs: pd.DataFrame):
        """Per-epoch metrics, pair cosines and per-pair tables of fine-tuning runs (rows of
        finetune_runs with run_id, label and status): negviz.finetune.views.drift_frames. A
        complete run's frames are kept; a running run's are read now (a new epoch may have landed)."""
        from negviz.finetune.views import combined_frames, run_frames

        def frames(run):
            if getattr(run, "status", COMPLETE) != COMPLETE:
                return run_frames(self.store, run.run_id, run.label)
            return self._read("drift", (run.run_id, run.label), lambda: run_frames(self.store, run.run_id, run.label))

        return combined_frames([frames(r) for r in runs.itertuples(index=False)])

    # ------------------------------------------------------------ added datasets
    def added_datasets(self) -> pd.DataFrame:
        """The datasets users added to the store, one row each (negviz.store.datasets.listing)."""
        from negviz.store import datasets as stored

        return self._read("added", ("listing",), lambda: stored.listing(self.store))

    def added_record(self, name: str):
        """An added dataset's stored record, None when no dataset of that name was added."""
        from negviz.store import datasets as stored

        return self._read("added", ("record", name), lambda: stored.get(self.store, name))

    def runs_using(self, name: str) -> int:
        """How many stored runs are of the added dataset ``name`` (removing it can take them along)."""
        from negviz.store import datasets as stored

        return self._read("added", ("using", name), lambda: stored.runs_using(self.store, name))

    # ------------------------------------------------------------ what the pages derive
    def datasets(self) -> pd.DataFrame:
        """Every dataset a reader can pick: the shipped ones, then those added to the store
        (negviz.datasets.list_datasets; ``sha256`` tells added contents apart), whatever this
        view's dataset."""
        from negviz.datasets import list_datasets

        return self._read("datasets", ("listing",), lambda: list_datasets(self.store))

    def automatic_types(self) -> pd.DataFrame:
        """The taxonomy's type of every item, without annotator labels
        (negviz.analyses.inspector.automatic_types: DEMETR's 35,000 items take seconds)."""
        from negviz.analyses import inspector

        return self._read("automatic_types", (self.name,), lambda: inspector.automatic_types(self.dataset))

    def inspector_items(self) -> pd.DataFrame:
        """The pair inspector's item table with the automatic types, without the annotation
        columns, which change while people label (negviz.analyses.inspector.item_table)."""
        from negviz.analyses import inspector

        ds = self.dataset
        return self._read(
            "inspector_items", (self.name,), lambda: inspector.item_table(ds.kind, ds.frame, self.automatic_types())
        )

    def stacked_verdicts(self, runs: pd.DataFrame) -> pd.DataFrame:
        """item_verdicts of every run of ``runs`` (rows of chosen()) under its tie rule, stacked
        with ``model`` (negviz.analyses.inspector.stack_verdicts)."""
        from negviz.analyses.inspector import stack_verdicts

        shown = _run_keys(runs)
        return self._read(
            "stacked_verdicts",
            (self.name, shown),
            lambda: stack_verdicts({model: self.item_verdicts(run_id, rule) for run_id, model, rule in shown}),
        )

    def run_picker(
        self,
        models: Iterable[str] = (),
        pins: Iterable[str] = (),
        families: Iterable[str] = (),
        contains: str = "",
        top: int | None = None,
        over: int = 0,
    ) -> tuple[int, pd.DataFrame, dict[str, str], list[str]]:
        """What a run picker shows: (how many models have runs; the run shown per model, of
        ``families`` with ``contains`` in its name, cut to the best ``top`` by the headline metric
        when no models were asked and more than ``over`` have runs; the label of every run that
        may be pinned, by run id; the families among the models)."""
        from negviz.datasets.facts import lower_is_better

        models, pins, families = tuple(models), tuple(pins), tuple(families)

        def compute():
            every = self.chosen(models, pins)
            chosen = run_choice.filter_models(every, families, contains)
            if top is not None and not models and len(every) > over:
                chosen = run_choice.top_models(chosen, top, lower_is_better(self.facts.metric))
            options = run_choice.ranked(self.runs())
            if models:
                options = options[options["model_name"].isin(models)]
            labels = {r["run_id"]: run_choice.run_label(r) for r in options.to_dict("records")}
            return len(every), chosen, labels, sorted(every["family"].dropna().unique()) if len(every) else []

        return self._read("run_picker", (self.name, models, pins, families, contains, top, over), compute)

    def cue_mentions(self, run_id: str, tie_rule: str) -> dict:
        """Over a generative run's kept reasoning, how often a wrong verdict comes with text that
        never names the negation cue (negviz.analyses.reasoning.cue_mentions)."""
        from negviz.analyses import reasoning

        def compute() -> dict:
            table = reasoning.query_table(self.dataset.frame, self.scores_by_item(run_id), self.texts(run_id), tie_rule)
            return reasoning.cue_mentions(table)

        return self._read("cue_mentions", (self.name, run_id, tie_rule), compute)

    def scores_by_item(self, run_id: str) -> pd.DataFrame:
        """A run's scores (scores) indexed by item id."""
        wide = self.scores(run_id)
        return wide.set_index("item_id") if "item_id" in wide else wide

    def cue_shares(self, runs: Mapping[str, str]) -> pd.DataFrame:
        """The cue's share of attribution per comparison of stored cue-influence runs (label ->
        run id), stacked with ``label`` and each item's automatic type
        (negviz.analyses.cue_influence.labelled_frame)."""
        from negviz.analyses import cue_influence

        types = self.automatic_types()[["item_id", "type"]]
        return cue_influence.labelled_frame(self.kind, {label: self.scores(r) for label, r in runs.items()}, types)

    def cue_share_table(self, runs: Mapping[str, str], group: str) -> pd.DataFrame:
        """cue_shares(runs) per run and group ("category" or "type"): medians with bootstrap CIs
        (negviz.analyses.cue_influence.group_table)."""
        from negviz.analyses import cue_influence

        return self._read(
            "cue_share_table",
            (self.name, tuple(runs.items()), group),
            lambda: cue_influence.group_table(self.cue_shares(runs), group),
        )

    def lexical_comparisons(self, chosen: pd.DataFrame, items: Iterable[str] | None = None) -> pd.DataFrame:
        """One row per model of ``chosen``, item (of ``items``, default all) and comparison, with
        BM25's lean (negviz.analyses.lexical.comparisons of lexical_margins)."""
        from negviz.analyses import lexical

        verdicts = self.outcomes(chosen)
        if items is not None:
            verdicts = verdicts[verdicts["item_id"].isin(set(items))]
        return lexical.comparisons(verdicts, self.lexical_margins()[0])

    def lexical_confound(
        self, chosen: pd.DataFrame, items: Iterable[str] | None = None
    ) -> tuple[pd.DataFrame, pd.DataFrame]:
        """lexical_comparisons' confound table and how often each model follows BM25, with
        bootstrap CIs (negviz.analyses.lexical.confound_table, follows_lexicon), kept per runs and
        item set."""
        from negviz.analyses import lexical

        items = None if items is None else sorted({str(i) for i in items})
        digest = None if items is None else hashlib.sha256("\n".join(items).encode()).hexdigest()
        bm25 = self.lexical_margins()[2]  # a BM25 run stored since: its margins, not those scored then

        def compute():
            comps = self.lexical_comparisons(chosen, items)
            return lexical.confound_table(comps), lexical.follows_lexicon(comps)

        return self._read("lexical_confound", (self.name, _run_keys(chosen), digest, bm25), compute)

    def score_layouts(self) -> pd.DataFrame:
        """The score-file layouts with an example row from this dataset's first item
        (negviz.results.external.score_files.layout_examples)."""
        from negviz.results.external.score_files import layout_examples

        ds = self.dataset
        return self._read("score_layouts", (self.name,), lambda: layout_examples(ds.kind, ds.frame))

    def presets(self, models: Iterable[str], added: tuple[str, str] | None = None) -> list:
        """The playground's demo presets (negviz.analyses.playground.stored_presets) from the run
        that stands for each of ``models`` on the datasets with a preset picker, and on ``added``
        (name, kind: a dataset added to the store) where it has runs (those models' runs there,
        else any two models'), whatever this view's dataset."""
        from negviz.analyses import playground

        pickers = playground.PRESET_PICKERS
        extra = added if added and added[0] not in pickers else None
        models = set(models)
        shown = []
        for dataset in [*pickers, *([extra[0]] if extra else [])]:
            runs = DatasetView(self.store, dataset, self.cache).chosen()
            mine = runs[runs["model_name"].isin(models)]
            if dataset not in pickers and mine.empty:
                mine = runs.head(2)
            shown.append((dataset, _run_keys(mine)))

        def compute() -> list:
            views = {d: DatasetView(self.store, d, self.cache) for d, _ in shown}
            frames = {d: views[d].dataset.frame for d, keys in shown if keys}
            wide = {d: {m: views[d].scores(r) for r, m, _ in keys} for d, keys in shown}
            rules = {d: {m: rule for _, m, rule in keys} for d, keys in shown}
            return playground.stored_presets(frames, wide, added=extra, rules=rules)

        return self._read("presets", (tuple(shown), extra), compute)

    # ------------------------------------------------------------ across benchmarks
    def board(self, catalog: pd.DataFrame | None = None) -> pd.DataFrame:
        """Every model on every benchmark (negviz.analyses.board), from the whole store whatever
        this view's dataset; a trained model's general-retrieval cell comes from the fine-tuning
        run that made it (negviz.finetune.provenance)."""
        from negviz.analyses.board import board_table
        from negviz.evaluation.catalog import load_catalog
        from negviz.finetune.provenance import trained_runs

        catalog = load_catalog() if catalog is None else catalog
        runs = self.whole_store().runs(kind=None)
        finetune = runs[runs["kind"] == FINETUNE]

        def made_by(model: str) -> list[str]:
            return finetune[trained_runs(finetune, model, catalog)]["run_id"].tolist() if len(finetune) else []

        return self._read("board", (tuple(catalog["name"]),), lambda: board_table(runs, catalog, made_by))

    def fixes(
        self, catalog: pd.DataFrame | None = None, models: Iterable[str] | None = None
    ) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
        """Every model (of ``models``, default all) with a catalog base against that base on this
        dataset (verdict kinds only):
        (one row per model: base, runs, accuracies, difference with its 95% CI, McNemar's p,
        repaired and broken counts; per model its items with their change), the model's run
        being the one every page shows and the base's the one negviz.results.against_base picks."""
        from negviz.evaluation.catalog import load_catalog

        catalog = load_catalog() if catalog is None else catalog
        models = None if models is None else tuple(models)
        return self._read("fixes", (self.name, models, tuple(catalog["name"])), lambda: self._fixes(catalog, models))

    def _fixes(self, catalog: pd.DataFrame, models: tuple[str, ...] | None):
        from negviz.analyses import fixes
        from negviz.evaluation.catalog import run_base
        from negviz.results.against_base import base_run_choice

        rows, items = [], {}
        if not self.kind.has_verdicts:
            return pd.DataFrame(), items
        for run in self.chosen(models).itertuples(index=False):
            base = run_base(run.model_name, run.summary, catalog)
            if base is None:
                continue
            record = self.record(run.run_id)
            chosen = base_run_choice(self.store, record, base)
            if chosen.empty:
                continue
            base_id = str(chosen["run_id"].iloc[0])
            base_record = self.record(base_id)
            per_item = fixes.repairs(
                self.kind,
                self.scores(run.run_id),
                oc.tie_rule(record.options),
                self.scores(base_id),
                oc.tie_rule(base_record.options),
            )
            if per_item.empty:
                continue
            items[run.model_name] = per_item
            rows.append(
                {
                    "model": run.model_name,
                    "base": base,
                    "dataset": self.name,
                    "run_id": run.run_id,
                    "base_run_id": base_id,
                }
                | fixes.summary(per_item)
            )
        return pd.DataFrame(rows), items

    # ------------------------------------------------------------ perturbation sensitivity (hsect)
    def sensitivity_items(self, run_id: str) -> pd.DataFrame:
        """A stored DEMETR run's item table (negviz.analyses.sensitivity.item_table): texts, the
        three scores, each item's ratio and flags."""
        from negviz.analyses import sensitivity as sv

        return self._read(
            "sensitivity_items", (self.name, run_id), lambda: sv.item_table(self.dataset.frame, self.scores(run_id))
        )

    def sensitivity_cell(self, run_id: str, perturbation: str, checked_only: bool, show: str) -> pd.DataFrame:
        """The items behind one sensitivity heatmap cell (negviz.analyses.sensitivity.cell_items),
        kept on their own: a hit of the whole item table would copy 35,000 rows on every rerun."""
        from negviz.analyses import sensitivity as sv

        return self._read(
            "cell_items",
            (self.name, run_id, perturbation, checked_only, show),
            lambda: sv.cell_items(self.sensitivity_items(run_id), perturbation, checked_only, show),
        )

    def cannot_distribution(self, runs: pd.DataFrame, pairs: str = "negated") -> pd.DataFrame:
        """negviz.analyses.sensitivity.cannot_distribution of stored CANNOT-style runs (rows with
        run_id and model_name, one per model) on this dataset."""
        from negviz.analyses import sensitivity as sv

        run_ids, models = tuple(runs["run_id"]), tuple(runs["model_name"])

        def compute() -> pd.DataFrame:
            frame = self.dataset.frame
            return sv.cannot_distribution(
                {m: sv.cannot_items(frame, self.scores(r)) for r, m in zip(run_ids, models)}, pairs
            )

        return self._read("cannot_distribution", (self.name, run_ids, models, pairs), compute)


def _run_keys(runs: pd.DataFrame) -> tuple[tuple[str, str, str], ...]:
    """(run id, model, tie rule) of each run of ``runs`` (rows of DatasetView.chosen): what
    identifies a read of those runs' verdicts."""
    return tuple((str(r.run_id), r.model_name, oc.tie_rule(r.options)) for r in runs.itertuples())
