"""`negviz eval`: evaluate a model on a dataset (or a corpus) and store the run."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import pandas as pd

from negviz.cli.fill_command import add_fill_options
from negviz.cli.progress import ProgressTee, TqdmProgress
from negviz.core import metrics
from negviz.core.cpu_features import device_label
from negviz.core.errors import NegvizError
from negviz.core.json_values import dumps
from negviz.core.options import bounded
from negviz.core.schema import KIND_HELP


def cmd_eval(args: argparse.Namespace) -> int:
    from negviz.core.schema import DatasetSpec, ModelSpec
    from negviz.store import open_store

    model = ModelSpec.parse(args.model, family=args.family, revision=args.revision, options=args.option or ())
    ds_options = {}
    for item in args.dataset_option or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise NegvizError(f"--dataset-option {item!r} is not of the form key=value")
        ds_options[key] = value
    if args.kind:
        ds_options["kind"] = args.kind
    if args.columns:
        ds_options["columns"] = args.columns
    dataset = DatasetSpec.make(args.dataset, args.split, args.limit, **ds_options)
    lookup = open_store(args.db, args.shipped_runs)  # added datasets are read from the store even with --no-store
    store = None if args.no_store else lookup
    progress = TqdmProgress(enabled=not args.quiet)
    if args.progress_file:  # a background job (negviz.evaluation.eval_jobs): the page reads this file
        progress = ProgressTee(progress, args.progress_file)
    if args.corpus and (args.on or args.shards):
        raise NegvizError("--on and --shards cut an evaluation of pairs; a search over a corpus (--corpus) runs here")
    if args.corpus:  # retrieval over a corpus: negviz.evaluation.retrieval
        from negviz.evaluation.retrieval.corpus_output import corpus_eval_command

        return corpus_eval_command(args, model, dataset, store, progress)
    if args.heartbeat_file:  # a background job says it lives (negviz.evaluation.jobs.is_alive), whatever it is doing
        from pathlib import Path

        from negviz.evaluation.jobs import Heartbeat, touch

        with Heartbeat(lambda: touch(Path(args.heartbeat_file))):
            return _eval(args, model, dataset, store, lookup, progress)
    return _eval(args, model, dataset, store, lookup, progress)


def _eval(args, model, dataset, store, lookup, progress) -> int:
    from negviz.evaluation.fill.executor import ray_address
    from negviz.evaluation.runner import run_eval

    if args.shards or ray_address(args.on) is not None:  # shards, here or on a Ray cluster
        from negviz.cli.fill_command import eval_on

        progress.close()  # the plan shows its own bar
        sharded = eval_on(args, model, dataset, store)
        if isinstance(sharded, int):
            return sharded
        if sharded is not None:
            return _show(args, sharded, lookup)
    try:
        result = run_eval(
            model,
            dataset,
            store=store,
            device=args.device,
            batch_size=args.batch_size,
            progress=progress,
            force=args.force,
            tie_rule=args.tie_rule,
            checked_only=args.checked_only,
            datasets_from=lookup,
        )
    finally:
        progress.close()
    return _show(args, result, lookup)


def _show(args, result, lookup) -> int:
    if result.note:  # e.g. another process stored this spec meanwhile: its run is shown
        print(f"negviz: {result.note}", file=sys.stderr)
    out = eval_payload(result)
    from negviz.results.against_base import against_base

    if (base := against_base(lookup, result.record)) is not None:
        out["against_base"] = base
    if args.json:
        print(dumps(out, indent=2), flush=True)  # eval_jobs: done once this is out
    else:
        print(format_eval(out))
    return 0


def eval_payload(result) -> dict[str, Any]:
    from negviz.evaluation.runner import run_head
    from negviz.evaluation.summaries import items_of

    r = result.record
    head = run_head(result, r.dataset_name, {"n": r.n})
    if result.note:
        head["note"] = result.note
    if of := items_of(r.summary, r.dataset_spec):  # a run over part of the dataset: n of N
        head["items_of"] = of
    return {**head, **{k: v for k, v in result.summary.items() if k != "n"}}


def format_eval(out: dict[str, Any]) -> str:
    from negviz.core.metric_text import ci, n_of, value

    n = f"n={n_of(out['n'], out.get('items_of'))}"
    lines = [
        f"{out['model']} ({out['family']}, rev {out['revision']}) on {out['dataset']}:{out['split']}, "
        f"{n}, {out['wall_seconds']:.1f}s on {device_label(out['device'], out)}"
        + (" [stored run reused]" if out["reused_stored_run"] else "")
    ]
    metric = out.get("metric")
    if metric == "paired_accuracy":
        lo, hi = out["ci95"]
        lines.append(
            f"paired accuracy ({out['tie_rule']} ties): {value(metric, out[metric])} [95% CI {ci(metric, lo, hi)}]; "
            f"random {out['random_baseline']:.0%}; {out['other_tie_rule']} tie rule: {out['paired_accuracy_other_tie_rule']:.1%} "
            f"({out['verdicts_differing_by_tie_rule']} verdicts differ)"
        )
        lines.append(f"ties: {out['ties']}; per-query accuracy {out['per_query_accuracy']:.1%}")
        prefs = ", ".join(f"{k} {v:.1%}" for k, v in out["error_preference"].items())
        lines.append(f"error preference among {out['failures']} failures: {prefs}")
    elif metric == "right_rank":
        lo, hi = out["ci95"]
        lines.append(
            f"Right Rank: {value(metric, out[metric])} [95% CI {ci(metric, lo, hi)}]; "
            f"random {out['random_baseline']:.0%}; ties {out['ties']}"
        )
    elif metric == "sensitivity_ratio":
        cols = [
            "perturbation",
            "severity",
            "n",
            "checked",
            "detection_accuracy",
            "sensitivity_ratio",
            "tiny_denominators",
        ]
        lines.append(pd.DataFrame(out["perturbations"])[cols].to_string(index=False, float_format="%.3f"))
    elif metric == "mean_similarity":
        cols = ["source", "n", "mean_similarity", "n_paraphrase", "spearman_paraphrase"]
        lines.append(
            f"mean similarity {out['mean_similarity']:.3f}; Spearman(sim, paraphrase) {out['spearman_paraphrase']:.3f}"
        )
        lines.append(pd.DataFrame(out["sources"])[cols].to_string(index=False, float_format="%.3f"))
    if base := out.get("against_base"):
        lines.append(format_against_base(base))
    return "\n".join(lines)


def format_against_base(base: dict[str, Any]) -> str:
    """The base-model line(s) of `negviz eval`'s text output."""
    if base.get("run_id") is None:
        return f"base model {base['model']}: {base['message']}"
    head = f"base model {base['model']} (run {base['run_id'][:8]}, n={base['n']:,})"
    if "mcnemar" in base:
        c = base["mcnemar"]
        return (
            f"{head}: on {c['n_shared']:,} shared items {c['accuracy_a']:.1%} vs {c['accuracy_b']:.1%}, "
            f"McNemar p = {c['p_value']:.3g}"
        )
    if "perturbations" in base:
        table = pd.DataFrame(base["perturbations"])[
            ["perturbation", "sensitivity_ratio", "base_sensitivity_ratio", "times_base"]
        ]
        return f"{head}, sensitivity ratio against the base's:\n" + table.to_string(index=False, float_format="%.3f")
    return f"{head}: {base['metric']} {base[base['metric']]}"


