"""The board across benchmarks (negviz.analyses.board, DatasetView.board, `negviz board`): every cell
is the number the dataset's own page shows for the model, over the shipped runs."""

import json

import pandas as pd
import pytest

from negviz.analyses.board import COLUMNS, GENERAL, board_json, board_table, column_keys
from negviz.analyses.leaderboard import corpus_board, leaderboard
from negviz.cli import main
from negviz.results.dataset_view import DatasetView
from negviz.store import Store


@pytest.fixture(scope="module")
def board(shipped_store):
    return DatasetView(shipped_store).board()


def test_every_headline_cell_is_the_overview_number(shipped_store, board):
    """The Overview of each dataset: leaderboard() of the run each model is shown by."""
    checked = 0
    # A NevIR-split checkpoint's NevIR cell is its fine-tuning run's held-out split, never on the
    # Overview (test_the_nevir_split_checkpoint_is_a_row_with_its_base_and_held_out_cell).
    finetune = set(DatasetView(shipped_store).finetune_runs()["run_id"])
    for column in (c for c in COLUMNS if c.kind == "eval" and c.key != "demetr_antonym"):
        view = DatasetView(shipped_store, column.dataset)
        overview = leaderboard(view.runs()[view.runs()["run_id"].isin(view.chosen()["run_id"])]).set_index("model")
        cells = board.dropna(subset=[column.key])
        cells = cells[~cells[f"{column.key}_run_id"].isin(finetune)].set_index("model")
        assert set(cells.index) == set(overview.index), column.key
        for model, row in cells.iterrows():
            shown = overview.loc[model]
            assert row[column.key] == shown["value"], (column.key, model)
            assert (row[f"{column.key}_ci_low"], row[f"{column.key}_ci_high"]) == (shown["ci_low"], shown["ci_high"])
            assert row[f"{column.key}_run_id"] == shown["run_id"]
            checked += 1
    assert checked >= 40  # 12 models on NevIR, 11 on ExcluIR, 11 on DEMETR, 9 on CANNOT


def test_corpus_and_antonym_cells_are_the_pages_numbers(shipped_store, board):
    corpus = corpus_board(DatasetView(shipped_store, "excluir").retrieval_runs()).set_index("run_id")
    rows = board.dropna(subset=["excluir_delta_r1"])
    assert len(rows) >= 6
    for row in rows.itertuples(index=False):
        shown = corpus.loc[row.excluir_delta_r1_run_id]
        assert (row.excluir_delta_r1, row.excluir_delta_mrr10) == (shown["delta_r1"], shown["delta_mrr10"])
        assert row.excluir_delta_r1_ci_low == shown["delta_r1_ci_low"]
    # DEMETR's antonym ratio: the perturbation's row of the run the sensitivity page shows.
    minilm = board.set_index("model").loc["all-MiniLM-L6-v2"]
    run = shipped_store.get_run(minilm["demetr_antonym_run_id"])
    antonym = next(p for p in run.summary["perturbations"] if p["perturbation"] == "critical_id7_antonym")
    assert minilm["demetr_antonym"] == antonym["sensitivity_ratio"]
    assert [minilm["demetr_antonym_ci_low"], minilm["demetr_antonym_ci_high"]] == antonym["ratio_ci95"]
    assert minilm["demetr_antonym_n"] == 1000 and run.n == 35000  # the full run, not the 2-perturbation one


def test_general_retrieval_from_the_finetuning_runs(shipped_store, board):
    """all-MiniLM-L6-v2: epoch 0 of the fine-tuning run that measured most questions; NegMiniLM:
    the last epoch of the run that made it (data/models/negminilm/README.md: finetune 1ce4a3c7)."""
    rows = board.set_index("model")
    runs = DatasetView(shipped_store).finetune_runs()
    made = runs[runs["run_id"].str.startswith("1ce4a3c7")].iloc[0]
    last = max(made["summary"]["epochs"], key=lambda e: e["epoch"])
    assert rows.loc["negminilm", GENERAL] == last["general_recall10"]
    assert rows.loc["negminilm", f"{GENERAL}_run_id"] == made["run_id"]
    starts = [
        (next(e for e in r["epochs"] if e["epoch"] == 0))
        for r in runs[runs["model_name"] == "all-MiniLM-L6-v2"]["summary"]
    ]
    widest = max(starts, key=lambda e: e["general_n"])
    assert rows.loc["all-MiniLM-L6-v2", GENERAL] == widest["general_recall10"]
    assert pd.isna(rows.loc["bm25", GENERAL])  # never measured: the cell stays empty


