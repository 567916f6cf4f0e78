"""Several people at once: N browser sessions (Playwright contexts in one Chromium) against
one app server, each doing a scripted tour; prints JSON with p50/p95 step times, errors and labels
lost. Then, with --load, the same while one more session runs a live playground scoring job and
one an Evaluate run.

    python benchmarks/bench_sessions.py --sessions 8 [--steps 10] [--load] [--db URL]

The tour: heatmap (figure drawn), a click on its top-left cell (the cell's items listed), error
preference page, `steps` inspector steps each saving a
label with "Save and next", the perturbation sensitivity page. A step's time is from the action
(navigation or click) to its result on screen. Labels lost: saves confirmed on screen that the
store does not hold afterwards. Needs Playwright and Debian's /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))
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
WAIT = 180_000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db_url: str, tmp: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {
        **os.environ,
        "NEGVIZ_DB_URL": db_url,
        "NEGVIZ_CACHE_DIR": str(tmp / "cache"),
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(ROOT),
    }
    log = open(tmp / "streamlit.log", "wb")
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
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
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


async def step(times: list, name: str, action) -> None:
    t0 = time.perf_counter()
    await action()
    times.append((name, time.perf_counter() - t0))


async def tour(browser, base: str, who: str, steps: int, first_pair: str, out: dict) -> None:
    times: list = []
    saved: list = []
    errors: list = []
    context = await browser.new_context(viewport={"width": 1500, "height": 2200})
    page = await context.new_page()
    current = {"pair": first_pair, "where": "heatmap"}
    try:

        async def visit(path: str, done) -> None:
            await page.goto(base + path, timeout=WAIT)
            await done.wait_for(timeout=WAIT)

        plot = page.locator(".js-plotly-plot").first
        await step(times, "heatmap", lambda: visit("/heatmap?dataset=nevir", plot))
        current["where"] = "heatmap cell"

        async def cell_click() -> None:  # plotly picks the clicked point from the last hover
            box = await page.locator(".js-plotly-plot .scatterlayer .point").first.bounding_box()
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            await page.mouse.move(x, y)
            await page.locator(".hoverlayer .hovertext").first.wait_for(timeout=WAIT)
            await page.mouse.click(x, y)
            await page.get_by_text(re.compile(r"paired accuracy .* on n = [\d,]+ items")).last.wait_for(timeout=WAIT)

        await step(times, "cell click", cell_click)
        current["where"] = "errors"
        await step(times, "errors", lambda: visit("/errors?dataset=nevir", plot))
        form = page.locator('[data-testid="stForm"]')
        heading = page.get_by_role("heading", name=re.compile(r"^NevIR · ")).first

        async def open_inspector() -> None:
            pair = current["pair"]
            await visit(f"/inspector?dataset=nevir&pair={pair}", page.get_by_role("heading", name=f"NevIR · {pair}"))
            box = page.get_by_role("textbox", name="Annotator")
            await box.fill(who)
            await box.press("Enter")
            await form.get_by_text(f"Labelling as {who}").wait_for(timeout=WAIT)

        current["where"] = "inspector"
        await step(times, "inspector", open_inspector)
        for k in range(steps):
            current["where"] = f"label {k}"
            await form.get_by_text(f"Labelling as {who}").wait_for(timeout=WAIT)
            kind = form.get_by_role("combobox", name="Negation type")
            await kind.click()
            await kind.press_sequentially("impl")  # typing opens and filters the options
            await page.get_by_role("option", name="implicit", exact=True).click()
            await form.get_by_role("radiogroup", name="Pair validity").get_by_text("unsure").first.click()
            await form.get_by_role("textbox", name="Note").fill(f"{who} {k}")
            pair = current["pair"]

            async def save_next() -> None:
                await form.get_by_role("button", name="Save and next").click()
                await page.get_by_text(re.compile(rf"Saved {re.escape(pair)} as version \d+ by {who}\.")).wait_for(
                    timeout=WAIT
                )
                while (await heading.inner_text(timeout=WAIT)).endswith(pair):
                    await asyncio.sleep(0.05)

            current["where"] = f"save {k}"
            await step(times, "save+next", save_next)
            saved.append(pair)
            current["pair"] = (await heading.inner_text()).split(" · ")[1]
        current["where"] = "sensitivity"
        await step(times, "sensitivity", lambda: visit("/sensitivity", plot))
        errors.extend(["exception on page"] * await page.locator('[data-testid="stException"]').count())
    except Exception as exc:
        errors.append(f"{who} at {current['where']}: {type(exc).__name__}: {str(exc)[:300]}")
        await page.screenshot(path=str(Path(tempfile.gettempdir()) / f"negviz-bench-{who}.png"), full_page=True)
    finally:
        await context.close()
    out[who] = {"times": times, "saved": saved, "errors": errors}


async def background_load(browser, base: str, out: dict, stop: asyncio.Event) -> None:
    """One session scoring live in the playground (MiniLM), one starting an Evaluate job."""
    context = await browser.new_context()
    play, ev = await context.new_page(), await context.new_page()
    try:
        await play.goto(base + "/playground", timeout=WAIT)
        await ev.goto(base + "/evaluate?dataset=demetr", timeout=WAIT)
        await ev.get_by_role("spinbutton", name=re.compile("Only the first N items")).fill("3000")
        await ev.get_by_role("button", name="Run", exact=True).click()
        await ev.locator('[data-testid="stProgress"]').first.wait_for(timeout=WAIT)
        await play.locator(".js-plotly-plot").first.wait_for(timeout=WAIT)
        out["load"] = "playground scored; Evaluate job running (DEMETR, 3,000 items, MiniLM)"
        await stop.wait()
        ended = ev.get_by_text(re.compile("Stored run|Reused the stored run"))
        out["load"] += "; the job stored its run" if await ended.count() else "; the job was still running"
    except Exception as exc:
        out["load"] = f"load sessions failed: {type(exc).__name__}: {str(exc)[:300]}"
    finally:
        await context.close()


async def sessions_round(
    base: str, sessions: int, steps: int, load: bool, round_no: int, nice: int, out: dict
) -> float:
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium(nice), args=CHROMIUM_ARGS)
        stop = asyncio.Event()
        loader = asyncio.create_task(background_load(browser, base, out, stop)) if load else None
        if loader:
            await asyncio.sleep(5)  # let the jobs start
        pairs = first_pairs(sessions, steps, round_no)
        who = [f"r{round_no}-p{i}" for i in range(sessions)]
        t0 = time.perf_counter()
        await asyncio.gather(*(tour(browser, base, w, steps, pr, out) for w, pr in zip(who, pairs)))
        wall = time.perf_counter() - t0
        stop.set()
        if loader:
            await loader
        await browser.close()
    return wall


def wait_for_shipped_scores(db_url: str, timeout: float = 600) -> float:
    """Seconds until the server's one-time copy of the shipped runs' item scores into a new store
    is done (it runs in a background thread from the server's start): the rounds then measure
    the pages, not that copy."""
    from negviz.store import Store

    t0 = time.perf_counter()
    with Store(db_url) as store:
        while (store.runs().empty or store.pending_runs()) and time.perf_counter() - t0 < timeout:
            time.sleep(0.5)
    return time.perf_counter() - t0


def first_pairs(sessions: int, steps: int, round_no: int) -> list[str]:
    """Real NevIR pair ids, each session's start 1 + ``steps`` pairs after the last's in the
    inspector's (natural) id order: each session labels pairs of its own, round after round."""
    from negviz.datasets import load

    ids = sorted(load("nevir").frame["pair_id"], key=lambda p: tuple(int(x) for x in p.split("-")))
    stride = steps + 1
    return [ids[(round_no * sessions + i) * stride % len(ids)] for i in range(sessions)]


def chromium(nice: int) -> str:
    """Debian's Chromium, started at a lower CPU priority when ``nice`` > 0 (a wrapper script:
    Playwright needs one executable)."""
    path = shutil.which("chromium")
    if not nice:
        return path
    wrapper = Path(tempfile.mkdtemp(prefix="negviz-chromium-")) / "chromium"
    wrapper.write_text(f'#!/bin/sh\nexec nice -n {int(nice)} {path} "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int, descendants: bool = True) -> float:
    """CPU seconds of a process, with its ended children and its live descendants (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    own = sum(int(f) for f in fields[11 : 15 if descendants else 13]) / TICK  # utime, stime (cutime, cstime)
    if not descendants:
        return own
    children = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit() and _parent(p) == pid]
    return own + sum(process_cpu(c) for c in children)


def _parent(proc_dir: Path) -> int | None:
    try:
        return int((proc_dir / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def machine_busy() -> float:
    """CPU seconds all cores spent busy since boot (/proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(values) - values[3] - values[4]) / TICK  # minus idle and iowait


def run(
    base: str, db_url: str, sessions: int, steps: int, load: bool, round_no: int, nice: int, server_pid: int
) -> dict:
    from negviz.store import Store

    out: dict = {}
    own0, all0, busy0 = process_cpu(server_pid, False), process_cpu(server_pid), machine_busy()
    wall = asyncio.run(sessions_round(base, sessions, steps, load, round_no, nice, out))
    server_cpu, busy = process_cpu(server_pid, False) - own0, machine_busy() - busy0
    jobs_cpu = process_cpu(server_pid) - all0 - server_cpu  # its background jobs (Evaluate)
    who = [f"r{round_no}-p{i}" for i in range(sessions)]
    with Store(db_url) as store:
        labels = store.annotations("nevir", latest=False)
    stored = set(zip(labels["annotator"], labels["item_id"]))
    all_times = [s for w in who if w in out for _, s in out[w]["times"]]
    by_step: dict = {}
    for w in who:
        for name, s in out.get(w, {}).get("times", []):
            by_step.setdefault(name, []).append(s)
    saved = [(w, pr) for w in who for pr in out.get(w, {}).get("saved", [])]
    q = statistics.quantiles(all_times, n=20, method="inclusive") if len(all_times) >= 2 else [float("nan")] * 19
    return {
        "sessions": sessions,
        "browser_nice": nice,
        "steps_per_session": len(all_times) // max(sessions, 1),
        "load": out.get("load"),
        "wall_s": round(wall, 1),
        "p50_s": round(statistics.median(all_times), 2) if all_times else None,
        "p95_s": round(q[18], 2),
        "max_s": round(max(all_times), 2) if all_times else None,
        "p50_by_step_s": {k: round(statistics.median(v), 2) for k, v in by_step.items()},
        "errors": [e for w in who for e in out.get(w, {}).get("errors", ["no result"])],
        "labels_saved": len(saved),
        "labels_lost": len([s for s in saved if s not in stored]),
        # Where the CPU went: the app server (with its job children) against the whole machine
        # (browsers, Playwright, the server): per tour step, and as a share of the round.
        "cpu_cores": os.cpu_count(),
        "machine_busy_core_s": round(busy, 1),
        "server_cpu_s": round(server_cpu, 1),
        "server_jobs_cpu_s": round(jobs_cpu, 1),
        "server_cpu_per_step_s": round(server_cpu / max(len(all_times), 1), 3),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=8)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--load", action="store_true", help="also a round with a playground and an Evaluate job")
    ap.add_argument(
        "--browser-nice",
        type=int,
        default=0,
        help="run the browsers at this lower CPU priority (0: the server's own), as when each person's "
        "browser draws on their own machine",
    )
    ap.add_argument("--db", default=None, help="store URL (default: a new SQLite file with the shipped runs)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="negviz-sessions-"))
    db_url = args.db or f"sqlite:///{tmp / 'results.sqlite'}"
    proc, base = start_server(db_url, tmp)
    try:
        urllib.request.urlopen(base + "/", timeout=60).read()
        copied = wait_for_shipped_scores(db_url)
        results = [run(base, db_url, args.sessions, args.steps, False, 0, args.browser_nice, proc.pid)]
        if args.load:
            results.append(run(base, db_url, args.sessions, args.steps, True, 1, args.browser_nice, proc.pid))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    for r in results:
        print(json.dumps({**r, "waited_for_shipped_scores_s": round(copied, 1)}), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
