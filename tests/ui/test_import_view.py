"""negviz.ui.import_scores.import_view: a score file stored as a run through the Import scores page's own
path (import_bytes, outcome) into a copy of the shipped runs (app_env), the run then listed among
the scores-only models; a refused file's problems as text; the provenance line."""

import pytest
from streamlit.testing.v1 import AppTest

from negviz.core.errors import DataValidationError, NegvizError
from negviz.ui.import_scores import import_view as iv
from negviz.ui.widgets import safe_md

# Two NevIR pairs by id: 1230-2 right on both queries, 994-2 wrong on q2 (d1 above d2).
CSV = (
    "item_id,query_slot,doc_slot,score\n"
    "1230-2,q1,d1,0.9\n1230-2,q1,d2,0.1\n1230-2,q2,d1,0.2\n1230-2,q2,d2,0.8\n"
    "994-2,q1,d1,0.7\n994-2,q1,d2,0.3\n994-2,q2,d1,0.6\n994-2,q2,d2,0.4\n"
).encode()


def test_a_partial_file_is_stored_and_said_with_its_headline_and_links(app_env):
    result = iv.import_bytes(CSV, "two.csv", "nevir", "ext-model", "https://example.org/x", allow_partial=True)
    shown = iv.outcome(result, "nevir")
    assert shown["model"] == "ext-model" and not shown["reused"]
    assert shown["headline"] == (  # 1 of the 2 pairs right
        "paired accuracy 50.0% on 2 of 1,383 items scored (2 items, fewer than 20: too few to read as a result)"
    )
    assert [title for title, _ in shown["links"]] == ["Overview", "Per-type heatmap", "Pair inspector"]
    assert shown["imported"]["file"] == "two.csv" and shown["imported"]["rows"] == 8
    runs = iv.scores_only_runs()  # the run lists were cleared: the new run is listed at once
    mine = runs[runs["model"] == "ext-model"]
    assert mine[["family", "dataset", "file", "source"]].values.tolist() == [
        ["imported", "nevir", "two.csv", "https://example.org/x"]
    ]


def test_a_file_without_a_model_name_is_refused_before_it_is_read(app_env):
    with pytest.raises(NegvizError, match="Give the model a name"):
        iv.import_bytes(CSV, "two.csv", "nevir", "  ")


def test_scores_only_families_are_the_imported_and_python_ones():
    assert set(iv.scores_only_families()["family"]) == {"imported", "python"}


def test_provenance_names_the_file_its_layout_rows_hash_and_source():
    imported = {"file": "two.csv", "layout": "id", "rows": 1200, "sha256": "0123456789abcdef", "source": "https://x"}
    assert (
        iv.provenance(imported) == "From two.csv (by id layout, 1,200 rows) · sha256 0123456789ab… · source https://x"
    )
    assert iv.provenance({}) == ""


def _problems(exc):
    from negviz.ui.import_scores.import_view import show_problems

    show_problems(exc, "scores <1>.csv")


def test_a_refused_files_problems_are_listed_as_text():
    exc = DataValidationError.of(
        [
            DataValidationError("no item [x](http://e) Nothing was stored.", row=2),
            DataValidationError("missing pairs: use --allow-partial", column="item_id"),
        ]
    )
    at = AppTest.from_function(_problems, args=(exc,), default_timeout=30).run()
    (error,) = at.error
    assert error.value == (
        f"{safe_md('scores <1>.csv')} was refused: 2 problems; nothing was stored.\n\n"
        f"- {safe_md('no item [x](http://e)')}\n- {safe_md('missing pairs: use --allow-partial')}"
    )
    assert [c.value for c in at.caption] == ["On this page, --allow-partial is the box *Allow a partial file*."]