def test_the_board_names_bases_and_training_data(board):
    rows = board.set_index("model")
    assert rows.loc["negminilm", "base"] == "all-MiniLM-L6-v2"
    assert rows.loc["negmpnet-lora", "base"] == "all-mpnet-base-v2"
    assert "CANNOT" in rows.loc["negminilm", "trained_on"]
    assert rows.loc["smollm2-135m", "nevir_n"] == 100  # its stated sample, said by its n
    assert pd.isna(rows.loc["smollm2-135m", "excluir"])


def test_the_nevir_split_checkpoint_is_a_row_with_its_base_and_held_out_cell(shipped_store, board):
    """The final checkpoint of the NevIR-split fine-tune (finetune edf1a5c2, epoch 4), evaluated on the other
    benchmarks: its base, its training, and a NevIR cell from the held-out split only."""
    checkpoints = board[board["trained_on"].fillna("").str.startswith("nevir-split")]
    assert len(checkpoints) >= 1
    row = checkpoints.iloc[0]
    assert row["base"] == "all-MiniLM-L6-v2" and row["trained_sets"] == ["nevir"]
    made = DatasetView(shipped_store).finetune_runs().set_index("run_id").loc[row["nevir_run_id"]]
    assert made["options"]["data"]["split"] == "passage-disjoint"
    epoch = shipped_store.get_run(row["excluir_run_id"]).summary["trained"]["epoch"]
    held_out = next(e for e in made["summary"]["epochs"] if e["epoch"] == epoch)
    assert (row["nevir"], row["nevir_n"]) == (held_out["paired_accuracy"], 412)  # not the 1,383 test pairs
    assert row["excluir_n"] == 1000 and row["demetr_negation_n"] == 1000 and pd.notna(row["cannot"])
    table, _ = DatasetView(shipped_store, "excluir").fixes()
    assert table.set_index("model").at[row["model"], "base"] == "all-MiniLM-L6-v2"


