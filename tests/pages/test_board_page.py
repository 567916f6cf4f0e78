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

    app = board_page(sort="NevIR")
    assert app.title[0].value == "Across benchmarks"
    assert app.selectbox(key="sort").value == "NevIR"
    figures = list(_figures(app).values())
    assert len(figures) == 4  # the board in three parts of three columns, then the transfer scatter
    board, transfer = figures[0], figures[-1]
    heat = board["data"][0]
    rows = heat["y"]
    # 34.7% (its held-out NevIR pairs, marked †), 33.8%, 26.0%: best first
    assert [r.split("<br>")[0] for r in rows[:3]] == ["minilm-nevir-split", "negmpnet-lora", "negminilm"]
    assert "† trained on NevIR" in rows[0]
    assert any(r.startswith("◇ ") for r in rows)  # published rows, marked
    with Store() as store:  # the app's store: the number the Overview shows for NegMiniLM on NevIR
        nevir = DatasetView(store, "nevir")
        chosen = nevir.chosen(["negminilm"])
    value = chosen["summary"].iloc[0]["paired_accuracy"]
    assert heat["text"][2][0].startswith(f"{value * 100:.1f}%")
    assert "n=1,383" in heat["text"][2][0]
    assert "—" in [t for row in heat["text"][: len(rows)] for t in row]  # smollm2 has no ExcluIR run
    expander = [e for e in app.expander if "Empty cells" in e.label]
    assert expander, [e.label for e in app.expander]
    commands = expander[0].dataframe[0].value
    smollm = commands[(commands["model"] == "smollm2-135m") & commands["benchmark"].str.startswith("ExcluIR Right")]
    assert smollm["command"].iloc[0] == "negviz eval --model smollm2-135m --dataset excluir"
    families = {t["name"] for t in transfer["data"]}
    assert {"bi-encoder", "maxsim", "cross-encoder", "bm25"} <= families
    assert all(
        t["error_x"]["array"] and t["error_y"]["array"]
        for t in transfer["data"]
        if t["name"] != "published (paper tables)"
    )


def test_the_transfer_axes_come_from_the_url(board_page):
    app = board_page(bx="NevIR", by="DEMETR negation", published="false")
    transfer = list(_figures(app).values())[-1]
    assert transfer["layout"]["xaxis"]["title"]["text"] == "NevIR paired accuracy (%)"
    assert transfer["layout"]["yaxis"]["title"]["text"] == "DEMETR negation sensitivity (ratio)"
    board = [f for f in _figures(app).values()][0]
    assert not any(r.startswith("◇ ") for r in board["data"][0]["y"])  # published rows off
    # NegMPNet was published on both (HedgeMPNet Table 1, NegBLEURT Fig. 4): a hollow diamond
    published = [t for t in transfer["data"] if t["name"] == "published (paper tables)"]
    assert published and "NegMPNet" in published[0]["customdata"][0]
