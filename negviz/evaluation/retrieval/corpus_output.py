"""`negviz eval ... --corpus`: run, then print one JSON object or a short table."""

from __future__ import annotations

import sys
from typing import Any

from negviz.core import metric_text, metrics
from negviz.core.json_values import dumps
from negviz.evaluation.retrieval.plan import EncodingPlan
from negviz.evaluation.retrieval.rank_metrics import METRICS
from negviz.evaluation.summaries import items_of


def corpus_payload(result) -> dict[str, Any]:
    from negviz.evaluation.runner import run_head

    r = result.record
    searched = ("corpus", "corpus_size", "corpus_hash", "retrieval", "first_stage", "depth", "candidates")
    head = run_head(result, r.dataset_spec.get("name"), {k: r.options.get(k) for k in searched})
    if of := items_of(r.summary, r.dataset_spec):  # a run over part of the queries: n of N
        head["items_of"] = of
    return {**{k: v for k, v in head.items() if v is not None}, **result.summary}


def format_corpus(out: dict[str, Any]) -> str:
    n = metric_text.n_of(out["n"], out.get("items_of"))  # "5 of 1,000" for a limited run
    lines = [
        f"{out['model']} ({out['family']}, {out.get('retrieval')}) on {out['dataset']} over corpus "
        f"{out['corpus']} ({out['corpus_size']:,} docs, hash {out['corpus_hash']}), n={n}, "
        f"top {out['top_k']}, {out['wall_seconds']:.1f}s" + (" [stored run reused]" if out["reused_stored_run"] else "")
    ]
    if out.get("retrieval") == "codes":  # negviz.evaluation.retrieval.plan: the candidates route
        lines.append(
            f"  two-stage search by the shipped codes: ranks are exact among each query's "
            f"{out.get('candidates', '?')} candidates only, not over the whole corpus"
        )
    for name in METRICS:  # each by its label, in its unit (negviz.core.metrics): ΔR@1 in pp, MRR a number
        lo, hi = out["ci95"][name]
        label = metrics.metric(name).label
        lines.append(f"  {label:<23} {metric_text.value(name, out[name]):>9}  [95% CI {metric_text.ci(name, lo, hi)}]")
    lines.append(
        f"  d+ in top {out['top_k']}: {out['pos_in_top_k']}, d− in top {out['top_k']}: {out['neg_in_top_k']}, "
        f"neither in top 10 (counted wrong by RR): {out['both_absent_top10']}"
    )
    if plan := out.get("encoding_plan"):
        lines.append(f"  {EncodingPlan(**plan).text()}; {out.get('encoded_texts', 0):,} texts encoded")
    return "\n".join(lines)


def corpus_eval_command(args, model, dataset, store, progress) -> int:
    from negviz.evaluation.retrieval.corpus import load_corpus
    from negviz.evaluation.retrieval.evaluate import run_corpus_eval
    from negviz.evaluation.retrieval.plan import tell_plan

    corpus = load_corpus(args.corpus, columns=args.corpus_columns)
    try:
        result = run_corpus_eval(
            model, dataset, corpus, top_k=args.top_k, store=store, device=args.device,
            batch_size=args.batch_size, progress=progress, force=args.force, plan=args.plan,
        on_plan=None if args.quiet else tell_plan,
        )  # fmt: skip
    finally:
        progress.close()
    if result.note:
        print(f"negviz: {result.note}", file=sys.stderr)
    out = corpus_payload(result)
    print(dumps(out, indent=2) if args.json else format_corpus(out))
    return 0
