"""negviz.ui.shutdown in a child interpreter (``finish`` ends its process): a background thread
converting Arrow tables to pandas in a loop is stopped at its next unit of work and waited for, and
the process ends with the status asked for; a thread asked for once stopping is not started.
The whole server under SIGTERM and SIGINT: tests/processes/test_server_stop.py."""

from __future__ import annotations

import subprocess
import sys

CHILD = """
import sys, threading
import pyarrow as pa
from negviz.ui import shutdown

table = pa.table({"x": list(range(100_000))})
working, units = threading.Event(), []

def convert():
    while not shutdown.stopping():
        table.to_pandas()
        units.append(1)
        working.set()
    print("stopped after", len(units), "units", flush=True)

shutdown.start_thread(convert, "negviz-test-convert")
working.wait(60)
print("main", threading.current_thread().name, flush=True)
import atexit
atexit.register(lambda: print("finalized", flush=True))
shutdown.finish(int(sys.argv[1]))
"""


def run_child(code: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CHILD, str(code)], capture_output=True, text=True, timeout=120)


def test_finish_stops_the_background_thread_and_exits_with_the_code_without_finalizing():
    for code in (0, 3):
        done = run_child(code)
        assert done.returncode == code, done.stderr[-2000:]
        lines = done.stdout.splitlines()
        assert lines[0] == "main MainThread" and lines[1].startswith("stopped after "), done.stdout
        assert "finalized" not in done.stdout  # no interpreter finalization with daemons alive


def test_no_thread_starts_once_the_server_is_stopping():
    script = (
        "from negviz.ui import shutdown\n"
        "shutdown._stop.set()\n"
        "print(shutdown.start_thread(lambda: print('ran'), 'late'), shutdown.stopping())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["None", "True"], done.stdout + done.stderr
