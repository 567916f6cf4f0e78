"""The board across benchmarks: one row per model, one column per benchmark measure.

Each cell is the number the benchmark's own page shows for the model: the run that stands for
the model there (negviz.evaluation.run_choice, the one policy), read by the function that page reads it
with (summaries.headline / summaries.headline_ci for a run's headline, the corpus board's
columns for retrieval over the offline corpus, a DEMETR run's per-perturbation ratio). So a
board cell and the Overview of that dataset can never show two numbers for one model.

The general-retrieval column is the drift page's measure (Recall@10 of HotpotQA's supporting
passages, negviz.finetune.general): measured by fine-tuning runs, at epoch 0 for the model they
start from and at their last epoch for the model they made.

    board = board_table(DatasetView(store).runs(kind=None), catalog)
    board[["model", "nevir", "nevir_ci_low", "nevir_ci_high", "nevir_n"]]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd

from negviz.core import metric_text, metrics
from negviz.core.kinds import ANTONYM_PERTURBATION, NEGATION_PERTURBATION, perturbation_row
from negviz.core.schema import queries_dataset
from negviz.datasets.training import chosen_when_run
from negviz.evaluation import run_choice
from negviz.evaluation.catalog import eval_command
from negviz.evaluation.summaries import HEADLINE_RATIO, headline, headline_ci, items_of

Cell = tuple[float | None, float | None, float | None, int | None]  # value, ci low, ci high, n
GENERAL = "general"


@dataclass(frozen=True)
class Column:
    key: str  # the board's column name (and the prefix of its _ci_low, _ci_high, _n, _of, _run_id)
    dataset: str  # the store's dataset name of the runs it reads
    kind: str  # the runs' kind: eval or retrieval
    benchmark: str  # the column's dataset for a person (the table's upper header)
    metric: str  # negviz.core.metrics' name: the cell's unit, chance level and direction
    measure: str  # what the column measures, for a person (the table's lower header)
    ranked: bool  # False: scales differ by model (CANNOT's similarities), so the column is not ranked
    cell: Callable[[dict], Cell]  # a run's summary -> the cell
    fill: str  # the `negviz eval` flags besides model and dataset that fill an empty cell

    def command(self, model: str) -> str:
        return eval_command(model, queries_dataset(self.dataset), self.fill)

    @property
    def title(self) -> str:
        """'NevIR paired accuracy (%)': benchmark, measure and the metric's unit."""
        return metric_text.header(self.metric, f"{self.benchmark} {self.measure}")

    @property
    def higher_is_better(self) -> bool | None:
        return metrics.metric(self.metric).higher_is_better if self.ranked else None


def _headline(summary: dict) -> Cell:
    lo, hi = headline_ci(summary)
    return headline(summary)[1], lo, hi, summary.get("n")


def _corpus(metric: str) -> Callable[[dict], Cell]:
    def cell(summary: dict) -> Cell:
        lo, hi = (summary.get("ci95") or {}).get(metric) or (None, None)
        return summary.get(metric), lo, hi, summary.get("n")

    return cell


def _perturbation(name: str) -> Callable[[dict], Cell]:
    def cell(summary: dict) -> Cell:
        if (p := perturbation_row(summary, name)) is None:
            return None, None, None, None
        lo, hi = p.get("ratio_ci95") or (None, None)
        return p.get("sensitivity_ratio"), lo, hi, p.get("n_ratio", p.get("n"))

    return cell


