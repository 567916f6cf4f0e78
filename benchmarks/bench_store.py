"""Store API and page server-side times, cold and warm, for one or more stores. Prints JSON lines.

    python benchmarks/bench_store.py --db sqlite:////tmp/scale/small.sqlite --db sqlite:////tmp/scale/big.sqlite
    python benchmarks/bench_store.py --db $PG_URL --pages overview,heatmap --no-calls

Store calls (what the pages and the CLI make): open, the run listing, one run's scores wide (the
largest, DEMETR, and NevIR), the Overview's leaderboard from the listing's summaries, and the
CLI's `runs` and `compare` (a fresh process each: interpreter start included). Cold: a new Store
(new connections) for the first call; warm: the best of three repeats on it. The operating
system's file cache is not dropped (a shared machine), so "cold" means cold process caches.

Pages: each page rendered with streamlit.testing AppTest (app.py, then switch_page), in a fresh
process per page: ``process_first_s`` is the first render of a new process (imports included),
``cold_s`` a render after st.cache_data/st.cache_resource were cleared (a running server with cold
caches; process-level memos outside Streamlit's caches stay), ``warm_s`` the render after that;
``cold_cpu_s`` and ``warm_cpu_s`` the same renders' CPU seconds (the process's, all threads: on a
shared machine they move less than the wall-clock ones). Streamlit's scan of the installed
packages for components runs once per process, as on a server, not in every AppTest.
``max_rss_mb`` is that process' peak memory, a stand-in for the server's.
Run one benchmark at a time on a shared machine.

Saving a large run (``--save-run``, instead of the above): ``Store.save_run`` of a DEMETR-sized
run, 35,000 items x 3 slots = 105,000 scores, against the plain baseline in the same process and
store: one SQLAlchemy executemany of the same rows (dicts built beforehand) into a bare table of
the same four columns, in one transaction. Alternating rounds; medians, their ratio and the load
average before and after. tests/store/test_store.py checks the statements sent instead of the time.

An older negviz can be measured with the same script: PYTHONPATH=/path/to/old/checkout (its app.py
and pages, run in its folder, under this script's tests/support/router.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.append(str(ROOT))  # appended: PYTHONPATH (e.g. an older checkout) wins

PAGES = ("overview", "heatmap", "errors", "sensitivity", "drift", "inspector", "annotations")  # URL paths

PAGE_CODE = r"""
import importlib.util, json, os, resource, sys, time
import streamlit as st
from streamlit.testing.v1 import AppTest
app, page, router_file = sys.argv[1], sys.argv[2], sys.argv[3]
# this script's router (it imports nothing of negviz): an older checkout is measured the same way
spec = importlib.util.spec_from_file_location("bench_router", router_file)
router = importlib.util.module_from_spec(spec)
spec.loader.exec_module(router)
router.pages_run_under_the_router()  # app.py, then the page, as the server runs them
router.component_scan_once()         # Streamlit's component scan once, as a server does at start

def render():
    wall, cpu = time.perf_counter(), time.process_time()
    at = AppTest.from_file(app, default_timeout=600)
    at.run()
    at.switch_page(page).run()
    return time.perf_counter() - wall, time.process_time() - cpu, [e.message for e in at.exception]