def test_board_json_on_the_command_line(shipped_store, board, capsys):
    assert main(["--db", str(shipped_store.engine.url), "board", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == board_json(board)
    negminilm = next(r for r in printed if r["model"] == "negminilm")
    assert negminilm["base"] == "all-MiniLM-L6-v2"
    assert set(negminilm["nevir"]) == {"metric", "unit", "value", "ci_low", "ci_high", "n", "run_id"}
    assert (negminilm["nevir"]["unit"], negminilm["demetr_negation"]["unit"]) == ("%", "number")  # raw, with its unit
    assert negminilm["nevir"]["n"] == 1383 and 0 < negminilm["nevir"]["value"] < 1  # a fraction, not %
    assert "excluir_delta_r1" not in negminilm  # no run: no key, never a made-up number
    counts = [cell["n"] for row in printed for cell in row.values() if isinstance(cell, dict) and "n" in cell]
    assert counts and all(type(n) is int for n in counts)  # 1000, not 1000.0 (a column with gaps is float)


def test_an_empty_store_gives_an_empty_board(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'empty.sqlite'}") as store:
        board = DatasetView(store).board()
    assert board.empty and board_json(board) == []
    assert list(board_table(store_runs_columns(), None).columns)[:2] == ["model", column_keys()[0]]


def store_runs_columns() -> pd.DataFrame:
    return pd.DataFrame(columns=["run_id", "model_name", "dataset_name", "kind", "status", "split", "n", "summary"])


def test_negminilm_repairs_and_breaks_on_nevir_by_hand(shipped_store):
    """Repaired (MiniLM wrong, NegMiniLM right) and broken pairs, counted from the two stored runs'
    scores with NevIR's rule written out: a pair is right when s(q1,d1) > s(q1,d2) and
    s(q2,d2) > s(q2,d1)."""
    view = DatasetView(shipped_store, "nevir")
    table, items = view.fixes()
    row = table.set_index("model").loc["negminilm"]
    assert row["base"] == "all-MiniLM-L6-v2" and row["dataset"] == "nevir"

    def right(run_id):
        w = shipped_store.scores_wide(run_id)
        return (w["q1_d1"] > w["q1_d2"]) & (w["q2_d2"] > w["q2_d1"])

    model, base = right(row["run_id"]), right(row["base_run_id"])
    base = base.loc[model.index]
    assert row["repaired"] == int((model & ~base).sum()) == 311
    assert row["broken"] == int((~model & base).sum()) == 50
    assert row["n"] == 1383 and abs(row["difference"] - (model.mean() - base.mean())) < 1e-12
    assert row["difference_ci_low"] < row["difference"] < row["difference_ci_high"] and row["p_value"] < 1e-6
    listed = items["negminilm"]
    assert set(listed.loc[listed["change"] == "repaired", "item_id"]) == set(model[model & ~base].index)


def test_maxsim_variants_have_their_encoders_as_base():
    from negviz.evaluation.catalog import base_model

    assert base_model("maxsim-all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    assert base_model("maxsim-all-mpnet-base-v2") == "all-mpnet-base-v2"
    assert base_model("all-MiniLM-L6-v2") is None and base_model("bm25") is None


def test_one_negation_perturbation_heads_a_demetr_run_everywhere():
    """A DEMETR run's headline and its CI (Overview, leaderboard, notebook API), the board's DEMETR
    columns and the comparison with the papers read the perturbations named in negviz.core.kinds."""
    from negviz.analyses.beside_published import run_value
    from negviz.core.kinds import ANTONYM_PERTURBATION, NEGATION_PERTURBATION
    from negviz.evaluation.summaries import HEADLINE_RATIO, RATIO, headline, headline_ci

    rows = [
        {"perturbation": ANTONYM_PERTURBATION, "sensitivity_ratio": 0.2, "ratio_ci95": [0.1, 0.3], "n": 5},
        {"perturbation": NEGATION_PERTURBATION, "sensitivity_ratio": 0.6, "ratio_ci95": [0.5, 0.7], "n": 7},
    ]
    summary = {"metric": RATIO, "n": 12, "perturbations": rows}
    assert headline(summary) == (HEADLINE_RATIO, 0.6) and headline_ci(summary) == (0.5, 0.7)
    cells = {c.key: c.cell(summary) for c in COLUMNS if c.dataset == "demetr"}
    assert cells == {"demetr_negation": (0.6, 0.5, 0.7, 7), "demetr_antonym": (0.2, 0.1, 0.3, 5)}
    assert run_value(summary, RATIO, NEGATION_PERTURBATION) == (0.6, 0.5, 0.7)
    antonym_only = {**summary, "perturbations": rows[:1]}  # a run without the negation file has no headline
    assert headline(antonym_only) == (HEADLINE_RATIO, None) and headline_ci(antonym_only) == (None, None)
    row = leaderboard(
        pd.DataFrame(
            [
                {
                    "model_name": "m", "family": "bi-encoder", "summary": summary, "n": 12, "options": {},
                    "dataset_name": "demetr", "split": "test", "device": "cpu", "wall_seconds": 1.0,
                    "model_revision": "r", "code_version": "v", "created_at": None, "run_id": "x",
                }
            ]
        )
    ).iloc[0]  # fmt: skip
    assert (row["metric"], row["value"], row["ci_low"], row["ci_high"]) == (HEADLINE_RATIO, 0.6, 0.5, 0.7)
