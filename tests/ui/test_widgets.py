"""negviz.ui.widgets: the shared widgets drawn in AppTest (error box with the visitor's text
escaped, progress bar, CSV download button)."""

from streamlit.testing.v1 import AppTest

from negviz.ui.widgets import safe_md


def _error_box(text):
    from negviz.ui.widgets import show_error

    show_error(ValueError(text))


def test_show_error_says_the_message_in_words_and_escapes_the_users_text():
    text = "[click](http://evil.example) <b>bold</b>"
    at = AppTest.from_function(_error_box, args=(text,), default_timeout=30).run()
    assert [e.value for e in at.error] == [safe_md(text)]  # no "ValueError:" for a person to decode
    shown = at.error[0].value
    assert "](http" not in shown and "<b>" not in shown  # no link, no tag


def test_show_error_of_an_error_without_a_message_still_says_something():
    at = AppTest.from_function(_error_box, args=("",), default_timeout=30).run()
    assert [e.value for e in at.error] == ["an unexpected error stopped this step; the server log has the details"]


def _progress(steps, finish):
    from negviz.ui.widgets import ProgressBar

    bar = ProgressBar("Scoring")
    for done, total in steps:
        bar(done, total, "items")
    if finish:
        bar.done()


def test_progress_bar_shows_the_fraction_done_with_its_counts():
    at = AppTest.from_function(_progress, args=([(1, 4), (3, 4)], False), default_timeout=30).run()
    (bar,) = at.get("progress")
    assert bar.proto.value == 75 and bar.proto.text.startswith("Scoring: items 3/4")  # then the time left


def test_progress_bar_of_an_empty_total_is_full_and_done_removes_it():
    at = AppTest.from_function(_progress, args=([(0, 0)], False), default_timeout=30).run()
    assert at.get("progress")[0].proto.value == 100  # nothing to do: done, not a division by zero
    at = AppTest.from_function(_progress, args=([(2, 4)], True), default_timeout=30).run()
    assert list(at.get("progress")) == []


def _download():
    import pandas as pd

    from negviz.ui.widgets import csv_download

    csv_download(pd.DataFrame({"a": [1, 2]}), "items.csv", label="Download these items (CSV)")
    csv_download(pd.DataFrame({"b": [3]}), "other.csv")


def test_csv_download_draws_one_button_per_file_with_its_label():
    at = AppTest.from_function(_download, default_timeout=30).run()
    buttons = at.get("download_button")
    assert [b.proto.label for b in buttons] == ["Download these items (CSV)", "Download CSV"]
    assert [b.proto.url.endswith(".csv") for b in buttons] == [True, True]
    assert "dl-items.csv" in buttons[0].proto.id  # the default key comes from the file name


def _path(value):
    import streamlit as st

    from negviz.core.paths import PathNotAllowedError
    from negviz.ui.widgets import user_path

    try:
        st.session_state["path"] = user_path(value)
    except PathNotAllowedError as exc:
        st.session_state["path"] = f"refused: {exc}"


def test_user_path_passes_names_and_paths_inside_the_allowed_folders_only(monkeypatch, tmp_path):
    monkeypatch.setenv("NEGVIZ_DATA_DIRS", str(tmp_path / "shared"))
    at = AppTest.from_function(_path, args=("all-MiniLM-L6-v2",), default_timeout=30).run()
    assert at.session_state["path"] == "all-MiniLM-L6-v2"  # a catalog name is no path
    inside = str(tmp_path / "shared" / "scores.csv")
    at = AppTest.from_function(_path, args=(inside,), default_timeout=30).run()
    assert at.session_state["path"] == inside
    at = AppTest.from_function(_path, args=(str(tmp_path / "shared" / ".." / "x.csv"),), default_timeout=30).run()
    assert at.session_state["path"].startswith("refused: ")  # `..` out of the folder


def test_no_runs_yet_names_the_dataset_escaped_and_the_command_that_stores_a_run():
    from negviz.evaluation.catalog import eval_command
    from negviz.ui.widgets import STARTER_MODEL, no_runs_yet

    assert no_runs_yet("nevir") == (
        "No stored runs on nevir yet. Run one on the Evaluate page or with "
        "`negviz eval --model all-MiniLM-L6-v2 --dataset nevir`."
    )
    shown = no_runs_yet("my[set]", "**mine**")  # a user's dataset title stays text
    assert f"on {safe_md('**mine**')} yet" in shown and "**mine**" not in shown
    assert shown.endswith(f"`{eval_command(STARTER_MODEL, 'my[set]')}`.")


def test_headed_labels_every_column_it_is_not_told_about():
    import pandas as pd
    import streamlit as st

    from negviz.ui.widgets import headed

    frame = pd.DataFrame(columns=["tie_rule", "acc_final", "params_m"])
    percent = st.column_config.NumberColumn(format="percent")
    config = headed(frame, {"acc_final": percent, "params_m": "params (M)"})
    assert config["tie_rule"] == "tie rule" and config["params_m"] == "params (M)"  # a given label kept
    assert config["acc_final"]["label"] == "acc final" and percent["label"] is None  # the shared config untouched
