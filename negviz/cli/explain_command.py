"""`negviz explain`: the cue's share of token attributions over a dataset, stored as a run of
kind "attribution" (negviz.analyses.cue_influence), printed as a table or one JSON object."""

from __future__ import annotations

import argparse
import sys

HELP = "token attributions over a dataset: the negation cue's share, by verdict and negation type"


def add_arguments(s: argparse.ArgumentParser) -> None:
    from negviz.analyses.cue_influence import METHODS
    from negviz.core.options import MAX_ITEMS, bounded, option_type
    from negviz.results.explain import STEPS

    s.add_argument("--model", required=True, help="catalog name, hub id or local path; NAME[key=value,...]")
    s.add_argument("--dataset", required=True, help="nevir, excluir, demetr, an added dataset, or a file")
    s.add_argument("--split", default="test")
    s.add_argument("--limit", type=bounded(int, ge=1, le=MAX_ITEMS), help=f"first N items only (1 to {MAX_ITEMS:,})")
    s.add_argument(
        "--method",
        default="occlusion",
        choices=METHODS,
        help="occlusion (every family; exact, one scoring per word), integrated-gradients (PyTorch "
        "encoders; --steps) or gradient-x-input (PyTorch encoders; one pass, fastest)",
    )
    s.add_argument(
        "--layers",
        action="store_true",
        help="instead: the per-layer curve of every item's two documents (encoders), by negation type",
    )
    s.add_argument(
        "--steps",
        type=option_type(STEPS),
        help=f"integrated gradients: steps of the path integral, 1 to {STEPS.le:,} (default {STEPS.default}); "
        "each is one forward and backward pass per text, and the sum converges long before the upper bound",
    )
    s.add_argument("--device", help="cpu, cuda, ... (default: cuda if present)")
    s.add_argument("--force", action="store_true", help="recompute even if the store holds this run")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("--quiet", action="store_true", help="no progress bar")


def run_command(args: argparse.Namespace) -> int:
    import pandas as pd

    from negviz.cli.progress import TqdmProgress
    from negviz.core.schema import DatasetSpec
    from negviz.results.explain import run_cue_influence
    from negviz.store import open_store

    store = open_store(args.db, args.shipped_runs)
    progress = TqdmProgress(enabled=not args.quiet)
    if args.layers:
        return _layers(args, store, progress)
    try:
        result = run_cue_influence(
            args.model,
            DatasetSpec.make(args.dataset, args.split, args.limit),
            store=store,
            method=args.method,
            steps=args.steps,
            device=args.device,
            progress=progress,
            force=args.force,
        )
    finally:
        progress.close()
    record = result.record
    if result.note:
        print(result.note, file=sys.stderr)
    if args.json:
        return _print_json(result)
    s = record.summary
    low, high = s.get("ci95") or (None, None)
    print(
        f"{record.model_name} on {record.dataset_name} ({record.split}, n={record.n}): {s['method']}; median cue share "
        f"{s['median_cue_share']:.3f} [{low:.3f}, {high:.3f}] over {s['n_comparisons']} comparisons"
        + (" (stored run reused)" if result.reused else "")
    )
    for key, title in (("by_verdict", "category"), ("by_type", "type")):
        if s.get(key):
            print()
            print(pd.DataFrame(s[key]).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0


def _layers(args: argparse.Namespace, store, progress) -> int:
    import pandas as pd

    from negviz.core.schema import DatasetSpec
    from negviz.results.explain import run_layer_curves

    try:
        result = run_layer_curves(
            args.model,
            DatasetSpec.make(args.dataset, args.split, args.limit),
            store=store,
            device=args.device,
            progress=progress,
            force=args.force,
        )
    finally:
        progress.close()
    record = result.record
    if args.json:
        return _print_json(result)
    s = record.summary
    print(
        f"{record.model_name} on {record.dataset_name} ({record.split}, n={s['n']}): 1 - cos of "
        f"{' vs '.join(s['columns'])} per layer; median last-layer / layer-0 distance at the cue "
        f"{s['cue_distance_last_vs_layer0']:.3f}" + (" (stored run reused)" if result.reused else "")
    )
    print(pd.DataFrame(s["by_type"]).to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0


def _print_json(result) -> int:
    from negviz.core.json_values import dumps

    record = result.record
    print(
        dumps(
            {
                "run_id": record.run_id,
                "model": record.model_name,
                "dataset": record.dataset_name,
                "split": record.split,
                "n": record.n,
                "reused": result.reused,
                "options": record.options,
                "summary": record.summary,
            }
        )
    )
    return 0


def register(sub) -> None:
    """Add `negviz explain` to the parser."""
    s = sub.add_parser("explain", help=HELP)
    add_arguments(s)
    s.set_defaults(func=run_command)
