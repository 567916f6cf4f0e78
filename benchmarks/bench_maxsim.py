"""How fast a new MaxSim matrix appears: maxsim-all-MiniLM-L6-v2 on a 150-word document.

Measures, after one warm-up, the median of ``--repeat`` runs of
  matrix    token_matrix(query, new 150-word document): encode both texts + sim + MaxSim
  explorer  alignment.explore(): 2 queries x 2 documents of 150 words, views, deltas (what the
            page computes on every change)
  figures   the heatmap pair and the delta bars built from those views
  plain     the baseline: the model's own forward pass of the same query and document, one text
            a pass, as a plain transformers script would (tokenizer + model, no negviz)
and the ratio matrix / plain (tests/scorers/test_maxsim.py counts the forward passes instead).
Every repeat uses documents never seen before (a word is changed), so nothing is served from
a cache. The model load is reported apart (once per process in the app).
Usage: python benchmarks/bench_maxsim.py [--repeat 10] [--device cpu] [--json]
Target (issue #4): matrix + figures under 1 s on the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

QUERY = "Which scientist did not enjoy playing the violin as a child?"
TWIN = "Which scientist enjoyed playing the violin as a child?"


def documents(words: int, variants: range, negated: bool) -> list[str]:
    """Real-text documents of ``words`` words (NevIR passages, in order), one per variant."""
    from negviz.datasets import load

    pool = " ".join(load("nevir").frame["d1"].head(20)).split()
    return [_variant(pool, words, v, negated) for v in variants]


def _variant(pool: list[str], words: int, variant: int, negated: bool) -> str:
    text = pool[:words]
    text[words // 2] = f"variant{variant}"  # a new text every repeat: no cache can answer
    if negated:
        text.insert(words // 3, "not")
        text = text[:words]
    return " ".join(text)


def median_ms(fn, repeat: int) -> tuple[float, float]:
    """Median wall and process-CPU milliseconds. On a shared machine the wall time grows with
    the other processes' load; the CPU time of a 1-thread run is what an idle core would take."""
    wall, cpu = [], []
    for k in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        fn(k)
        wall.append((time.perf_counter() - w) * 1000)
        cpu.append((time.process_time() - c) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def plain_forward(scorer, query: str, doc: str) -> None:
    """The baseline: the model's forward pass of both texts, nothing else."""
    import torch

    tokenizer, model = scorer.model
    with torch.inference_mode():
        for text in (query, doc):
            model(**tokenizer([text], truncation=True, max_length=256, return_tensors="pt"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--words", type=int, default=150)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's own)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import torch

    from negviz.analyses import alignment
    from negviz.charts.alignment import alignment_heatmaps, delta_bars
    from negviz.evaluation.catalog import load_scorer

    if args.threads:
        torch.set_num_threads(args.threads)

    start = time.perf_counter()
    scorer = load_scorer("maxsim-all-MiniLM-L6-v2", device=args.device)
    _ = scorer.model
    load_ms = (time.perf_counter() - start) * 1000
    n = args.repeat
    plain, negated = documents(args.words, range(n + 2), False), documents(args.words, range(n + 2), True)
    alignment.token_matrix(scorer, QUERY, plain[-1])  # warm-up (the first forward pass is slower)

    tm = alignment.token_matrix(scorer, QUERY, plain[-2])
    matrix_ms, matrix_cpu = median_ms(lambda k: alignment.token_matrix(scorer, QUERY, plain[k]), n)
    plain_ms, plain_cpu = median_ms(lambda k: plain_forward(scorer, QUERY, plain[k]), n)
    explore_ms, explore_cpu = median_ms(
        lambda k: alignment.explore(scorer, [QUERY, TWIN], [negated[k], f"{plain[k]} again"], gold_cue="not"), n
    )
    ex = alignment.explore(scorer, [QUERY, TWIN], [negated[-1], plain[-1]], gold_cue="not")
    figures_ms, figures_cpu = median_ms(
        lambda k: (alignment_heatmaps(ex.views, ["q vs d1", "q vs d2"]), delta_bars(ex.deltas)), n
    )
    result = {
        "model": "maxsim-all-MiniLM-L6-v2",
        "device": args.device,
        "torch_threads": torch.get_num_threads(),
        "cpu": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average_1min": round(os.getloadavg()[0], 1),  # the machine is shared: context for the numbers
        "words": args.words,
        "doc_tokens": len(tm.doc.tokens),
        "query_tokens": len(tm.query.tokens),
        "repeat": args.repeat,
        "model_load_ms": round(load_ms),
        "matrix_ms": round(matrix_ms, 1),
        "explorer_ms": round(explore_ms, 1),
        "figures_ms": round(figures_ms, 1),
        "matrix_plus_figures_ms": round(matrix_ms + figures_ms, 1),
        "plain_forward_ms": round(plain_ms, 1),
        "matrix_to_plain_ratio": round(matrix_ms / plain_ms, 2),
        "matrix_to_plain_cpu_ratio": round(matrix_cpu / plain_cpu, 2),
        "load_average_1min_after": round(os.getloadavg()[0], 1),
        "matrix_cpu_ms": round(matrix_cpu, 1),
        "plain_forward_cpu_ms": round(plain_cpu, 1),
        "explorer_cpu_ms": round(explore_cpu, 1),
        "figures_cpu_ms": round(figures_cpu, 1),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"maxsim-all-MiniLM-L6-v2 on {args.device} ({result['torch_threads']} torch threads, "
        f"{result['cpu_count']} cores), {args.words}-word documents ({result['doc_tokens']} tokens), "
        f"median of {args.repeat}:"
    )
    print(f"(1-minute load average {result['load_average_1min']} before, {result['load_average_1min_after']} after)")
    print("| step | wall ms | process CPU ms |\n|---|---|---|")
    print(f"| model load | {result['model_load_ms']:,} | |")
    for key in ("matrix", "explorer", "figures", "plain_forward"):
        print(f"| {key} | {result[key + '_ms']:,} | {result[key + '_cpu_ms']:,} |")
    print(f"| matrix + figures | {result['matrix_plus_figures_ms']:,} | |")
    print(
        f"matrix / plain forward of the same two texts: {result['matrix_to_plain_ratio']} "
        f"(process CPU: {result['matrix_to_plain_cpu_ratio']})"
    )


if __name__ == "__main__":
    main()
