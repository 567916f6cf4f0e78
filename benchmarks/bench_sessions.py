"""Several people at once: N browser sessions (Playwright, one Chromium each, in threads) against
one app server, each doing a scripted tour; prints JSON with p50/p95 step times, errors and labels
lost. Then, with --load, the same while one more session runs a live playground scoring job and
one an Evaluate run.

    python benchmarks/bench_sessions.py --sessions 8 [--steps 10] [--load] [--db URL]

The tour: heatmap (figure drawn), error preference page, `steps` inspector steps each saving a
label with "Save and next", the perturbation sensitivity page. A step's time is from the action
(navigation or click) to its result on screen. Labels lost: saves confirmed on screen that the
store does not hold afterwards. Needs Playwright and Debian's /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))
CHROMIUM_ARGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
WAIT = 180_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db_url: str, tmp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "NEGVIZ_DB_URL": db_url, "NEGVIZ_CACHE_DIR": str(tmp / "cache"), "HF_HUB_OFFLINE": "1",
           "PYTHONPATH": str(ROOT)}
    log = open(tmp / "streamlit.log", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "negviz.ui.serve", "--server.headless", "true",
                             "--server.port", str(port), "--server.address", "127.0.0.1"],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(base + "/_stcore/health", timeout=2).read() == b"ok":
                return proc, base
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("server did not start")


def step(times: list, name: str, fn) -> None:
    t0 = time.perf_counter()
    fn()
    times.append((name, time.perf_counter() - t0))


def tour(base: str, who: str, steps: int, first_pair: str, out: dict) -> None:
    from playwright.sync_api import sync_playwright

    times: list = []
    saved: list = []
    errors: list = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1500, "height": 2200}).new_page()
        try:
            def heatmap():
                page.goto(base + "/heatmap?dataset=nevir", timeout=WAIT)
                page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT)

            step(times, "heatmap", heatmap)
            step(times, "errors", lambda: (page.goto(base + "/errors?dataset=nevir", timeout=WAIT),
                                            page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT)))
            pair = first_pair

            def open_inspector():
                page.goto(f"{base}/inspector?dataset=nevir&pair={pair}", timeout=WAIT)
                page.get_by_role("heading", name=f"NevIR · {pair}").wait_for(timeout=WAIT)
                page.get_by_role("textbox", name="Annotator").fill(who)
                page.get_by_role("textbox", name="Annotator").press("Enter")
                page.locator('[data-testid="stForm"]').get_by_text(f"Labelling as {who}").wait_for(timeout=WAIT)

            step(times, "inspector", open_inspector)
            for k in range(steps):
                form = page.locator('[data-testid="stForm"]')
                form.get_by_text(f"Labelling as {who}").wait_for(timeout=WAIT)
                kind = form.get_by_role("combobox", name="Negation type")
                kind.click()
                kind.press_sequentially("impl")  # typing opens and filters the options
                form.page.get_by_role("option", name="implicit", exact=True).click()
                form.get_by_role("radiogroup", name="Pair validity").get_by_text("unsure").first.click()
                form.get_by_role("textbox", name="Note").fill(f"{who} {k}")
                current = pair

                def save_next():
                    form.get_by_role("button", name="Save and next").click()
                    page.get_by_text(re.compile(rf"Saved {re.escape(current)} as version \d+ by {who}\.")).wait_for(
                        timeout=WAIT)
                    heading = page.get_by_role("heading", name=re.compile(r"^NevIR · ")).first
                    while heading.inner_text(timeout=WAIT).endswith(current):
                        time.sleep(0.05)

                step(times, "save+next", save_next)
                saved.append(current)
                pair = page.get_by_role("heading", name=re.compile(r"^NevIR · ")).first.inner_text().split(" · ")[1]
            step(times, "sensitivity", lambda: (page.goto(base + "/sensitivity", timeout=WAIT),
                                                 page.locator(".js-plotly-plot").first.wait_for(timeout=WAIT)))
            errors.extend(["exception on page"] * page.locator('[data-testid="stException"]').count())
        except Exception as exc:
            errors.append(f"{who}: {type(exc).__name__}: {str(exc)[:300]}")
        finally:
            browser.close()
    out[who] = {"times": times, "saved": saved, "errors": errors}


def background_load(base: str, out: dict, stop: threading.Event) -> None:
    """One session scoring live in the playground (MiniLM), one running an Evaluate job."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        play = browser.new_page()
        ev = browser.new_page()
        try:
            play.goto(base + "/playground", timeout=WAIT)
            ev.goto(base + "/evaluate?dataset=demetr", timeout=WAIT)
            ev.get_by_role("spinbutton", name=re.compile("Only the first N items")).fill("3000")
            ev.get_by_role("button", name="Run", exact=True).click()
            play.locator(".js-plotly-plot").first.wait_for(timeout=WAIT)
            out["load"] = "playground scored; evaluate started (DEMETR, 3,000 items, MiniLM)"
            stop.wait(600)
        except Exception as exc:
            out["load"] = f"load sessions failed: {type(exc).__name__}: {str(exc)[:300]}"
        finally:
            browser.close()


