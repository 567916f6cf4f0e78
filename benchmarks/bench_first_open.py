"""First open on a fresh machine: from starting the app server (venv built, empty store, empty
negviz cache) to the Overview rendered in Chromium (its title and leaderboard figure drawn).
Prints JSON.

    python benchmarks/bench_first_open.py                       # this checkout
    python benchmarks/bench_first_open.py --checkout /old/tree  # another checkout (before/after)
    python benchmarks/bench_first_open.py --db postgresql://... # a fresh PostgreSQL schema/database

Needs Playwright and Debian's /usr/bin/chromium (as the browser tests do).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", default=str(ROOT), help="the negviz checkout to serve (default: this one)")
    ap.add_argument("--db", default=None, help="store URL (default: a new empty SQLite file)")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="negviz-first-open-"))
    url_db = args.db or f"sqlite:///{tmp / 'results.sqlite'}"
    env = {
        **os.environ,
        "NEGVIZ_DB_URL": url_db,
        "NEGVIZ_CACHE_DIR": str(tmp / "cache"),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": args.checkout,
    }
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = open(tmp / "streamlit.log", "wb")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        page = browser.new_page()
        start = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "negviz.ui.serve",
                "--server.headless",
                "true",
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
            ],
            cwd=args.checkout,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            while True:
                try:
                    if urllib.request.urlopen(base + "/_stcore/health", timeout=2).read() == b"ok":
                        break
                except OSError:
                    time.sleep(0.05)
                if time.perf_counter() - start > 120:
                    raise RuntimeError("server did not start")
            healthy = time.perf_counter() - start
            page.goto(base + "/", timeout=120_000)
            page.get_by_role("heading", name="Overview").wait_for(timeout=120_000)
            page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
            rendered = time.perf_counter() - start
            errors = page.locator('[data-testid="stException"]').count()
        except Exception as exc:
            print(
                json.dumps(
                    {
                        "checkout": args.checkout,
                        "error": f"{type(exc).__name__}: {str(exc)[:300]}",
                        "log_tail": (tmp / "streamlit.log").read_text(errors="replace")[-1500:],
                    }
                )
            )
            return 1
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            browser.close()
            log.close()
    text = (tmp / "streamlit.log").read_text(errors="replace")
    print(
        json.dumps(
            {
                "checkout": args.checkout,
                "db": "postgresql" if url_db.startswith("postgres") else "sqlite",
                "server_healthy_s": round(healthy, 2),
                "overview_rendered_s": round(rendered, 2),
                "exceptions_on_page": errors,
                "inotify_overflow_in_log": "Inotify" in text,
            }
        )
    )
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
