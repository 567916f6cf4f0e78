"""One metric, one face: every board metric of one model (paired accuracy, Right Rank, ΔR@1,
ΔMRR@10, two sensitivity ratios, CANNOT's similarity, general Recall@10) reads the same text in
`negviz board`, on the Across-benchmarks page (AppTest), in the report's board and, for the
Overview's own tables, the same unit; a partial import (50 of 1,383 pairs) says "50 of 1,383" in
each of them. Over a copy of the shipped runs (app_env)."""

import io
import json
import os

from negviz.analyses.board import column_keys, metric_of
from negviz.core import metric_text
from negviz.results.external.exporting import score_csv
from negviz.store.portable import read_scores
from tests.support.apptest import open_page
from tests.support.browser import ROOT

MODEL, PARTIAL = "all-MiniLM-L6-v2", "partial-minilm"


def _import_partial(url: str) -> None:
    from negviz.results.external.importing import import_scores
    from negviz.store import Store

    scores = read_scores(ROOT / "data" / "runs" / "nevir__all-MiniLM-L6-v2.parquet")
    scores = scores[scores["item_id"].isin(scores["item_id"].unique()[:50])]
    data = io.BytesIO(score_csv("pairs", scores).encode())
    import_scores(data, "part.csv", "nevir", PARTIAL, store=Store(url), allow_partial=True)


def test_every_metric_reads_the_same_in_the_cli_the_pages_the_board_and_the_report(app_env, capsys):
    from negviz.cli import main
    from negviz.report.build import build_report
    from negviz.report.html import render
    from negviz.results.dataset_view import DatasetView
    from negviz.store import Store

    url = os.environ["NEGVIZ_DB_URL"]
    _import_partial(url)
    with Store(url) as store:
        board = DatasetView(store).board().set_index("model")
    row = board.loc[MODEL]
    expected = {}  # column -> (value, CI) as a person reads them, from the metric model alone
    for key in column_keys():
        metric = metric_of()[key]
        assert not metric_text.is_missing(row[key]), f"{MODEL} has a {key} cell"
        expected[key] = (
            metric_text.value(metric, row[key]),
            metric_text.ci(metric, row[f"{key}_ci_low"], row[f"{key}_ci_high"]),
        )
    assert expected["excluir_delta_r1"][0].endswith(" pp") and expected["nevir"][0].endswith("%")
    assert not expected["excluir_delta_mrr10"][0].endswith(("%", "pp"))  # a score's difference: a number
    partial = metric_text.n_of(board.at[PARTIAL, "nevir_n"], board.at[PARTIAL, "nevir_of"])
    assert partial == "50 of 1,383"

    # the command line: `negviz board` (text) and `negviz board --json` (raw, with the unit)
    assert main(["--db", url, "board"]) == 0
    cli = capsys.readouterr().out
    line = next(li for li in cli.splitlines() if li.strip().startswith(MODEL))
    for value, ci in expected.values():
        assert f"{value} [{ci}]" in line
    assert f"n={partial}" in next(li for li in cli.splitlines() if li.strip().startswith(PARTIAL))
    assert main(["--db", url, "board", "--json"]) == 0
    cells = next(r for r in json.loads(capsys.readouterr().out) if r["model"] == MODEL)
    for key in column_keys():
        unit = cells[key]["unit"]
        assert metric_text.value(metric_of()[key], cells[key]["value"]) == expected[key][0]
        assert unit == (metric_text.unit_word(metric_of()[key]) or "number")
    assert main(["--db", url, "runs", "--dataset", "nevir"]) == 0
    assert partial in next(li for li in capsys.readouterr().out.splitlines() if PARTIAL in li)

    # the Across-benchmarks page and the report's board: one table, the same cells
    page = open_page("pages/board.py").get("html")[0].proto.body
    with Store(url) as store:
        rep = build_report(store, MODEL, against=[PARTIAL], datasets=["nevir"], examples=0, maxsim=False)
    report, _ = render(rep, "plotly")
    for where, html in (("page", page), ("report", report)):
        for key, (value, ci) in expected.items():
            assert f"<b>{value}</b><br><small>{ci}</small>" in html, (where, key)
        assert f"n={partial}" in html, where
        assert "None" not in html.split('<table class="nv-board">')[1].split("</table>")[0], where

    # the Overview: the leaderboard's value in the metric's unit, its CI and "n of N" as text
    overview = open_page("pages/overview.py", dataset="nevir")
    table = next(d.value for d in overview.dataframe if "95% CI" in d.value.columns).set_index("model")
    fmt = json.loads(next(d for d in overview.dataframe if "95% CI" in d.value.columns).proto.columns)
    shown = fmt["value"]["type_config"]["format"] % table.at[MODEL, "value"]
    assert shown == expected["nevir"][0] and table.at[MODEL, "95% CI"] == expected["nevir"][1]
    assert table.at[PARTIAL, "n"] == partial
    # its corpus runs (ExcluIR): ΔR@1 in points, ΔMRR@10 a signed number, as on the board
    corpus = open_page("pages/overview.py", dataset="excluir")
    runs = next(d for d in corpus.dataframe if "delta_r1" in d.value.columns)
    formats = json.loads(runs.proto.columns)
    mini = runs.value[runs.value["model"] == MODEL].iloc[0]
    for key, column in (("excluir_delta_r1", "delta_r1"), ("excluir_delta_mrr10", "delta_mrr10")):
        text = formats[column]["type_config"]["format"] % mini[column]
        assert text == expected[key][0]