CORPUS = "ExcluIR offline corpus"
COLUMNS = (
    Column("nevir", "nevir", "eval", "NevIR", "paired_accuracy", "paired accuracy", True, _headline, ""),
    Column("excluir", "excluir", "eval", "ExcluIR", "right_rank", "Right Rank, pairs", True, _headline, ""),
    Column(
        "excluir_delta_r1", "excluir@offline", "retrieval", CORPUS, "delta_r1", "ΔR@1", True,
        _corpus("delta_r1"), "--corpus offline",
    ),
    Column(
        "excluir_delta_mrr10", "excluir@offline", "retrieval", CORPUS, "delta_mrr10", "ΔMRR@10", True,
        _corpus("delta_mrr10"), "--corpus offline",
    ),
    Column(
        "demetr_negation", "demetr", "eval", "DEMETR", "sensitivity_ratio", "negation sensitivity", True,
        _perturbation(NEGATION_PERTURBATION), "",
    ),
    Column(
        "demetr_antonym", "demetr", "eval", "DEMETR", "sensitivity_ratio", "antonym sensitivity", True,
        _perturbation(ANTONYM_PERTURBATION), "",
    ),
    Column(
        "cannot", "cannot", "eval", "CANNOT", "mean_similarity",
        "mean similarity (not ranked)", False, _headline, "",
    ),
)  # fmt: skip
GENERAL_METRIC = "general_recall10"
GENERAL_BENCHMARK, GENERAL_MEASURE = "General retrieval", "HotpotQA Recall@10"
GENERAL_TITLE = metric_text.header(GENERAL_METRIC, f"{GENERAL_BENCHMARK}: {GENERAL_MEASURE}")
GENERAL_FILL = "negviz finetune --model {model} --general 30 (epoch 0 measures the starting model)"
GENERAL_NOT_MEASURED = (
    "no command yet: the figure is measured by `negviz finetune` (epoch 0), which trains PyTorch bi-encoders only"
)
GENERAL_NOT_HELD_OUT = (
    "not held out: general retrieval's questions are the ExcluIR sample's first ones, whose passages "
    "this model trained on (--train excluir-split)"
)
# The shipped dataset whose items general retrieval asks (finetune.general: the ExcluIR sample's
# question0 over its gold passages): a model trained on it has no held-out general cell.
GENERAL_DRAWS_ON = "excluir"
PARTS = ("", "_ci_low", "_ci_high", "_n", "_of", "_run_id")


def column_keys() -> list[str]:
    return [c.key for c in COLUMNS] + [GENERAL]


def titles() -> dict[str, str]:
    return {c.key: c.title for c in COLUMNS} | {GENERAL: GENERAL_TITLE}


def headers() -> dict[str, tuple[str, str]]:
    """Per column (benchmark, measure): the table's two header rows (columns are dataset x metric)."""
    return {c.key: (c.benchmark, c.measure) for c in COLUMNS} | {GENERAL: (GENERAL_BENCHMARK, GENERAL_MEASURE)}


SHORT = {  # a column's name in pickers and URLs (a bound widget keeps its shown value in the URL)
    "nevir": "NevIR",
    "excluir": "ExcluIR pairs",
    "excluir_delta_r1": "ExcluIR ΔR@1",
    "excluir_delta_mrr10": "ExcluIR ΔMRR@10",
    "demetr_negation": "DEMETR negation",
    "demetr_antonym": "DEMETR antonym",
    "cannot": "CANNOT",
    GENERAL: "General retrieval",
}


def metric_of() -> dict[str, str]:
    """Per column, the negviz.core.metrics name its cells are values of (their unit and chance)."""
    return {c.key: c.metric for c in COLUMNS} | {GENERAL: GENERAL_METRIC}


def board_table(runs: pd.DataFrame, catalog: pd.DataFrame | None = None, made_by=None) -> pd.DataFrame:
    """One row per model with a run on any benchmark: per column its value, 95% CI, n and the
    run id it came from (NaN where the model has no run there). ``runs``: Store.runs rows of
    every kind and dataset; ``made_by(model) -> finetune run ids``: which fine-tuning runs made a
    model (its last epoch then gives the model's general-retrieval cell); ``catalog``: family,
    base model and training data per model."""
    cells: dict[str, dict[str, Any]] = {}
    for column in COLUMNS:
        part = runs[(runs["dataset_name"] == column.dataset) & (runs["kind"] == column.kind)]
        chosen = run_choice.choose_runs(part, kind=column.kind)
        for r in chosen.itertuples(index=False):
            value, lo, hi, n = column.cell(r.summary or {})
            if value is None:
                continue
            if fmt := (r.summary or {}).get("model_format"):
                cells.setdefault(r.model_name, {})["model_format"] = fmt  # INT8 ONNX: no fine-tuning
            if limit := (r.dataset_spec if isinstance(getattr(r, "dataset_spec", None), dict) else {}).get("limit"):
                samples = cells.setdefault(r.model_name, {}).setdefault("samples", {})
                samples[SHORT[column.key]] = int(limit)  # a stated sample (its first N items), not the benchmark
            cells.setdefault(r.model_name, {}).update(
                {
                    column.key: value,
                    f"{column.key}_ci_low": lo,
                    f"{column.key}_ci_high": hi,
                    f"{column.key}_n": n,
                    f"{column.key}_of": items_of(r.summary, getattr(r, "dataset_spec", None)),  # part of it: n of N
                    f"{column.key}_run_id": r.run_id,
                }
            )
    for model, cell in general_cells(runs, made_by).items():
        cells.setdefault(model, {}).update(cell)
    for model, cell in heldout_cells(runs).items():
        cells.setdefault(model, {}).update(cell)
    for model, trained in recorded(runs).items():
        if GENERAL_DRAWS_ON in trained.get("datasets", []):  # its general questions were trained on
            for part in PARTS:
                cells.get(model, {}).pop(f"{GENERAL}{part}", None)
    board = pd.DataFrame([{"model": m, **c} for m, c in sorted(cells.items())])
    columns = ["model"] + [f"{k}{p}" for k in column_keys() for p in PARTS] + ["samples", "model_format"]
    board = board.reindex(columns=columns)
    return _with_catalog(board, catalog, runs)