def register(sub) -> None:
    """Add this group's commands to the `negviz` parser."""
    s = sub.add_parser("eval", help="evaluate a model on a dataset and store the run")
    s.add_argument("--model", required=True, help="catalog name, hub id or local path; NAME[@REV][key=value,...]")
    s.add_argument(
        "--dataset",
        required=True,
        help="nevir, excluir, demetr, cannot, an added dataset, or a file (CSV/TSV/JSONL/Parquet)",
    )
    s.add_argument("--split", default="test")
    # --limit and --batch-size are checked by the library where they are declared (schema.check_limit,
    # device.check_batch_size), so the API and the pages refuse the same values with the same words.
    s.add_argument("--limit", type=int, help="first N items only (N >= 1)")
    s.add_argument("--family", help="model family for models outside the catalog")
    s.add_argument("--revision", help="model revision (hub branch, tag or commit)")
    s.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="family option, e.g. k1=1.2 or similarity=cosine; typed and range-checked, the same as NAME[k1=1.2]",
    )
    s.add_argument("--kind", help="dataset kind of a user file: " + ", ".join(KIND_HELP))
    s.add_argument("--columns", help="column mapping of a user file, e.g. pair_id=id,q1=query1,...")
    s.add_argument("--tie-rule", default=metrics.STRICT, choices=metrics.TIE_RULES)
    s.add_argument("--checked-only", action="store_true", help="DEMETR: keep only items with pert_check")
    s.add_argument(
        "--dataset-option",
        action="append",
        metavar="KEY=VALUE",
        help="a dataset option, e.g. perturbations=critical_id8_negation,critical_id7_antonym (DEMETR) "
        "or sources=glue_diagnostic (CANNOT); repeatable",
    )
    s.add_argument("--device", help="cpu, cuda, cuda:1 ... (default: cuda if present)")
    s.add_argument("--batch-size", type=int, help="texts per batch, 1 to 65,536 (default: per device)")
    s.add_argument(
        "--force",
        action="store_true",
        help="re-run even if the store holds this run; the new run replaces the stored one",
    )
    s.add_argument("--no-store", action="store_true", help="do not write the run to the store")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--progress-file", help=argparse.SUPPRESS)  # negviz.evaluation.eval_jobs
    s.add_argument("--heartbeat-file", help=argparse.SUPPRESS)  # negviz.evaluation.eval_jobs
    s.add_argument("--corpus", help="retrieve over a corpus: offline, excluir, hf:OWNER/NAME or a file")
    s.add_argument("--corpus-columns", help="column mapping of a corpus file, e.g. doc_id=id,text=body")
    s.add_argument(
        "--top-k",
        type=bounded(int, ge=1, le=1000),
        default=100,
        help="documents retrieved per query (with --corpus), 1 to 1,000 (trec_eval's depth)",
    )
    s.add_argument(
        "--plan",
        choices=("auto", "exact", "cheapest"),
        default="auto",
        help="with --corpus, how a bi-encoder's run encodes: auto (default: a run limited to part of the queries "
        "takes the shipped codes' two-stage search when it encodes fewer texts, its ranks exact among the "
        "candidates only and stored apart; a run over all queries is exact), exact (always encode the corpus "
        "texts not yet cached) or cheapest (the two-stage search whenever it encodes fewer texts)",
    )
    add_fill_options(s, board=False)
    s.set_defaults(func=cmd_eval)
