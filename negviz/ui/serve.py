"""Start the negviz app server (`python -m negviz.ui.serve [streamlit options]`).

Streamlit treats a `pages/` folder next to the main script as a v1 multipage app until the
main script first calls st.navigation; on a fresh server a deep link such as /maxsim would
then run the page file alone, without app.py's layout and URL-bound pickers. negviz
declares st.navigation (v2) up front, so every link works from the first request.
"""

from __future__ import annotations

import sys

from negviz.paths import ROOT


def main() -> int:
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web import cli

    PagesManager.uses_pages_directory = False
    args = sys.argv[1:]
    # A served app watches no files (the checkout's .venv alone overflows inotify), whatever the
    # working directory and so whichever .streamlit/config.toml applies; pass the flag to override.
    if not any(a.startswith("--server.fileWatcherType") for a in args):
        args += ["--server.fileWatcherType", "none"]
    sys.argv = ["streamlit", "run", str(ROOT / "app.py"), *args]
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
