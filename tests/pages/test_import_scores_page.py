"""The Import scores page (AppTest; an upload is driven by tests/browser/test_import_scores.py):
the page opens with its layouts and form, the view's import of given bytes stores a run once (a
refused or oversized file stores nothing, every problem listed as plain text), and the stored
run shows on the page, on the Models & data page and in the inspector, whose Why panel says the
model is not here instead of offering to explain it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from negviz.core.errors import DataValidationError, NegvizError
from negviz.results.external.exporting import score_csv
from negviz.store import Store
from negviz.store.portable import read_scores
from tests.support.apptest import open_page

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
SHIPPED = ROOT / "data" / "runs" / "nevir__all-MiniLM-L6-v2.parquet"
NAME = "minilm-shifted"


def score_bytes(shift: float = -1.0, keep_items: int | None = None) -> bytes:
    """The shipped MiniLM NevIR run's scores moved by a constant (same verdicts, another file)."""
    scores = read_scores(SHIPPED)
    scores["score"] = scores["score"] + shift
    if keep_items is not None:
        scores = scores[scores["item_id"].isin(scores["item_id"].unique()[:keep_items])]
    return score_csv("pairs", scores).encode()


def imported_runs(db: str):
    runs = Store(db).runs(dataset="nevir")
    return runs[runs["family"] == "imported"]


@pytest.fixture
def db(app_env) -> str:
    return os.environ["NEGVIZ_DB_URL"]


def test_the_page_shows_the_layouts_and_asks_for_a_file(db):
    at = open_page("pages/import_scores.py", dataset="nevir")
    assert at.title[0].value == "Import scores"
    layouts = next(d.value for d in at.dataframe if "example row" in d.value.columns)
    assert layouts["layout"].tolist()[:2] == ["by id", "by text (exact texts)"]
    assert layouts["example row"].iloc[0].startswith("1230-2, q1, d1, ")  # NevIR's first pair
    assert any("negviz import-scores" in c.value for c in at.caption)
    assert [t.label for t in at.text_input] == ["Model name", "Source (URL, doi: or arxiv:)"]
    assert at.checkbox[0].label == "Allow a partial file (only some items scored)"
    next(b for b in at.button if b.label == "Import").click().run()
    assert not at.exception and "Choose a score file first." in at.error[0].value
    assert imported_runs(db).empty


def test_an_import_is_stored_once_and_shown_everywhere(db):
    from negviz.ui.import_scores import import_view

    result = import_view.import_bytes(score_bytes(), "minilm.csv", "nevir", NAME, "arxiv:2305.12345", store=Store(db))
    assert not result.reused and result.record.family == "imported"
    again = import_view.import_bytes(score_bytes(), "minilm.csv", "nevir", NAME, store=Store(db))
    assert again.reused and again.record.run_id == result.record.run_id and len(imported_runs(db)) == 1
    done = import_view.outcome(result, "nevir")
    assert done["headline"] == "paired accuracy 7.1% (n = 1,383 items)"  # MiniLM's verdicts: a shift keeps them
    titles = [t for t, _ in done["links"]]
    assert titles == ["Overview", "Per-type heatmap", "Pair inspector"]
    inspector = dict(done["links"])["Pair inspector"]
    assert f"models={NAME}" in inspector and f"model={NAME}" in inspector and result.record.run_id in inspector
    assert "source arxiv:2305.12345" in import_view.provenance(done["imported"])

    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["dataset"] = "nevir"
    at.run()
    at.switch_page("pages/import_scores.py")
    at.session_state[import_view.OUTCOME] = done  # what the Import button leaves after its rerun
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    shown = at.success[0].value.replace("\\", "")
    assert shown.startswith(f"Imported **{NAME}** on nevir: paired accuracy 7.1% (n = 1,383 items)")
    assert any("[Pair inspector](inspector?" in m.value for m in at.markdown)

    at = open_page("pages/catalog.py")
    families = next(d.value for d in at.dataframe if "stored runs" in d.value.columns)
    assert families.set_index("family")["stored runs"].to_dict() == {"imported": 1, "python": 0}
    runs = next(d.value for d in at.dataframe if "result" in d.value.columns)
    assert runs[["model", "dataset", "file", "source"]].values.tolist() == [
        [NAME, "nevir", "minilm.csv", "arxiv:2305.12345"]
    ]

    at = open_page("pages/inspector.py", dataset="nevir", pair="1230-2", models=NAME, model=NAME)
    info = [i.value.replace("\\", "").replace("\u2060", "") for i in at.info]
    assert any(f"The scores of '{NAME}' were imported from a file" in i for i in info), info
    assert not [t for t in at.toggle if t.label == "Explain"]  # nothing to explain with


