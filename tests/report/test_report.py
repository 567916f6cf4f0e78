"""negviz report: the numbers equal the CLI's and the analyses', every section is there, text is
escaped, missing runs name their command, and the file opens offline in Chromium."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from negviz.cli import main
from negviz.core.paths import DATA_DIR
from negviz.report.build import SECTION_TITLES, SECTIONS
from negviz.store import Store
from tests.support.browser import CHROMIUM  # the browser fixture comes from conftest (one per session)

RUNS = DATA_DIR / "runs"
EVIL = "<script>alert('x')</script>&<b>bold"


@pytest.fixture(scope="module", autouse=True)
def shipped_runs_in_every_store():
    """`negviz report` opens its store as a user's does, with the shipped runs in it (the test
    session sets NEGVIZ_NO_SHIPPED_RUNS=1 for every other test)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("NEGVIZ_NO_SHIPPED_RUNS", raising=False)
        yield


def _store(tmp: Path, files: list[str]) -> str:
    url = f"sqlite:///{tmp / 'store.sqlite'}"
    store = Store(url)
    for f in files:
        store.import_runs(RUNS / f)
    return url


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A report of MiniLM against TF-IDF on NevIR, DEMETR and CANNOT, written by the CLI (SVG figures)."""
    tmp = tmp_path_factory.mktemp("report")
    files = [f"{d}__{m}.parquet" for d in ("nevir", "demetr", "cannot") for m in ("all-MiniLM-L6-v2", "tfidf")]
    url = _store(tmp, files + ["finetune__edf1a5c2.parquet"])
    out = tmp / "report.html"
    figures = "auto" if shutil.which("chromium") else "plotly"
    assert (
        main(
            [
                "--db",
                url,
                "report",
                "--model",
                "all-MiniLM-L6-v2",
                "--against",
                "tfidf",
                "--datasets",
                "nevir",
                "demetr",
                "cannot",
                "--out",
                str(out),
                "--no-maxsim",
                "--quiet",
                "--figures",
                figures,
            ]
        )
        == 0
    )
    return url, out, json.loads(out.with_suffix(".json").read_text())


def test_numbers_equal_the_cli_and_the_analyses(built, capsys):
    url, _, data = built
    nevir = data["datasets"]["nevir"]
    head = {r["model"]: r for r in nevir["headline"]}
    assert head["all-MiniLM-L6-v2"]["n"] == 1383 and head["tfidf"]["n"] == 1383
    assert round(head["all-MiniLM-L6-v2"]["value"] * 100, 2) == 7.09
    assert round(head["tfidf"]["value"] * 100, 2) == 1.95
    # the CLI's stored runs and McNemar give the same numbers
    capsys.readouterr()
    main(["--db", url, "runs", "--dataset", "nevir", "--json"])
    runs = {r["model_name"]: r for r in json.loads(capsys.readouterr().out) if r["shown"] == "*"}
    for model in ("all-MiniLM-L6-v2", "tfidf"):
        assert head[model]["value"] == runs[model]["value"]
        assert head[model]["run_id"] == runs[model]["run_id"]
    main(["--db", url, "compare", "all-MiniLM-L6-v2", "tfidf", "--dataset", "nevir", "--json"])
    cmp = json.loads(capsys.readouterr().out)
    (mc,) = nevir["mcnemar"]
    for key in ("b", "c", "n_shared", "accuracy_a", "accuracy_b", "p_value", "method"):
        assert mc[key] == cmp[key], key
    # the per-type cells are per_type.cell_table's, the published rows comparable_published's
    from negviz.analyses.leaderboard import comparable_published
    from negviz.evaluation.published import load_reference

    assert len(nevir["published"]) == len(comparable_published(load_reference(), "nevir", "paired_accuracy"))
    cells = {(c["model"], c["column"]): c for c in nevir["per_type"]["cells"]}
    assert sum(c["n"] for (m, _), c in cells.items() if m == "tfidf") == 1383
    prefs = [p for p in nevir["errors"]["preference"] if p["model"] == "all-MiniLM-L6-v2"]
    assert sum(p["count"] for p in prefs if p["category"] == "correct") == round(0.07086 * 1383)
    # DEMETR: the stored summary's per-perturbation ratios, with the published columns
    demetr = data["datasets"]["demetr"]["sensitivity"]
    store = Store(url)
    mini = store.get_run(data["datasets"]["demetr"]["run_ids"]["all-MiniLM-L6-v2"])
    stored = {p["perturbation"]: p["sensitivity_ratio"] for p in mini.summary["perturbations"]}
    mine = {
        c["perturbation"]: c["sensitivity_ratio"]
        for c in demetr["cells"]
        if c["model"] == "all-MiniLM-L6-v2" and not c["published"]
    }
    assert mine == pytest.approx(stored)
    assert "NegMPNet" in demetr["published_models"]
    # provenance of every run used
    for ds in data["datasets"].values():
        for run_id in ds["run_ids"].values():
            prov = data["runs"][run_id]
            assert {
                "model_id",
                "revision",
                "dataset",
                "split",
                "options",
                "n",
                "code_version",
                "device",
                "date",
            } <= set(prov)
    assert data["drift"]["runs"] and data["drift"]["figure"] == "drift"


def test_every_section_and_no_network_reference(built):
    _, out, data = built
    page = out.read_text()
    for key in SECTIONS:
        assert f"<section id='{key}'>" in page and SECTION_TITLES[key] in page
    assert data["figure_format"] in ("svg", "plotly")
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    assert out.stat().st_size < 5_000_000
    examples = data["datasets"]["nevir"]["examples"]["items"]
    assert len(examples) == 4 and all(e["card"] for e in examples)
    assert {e["side"] for e in examples} == {
        "all-MiniLM-L6-v2 right, tfidf wrong",
        "all-MiniLM-L6-v2 wrong, tfidf right",
    }


def test_missing_runs_name_their_command_and_text_is_escaped(tmp_path):
    url = _store(tmp_path, ["nevir__tfidf.parquet", "nevir__all-MiniLM-L6-v2.parquet"])
    store = Store(url)
    run = store.runs(dataset="nevir").query("model_name == 'all-MiniLM-L6-v2'").iloc[0]
    record = store.get_run(run["run_id"])
    scores = store.scores(record.run_id)
    record.run_id, record.model_name, record.spec_key = "", EVIL, "evil-spec"
    record.model_spec = {**record.model_spec, "name": EVIL}
    store.save_run(record, scores)
    out = tmp_path / "evil.html"
    assert (
        main(
            [
                "--db",
                url,
                "report",
                "--model",
                EVIL,
                "--against",
                "tfidf",
                "all-MiniLM-L12-v2",
                "--datasets",
                "nevir",
                "demetr",
                "--out",
                str(out),
                "--no-maxsim",
                "--quiet",
                "--figures",
                "plotly",
            ]
        )
        == 0
    )
    page = out.read_text()
    assert "<script>alert" not in page and "<b>bold" not in page
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&lt;b&gt;bold" in page  # Jinja2's autoescape
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["model"] == EVIL  # the JSON keeps the name as it is
    assert data["datasets"]["demetr"]["present"] is False
    # the shipped runs are loaded as the app loads them (tfidf's DEMETR run); a model without one is named
    assert "negviz eval --model all-MiniLM-L12-v2 --dataset demetr" in page
    assert "negviz eval --model tfidf --dataset demetr" not in page
    assert not data["drift"].get("figure")  # MiniLM's fine-tuning run is not in this store


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium is not installed")
def test_report_opens_offline_in_chromium(built, browser):
    _, out, _ = built
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    failed, blocked = [], []

    def route(r):
        if r.request.url.startswith("file:"):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.goto(out.as_uri())
    for key in SECTIONS:
        assert page.locator(f"section#{key} h2").inner_text() == SECTION_TITLES[key]
    assert page.locator("figure svg, .plotly-fig .main-svg").count() >= 5
    page.screenshot(path=str(out.with_suffix(".png")), full_page=False)
    Path("/tmp/report").mkdir(exist_ok=True)
    shutil.copy(out.with_suffix(".png"), "/tmp/report/browser_test.png")
    page.close()
    assert blocked == [] and failed == []


def test_negminilm_report_finds_its_finetune_run_and_the_cli_numbers(tmp_path):
    """NegMiniLM's checkpoint was written under /tmp: its fine-tuning run is found by the spec in its
    shipped delta.json. Numbers only (build_report, no HTML, no MaxSim models)."""
    from negviz.analyses.compare import compare
    from negviz.report.build import build_report

    files = [
        "nevir__negminilm",
        "nevir__all-MiniLM-L6-v2",
        "demetr__negminilm",
        "demetr__all-MiniLM-L6-v2",
        "finetune__1ce4a3c7",
        "finetune__edf1a5c2",
    ]
    store = Store(_store(tmp_path, [f"{f}.parquet" for f in files]))
    data = build_report(
        store, "negminilm", against=["all-MiniLM-L6-v2"], datasets=["nevir", "demetr"], maxsim=False
    ).data
    drift = data["drift"]
    assert drift["trained_in_negviz"] and "negminilm was trained in negviz" in drift["note"]
    assert [r["run_id"][:8] for r in drift["runs"]] == ["1ce4a3c7"]  # not MiniLM's other run (edf1a5c2)
    assert drift["figure"] == "drift" and drift["epochs"]
    nevir = data["datasets"]["nevir"]
    head = {r["model"]: r for r in nevir["headline"]}
    assert head["negminilm"]["n"] == head["all-MiniLM-L6-v2"]["n"] == 1383
    assert head["negminilm"]["value"] == pytest.approx(359 / 1383)
    assert head["all-MiniLM-L6-v2"]["value"] == pytest.approx(98 / 1383)
    for model, row in head.items():
        assert store.get_run(row["run_id"]).summary["paired_accuracy"] == pytest.approx(row["value"]), model
    a, b = head["negminilm"]["run_id"], head["all-MiniLM-L6-v2"]["run_id"]
    expected = compare(store.get_run(a), store.scores_wide(a), store.get_run(b), store.scores_wide(b))
    (mc,) = nevir["mcnemar"]
    for key in ("run_a", "run_b", "b", "c", "n_shared", "accuracy_a", "accuracy_b", "p_value", "method"):
        assert mc[key] == expected[key], key


def test_the_why_section_holds_the_cue_influence_run_and_the_lexical_confound(tmp_path):
    from negviz.analyses import lexical as X
    from negviz.core.schema import DatasetSpec
    from negviz.results.explain import run_cue_influence

    url = _store(tmp_path, [f"nevir__{m}.parquet" for m in ("all-MiniLM-L6-v2", "tfidf", "bm25")])
    run = run_cue_influence("tfidf", DatasetSpec(name="nevir", limit=8), store=Store(url)).record
    out = tmp_path / "report.html"
    assert (
        main(
            [
                "--db",
                url,
                "report",
                "--model",
                "tfidf",
                "--against",
                "all-MiniLM-L6-v2",
                "--datasets",
                "nevir",
                "--out",
                str(out),
                "--no-maxsim",
                "--quiet",
                "--figures",
                "plotly",
            ]
        )
        == 0
    )
    why = json.loads(out.with_suffix(".json").read_text())["datasets"]["nevir"]["why"]
    mine = {a["model"]: a for a in why["attribution"]}
    assert mine["tfidf"]["run_id"] == run.run_id and set(mine) <= {"tfidf", "all-MiniLM-L6-v2"}
    assert mine["tfidf"]["by_verdict"] == json.loads(json.dumps(run.summary["by_verdict"]))
    assert all(a["method"] for a in why["attribution"])  # cue-influence runs only, not layer curves
    table = {(r["model"], r["lexical lean"]): r for r in why["lexical"]["table"]}
    assert table[("tfidf", X.WRONG)]["wrong or tie"] > table[("tfidf", X.RIGHT)]["wrong or tie"]
    page = out.read_text()
    assert "The lexical confound" in page and "tfidf: cue's share of |attribution| (occlusion)" in page


def test_the_board_section_is_the_pages_board(built):
    """The report's "Across benchmarks" rows are the page's board (negviz.analyses.board) for the
    model and its comparisons, and its figures are in the HTML."""
    from negviz.analyses.board import board_json
    from negviz.results.dataset_view import DatasetView

    url, out, data = built
    with Store(url) as store:
        board = DatasetView(store).board()
    expected = board_json(board[board["model"].isin(["all-MiniLM-L6-v2", "tfidf"])].reset_index(drop=True))
    assert data["board"]["rows"] == json.loads(json.dumps(expected))
    assert {r["model"] for r in data["board"]["rows"]} == {"all-MiniLM-L6-v2", "tfidf"}
    html = out.read_text()
    assert "<section id='board'>" in html and html.count('<table class="nv-board">') == 1  # the page's table
    assert data["board"]["fixes"] == []  # MiniLM has no catalog base


def test_a_trained_model_reports_what_it_repaired_against_its_base(tmp_path):
    from negviz.report.build import build_report

    url = _store(tmp_path, ["nevir__negminilm.parquet", "nevir__all-MiniLM-L6-v2.parquet"])
    with Store(url) as store:
        rep = build_report(store, "negminilm", datasets=["nevir"], examples=0, maxsim=False)
    (fix,) = rep.data["board"]["fixes"]
    assert (fix["base"], fix["dataset"], fix["repaired"], fix["broken"], fix["n"]) == (
        "all-MiniLM-L6-v2",
        "nevir",
        311,
        50,
        1383,
    )
