"""Server time of one P/N step in the pair inspector, with N stored NevIR runs (issue: one rule
in one place; target well under 300 ms).

    .venv/bin/python benchmarks/bench_inspector.py --runs 20 --steps 10

Builds a throwaway SQLite store holding the shipped NevIR runs plus jittered copies under other
model names (through Store.save_run, the path every run takes), opens the inspector in
Streamlit's AppTest (the page script runs in this process, as on the server) and times each
"Next" click: the whole script rerun, i.e. the server's work for one step. Prints JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build_store(url: str, n_runs: int) -> None:
    from negviz.core.paths import DATA_DIR
    from negviz.store import Store, portable

    store = Store(url)
    shipped = sorted((DATA_DIR / "runs").glob("nevir__*.parquet"))
    rng = np.random.default_rng(0)
    for k in range(n_runs):
        file = shipped[k % len(shipped)]
        record, scores = portable.read_record(file), portable.read_scores(file)
        copy = dataclasses.replace(
            record, run_id="", model_name=f"{record.model_name}-copy{k}", spec_key=f"bench-{k}", created_at=None
        )
        scores = scores.assign(score=scores["score"] + rng.normal(0, 1e-3, len(scores)))
        store.save_run(copy, scores)
    store.close()


def stored_models(url: str) -> set[str]:
    from negviz.store import Store

    return set(Store(url).runs(dataset="nevir", kind="eval")["model_name"])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--steps", type=int, default=10)
    args = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="negviz-bench-inspector-"))
    url = f"sqlite:///{tmp / 'store.sqlite'}"
    os.environ.update(NEGVIZ_DB_URL=url, NEGVIZ_CACHE_DIR=str(tmp / "cache"), HF_HUB_OFFLINE="1")
    build_store(url, args.runs)

    from streamlit.testing.v1 import AppTest

    from tests.support.router import pages_run_under_the_router

    pages_run_under_the_router()  # app.py, then the page, as the server runs them
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    app.query_params["dataset"] = "nevir"
    app.query_params["models"] = sorted(stored_models(url))  # every stored model, not only the best 12
    t0 = time.perf_counter()
    app.run()
    app.switch_page("pages/inspector.py").run()
    first = time.perf_counter() - t0
    assert not app.exception, [e.message for e in app.exception]
    models = {v for d in app.dataframe if "model" in d.value.columns for v in d.value["model"]}
    steps, cpu = [], []
    for _ in range(args.steps):
        t, c = time.perf_counter(), time.process_time()
        next(b for b in app.button if b.label == "Next").click().run()
        steps.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        assert not app.exception, [e.message for e in app.exception]
    print(
        json.dumps(
            {
                "benchmark": "inspector P/N step (AppTest script rerun, server side)",
                "stored_nevir_runs": args.runs,
                "models_shown": len(models),
                "steps": args.steps,
                "first_open_s": round(first, 3),
                "step_ms_median": round(1000 * statistics.median(steps), 1),
                "step_ms_max": round(1000 * max(steps), 1),
                "step_cpu_ms_median": round(1000 * statistics.median(cpu), 1),  # this process's CPU: robust to load
                "load_average_1min": round(os.getloadavg()[0], 1),
                "cpu_threads": os.environ.get("OMP_NUM_THREADS", "default"),
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