def test_a_refused_file_lists_every_problem_and_stores_nothing(db, monkeypatch):
    from negviz.ui.import_scores import import_view

    good = score_bytes().decode().splitlines()
    good[1] = good[1].rsplit(",", 1)[0] + ",nan"  # a NaN score
    good[2] = "no-such-pair" + good[2][good[2].index(",") :]  # an unknown item
    with pytest.raises(DataValidationError) as refused:
        import_view.import_bytes("\n".join(good).encode(), "bad.csv", "nevir", NAME, store=Store(db))
    problems = [str(p) for p in refused.value.problems]
    assert any("not a finite number" in p for p in problems) and any("no-such-pair" in p for p in problems)
    with pytest.raises(NegvizError, match="Give the model a name"):
        import_view.import_bytes(score_bytes(), "x.csv", "nevir", "  ", store=Store(db))
    monkeypatch.setenv("NEGVIZ_MAX_FILE_MB", "0.01")  # the datasets' limit, before any parsing
    with pytest.raises(DataValidationError, match="over the limit"):
        import_view.import_bytes(b"not,a,score,file\n" * 2000, "big.csv", "nevir", NAME, store=Store(db))
    assert imported_runs(db).empty

    def page():
        from negviz.core.errors import DataValidationError
        from negviz.ui.import_scores.import_view import show_problems

        show_problems(
            DataValidationError.of(
                [DataValidationError("1 row has **a** [link](http://x.y)", file="f.csv"), DataValidationError("two")]
            ),
            "f_[1].csv",
        )

    at = AppTest.from_function(page).run()
    text = at.error[0].value
    assert "2 problems; nothing was stored" in text and "\n- 1 row has \\*\\*a\\*\\* \\[link\\]" in text
    assert "f\\_\\[1\\]\\.csv was refused" in text and "\n- two" in text


@pytest.mark.parametrize(
    "row",
    [b"1052-2,q1,d1," + b"9" * (5 << 20), b"X" * (5 << 20) + b",q1,d1,1.0", b"X" * 5000 + b",q1,d1,1.0"],
    ids=["5 MB score cell", "5 MB id", "5,000-character id"],
)
def test_a_huge_cell_gets_a_short_error_box(db, row):
    """A 5 MB cell gave a 5.2-million-character error box, a 5 MB id no answer in 150 s."""
    from negviz.ui.import_scores import import_view

    data = b"item_id,query_slot,doc_slot,score\n" + row + b"\n"
    with pytest.raises(DataValidationError) as refused:
        import_view.import_bytes(data, "huge.csv", "nevir", NAME, store=Store(db))

    def page(error):
        from negviz.ui.import_scores.import_view import show_problems

        show_problems(error, "huge.csv")

    at = AppTest.from_function(page, args=(refused.value,)).run()
    assert not at.exception and "csv was refused: 1 problem; nothing was stored" in at.error[0].value
    assert len(at.error[0].value) < 400
    assert imported_runs(db).empty


def test_a_partial_file_says_n_of_n(db):
    from negviz.ui.import_scores import import_view

    with pytest.raises(DataValidationError, match="--allow-partial"):
        import_view.import_bytes(score_bytes(keep_items=100), "part.csv", "nevir", "partial", store=Store(db))
    result = import_view.import_bytes(
        score_bytes(keep_items=100), "part.csv", "nevir", "partial", allow_partial=True, store=Store(db)
    )
    assert import_view.outcome(result, "nevir")["headline"].endswith(" on 100 of 1,383 items scored")
