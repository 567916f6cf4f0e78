"""negviz's runs beside the published rows of the same model (analyses.beside_published): matching
by catalog relation (same weights, another format, a re-training), scale conversion, the
difference with its CI and the protocol note, on hand-built runs and reference rows."""

from __future__ import annotations

import pandas as pd
import pytest

from negviz.analyses.beside_published import BESIDE_COLUMNS, beside_published, run_value
from negviz.evaluation.published import load_reference, model_rows


def ref_row(**kw) -> dict:
    row = {
        "table": "nevir_table2",
        "source": "NevIR Table 2",
        "model": "m",
        "hub_id": "",
        "family": "bi-encoder",
        "dataset": "nevir",
        "metric": "paired_accuracy",
        "value": 8.1,
        "unit": "percent",
        "perturbation": "",
        "notes": "",
    }
    return row | kw


def run_row(model: str, dataset: str, summary: dict, options: dict | None = None, n: int = 100) -> dict:
    return {
        "model_name": model,
        "dataset_name": dataset,
        "summary": summary,
        "options": options or {},
        "n": n,
        "run_id": f"{model}-{dataset}",
    }


def test_relations_come_from_the_catalog():
    ref = load_reference()
    mpnet = model_rows(ref, "all-mpnet-base-v2")
    assert set(mpnet["relation"]) == {"same weights"} and "HedgeMPNet Table 1" in set(mpnet["source"])
    ce = model_rows(ref, "ms-marco-MiniLM-L-12-v2-int8")
    assert set(ce["relation"]) == {"other format"} and set(ce["hub_id"]) == {"cross-encoder/ms-marco-MiniLM-L-12-v2"}
    neg = model_rows(ref, "negmpnet-lora")  # negviz's re-training stands beside tum-nlp/NegMPNet
    assert set(neg["relation"]) == {"reproduction"} and set(neg["model"]) == {"NegMPNet"}
    assert set(model_rows(ref, "tfidf")["relation"]) == {"same method"}
    assert model_rows(ref, "maxsim-all-MiniLM-L6-v2").empty  # same weights, another family


def test_difference_ci_and_scale_on_hand_computed_cases():
    ref = pd.DataFrame(
        [
            ref_row(hub_id="sentence-transformers/all-mpnet-base-v2"),  # 8.1 percent
            ref_row(
                table="negbleurt_demetr",
                source="NegBLEURT Fig. 4",
                hub_id="sentence-transformers/all-mpnet-base-v2",
                dataset="demetr",
                metric="sensitivity_ratio",
                value=0.14,
                unit="ratio",
                perturbation="critical_id8_negation",
            ),
            ref_row(
                hub_id="sentence-transformers/all-mpnet-base-v2",
                dataset="demetr",
                metric="sensitivity_ratio",
                value=0.5,
                unit="ratio",
                perturbation="critical_id1_missing",
            ),  # not in the run: no row
        ]
    )
    runs = pd.DataFrame(
        [
            run_row(
                "all-mpnet-base-v2",
                "nevir",
                {"metric": "paired_accuracy", "paired_accuracy": 0.10, "ci95": [0.07, 0.13]},
                n=1383,
            ),
            run_row(
                "all-mpnet-base-v2",
                "demetr",
                {
                    "metric": "sensitivity_ratio",
                    "perturbations": [
                        {
                            "perturbation": "critical_id8_negation",
                            "sensitivity_ratio": 0.20,
                            "ratio_ci95": [0.18, 0.22],
                            "n": 1000,
                        }
                    ],
                },
                n=35_000,
            ),
        ]
    )
    out = beside_published(runs, ref)
    assert list(out.columns) == list(BESIDE_COLUMNS) and len(out) == 2
    out = out.set_index("dataset")
    nevir = out.loc["nevir"]
    assert nevir["published"] == pytest.approx(0.081) and nevir["difference"] == pytest.approx(0.019)
    assert (nevir["diff_ci_low"], nevir["diff_ci_high"]) == pytest.approx((-0.011, 0.049))
    assert nevir["published_in_ci"] and nevir["protocol"] == "same protocol" and nevir["n"] == 1383
    demetr = out.loc["demetr"]
    assert demetr["perturbation"] == "critical_id8_negation" and demetr["difference"] == pytest.approx(0.06)
    assert demetr["n"] == 1000  # the perturbation's items, not the run's
    assert not demetr["published_in_ci"] and demetr["protocol"].startswith("same protocol")


def test_corpus_and_format_are_named_in_the_protocol():
    hub = "cross-encoder/ms-marco-MiniLM-L-12-v2"
    ref = pd.DataFrame(
        [
            ref_row(
                table="excluir_table6",
                source="ExcluIR Table 6",
                hub_id=hub,
                family="cross-encoder",
                dataset="excluir",
                metric="right_rank",
                value=63.12,
            )
        ]
    )
    corpus = {
        "metric": "right_rank",
        "right_rank": 0.6,
        "ci95": {"right_rank": [0.5, 0.7]},
        "model_format": "INT8 ONNX (dynamic quantization)",
    }
    runs = pd.DataFrame(
        [
            run_row(
                "ms-marco-MiniLM-L-12-v2-int8", "excluir@offline", corpus, {"corpus": "offline", "corpus_size": 42871}
            ),
            run_row(
                "ms-marco-MiniLM-L-12-v2-int8",
                "excluir",
                {"metric": "right_rank", "right_rank": 0.655, "ci95": [0.64, 0.68]},
            ),
        ]
    )
    out = beside_published(runs, ref)
    assert len(out) == 2 and set(out["relation"]) == {"other format"}
    on_corpus, on_pairs = (out[out["run_id"].str.endswith(s)].iloc[0] for s in ("excluir@offline", "-excluir"))
    assert "INT8 ONNX" in on_corpus["protocol"] and "42,871 documents" in on_corpus["protocol"]
    assert on_corpus["published_in_ci"]
    assert "two documents" in on_pairs["protocol"] and not on_pairs["published_in_ci"]


def test_run_value_reads_only_what_the_run_measured():
    flat = {"metric": "right_rank", "right_rank": 0.6, "ci95": [0.5, 0.7], "mean_margin": 0.1}
    assert run_value(flat, "right_rank") == (0.6, 0.5, 0.7)
    assert run_value(flat, "mean_margin") == (0.1, None, None)  # the flat CI is the headline's only
    assert run_value(flat, "delta_r1") is None
    assert run_value({"perturbations": []}, "sensitivity_ratio", "critical_id8_negation") is None