def recorded(runs: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Per model, the training its evaluation runs record (a `negviz finetune` checkpoint outside
    the catalog: negviz.evaluation.catalog.checkpoint_training); models without one are left out."""
    from negviz.evaluation.catalog import recorded_training

    out: dict[str, dict[str, Any]] = {}
    for r in runs[runs["kind"] != "finetune"].itertuples(index=False):
        if trained := recorded_training(r.summary if isinstance(r.summary, dict) else None):
            out.setdefault(r.model_name, trained)
    return out


def heldout_cells(runs: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """A `negviz finetune` checkpoint outside the catalog has two cells from the fine-tuning run
    that made it, at the checkpoint's epoch: NevIR from the held-out split when it trained on part
    of NevIR (``--train nevir-split``: never the test pairs it trained on), ExcluIR Right Rank of
    the held-out queries when it trained on part of ExcluIR (``--train excluir-split``), and
    general retrieval.
    That run is the one its evaluations record, else the complete run of the same recipe and seed
    (options["finetune"] equal to the recorded spec: a re-run of a shipped run)."""
    ft = runs[(runs["kind"] == "finetune") & (runs["status"] == "complete")]
    out: dict[str, dict[str, Any]] = {}
    for model, trained in recorded(runs).items():
        made = _making_run(ft, trained)
        if made is None:
            continue
        epoch = next((e for e in made.summary.get("epochs") or [] if e.get("epoch") == trained.get("epoch")), None)
        if not epoch:
            continue
        cell = {}
        if "nevir" in trained.get("datasets", []) and epoch.get("paired_accuracy") is not None:
            cell |= _epoch_cell("nevir", made.run_id, epoch, "paired_accuracy", "ci_low", "ci_high", "n")
        if "excluir" in trained.get("datasets", []) and epoch.get("right_rank") is not None:
            parts = ("right_rank", "right_rank_ci_low", "right_rank_ci_high", "right_rank_n")
            cell |= _epoch_cell("excluir", made.run_id, epoch, *parts)  # its held-out queries only
        if epoch.get("general_recall10") is not None:
            parts = ("general_recall10", "general_recall10_ci_low", "general_recall10_ci_high", "general_n")
            cell |= _epoch_cell(GENERAL, made.run_id, epoch, *parts)
        out[model] = cell
    return out


def _making_run(ft: pd.DataFrame, trained: dict[str, Any]):
    by_id = ft[ft["run_id"] == trained.get("finetune_run_id")]
    same = (
        ft[[(o or {}).get("finetune") == trained.get("spec") for o in ft["options"]]] if trained.get("spec") else ft[:0]
    )
    found = by_id if len(by_id) else same.sort_values("created_at", ascending=False)
    return next(found.itertuples(index=False), None)


def _epoch_cell(key: str, run_id: str, epoch: dict, value: str, lo: str, hi: str, n: str) -> dict[str, Any]:
    return {
        key: epoch[value],
        f"{key}_ci_low": epoch.get(lo),
        f"{key}_ci_high": epoch.get(hi),
        f"{key}_n": epoch.get(n),
        f"{key}_run_id": run_id,
    }


def general_cells(runs: pd.DataFrame, made_by=None) -> dict[str, dict[str, Any]]:
    """The general-retrieval cell per model: the starting model's from epoch 0 of the
    fine-tuning run with the most questions, a trained model's from the last epoch of the run that
    made it (``made_by``)."""
    ft = runs[(runs["kind"] == "finetune") & (runs["status"] == "complete")]
    out: dict[str, dict[str, Any]] = {}

    def cell(run, epoch: dict) -> dict[str, Any] | None:
        if epoch.get("general_recall10") is None:
            return None
        return {
            GENERAL: epoch["general_recall10"],
            f"{GENERAL}_ci_low": epoch.get("general_recall10_ci_low"),
            f"{GENERAL}_ci_high": epoch.get("general_recall10_ci_high"),
            f"{GENERAL}_n": epoch.get("general_n"),
            f"{GENERAL}_run_id": run.run_id,
        }

    for run in ft.itertuples(index=False):
        epochs = (run.summary or {}).get("epochs") or []
        first = next((e for e in epochs if e.get("epoch") == 0), None)
        start = cell(run, first) if first else None
        if start and (run.model_name not in out or start[f"{GENERAL}_n"] > out[run.model_name][f"{GENERAL}_n"]):
            out[run.model_name] = start
    if made_by is not None:
        for model in set(runs["model_name"]) - set(ft["model_name"]):
            for run in ft[ft["run_id"].isin(made_by(model))].itertuples(index=False):
                epochs = (run.summary or {}).get("epochs") or []
                last = max(epochs, key=lambda e: e.get("epoch", -1), default=None)
                if last and (end := cell(run, last)):
                    out[model] = end
    return out


def _with_catalog(board: pd.DataFrame, catalog: pd.DataFrame | None, runs: pd.DataFrame | None = None) -> pd.DataFrame:
    """Family, base model and training data beside each model, and ``trained_sets``: the board
    columns whose benchmark the model trained on part of (those cells are its held-out split), so
    no cell is read as held-out data it never saw when it saw that benchmark's data. A checkpoint
    outside the catalog has them from the training its runs record."""
    from negviz.evaluation.catalog import TRAINED_ON, run_base

    if board.empty:
        return board.assign(family=None, base=None, trained_on=None, trained_sets=None)
    rows = catalog.set_index("name") if catalog is not None else pd.DataFrame()
    made = recorded(runs) if runs is not None and not runs.empty else {}
    families = _families(runs)
    info = {}
    for m in board["model"]:
        listed = m in rows.index
        trained = made.get(m, {})
        datasets = set(TRAINED_ON.get(m, {})) | set(trained.get("datasets", []))
        info[m] = (
            rows.at[m, "family"] if listed else families.get(m),
            run_base(m, {"trained": trained}, catalog),
            rows.at[m, "training_data"] if listed else _trained_text(trained),
            [c.key for c in COLUMNS if c.dataset in datasets],
        )
    board.insert(1, "family", board["model"].map(lambda m: info[m][0]))
    board.insert(2, "base", board["model"].map(lambda m: info[m][1]))
    board.insert(3, "trained_on", board["model"].map(lambda m: info[m][2]))
    board.insert(4, "trained_sets", board["model"].map(lambda m: info[m][3]))
    return board


def _families(runs: pd.DataFrame | None) -> dict[str, str]:
    if runs is None or runs.empty or "family" not in runs:
        return {}
    return dict(zip(runs["model_name"], runs["family"]))


def _trained_text(trained: dict[str, Any]) -> str | None:
    """A recorded training in words: source, base, the fine-tuning run and epoch, and its note."""
    if not trained:
        return None
    run = str(trained.get("finetune_run_id") or "")[:8]
    source = trained.get("source") or "a training file"
    if chosen_when_run(source):  # recorded before runs stored what auto chose: its note may say
        source = f"unknown ({source})"
    return (
        f"{source}: {trained.get('base_model')} fine-tuned by negviz "
        f"(finetune run {run}, epoch {trained.get('epoch')}); {trained.get('note') or ''}"
    ).rstrip("; ")


# Published numbers measured as negviz measures the column (analyses.beside_published decides).
PUBLISHED_METRICS = {"nevir": "paired_accuracy", "demetr_negation": HEADLINE_RATIO}
# The best published results of a column, as reference rows (model, source): NevIR's from Rank1's
# Table 2 (arXiv 2502.18418): RankGPT with o3-mini (listwise), Rank1-32B and MonoT5-3B.
BEST_PUBLISHED = {
    "nevir": ("rank1_table2", "paired_accuracy", ("RankGPT (o3-mini; listwise)", "Rank1-32B", "MonoT5-3B"))
}


def published_board(reference: pd.DataFrame) -> pd.DataFrame:
    """The papers' rows of the board's columns (model, its sources, and the column values), to be
    shown as marked rows; only columns whose published protocol is negviz's."""
    from negviz.analyses.beside_published import SCALE, published_overlay

    rows: dict[str, dict[str, Any]] = {}  # by model: a model two papers measured is one point
    by_key = {c.key: c for c in COLUMNS}
    for key, metric in PUBLISHED_METRICS.items():
        found, _ = published_overlay(reference, by_key[key].dataset, metric)
        for r in found.itertuples(index=False):
            row = rows.setdefault(r.model, {"model": r.model, "source": r.source})
            if r.source not in row["source"]:
                row["source"] += f"; {r.source}"
            row[key] = r.value
    for key, (table, metric, models) in BEST_PUBLISHED.items():
        part = reference[(reference["table"] == table) & (reference["metric"] == metric)]
        for r in part[part["model"].isin(models)].itertuples(index=False):
            rows.setdefault(r.model, {"model": r.model, "source": r.source})[key] = r.value * SCALE[r.unit]
    return pd.DataFrame(list(rows.values()), columns=["model", "source", *PUBLISHED_METRICS])


def sorted_board(board: pd.DataFrame, by: str | None) -> pd.DataFrame:
    """The board ordered by one column, best first (missing cells last); by model name otherwise."""
    column = next((c for c in COLUMNS if c.key == by), None)
    if by == GENERAL or (column is not None and column.higher_is_better is not False):
        return board.sort_values(by, ascending=False, na_position="last", kind="stable").reset_index(drop=True)
    if column is not None:
        return board.sort_values(by, ascending=True, na_position="last", kind="stable").reset_index(drop=True)
    return board.sort_values("model", kind="stable").reset_index(drop=True)


def cell_text(row: dict, key: str) -> str:
    """A cell as one line: '7.1% [5.8 to 8.5%] n=1,383' ('n=50 of 1,383' for a partial import)."""
    if metric_text.is_missing(row.get(key)):
        return metric_text.MISSING
    m = metric_of()[key]
    text = metric_text.value(m, row[key])
    if not metric_text.is_missing(row.get(f"{key}_ci_low")):
        text += f" [{metric_text.ci(m, row[f'{key}_ci_low'], row[f'{key}_ci_high'])}]"
    if not metric_text.is_missing(row.get(f"{key}_n")):
        text += f" n={metric_text.n_of(row[f'{key}_n'], row.get(f'{key}_of'))}"
    return text


def board_text(board: pd.DataFrame) -> pd.DataFrame:
    """The board with each benchmark's cell as its text (cell_text), for a terminal."""
    out = board.copy()
    rows = board.to_dict("records")
    for key in column_keys():
        out[key] = [cell_text(r, key) for r in rows]
    return out


def missing_cells(board: pd.DataFrame) -> pd.DataFrame:
    """Each empty cell with the command that fills it."""
    by_key = {c.key: c for c in COLUMNS}
    rows = []
    for r in board.to_dict("records"):
        for key in column_keys():
            if pd.isna(r.get(key)):
                fill = by_key[key].command(r["model"]) if key in by_key else general_fill(r)
                rows.append({"model": r["model"], "benchmark": titles()[key], "command": fill})
    return pd.DataFrame(rows, columns=["model", "benchmark", "command"])


def general_fill(row: dict) -> str:
    """What fills a model's general-retrieval cell: only `negviz finetune` measures it (epoch 0 is
    the starting model), and it trains PyTorch bi-encoders only."""
    if GENERAL_DRAWS_ON in (row.get("trained_sets") or []):
        return GENERAL_NOT_HELD_OUT
    if row.get("family") == "bi-encoder" and "ONNX" not in str(row.get("model_format") or ""):
        return GENERAL_FILL.format(model=row["model"])
    return GENERAL_NOT_MEASURED


def _count(n: Any) -> int | None:
    return None if pd.isna(n) else int(n)


def board_json(board: pd.DataFrame) -> list[dict[str, Any]]:
    """The board for scripts: per row ``model``, ``base`` where declared, and per benchmark
    ``metric``, ``unit``, ``value``, ``ci_low``, ``ci_high``, ``n`` and, for a partial import,
    ``of`` (values as stored, never x100: ``unit`` says how a person reads them, negviz.core.metrics)."""
    from negviz.core.json_values import plain

    out = []
    for row in board.to_dict("records"):
        item: dict[str, Any] = {"model": row["model"]}
        if row.get("base"):
            item["base"] = row["base"]
        if row.get("trained_on"):
            item["trained_on"] = row["trained_on"]
        if isinstance(row.get("trained_sets"), list) and row["trained_sets"]:
            item["held_out_split"] = row["trained_sets"]  # cells over the part of its training set it never saw
        if isinstance(row.get("samples"), dict):
            item["samples"] = row["samples"]  # benchmark -> the first N items its run scored
        for key in column_keys():
            if pd.notna(row.get(key)):
                metric = metrics.metric(metric_of()[key])
                item[key] = {
                    "metric": metric.name,
                    "unit": metric.unit or "number",
                    "value": row[key],
                    "ci_low": row[f"{key}_ci_low"],
                    "ci_high": row[f"{key}_ci_high"],
                    "n": _count(row[f"{key}_n"]),  # a count, not the float a column with gaps holds
                    **({"of": _count(row[f"{key}_of"])} if pd.notna(row.get(f"{key}_of")) else {}),
                    "run_id": row[f"{key}_run_id"],
                }
        out.append(plain(item))
    return out


@dataclass(frozen=True)
class FillCell:
    """An empty cell (or one holding only a sample) that an evaluation fills: ``model`` on the
    shipped ``dataset`` (its held-out ``split`` where the model trained on part of it), shown in
    the columns ``keys`` (DEMETR's negation and antonym come from one run)."""

    model: str
    dataset: str
    split: str | None
    keys: tuple[str, ...]

    @property
    def benchmarks(self) -> str:
        return ", ".join(titles()[k] for k in self.keys)


def fillable(column: Column) -> bool:
    """Whether a plain `negviz eval` of the model on the column's dataset fills it (not a search
    over a corpus, nor fine-tuning's general retrieval)."""
    return column.kind == "eval" and not column.fill


def fill_cells(
    board: pd.DataFrame, models: list[str] | None = None, benchmarks: list[str] | None = None
) -> tuple[list[FillCell], pd.DataFrame]:
    """What ``negviz board --fill`` fills: the board's empty evaluation cells (and those holding a
    sample of their benchmark), for ``models`` (default: the board's; a model not on it has every
    cell empty) and ``benchmarks`` (column or dataset names, e.g. nevir, demetr; default: all). The
    other empty cells come back as missing_cells does (model, benchmark, command): left out."""
    from negviz.core.errors import NegvizError
    from negviz.evaluation.catalog import evaluation_split

    chosen = [c for c in COLUMNS if not benchmarks or {c.key, c.dataset, SHORT[c.key]} & set(benchmarks)]
    if benchmarks:
        known = {n for c in COLUMNS for n in (c.key, c.dataset, SHORT[c.key])} | {GENERAL}
        if unknown := [b for b in benchmarks if b not in known]:
            raise NegvizError(f"no benchmark {', '.join(unknown)} on the board; choose from {', '.join(sorted(known))}")
    rows = board.to_dict("records") if not board.empty else []
    if models:
        on_board = {r["model"]: r for r in rows}
        rows = [on_board.get(m, {"model": m}) for m in models]
    cells: dict[tuple[str, str], FillCell] = {}
    left: list[dict[str, str]] = []
    for r in rows:
        sampled = r.get("samples") if isinstance(r.get("samples"), dict) else {}
        for c in chosen:
            if not pd.isna(r.get(c.key)) and SHORT[c.key] not in sampled:
                continue
            if not fillable(c):
                if pd.isna(r.get(c.key)):
                    left.append({"model": r["model"], "benchmark": titles()[c.key], "command": c.command(r["model"])})
                continue
            found = cells.get((r["model"], c.dataset))
            keys = (*found.keys, c.key) if found else (c.key,)
            split = evaluation_split(r["model"], c.dataset)
            cells[(r["model"], c.dataset)] = FillCell(r["model"], c.dataset, split, keys)
        if (not benchmarks or GENERAL in benchmarks) and pd.isna(r.get(GENERAL)):
            left.append({"model": r["model"], "benchmark": titles()[GENERAL], "command": general_fill(r)})
    return list(cells.values()), pd.DataFrame(left, columns=["model", "benchmark", "command"])
