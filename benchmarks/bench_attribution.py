"""Token attributions of NevIR pairs with a bi-encoder (MiniLM by default), against a plain
``SentenceTransformer.encode`` of the same occluded texts in the same process.

    python benchmarks/bench_attribution.py [--model all-MiniLM-L6-v2] [--items 10] [--rounds 2]

Per pair (both of its comparisons, q1's and q2's): occlusion (every variant of the pair in one
scoring call), integrated gradients (32 steps, each comparison), gradient x input, and the
per-layer curve of d1 against d2; plus the plain baseline: ``model.encode`` of exactly the texts
occlusion needs (each unique text once). Rounds alternate, so other load falls on all of them;
prints JSON with the median seconds per pair of the best round, forward passes per pair, the
ratio of occlusion to plain, and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from negviz.analyses import attribution as A  # noqa: E402
from negviz.analyses import layers as L  # noqa: E402
from negviz.datasets import load  # noqa: E402
from negviz.evaluation.catalog import load_scorer  # noqa: E402


def occluded_texts(contrasts) -> list[str]:
    """The unique texts occlusion of these comparisons scores (what plain encode gets)."""
    texts = []
    for c in contrasts:
        texts += [c.texts[r] for r in A.ROLES if c.texts[r] is not None]
        texts += [A.without(c.texts[w.role], w.start, w.end) for w in A.word_table(c).itertuples()]
    return list(dict.fromkeys(texts))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--items", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    load_before = os.getloadavg()
    ds = load("nevir")
    frame = ds.frame.sample(args.items, random_state=0)
    pairs = [A.contrasts(ds.kind, row) for row in frame.to_dict("records")]
    scorer = load_scorer(args.model)
    model = scorer.model
    model.encode(["warm up"] * 8)
    timings: dict[str, list[list[float]]] = {k: [] for k in ("plain", "occlusion", "ig32", "gxi", "layers")}
    passes = {"occlusion": [], "ig32": [], "gxi": [], "plain": []}
    for _ in range(args.rounds):
        rnd = {k: [] for k in timings}
        for cs in pairs:
            texts = occluded_texts(cs)
            start = time.perf_counter()
            model.encode(texts, batch_size=32, show_progress_bar=False)
            rnd["plain"].append(time.perf_counter() - start)
            start = time.perf_counter()
            A.occlusion_many(scorer, cs)
            rnd["occlusion"].append(time.perf_counter() - start)
            start = time.perf_counter()
            ig = [A.integrated_gradients(scorer, c, 32) for c in cs]
            rnd["ig32"].append(time.perf_counter() - start)
            start = time.perf_counter()
            gx = [A.integrated_gradients(scorer, c, at_input=True) for c in cs]
            rnd["gxi"].append(time.perf_counter() - start)
            start = time.perf_counter()
            L.cue_fade(scorer, cs[0].texts["good"], cs[0].texts["bad"])
            rnd["layers"].append(time.perf_counter() - start)
            if len(passes["plain"]) < len(pairs):
                passes["plain"].append(len(texts))
                passes["occlusion"].append(len(texts))  # unique texts encoded (pairs scored: more)
                passes["ig32"].append(sum(a.forward_passes for a in ig))
                passes["gxi"].append(sum(a.forward_passes for a in gx))
        for k, v in rnd.items():
            timings[k].append(v)
    best = {k: min(rounds, key=lambda r: float(np.median(r))) for k, rounds in timings.items()}
    med = {k: float(np.median(v)) for k, v in best.items()}
    print(
        json.dumps(
            {
                "model": args.model,
                "items": args.items,
                "rounds": args.rounds,
                "cpu_threads": _threads(),
                "median_seconds_per_pair": {k: round(v, 3) for k, v in med.items()},
                "texts_or_passes_per_pair": {k: float(np.median(v)) for k, v in passes.items()},
                "occlusion_over_plain": round(med["occlusion"] / med["plain"], 3),
                "load_before": [round(x, 2) for x in load_before],
                "load_after": [round(x, 2) for x in os.getloadavg()],
            },
            indent=1,
        )
    )


def _threads() -> int:
    import torch

    return torch.get_num_threads()


if __name__ == "__main__":
    main()
