"""Pages (AppTest) on a read-only store show its runs and say labels cannot be saved."""

from __future__ import annotations

from tests.processes.test_store_locations import ROOT


def test_pages_on_a_read_only_store_show_its_runs_and_say_labels_cannot_be_saved(app_env, monkeypatch):
    from streamlit.testing.v1 import AppTest

    db = app_env / "results.sqlite"  # app_env's copy of the shipped store, scores included
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///file:{db}?mode=ro&uri=true")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params["dataset"] = "nevir"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.get("plotly_chart"), "the overview draws the stored runs"
    at.switch_page("pages/inspector.py").run()
    assert not at.exception, [e.message for e in at.exception]
    notice = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "Labels cannot be saved now: the results store" in notice and "results.sqlite" in notice
    assert "is read-only here" in notice
    assert all(b.disabled for b in at.button if b.label in ("Save", "Save and next"))
    at.switch_page("pages/annotate.py").run()  # no import box that could only fail (issue 47)
    assert not at.exception, [e.message for e in at.exception]
    assert not at.get("file_uploader")
    shown = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "Labels cannot be imported now: the results store" in shown and "is read-only here" in shown
    for page, words in (
        ("import_scores", "Scores cannot be imported now"),
        ("evaluate", "Runs cannot be stored now"),
        ("drift", "Fine-tuning cannot start now"),
    ):
        at.switch_page(f"pages/{page}.py").run()  # and no form that would store a run
        assert not at.exception, [e.message for e in at.exception]
        assert words in " ".join(w.value for w in at.warning) and not at.get("file_uploader")
        assert not [b for b in at.button if b.label in ("Import", "Run", "Start fine-tuning")], [
            b.label for b in at.button
        ]


def test_the_app_on_a_store_that_cannot_be_opened_says_why_once_and_nothing_else(tmp_path, monkeypatch):
    """Issue 47: a folder showed its message twice and an exception box; /dev/null an exception alone."""
    from streamlit.testing.v1 import AppTest

    from negviz.ui import resources

    for path in (tmp_path, "/dev/null"):
        url = f"sqlite:///{path}"
        monkeypatch.setenv("NEGVIZ_DB_URL", url)
        try:
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
        finally:
            resources._probes.pop(url, None)
        assert not at.exception, [e.message for e in at.exception]
        (error,) = at.error
        assert f"the results store {path} " in error.value.replace("\\", "")
