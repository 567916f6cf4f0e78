"""`negviz runs`, `board`, `import-runs`, `export-run`, `compare`: the stored runs."""

from __future__ import annotations

import argparse
import sys

from negviz.cli.fill_command import add_fill_options
from negviz.cli.output import emit
from negviz.core.cpu_features import device_label
from negviz.core.json_values import dumps


def cmd_runs(args: argparse.Namespace) -> int:
    from negviz.core import metric_text, metrics
    from negviz.evaluation.run_choice import chosen_mask
    from negviz.evaluation.summaries import headline, items_of
    from negviz.results.dataset_view import DatasetView
    from negviz.store import open_store

    df = DatasetView(open_store(args.db, args.shipped_runs), args.dataset).runs(kind=None)
    if df.empty:
        if args.json:  # JSON and only JSON on stdout, an empty list included
            print("[]")
        else:
            print("no stored runs", file=sys.stderr)
        return 0
    metric, value = zip(*(headline(s) for s in df["summary"])) if len(df) else ((), ())
    table = df[["run_id", "model_name", "family", "dataset_name", "split", "n", "device", "wall_seconds"]].copy()
    table["device"] = [device_label(d, s) for d, s in zip(df["device"], df["summary"])]  # an INT8 run's CPU
    table["metric"], table["value"] = metric, value
    if args.json:  # raw numbers, with the unit a person reads them in (negviz.core.metrics)
        table["unit"] = [metrics.metric(m).unit or "number" for m in metric]
    else:
        table["value"] = [metric_text.value(m, v) for m, v in zip(metric, value)]
        table["n"] = [
            metric_text.n_of(n, items_of(s, d)) for n, s, d in zip(df["n"], df["summary"], df["dataset_spec"])
        ]
        table["metric"] = [metrics.metric(m).label for m in metric]  # "paired accuracy", not its key
        table["wall_seconds"] = [metric_text.MISSING if metric_text.is_missing_value(w) else f"{w:,.1f}"
                                 for w in df["wall_seconds"]]  # fmt: skip
    table["shown"] = chosen_mask(df).map({True: "*", False: ""}).to_numpy()  # the run pages show for the model
    return emit(table, args.json)


def cmd_board(args: argparse.Namespace) -> int:
    from negviz.analyses.board import board_json, board_text, column_keys, titles
    from negviz.cli.fill_command import check_fill_args, cmd_fill
    from negviz.results.dataset_view import DatasetView
    from negviz.store import open_store

    check_fill_args(args)
    if args.fill:
        return cmd_fill(args)

    board = DatasetView(open_store(args.db, args.shipped_runs)).board()
    if args.json:
        print(dumps(board_json(board), indent=2))
        return 0
    if board.empty:
        print("no stored runs", file=sys.stderr)
        return 0
    shown = board_text(board)[["model", "base", *column_keys()]]
    return emit(shown.rename(columns=titles()), False)  # the page's column titles: "NevIR paired accuracy (%)"