def run(base: str, db_url: str, sessions: int, steps: int, load: bool, round_no: int) -> dict:
    from negviz.store import Store

    out: dict = {}
    stop = threading.Event()
    loader = threading.Thread(target=background_load, args=(base, out, stop)) if load else None
    if loader:
        loader.start()
        time.sleep(5)  # let the jobs start
    pairs = [f"{1000 + 20 * i + 200 * round_no}-2" for i in range(sessions)]  # disjoint stretches of pairs
    who = [f"r{round_no}-p{i}" for i in range(sessions)]
    threads = [threading.Thread(target=tour, args=(base, w, steps, pr, out)) for w, pr in zip(who, pairs)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.perf_counter() - t0
    stop.set()
    if loader:
        loader.join(timeout=60)
    with Store(db_url) as store:
        labels = store.annotations("nevir", latest=False)
    stored = set(zip(labels["annotator"], labels["item_id"]))
    all_times = [s for w in who if w in out for _, s in out[w]["times"]]
    by_step: dict = {}
    for w in who:
        for name, s in out.get(w, {}).get("times", []):
            by_step.setdefault(name, []).append(s)
    saved = [(w, pr) for w in who for pr in out.get(w, {}).get("saved", [])]
    q = statistics.quantiles(all_times, n=20) if len(all_times) >= 2 else [float("nan")] * 19
    return {
        "sessions": sessions, "steps_per_session": len(all_times) // max(sessions, 1), "load": out.get("load"),
        "wall_s": round(wall, 1), "p50_s": round(statistics.median(all_times), 2) if all_times else None,
        "p95_s": round(q[18], 2), "max_s": round(max(all_times), 2) if all_times else None,
        "p50_by_step_s": {k: round(statistics.median(v), 2) for k, v in by_step.items()},
        "errors": [e for w in who for e in out.get(w, {}).get("errors", ["no result"])],
        "labels_saved": len(saved), "labels_lost": len([s for s in saved if s not in stored]),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--load", action="store_true", help="also a round with a playground and an Evaluate job")
    ap.add_argument("--db", default=None, help="store URL (default: a new SQLite file with the shipped runs)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="negviz-sessions-"))
    db_url = args.db or f"sqlite:///{tmp / 'results.sqlite'}"
    proc, base = start_server(db_url, tmp)
    try:
        urllib.request.urlopen(base + "/", timeout=60).read()  # the server is up; warm the shipped runs' copy
        results = [run(base, db_url, args.sessions, args.steps, False, 0)]
        if args.load:
            results.append(run(base, db_url, args.sessions, args.steps, True, 1))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    for r in results:
        print(json.dumps(r), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
