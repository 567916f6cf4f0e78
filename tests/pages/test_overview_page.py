"""The Overview and heatmap pages (AppTest) on the shipped ExcluIR corpus run: its corpus is named."""


def test_overview_and_heatmap_show_the_shipped_corpus_run_and_name_its_corpus(app_env):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = str(Path(__file__).resolve().parents[2] / "app.py")
    for page in ("pages/overview.py", "pages/heatmap.py"):
        at = AppTest.from_file(app, default_timeout=180)
        at.query_params["dataset"] = "excluir"
        at.run()
        at.switch_page(page).run()
        assert not at.exception, [e.message for e in at.exception]
        table = next(d.value for d in at.dataframe if "delta_r1" in d.value.columns)
        bm25 = table.set_index("model").loc["bm25"]
        assert (bm25["corpus"], bm25["corpus_size"], bm25["n"]) == (
            "offline",
            "42,871",
            "1,000",
        )  # counts with thousands, as text
        said = " ".join(c.value for c in at.caption)
        assert "not ExcluIR's 90,406-paragraph corpus" in said and "Table 6" in said
        beside = [d.value for d in at.dataframe if {"delta_r1", "training_data"} <= set(d.value.columns)]
        assert beside == [], "Table 6 is not placed beside a run over another corpus"