def cmd_import(args: argparse.Namespace) -> int:
    from negviz.store import open_store

    imported = open_store(args.db, args.shipped_runs).import_runs(args.path, force=args.force)
    print(f"imported {len(imported)} run(s) from {args.path}")
    for file, why in imported.skipped:
        print(f"skipped {file.name}: {why}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from negviz.results.external.exporting import export_run
    from negviz.store import open_store

    written = export_run(
        open_store(args.db, args.shipped_runs),
        args.run_id,
        args.path,
        args.format,
        qrels=args.qrels,
        qrels_excluded=args.qrels_excluded,
        dataset=args.dataset,
    )
    for path in written:
        print(f"wrote {path}")
    return 0


def cmd_import_scores(args: argparse.Namespace) -> int:
    from pathlib import Path

    from negviz.core.errors import DataValidationError
    from negviz.results.external.importing import import_scores
    from negviz.store import open_store

    path = Path(args.file)
    if not path.is_file():
        raise DataValidationError("no such file.", file=str(path))
    with open(path, "rb") as handle:
        try:
            result = import_scores(
                handle, path.name, args.dataset, args.name, store=open_store(args.db, args.shipped_runs), source_url=args.source,
                allow_partial=args.allow_partial, corpus=args.corpus,
            )  # fmt: skip
        except DataValidationError as exc:
            for problem in exc.problems[1:]:  # the first is the error's own message, printed by main
                print(f"negviz: also: {problem}", file=sys.stderr)
            raise
    record = result.record
    if result.note:
        print(f"negviz: {result.note}", file=sys.stderr)
    out = {"run_id": record.run_id, "model": record.model_name, "dataset": record.dataset_name, "n": record.n,
           "reused_stored_run": result.reused, **{k: v for k, v in record.summary.items() if k != "n"}}  # fmt: skip
    if args.json:
        print(dumps(out, indent=2))
    else:
        from negviz.core import metric_text
        from negviz.evaluation.summaries import headline

        metric, value = headline(record.summary)
        items = metric_text.n_of(record.n, record.summary.get("items_of"))
        print(
            f"imported {record.model_name} on {record.dataset_name} ({items} items): "
            f"{metric} {metric_text.value(metric, value)}; run {record.run_id}"
        )
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    from negviz.evaluation.run_choice import resolve_run
    from negviz.results.dataset_view import DatasetView
    from negviz.store import open_store

    view = DatasetView(open_store(args.db, args.shipped_runs), args.dataset)
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

    s = sub.add_parser("board", help="every model on every benchmark: the run each page shows, value, 95%% CI and n")
    s.add_argument("--json", action="store_true", help="a list of rows: model, base, per benchmark value/ci/n")
    add_fill_options(s, board=True)
    s.set_defaults(func=cmd_board)

    s = sub.add_parser("import-runs", help="load run files (e.g. data/runs) into the store")
    s.add_argument("path")
    s.add_argument(
        "--force",
        action="store_true",
        help="a file whose spec the store holds replaces the stored run (a spec is stored once)",
    )
    s.set_defaults(func=cmd_import)

    s = sub.add_parser("export-run", help="write one stored run to a file: portable Parquet, CSV scores or a TREC run")
    s.add_argument("run_id", help="a run id (or a unique 8+ character prefix), or a model name with --dataset")
    s.add_argument("path", help="a new or regular file (never a store or a device); parquet: a folder too")
    s.add_argument("--dataset", help="resolve a model name to the run the pages show on this dataset")
    s.add_argument(
        "--format",
        default="parquet",
        choices=["parquet", "csv", "trec"],
        help="parquet: negviz's portable run (import-runs); csv: item_id,query_slot,doc_slot,score (import-scores); "
        "trec: a corpus run as 'qid Q0 docid rank score tag'",
    )
    s.add_argument("--qrels", help="with --format trec: also write the qrels (d+ relevant, d- judged 0) here")
    s.add_argument("--qrels-excluded", help="with --format trec: also write qrels with d- as the relevant document")
    s.set_defaults(func=cmd_export)

    s = sub.add_parser(
        "import-scores", help="store scores computed elsewhere (a CSV/JSONL/Parquet score file or a TREC run) as a run"
    )
    s.add_argument("file", help="item_id,query_slot,doc_slot,score or query,document,score rows; or a .trec/.run file")
    s.add_argument(
        "--dataset", required=True, help="the dataset the scores are of (nevir, excluir, demetr, cannot, added)"
    )
    s.add_argument("--name", required=True, help="the model that computed the scores, e.g. rank1-32b")
    s.add_argument("--source", help="a URL, doi: or arxiv: of the model or paper, kept with the run")
    s.add_argument(
        "--allow-partial",
        action="store_true",
        help="store a file that scores only some items (the run then says 'n of N items')",
    )
    s.add_argument("--corpus", help="a TREC run's corpus (default for .trec/.run/.txt files: offline)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_import_scores)

    s = sub.add_parser("compare", help="McNemar's test between two stored runs on the same items")
    s.add_argument("run_a", help="a run id (or a unique 8+ character prefix), or a model name with --dataset")
    s.add_argument("run_b")
    s.add_argument("--dataset", help="resolve model names to the run the pages show on this dataset")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_compare)
