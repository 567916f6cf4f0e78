"""`negviz runs`, `import-runs`, `export-run`, `compare`: the stored runs."""

from __future__ import annotations

import argparse
import sys

from negviz.cli.output import emit
from negviz.json_values import dumps


def cmd_runs(args: argparse.Namespace) -> int:
    from negviz.dataset_view import DatasetView
    from negviz.run_choice import chosen_mask
    from negviz.store import Store
    from negviz.summaries import headline

    df = DatasetView(Store(args.db), args.dataset).runs(kind=None)
    if df.empty:
        if args.json:  # JSON and only JSON on stdout, an empty list included
            print("[]")
        else:
            print("no stored runs", file=sys.stderr)
        return 0
    metric, value = zip(*(headline(s) for s in df["summary"])) if len(df) else ((), ())
    table = df[["run_id", "model_name", "family", "dataset_name", "split", "n", "device", "wall_seconds"]].copy()
    table["metric"], table["value"] = metric, value
    table["shown"] = chosen_mask(df).map({True: "*", False: ""}).to_numpy()  # the run pages show for the model
    return emit(table, args.json)


def cmd_import(args: argparse.Namespace) -> int:
    from negviz.store import Store

    imported = Store(args.db).import_runs(args.path, force=args.force)
    print(f"imported {len(imported)} run(s) from {args.path}")
    for file, why in imported.skipped:
        print(f"skipped {file.name}: {why}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from negviz.store import Store

    path = Store(args.db).export_run(args.run_id, args.path)
    print(f"wrote {path}")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from negviz.dataset_view import DatasetView
    from negviz.run_choice import resolve_run
    from negviz.store import Store

    view = DatasetView(Store(args.db), args.dataset)
    a, b = (resolve_run(view.runs(), ref, args.dataset) for ref in (args.run_a, args.run_b))
    out = view.compare(a, b)
    if args.json:
        print(dumps(out, indent=2))
    else:
        print(
            f"{out['model_a']} {out['accuracy_a']:.1%} vs {out['model_b']} {out['accuracy_b']:.1%} on "
            f"{out['n_shared']} shared items of {out['dataset']}: McNemar b={out['b']} c={out['c']}, "
            f"p={out['p_value']:.4g} ({out['method']})"
        )
    return 0


def register(sub) -> None:
    """Add this group's commands to the `negviz` parser."""
    s = sub.add_parser("runs", help="stored runs ('*' in 'shown': the run the pages show for its model)")
    s.add_argument("--dataset")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_runs)

    s = sub.add_parser("import-runs", help="load run files (e.g. data/runs) into the store")
    s.add_argument("path")
    s.add_argument(
        "--force",
        action="store_true",
        help="a file whose spec the store holds replaces the stored run (a spec is stored once)",
    )
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("export-run", help="write one stored run to a portable file")
    s.add_argument("run_id")
    s.add_argument("path")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser("compare", help="McNemar's test between two stored runs on the same items")
    s.add_argument("run_a", help="a run id (or a unique 8+ character prefix), or a model name with --dataset")
    s.add_argument("run_b")
    s.add_argument("--dataset", help="resolve model names to the run the pages show on this dataset")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_compare)
