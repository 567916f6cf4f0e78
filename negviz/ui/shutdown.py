"""How the app server stops: at once on SIGTERM or Ctrl-C, with status 0, at any moment.

The server's background threads (the warm-up, the copy of the shipped runs' scores) and
Streamlit's script threads are daemons that read pandas and pyarrow. An interpreter that
finalizes while one of them is inside pyarrow can deadlock in pyarrow's thread-pool shutdown (a
`Table.to_pandas` held a stopping server for 22 minutes) or abort. So the server never finalizes
with them running: ``finish`` asks the background threads to stop (``stopping()``, checked
between units of work), waits a bounded time for them and for the script threads, then ends
the process without interpreter finalization (its output flushed first).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from typing import Callable

WAIT_SECONDS = 8.0  # for the threads to reach the end of their unit of work
SCRIPT_THREAD = "ScriptRunner.scriptThread"  # Streamlit's name for a page's thread
SIGNALS = (signal.SIGTERM, signal.SIGINT)

_stop = threading.Event()
_threads: list[threading.Thread] = []
_lock = threading.Lock()


def stopping() -> bool:
    """Whether the server is stopping: a background thread returns at its next unit of work."""
    return _stop.is_set()


def start_thread(target: Callable[[], None], name: str) -> threading.Thread | None:
    """Run ``target`` in a background thread that ``finish`` waits for (none once stopping)."""
    with _lock:
        if _stop.is_set():
            return None
        thread = threading.Thread(target=target, name=name, daemon=True)
        _threads.append(thread)
        thread.start()
    return thread


def exit_on_signal() -> None:
    """Until Streamlit installs its own handlers (which stop its server, and so ``cli.main``
    returns), SIGTERM and SIGINT end the start-up with status 0 rather than killing the process
    or printing a KeyboardInterrupt."""

    def leave(signum, frame) -> None:
        # finish here, not by raising SystemExit: raised inside an import's C code (protobuf's),
        # it came out as "TypeError: expected a message argument" and status 1
        finish(0)

    for sig in SIGNALS:
        signal.signal(sig, leave)


def finish(code: int) -> None:
    """Stop the background threads, wait for them and for the pages being run (at most
    WAIT_SECONDS), and end the process with ``code`` without finalizing the interpreter."""
    for sig in SIGNALS:  # a second Ctrl-C must not break the wait below with a traceback
        signal.signal(sig, signal.SIG_IGN)
    with _lock:
        _stop.set()
    # the evaluation and fine-tuning jobs this server started: no child left behind. Not imported
    # here (a signal can land inside another import): a process that never loaded it started none.
    jobs = sys.modules.get("negviz.evaluation.jobs")
    if jobs is not None:
        jobs.end_children()
    deadline = time.monotonic() + WAIT_SECONDS
    for thread in [*_threads, *(t for t in threading.enumerate() if t.name == SCRIPT_THREAD)]:
        thread.join(max(0.0, deadline - time.monotonic()))
    left = [t.name for t in threading.enumerate() if t is not threading.current_thread() and t.is_alive()]
    busy = [name for name in left if name == SCRIPT_THREAD or any(t.name == name for t in _threads)]
    if busy:
        logging.getLogger("negviz").warning("stopping with %s still running", ", ".join(sorted(set(busy))))
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: nothing more to say
            pass
    os._exit(code)
