"""The MaxSim page (AppTest) given an over-long "after" checkpoint: one message, never an OSError."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.cli.test_error_messages import APP
from tests.core.test_path_checks import APP, LONG


def test_an_over_long_after_checkpoint_on_the_maxsim_page_is_one_message(app_env):
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params["dataset"] = "nevir"
    at.run()
    at.switch_page("pages/maxsim.py")
    at.query_params["after"] = "a" * 5000
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    errors = [e.value.replace("\\", "") for e in at.error]
    assert errors == [
        "The checkpoint is 5,000 characters long; a path or model spec has at most 1,024. Give the fine-tuned "
        "checkpoint's folder (e.g. ~/.cache/negviz/checkpoints/RUN_ID/final) or a hub id."
    ]
    assert at.get("plotly_chart"), "the model before is still drawn"
    at.text_input(key="after").input("/tmp/" + "b" * 300).run()
    errors = [e.value.replace("\\", "") for e in at.error]
    assert len(errors) == 1 and "a folder or file name of 300 bytes; a name has at most 255" in errors[0]
    assert not [e for e in errors if "OSError" in e or "Errno" in e]


def test_maxsim_page_says_what_is_wrong_with_an_over_long_after_value(app_env):
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    at.switch_page("pages/maxsim.py")
    at.query_params["after"] = LONG
    at.run()
    assert not at.exception, [e.message[:300] for e in at.exception]
    assert at.error, "the unusable checkpoint is said in a message"
