"""The shipped .streamlit/config.toml shows visitors no traceback, as the installed Streamlit
reads it (issue 21, case 4: the legacy `false` still meant "stacktrace")."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json
from streamlit import config
from streamlit.elements.exception import _error_detail_visibility
config.get_config_options(force_reparse=True)  # reads ./.streamlit/config.toml, as `streamlit run` does
shown = _error_detail_visibility(apply_show_error_details=True)
print(json.dumps({"trace": shown.show_trace, "message": shown.show_message, "type": shown.show_type}))
"""


def test_uncaught_errors_show_no_trace_message_or_type():
    # a process of its own, started in the checkout: Streamlit reads the config of its working folder
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"trace": False, "message": False, "type": False}


def test_no_full_garbage_collection_after_every_script_run():
    probe = "from streamlit import config; config.get_config_options(force_reparse=True); "
    probe += "print(config.get_option('runner.postScriptGC'))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "False"