first, first_cpu, errors = render()  # a fresh process: imports + empty caches
st.cache_data.clear(); st.cache_resource.clear()
cold, cold_cpu, errors2 = render()   # a running server with empty st caches (modules imported)
warm, warm_cpu, errors3 = render()   # caches filled
print(json.dumps({"process_first_s": round(first, 2), "cold_s": round(cold, 2), "warm_s": round(warm, 2),
                  "cold_cpu_s": round(cold_cpu, 2), "warm_cpu_s": round(warm_cpu, 2),
                  "errors": (errors + errors2 + errors3)[:2],
                  "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
"""


def timed(fn, repeat: int = 3) -> tuple[float, float]:
    """(first call, best of the next repeats), in seconds."""
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    rest = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        rest.append(time.perf_counter() - t0)
    return first, min(rest)


def measured_checkout() -> Path:
    """The checkout whose negviz is measured: this one, or an older one named by PYTHONPATH."""
    import negviz

    return Path(negviz.__file__).resolve().parent.parent


def env_for(url: str) -> dict:
    return {**os.environ, "NEGVIZ_DB_URL": url, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(measured_checkout())}


def page_file(url_path: str) -> str:
    """The page's file in the measured checkout (before issue 49 the registry lived in core/)."""
    try:
        from negviz.ui.navigation.page_registry import by_url_path
    except ImportError:
        from negviz.core.page_registry import by_url_path
    return by_url_path(url_path).file


def cli_seconds(url: str, *args: str) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "negviz", "--db", url, *args], env=env_for(url), capture_output=True, text=True
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return time.perf_counter() - t0


def store_calls(url: str) -> list[dict]:
    from negviz.analyses.leaderboard import leaderboard
    from negviz.evaluation.catalog import load_catalog
    from negviz.store import Store

    out = []
    t0 = time.perf_counter()
    store = Store(url)
    out.append({"call": "Store(url) open", "cold_s": time.perf_counter() - t0, "warm_s": None})
    listing = store.runs(status=None)
    n_runs = len(listing)
    evals = listing[(listing["kind"] == "eval") & (listing["status"] == "complete")]
    demetr = evals[evals["dataset_name"] == "demetr"]["run_id"].iloc[0]
    nevir = evals[evals["dataset_name"] == "nevir"]["run_id"].iloc[:2].tolist()
    catalog = load_catalog()
    calls = {
        "runs() listing (eval)": lambda s: s.runs(kind="eval"),
        "scores_wide DEMETR run (105k scores)": lambda s: s.scores_wide(demetr),
        "scores_wide NevIR run (5.5k scores)": lambda s: s.scores_wide(nevir[0]),
        "Overview leaderboard (listing + summaries)": lambda s: leaderboard(
            s.runs(dataset="nevir", kind="eval"), catalog
        ),
        "annotations(nevir)": lambda s: s.annotations("nevir"),
    }
    store.close()
    for name, call in calls.items():
        fresh = Store(url)  # cold: new engine, new connections
        cold, warm = timed(lambda: call(fresh))
        fresh.close()
        out.append({"call": name, "cold_s": cold, "warm_s": warm})
    out.append({"call": "CLI `negviz runs` (process)", "cold_s": cli_seconds(url, "runs"), "warm_s": None})
    out.append(
        {"call": "CLI `negviz compare` NevIR (process)", "cold_s": cli_seconds(url, "compare", *nevir), "warm_s": None}
    )
    for row in out:
        row.update(runs=n_runs, db=_short(url))
        for key in ("cold_s", "warm_s"):
            if row[key] is not None:
                row[key] = round(row[key], 3)
    return out


def page_times(url: str, pages: list[str]) -> list[dict]:
    from negviz.store import Store

    with Store(url) as s:
        n_runs = len(s.runs(status=None))
    out = []
    checkout, router = measured_checkout(), ROOT / "tests" / "support" / "router.py"
    for page in pages:
        done = subprocess.run(
            [sys.executable, "-c", PAGE_CODE, str(checkout / "app.py"), page_file(page), str(router)],
            env=env_for(url),
            capture_output=True,
            text=True,
            cwd=checkout,  # `python -c` puts the working folder first on sys.path
        )
        if done.returncode:
            row = {"error": done.stderr[-1500:]}
        else:
            row = json.loads(done.stdout.strip().splitlines()[-1])
        out.append({"page": page, "runs": n_runs, "db": _short(url), "checkout": str(checkout), **row})
    return out


def save_run_times(url: str, items: int = 35_000, rounds: int = 3) -> dict:
    """Median seconds of Store.save_run of ``items`` x 3 scores and of the plain bulk insert."""
    import numpy as np
    import pandas as pd
    import sqlalchemy as sa

    from negviz.core.schema import DatasetSpec, ModelSpec
    from negviz.store import RunRecord, Store

    slots = ("candidate", "perturbed", "empty")
    rng = np.random.default_rng(0)
    scores = pd.DataFrame(
        {
            "item_id": np.repeat([f"{1000 + i}-2" for i in range(items)], len(slots)),
            "slot": list(slots) * items,
            "score": rng.normal(size=items * len(slots)),
        }
    )
    model = ModelSpec.make("all-MiniLM-L6-v2", family="bi_encoder", revision="main", similarity="dot")
    bare = sa.Table(
        f"plain_insert_baseline_{os.getpid()}",
        sa.MetaData(),
        sa.Column("run_id", sa.String(64)),
        sa.Column("item_id", sa.String(128)),
        sa.Column("slot", sa.String(64)),
        sa.Column("score", sa.Float),
    )
    load_before = os.getloadavg()[0]
    saved, plain = [], []
    with Store(url) as store:
        bare.create(store.engine)
        try:
            for n in range(rounds):
                record = RunRecord.from_specs(
                    model,
                    DatasetSpec.make("demetr", limit=items),
                    spec_key=f"bench-save-{os.getpid()}-{n}",
                    dataset_kind="pairs",
                )
                t0 = time.perf_counter()
                run_id = store.save_run(record, scores)
                saved.append(time.perf_counter() - t0)
                rows = [{"run_id": run_id, **row} for row in scores.to_dict("records")]
                t0 = time.perf_counter()
                with store.engine.begin() as conn:
                    conn.execute(bare.insert(), rows)
                plain.append(time.perf_counter() - t0)
                store.delete_run(run_id)
        finally:
            bare.drop(store.engine)
    median = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    return {
        "db": _short(url),
        "scores": len(scores),
        "rounds": rounds,
        "save_run_s": round(median(saved), 3),
        "plain_bulk_insert_s": round(median(plain), 3),
        "ratio": round(median(saved) / median(plain), 2),
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def _short(url: str) -> str:
    return "postgresql" if url.startswith("postgres") else "sqlite"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", action="append", required=True, help="store URL (repeat for several)")
    ap.add_argument("--pages", default=",".join(PAGES), help="comma-separated pages ('' for none)")
    ap.add_argument("--no-calls", action="store_true", help="pages only")
    ap.add_argument("--save-run", action="store_true", help="only save_run of 105,000 scores against a plain insert")
    args = ap.parse_args()
    pages = [p for p in args.pages.split(",") if p]
    for url in args.db:
        if args.save_run:
            print(json.dumps(save_run_times(url)), flush=True)
            continue
        rows = [] if args.no_calls else store_calls(url)
        rows += page_times(url, pages)
        for row in rows:
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
