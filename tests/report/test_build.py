"""negviz.report.build's small parts, without building a report: the comparison models chosen when
none are given, and a run's provenance row. The report built over the shipped runs:
tests/report/test_report.py."""

from __future__ import annotations

from negviz.report.build import default_against


def test_default_comparisons():
    assert default_against("all-MiniLM-L6-v2")[0] == ["tfidf", "bm25"]
    assert default_against("NegMPNet")[0] == ["all-mpnet-base-v2"]
    assert default_against("tfidf")[0] == ["bm25"]


def test_provenance_names_the_hub_id_and_the_imported_file():
    import pandas as pd

    from negviz.report.build import provenance

    catalog = pd.DataFrame({"name": ["m"], "hub_id": ["org/m"]})
    run = {
        "run_id": "r1",
        "model_name": "m",
        "dataset_name": "nevir",
        "n": 10,
        "options": None,
        "summary": {"imported": {"file": "s.csv"}, "model_format": "onnx"},
    }
    got = provenance(run, catalog)
    assert (got["model_id"], got["options"], got["weights_format"]) == ("org/m", {}, "onnx")
    assert got["imported"] == {"file": "s.csv"} and got["split"] is None
    assert provenance({**run, "model_name": "x"}, catalog)["model_id"] == "x"  # not in the catalog: its name
