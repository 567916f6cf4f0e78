"""The Across-benchmarks page (AppTest, the shipped runs): the board figure shows each model's
cell as the Overview does, the sort is a URL key, empty cells name their command, and the transfer
scatter has one trace per family with both CIs."""

import pytest

from tests.support.apptest import open_page


@pytest.fixture
def board_page(app_env):
    return lambda **params: open_page("pages/board.py", **params)


def _figures(app):
    import json

    return {c.proto.id: json.loads(c.proto.spec) for c in app.get("plotly_chart")}


def test_the_board_sorted_by_nevir_with_published_rows_and_commands(board_page):
    from negviz.results.dataset_view import DatasetView
    from negviz.store import Store

    app = board_page(sort="NevIR", published="true")
    assert app.title[0].value == "Across benchmarks"
    assert app.selectbox(key="sort").value == "NevIR"
    (table,) = [h.proto.body for h in app.get("html")]  # one table: no parts
    assert table.count("<table") == 1 and "▼ paired accuracy (%)" in table  # the sort key, marked
    rows = [r.split("</b>")[0].split("<b>")[-1] for r in table.split("<tbody>")[1].split("<tr>")[1:4]]
    assert rows == ["minilm-nevir-split", "negmpnet-lora", "negminilm"]  # 34.7%, 33.8%, 26.0%: best first
    with Store() as store:  # the app's store: the number the Overview shows for NegMiniLM on NevIR
        chosen = DatasetView(store, "nevir").chosen(["negminilm"])
    value = chosen["summary"].iloc[0]["paired_accuracy"]
    assert f"<b>{value * 100:.1f}%</b>" in table
    assert table.count("◇ ") >= 3 and "RankGPT (o3-mini; listwise)" in table and "77.3%" in table
    assert "rgba(185,28,28" in table  # NevIR 7.1%, below its 25% chance level: red, not green
    figures = list(_figures(app).values())
    assert len(figures) == 1  # the transfer scatter
    expander = [e for e in app.expander if "Empty cells" in e.label]
    assert expander, [e.label for e in app.expander]
    commands = expander[0].dataframe[0].value
    smollm = commands[(commands["model"] == "smollm2-135m") & commands["benchmark"].str.startswith("ExcluIR Right")]
    assert smollm["command"].iloc[0] == "negviz eval --model smollm2-135m --dataset excluir"
    transfer = figures[0]
    families = {t["name"] for t in transfer["data"]}
    assert {"bi-encoder", "maxsim", "cross-encoder", "bm25"} <= families


def test_the_transfer_axes_come_from_the_url(board_page):
    app = board_page(bx="NevIR", by="DEMETR negation", published="false")
    transfer = list(_figures(app).values())[-1]
    assert transfer["layout"]["xaxis"]["title"]["text"] == "NevIR paired accuracy (%)"
    assert (
        transfer["layout"]["yaxis"]["title"]["text"] == "DEMETR negation sensitivity"
    )  # a plain number: no unit bracket
    assert "◇ " not in app.get("html")[0].proto.body.split("<tbody>")[1]  # published rows off
    # NegMPNet was published on both (HedgeMPNet Table 1, NegBLEURT Fig. 4): a hollow diamond
    published = [t for t in transfer["data"] if t["name"] == "published (paper tables)"]
    assert published and "NegMPNet" in published[0]["customdata"][0]
