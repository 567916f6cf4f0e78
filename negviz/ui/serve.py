"""Start the negviz app server (`python -m negviz.ui.serve [streamlit options]`).

Streamlit treats a `pages/` folder next to the main script as a v1 multipage app until the
main script first calls st.navigation; on a fresh server a deep link such as /maxsim would
then run the page file alone, without app.py's layout and URL-bound pickers. negviz
declares st.navigation (v2) up front, so every link works from the first request.
"""

from __future__ import annotations

import importlib
import logging
import socket
import sys
import time
from typing import NoReturn

from negviz.core.paths import ROOT
from negviz.ui import shutdown

# What the first page (the Overview) imports: ~1 s of the first script run on a fresh server.
WARM_MODULES = (
    "pandas",
    "plotly.graph_objects",
    "negviz.store",
    "negviz.ui.resources",
    "negviz.ui.navigation.pickers",
    "negviz.charts.leaderboard",
    "negviz.analyses.leaderboard",
    "negviz.ui.corpus_results",
    "negviz.ui.overview.report_download",
    "negviz.ui.widgets",
)


def _listening() -> bool:
    """Whether this process's app server accepts connections (its address and port as Streamlit
    read them: command line, environment or config file)."""
    from streamlit import config
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return False
    address = config.get_option("server.address") or "127.0.0.1"
    host = "127.0.0.1" if address in ("0.0.0.0", "::") else address
    try:
        socket.create_connection((host, int(config.get_option("server.port"))), timeout=0.2).close()
        return True
    except OSError:
        return False


def warm_up_when_listening() -> None:
    """Import the first page's modules and read its data (negviz.ui.dataset_cache.warm_up) in a
    thread once the server listens: the browser spends its first second loading Streamlit's
    scripts, and the first script run then finds them done. (Started earlier, this competes
    with the server's own start for the GIL.) A stopping server ends it between two steps."""

    def wait_and_import() -> None:
        deadline = time.time() + 60
        while not _listening():
            if shutdown.stopping():
                return
            if time.time() > deadline:  # warm up anyway; the log says why the first page waited
                logging.getLogger("negviz").warning("warm-up: the server did not answer in 60 s")
                break
            time.sleep(0.05)
        try:
            for name in WARM_MODULES:
                if shutdown.stopping():
                    return
                importlib.import_module(name)
            if not shutdown.stopping():
                importlib.import_module("negviz.ui.dataset_cache").warm_up()
        except Exception:  # noqa: BLE001  the first page meets the same problem and reports it
            logging.getLogger("negviz").warning("warm-up failed", exc_info=True)

    shutdown.start_thread(wait_and_import, "negviz-warm-up")


# What a served app runs with unless the command line says otherwise, whatever the working
# directory (and so whichever .streamlit/config.toml applies):
SERVED_DEFAULTS = {
    # no file watching: the checkout's .venv alone overflows inotify
    "--server.fileWatcherType": "none",
    # no full garbage collection after every script run: with models and score tables in memory
    # it took ~0.3 s of every rerun (a widget click included); Python's own collector still runs
    "--runner.postScriptGC": "false",
}


def served_args(args: list[str]) -> list[str]:
    """The command line's Streamlit options, plus each of SERVED_DEFAULTS it does not set."""
    args = list(args)
    for option, value in SERVED_DEFAULTS.items():
        if not any(a == option or a.startswith(option + "=") for a in args):
            args += [option, value]
    return args


def main() -> NoReturn:
    """Serve the app until SIGTERM or Ctrl-C; never returns (negviz.ui.shutdown.finish ends the
    process once its threads are done)."""
    shutdown.exit_on_signal()  # first: a signal during the imports below ends the start-up too
    code = 0
    try:
        from streamlit.runtime.pages_manager import PagesManager
        from streamlit.web import cli

        PagesManager.uses_pages_directory = False
        warm_up_when_listening()
        sys.argv = ["streamlit", "run", str(ROOT / "app.py"), *served_args(sys.argv[1:])]
        code = cli.main() or 0
    except SystemExit as exc:  # click ends with one; so does a signal during the start-up
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001  said, and the threads still stopped before the exit
        logging.getLogger("negviz").exception("the app server failed")
        code = 1
    shutdown.finish(code)


if __name__ == "__main__":
    sys.exit(main())
