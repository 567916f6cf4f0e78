"""DatasetView, the one read path of the pages, the report and the CLI, over a copy of the shipped
runs: each read against a hand computation from the stored scores, and each read memoised (the
second read sends no SQL)."""

import numpy as np
import pandas as pd

from negviz import projects as P
from negviz.analyses import lexical as X
from negviz.datasets import load
from negviz.language.taxonomy.labels import ADJUDICATED, GOLD_CUE
from negviz.results import annotations as ann
from negviz.results.dataset_view import DatasetView
from negviz.store import Store
from tests.support.counting import statements


def test_runs_are_the_stores_and_read_once(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    runs = view.runs()
    assert set(runs["dataset_name"]) == {"nevir"} and set(runs["kind"]) == {"eval"}
    assert {"bm25", "tfidf", "all-MiniLM-L6-v2"} <= set(runs["model_name"])
    assert list(runs["run_id"]) == list(shipped_store.runs(dataset="nevir", kind="eval", status="complete")["run_id"])
    with statements(shipped_store.engine) as sent:
        again = view.runs()
    assert again is runs and sent == []


def test_attribution_runs_split_the_kind_by_analysis_for_the_page_and_the_report(shipped_store):
    """The shipped NevIR attribution runs hold cue-influence runs and layer curves: each analysis
    gets its own, together all of them (the Cue influence page and the report read them here)."""
    from negviz.analyses import cue_influence as C
    from negviz.analyses import layers as L
    from negviz.store.record import ATTRIBUTION

    view = DatasetView(shipped_store, "nevir")
    cue, layers = view.attribution_runs(C.ANALYSIS), view.attribution_runs(L.ANALYSIS)
    assert len(cue) and len(layers)
    assert {o["analysis"] for o in cue["options"]} == {C.ANALYSIS} and all(s.get("method") for s in cue["summary"])
    assert {o["analysis"] for o in layers["options"]} == {L.ANALYSIS}
    assert sorted([*cue["run_id"], *layers["run_id"]]) == sorted(view.runs(ATTRIBUTION)["run_id"])
    assert DatasetView(shipped_store, "excluir").attribution_runs(C.ANALYSIS).empty


def test_chosen_outcomes_equal_a_hand_computation_from_the_scores(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    chosen = view.chosen(["bm25"])
    assert len(chosen) == 1 and chosen["model_name"].iloc[0] == "bm25"
    run_id = chosen["run_id"].iloc[0]
    wide = view.scores(run_id)
    with statements(shipped_store.engine) as sent:
        assert view.scores(run_id) is wide
    assert sent == []
    # NevIR's strict rule by hand: both queries rank their own document strictly first.
    by_hand = (wide["q1_d1"] > wide["q1_d2"]) & (wide["q2_d2"] > wide["q2_d1"])
    verdicts = view.outcomes(chosen).set_index("item_id")
    assert len(verdicts) == 1383 and set(verdicts["model"]) == {"bm25"}
    assert (verdicts["correct"] == by_hand.loc[verdicts.index].to_numpy()).all()
    assert int(verdicts["correct"].sum()) == int(by_hand.sum())
    np.testing.assert_allclose(verdicts["margin1"], (wide["q1_d1"] - wide["q1_d2"]).loc[verdicts.index])


def test_an_empty_choice_gives_empty_outcomes_with_the_columns(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    empty = view.outcomes(view.chosen(["no-such-model"]))
    assert empty.empty and {"model", "run_id", "item_id", "correct", "margin"} <= set(empty.columns)


def test_retrieval_runs_are_those_whose_queries_are_the_dataset(shipped_store):
    runs = DatasetView(shipped_store, "excluir").retrieval_runs()
    assert len(runs) and set(runs["dataset_name"]) == {"excluir@offline"}
    assert DatasetView(shipped_store, "nevir").retrieval_runs().empty
    assert len(DatasetView(shipped_store).retrieval_runs()) == len(runs)  # the whole store: every corpus run


def test_labels_annotations_and_adjudications_read_through_the_view(tmp_path):
    with Store(f"sqlite:///{tmp_path / 'labels.sqlite'}") as store:
        ds = load("nevir")
        item = str(ds.frame["pair_id"].iloc[0])
        view = DatasetView(store, "nevir")
        gold = view.labels().set_index("item_id")
        assert len(gold) == 1383 and gold.loc[item, "label_source"] == GOLD_CUE
        project = P.create(store, "p", ds, "owner", overlap=2, sample=5)
        item = project.items[0]
        ann.save(store, ds, item, "ana", ann.Label("affixal", "valid"))
        ann.save(store, ds, item, "ben", ann.Label("sentential", "valid"))
        P.adjudicate(store, project, item, "rita", ann.Label("implicit", "valid"))
        fresh = DatasetView(store, "nevir")  # reads are memoised per view: a new view sees new labels
        assert sorted(fresh.annotations()["annotator"]) == ["ana", "ben"]
        decided = fresh.adjudicated()
        assert decided["item_id"].tolist() == [item] and decided["negation_type"].iloc[0] == "implicit"
        typed = fresh.labels().set_index("item_id")
        assert typed.loc[item, "type"] == "implicit" and typed.loc[item, "label_source"] == ADJUDICATED
        assert len(fresh.annotation_history(item)) == 2
        exported = fresh.annotation_export()
        assert (exported["adjudicated_negation_type"].dropna() == "implicit").all()


def test_a_whole_store_view_lists_every_finetuning_run_with_a_label(shipped_store):
    runs = DatasetView(shipped_store).finetune_runs()
    assert len(runs) >= 3 and runs["label"].map(bool).all()
    held_out_on_nevir = DatasetView(shipped_store, "finetune:nevir-heldout").finetune_runs()
    assert set(held_out_on_nevir["run_id"]) <= set(runs["run_id"]) and len(held_out_on_nevir) >= 1


def test_lexical_margins_come_from_the_stored_bm25_run_else_bm25_now(shipped_store, tmp_path):
    stored, source, run_id = DatasetView(shipped_store, "nevir").lexical_margins()
    assert run_id and source == "the stored BM25 run" and len(stored) == 1383
    with Store(f"sqlite:///{tmp_path / 'empty.sqlite'}") as empty:
        now, source_now, none = DatasetView(empty, "nevir").lexical_margins()
    assert none is None and source_now == X.SCORED_NOW
    # The same BM25 either way, so the page and the report read one set of margins.
    pd.testing.assert_frame_equal(now.set_index("item_id").sort_index(), stored.set_index("item_id").sort_index())


class Recording:
    """A ReadCache that keeps nothing and records what the view asked it for."""

    def __init__(self):
        self.asked: list[tuple[str, tuple]] = []

    def get(self, what, key, compute):
        self.asked.append((what, key))
        return compute()


def test_every_read_goes_through_the_cache_under_the_view(shipped_store):
    """Caching by composition: the view asks its cache for each read (the pages pass one shared by
    every session), so no read goes around it; READS says how long each is true."""
    from negviz.results.dataset_view import READS

    cache = Recording()
    view = DatasetView(shipped_store, "nevir", cache)
    run = view.chosen(["bm25"]).iloc[0]
    view.outcomes(view.chosen(["bm25"]))
    view.record(run["run_id"])
    view.item_verdicts(run["run_id"], "strict")
    view.annotations()
    view.whole_store().finetune_runs()
    asked = {what for what, _ in cache.asked}
    assert asked == {"dataset", "runs", "scores", "outcomes", "record", "verdicts", "annotations", "finetune_runs"}
    assert asked <= set(READS) and ("runs", ("nevir", "eval", "complete")) in cache.asked
    # the default cache keeps a read for the view's life, annotations excepted
    memo = DatasetView(shipped_store, "nevir")
    memo.record(run["run_id"])
    with statements(shipped_store.engine) as sent:
        memo.record(run["run_id"])
    assert sent == []
    with statements(shipped_store.engine) as sent:
        memo.annotations()
    assert sent != []


# ---------------------------------------------------------------- the sensitivity and board pages' reads (hsect)
def _bm25_run(store, dataset: str) -> dict:
    return DatasetView(store, dataset).chosen(["bm25"]).iloc[0].to_dict()


def test_a_demetr_runs_item_and_perturbation_tables_agree_with_its_stored_summary(shipped_store):
    from negviz.analyses import sensitivity as sv

    view = DatasetView(shipped_store, "demetr")
    run = _bm25_run(shipped_store, "demetr")
    items = view.sensitivity_items(run["run_id"])
    assert len(items) == run["n"]
    # ratio = (t - h) / (t - e) of one item, by hand from its three scores
    row = items[items["score_candidate"] != items["score_empty"]].iloc[0]
    t, h, e = row["score_candidate"], row["score_perturbed"], row["score_empty"]
    assert np.isclose(row["ratio"], (t - h) / (t - e))
    stored = view.perturbation_table(run)  # what the CLI printed, from the run's summary
    recomputed = sv.perturbation_table(items, False)  # from the item scores
    merged = stored.merge(recomputed, on="perturbation", suffixes=("_stored", "_items"))
    assert len(merged) == len(stored) > 0
    assert (merged["n_stored"] == merged["n_items"]).all()
    assert np.allclose(merged["sensitivity_ratio_stored"], merged["sensitivity_ratio_items"], equal_nan=True)
    # pert_check items only: not the stored summary's choice, so computed from the items
    checked = view.perturbation_table(run, checked_only=True)
    assert (checked["n"] <= stored.set_index("perturbation").loc[checked["perturbation"], "n"].to_numpy()).all()
    assert checked["n"].sum() == int(items["checked"].sum())


def test_a_cells_items_are_the_items_of_one_perturbation(shipped_store):
    view = DatasetView(shipped_store, "demetr")
    run = _bm25_run(shipped_store, "demetr")
    items = view.sensitivity_items(run["run_id"])
    stem = items["perturbation"].iloc[0]
    cell = view.sensitivity_cell(run["run_id"], stem, False, "all")
    assert len(cell) == int((items["perturbation"] == stem).sum()) and set(cell["perturbation"]) == {stem}


def test_cannot_distribution_has_a_row_per_model_and_source(shipped_store):
    view = DatasetView(shipped_store, "cannot")
    dist = view.cannot_distribution(view.chosen(["bm25", "tfidf"]), "negated")
    assert set(dist["model"]) == {"bm25", "tfidf"}
    assert dist.groupby("model").size().nunique() == 1  # the same source files for both models


def test_the_board_and_fixes_are_read_through_the_cache(shipped_store):
    from negviz.results.dataset_view import READS

    cache = Recording()
    everything = DatasetView(shipped_store, None, cache)
    board = everything.board()
    table, items = DatasetView(shipped_store, "nevir", cache).fixes(models=["negminilm"])
    asked = {what for what, _ in cache.asked}
    assert {"board", "fixes"} <= asked <= set(READS)
    assert "negminilm" in set(board["model"]) and list(table["model"]) == ["negminilm"]
    assert table["repaired"].iloc[0] == int((items["negminilm"]["change"] == "repaired").sum())
    memo = DatasetView(shipped_store)
    memo.board()
    with statements(shipped_store.engine) as sent:
        memo.board()
    assert sent == []


# ---------------------------------------------------------------- what the pages derive
def _kept_for_the_views_life(view, read) -> None:
    """A second read of the same view sends no SQL and computes nothing: the kept value itself."""
    first = read()
    with statements(view.store.engine) as sent:
        again = read()
    assert sent == [] and again is first


def test_the_dataset_list_is_the_shipped_datasets_and_those_added(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    table = view.datasets()
    assert {"nevir", "excluir", "cannot", "demetr"} <= set(table["name"]) and set(table["origin"]) == {"shipped"}
    assert table.set_index("name").loc["nevir", "kind"] == "pairs"
    _kept_for_the_views_life(view, view.datasets)


def test_automatic_types_and_the_inspector_items_are_the_taxonomys_of_every_item(shipped_store):
    from negviz.analyses import inspector

    view = DatasetView(shipped_store, "nevir")
    types = view.automatic_types()
    assert types.equals(inspector.automatic_types(load("nevir"))) and len(types) == 1383
    # NevIR's pair 1230-2 ("Who had no love for the violin?"): its gold cue "not" is sentential
    assert types.set_index("item_id").loc["1230-2", "type"] == "sentential"
    items = view.inspector_items().set_index("item_id")
    assert len(items) == 1383 and items.loc["1230-2", "negation_type"] == "sentential"
    assert items.loc["1230-2", "cue"] == "not" and items["annotators"].sum() == 0  # no annotation columns of now
    _kept_for_the_views_life(view, view.automatic_types)
    _kept_for_the_views_life(view, view.inspector_items)


def test_stacked_verdicts_are_each_runs_verdicts_under_its_rule(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    runs = view.chosen(["bm25", "tfidf"])
    stacked = view.stacked_verdicts(runs)
    assert sorted(set(stacked["model"])) == ["bm25", "tfidf"] and len(stacked) == 2 * 1383
    for run in runs.itertuples():
        wide = view.scores(run.run_id)  # NevIR's strict rule by hand: both queries right
        by_hand = int(((wide["q1_d1"] > wide["q1_d2"]) & (wide["q2_d2"] > wide["q2_d1"])).sum())
        assert int(stacked.loc[stacked["model"] == run.model_name, "correct"].sum()) == by_hand
    _kept_for_the_views_life(view, lambda: view.stacked_verdicts(runs))


def test_the_run_picker_cuts_to_the_best_models_when_none_are_asked(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    every = view.chosen()
    count, chosen, labels, families = view.run_picker(top=2, over=2)
    # by hand: the two models with the highest paired accuracy (the share of pairs right)
    accuracy = view.outcomes(every).groupby("model")["correct"].mean().sort_values(ascending=False)
    assert count == len(every) > 2 and sorted(chosen["model_name"]) == sorted(accuracy.index[:2])
    assert set(labels) == set(view.runs()["run_id"]) and set(families) == set(every["family"].dropna())
    asked = view.run_picker(["bm25", "tfidf"], top=2, over=0)  # models asked: never cut
    assert sorted(asked[1]["model_name"]) == ["bm25", "tfidf"]
    assert set(asked[2]) == set(view.runs().query("model_name in ['bm25', 'tfidf']")["run_id"])
    only = view.run_picker(families=["bm25"], contains="bm")[1]
    assert list(only["model_name"]) == ["bm25"]


def test_cue_mentions_count_a_generative_runs_wrong_verdicts_by_hand(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    runs = view.runs()
    run_id = runs[(runs["model_name"] == "smollm2-135m") & runs["dataset_spec"].map(lambda s: s.get("limit") == 25)]
    run_id = str(run_id["run_id"].iloc[0])
    texts = view.texts(run_id)
    wide = view.scores_by_item(run_id).loc[sorted(set(texts["item_id"]))]
    mentions = view.cue_mentions(run_id, "strict")
    # by hand: each kept item's two queries, strict (q1 ranks d1 first, q2 ranks d2 first)
    wrong = int((wide["q1_d1"] <= wide["q1_d2"]).sum() + (wide["q2_d2"] <= wide["q2_d1"]).sum())
    assert mentions["queries"] == 2 * len(wide) == 50 and mentions["wrong"] == wrong
    assert mentions["wrong_without_cue"] <= wrong
    _kept_for_the_views_life(view, lambda: view.cue_mentions(run_id, "strict"))


def test_cue_shares_and_their_table_per_negation_type(shipped_store):
    from negviz.analyses import cue_influence as C

    view = DatasetView(shipped_store, "nevir")
    run = view.attribution_runs(C.ANALYSIS).iloc[0]
    runs = {"one": str(run["run_id"])}
    frame = view.cue_shares(runs)
    types = view.automatic_types().set_index("item_id")["type"]
    assert set(frame["label"]) == {"one"} and (frame["type"] == frame["item_id"].map(types)).all()
    table = view.cue_share_table(runs, "type").set_index("type")
    for kind, part in frame.dropna(subset=["cue_share"]).groupby("type"):  # by hand: n and median per type
        assert table.loc[kind, "comparisons"] == len(part) and np.isclose(
            table.loc[kind, "median cue share"], part["cue_share"].median()
        )
    _kept_for_the_views_life(view, lambda: view.cue_share_table(runs, "type"))


def test_the_lexical_confound_of_a_few_items_by_hand(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    chosen = view.chosen(["bm25", "tfidf"])
    items = list(view.dataset.frame["pair_id"].astype(str)[:100])
    table, follows = view.lexical_confound(chosen, items)
    assert follows.set_index("model").loc["bm25", "follows BM25"] == 1.0  # BM25 is the measure itself
    bm25 = view.scores_by_item(chosen.set_index("model_name").loc["bm25", "run_id"]).loc[items]
    tfidf = view.scores_by_item(chosen.set_index("model_name").loc["tfidf", "run_id"]).loc[items]
    # by hand: each query's lean (BM25's margin for the right document) and TF-IDF's margin
    lean = pd.concat([bm25["q1_d1"] - bm25["q1_d2"], bm25["q2_d2"] - bm25["q2_d1"]])
    mine = pd.concat([tfidf["q1_d1"] - tfidf["q1_d2"], tfidf["q2_d2"] - tfidf["q2_d1"]])
    rows = table[table["model"] == "tfidf"].set_index("lexical lean")
    for name, where in ((X.RIGHT, lean > 0), (X.WRONG, lean < 0)):
        assert rows.loc[name, "n"] == int(where.sum())
        assert np.isclose(rows.loc[name, "wrong or tie"], float((mine[where] <= 0).mean()))
    assert rows["n"].sum() == 200  # two comparisons per pair
    _kept_for_the_views_life(view, lambda: view.lexical_confound(chosen, items))
    comps = view.lexical_comparisons(chosen[chosen["model_name"] == "tfidf"], items)
    assert set(comps["model"]) == {"tfidf"} and len(comps) == 200


def test_score_layouts_give_examples_from_the_datasets_first_item(shipped_store):
    nevir = DatasetView(shipped_store, "nevir").score_layouts().set_index("layout")["example row"]
    assert nevir["by id"] == "1230-2, q1, d1, 0.4703"  # NevIR's first pair: q1 against d1
    assert nevir["by text (exact texts)"].startswith('"Who had no love for the…", ')
    excluir = DatasetView(shipped_store, "excluir").score_layouts().set_index("layout")["example row"]
    assert excluir["by id"] == "excluir_31, query, pos_doc, 0.4703"
    assert excluir["TREC run (.trec, .run, .txt)"] == "excluir_31 Q0 DOC_ID 1 14.2 my-run"


def test_presets_are_the_librarys_picks_from_the_preset_models_runs(shipped_store):
    from negviz.analyses import playground as pg

    view = DatasetView(shipped_store)
    presets = view.presets(pg.PRESET_MODELS)
    frames, wide = {}, {}
    for dataset in pg.PRESET_PICKERS:  # by hand: each preset model's chosen run on each dataset
        one = DatasetView(shipped_store, dataset)
        runs = one.chosen()
        mine = runs[runs["model_name"].isin(pg.PRESET_MODELS)]
        frames[dataset] = one.dataset.frame
        wide[dataset] = {m: one.scores(r) for m, r in zip(mine["model_name"], mine["run_id"])}
    assert [p.key for p in presets] == [p.key for p in pg.stored_presets(frames, wide)]
    assert {p.key.split(":")[0] for p in presets} == {"nevir", "excluir"}
    _kept_for_the_views_life(view, lambda: view.presets(pg.PRESET_MODELS))


def test_lexical_margins_of_the_stored_run_are_kept(shipped_store):
    view = DatasetView(shipped_store, "nevir")
    _kept_for_the_views_life(view, lambda: view.lexical_margins()[0])
