"""negviz.ui.navigation.url_check: URL values checked when read, in AppTest with the URL set by hand: a
number a widget cannot take is dropped with its reason, a cut text is said, ``report`` names
what the page did not take, and ``titled_choice`` shows titles while the URL keeps ids."""

from streamlit.testing.v1 import AppTest


def _number_page():
    import streamlit as st

    from negviz.ui.navigation import url_check

    url_check.number_input(st, "Smallest n", "min_n", 0, 10, 2)


def _with_url(script, **params) -> AppTest:
    at = AppTest.from_function(script, default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def test_a_number_the_widget_cannot_take_is_dropped_with_its_reason():
    at = _with_url(_number_page, min_n="1e309")
    assert at.number_input(key="min_n").value == 2  # the default, not an error
    assert at.session_state["_url_reasons"] == {"min_n": "not a finite number (expected a whole number from 0 to 10)"}
    assert "min_n" not in at.query_params


def test_a_number_in_range_is_taken():
    at = _with_url(_number_page, min_n="7")
    assert at.number_input(key="min_n").value == 7 and "_url_reasons" not in at.session_state


def _text_page():
    import streamlit as st

    from negviz.ui.navigation import url_check

    url_check.text_input(st, "Query", "", "q", max_chars=5)


def test_a_text_longer_than_the_box_takes_is_cut_and_said():
    at = _with_url(_text_page, q="abcdefgh")
    assert at.text_input(key="q").value == "abcde"
    assert [w.value for w in at.warning] == ["The link's q had 8 characters; only the first 5 are used."]
    assert list(_with_url(_text_page, q="abc").warning) == []


def _reported_page():
    import streamlit as st

    from negviz.ui.navigation import url_check

    before = url_check.values()
    url_check.number_input(st, "Smallest n", "min_n", 0, 10, 2)
    url_check.report(before, "heatmap", st.container())


def test_report_names_a_key_the_page_has_no_setting_for_and_a_dropped_number():
    at = _with_url(_reported_page, min_n="-3", colour="red")
    (warning,) = at.warning
    # the message is escaped markdown: compare the words, not the backslashes
    text = warning.value.replace("\\", "")
    assert text == (
        "ignored min_n=-3: not a whole number from 0 to 10; "
        "ignored colour=red: the Per-type heatmap page has no such setting"
    )


def test_report_says_nothing_when_every_value_was_taken():
    at = _with_url(_reported_page, min_n="4")
    assert list(at.warning) == [] and at.number_input(key="min_n").value == 4


def _titled_page():
    import streamlit as st

    from negviz.ui.navigation import url_check

    titles = {"affixal": "Affixal", "exclusion_exceptor": "Exclusion: exceptor"}
    url_check.titled_choice(st, "Types", list(titles), "types", titles.get, multi=True)


def test_titled_choice_shows_titles_and_keeps_ids_in_the_url():
    at = _with_url(_titled_page, types="exclusion_exceptor")
    box = at.multiselect(key="types")
    assert box.value == ["exclusion_exceptor"] and box.format_func("affixal") == "Affixal"
    box.select("affixal").run()
    assert at.query_params["types"] == ["exclusion_exceptor", "affixal"]  # ids, never the titles
    at.multiselect(key="types").set_value([]).run()
    assert "types" not in at.query_params  # the default: a clean URL
