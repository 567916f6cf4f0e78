"""`negviz models`, `datasets` (add, remove), `download`, `taxonomy`: the catalog and the data."""

from __future__ import annotations

import argparse
import sys

import pandas as pd

from negviz.cli.output import emit
from negviz.core.errors import NegvizError
from negviz.core.json_values import dumps
from negviz.core.options import MAX_ITEMS, bounded
from negviz.core.schema import KIND_HELP
from negviz.language.text.words import counted


def cmd_models(args: argparse.Namespace) -> int:
    from negviz.evaluation.catalog import FILELESS, load_catalog
    from negviz.scorers.loading import is_available_offline

    df = load_catalog().copy()
    df["offline"] = [fam in FILELESS or is_available_offline(hub) for fam, hub in zip(df["family"], df["hub_id"])]
    cols = ["name", "family", "hub_id", "params_m", "offline", "training_data"]
    return emit(df[cols], args.json)


def cmd_datasets(args: argparse.Namespace) -> int:
    from negviz.datasets import list_datasets
    from negviz.store import open_store

    table = list_datasets(open_store(args.db, args.shipped_runs))
    return emit(table if args.json else table.drop(columns=["sha256"]), args.json)


def cmd_datasets_add(args: argparse.Namespace) -> int:
    from pathlib import Path

    from negviz.core.errors import DataValidationError
    from negviz.datasets.added import add_dataset
    from negviz.datasets.hub import HUB_PREFIX, hub_file
    from negviz.datasets.userfile import check_size
    from negviz.datasets.validate import problem_table
    from negviz.store import open_store

    path = Path(args.file)
    hub = args.file.startswith(HUB_PREFIX)  # a Hub dataset enters exactly like a file
    if not hub and not path.is_file():
        raise NegvizError(f"no such file: {args.file} (a Hub dataset is written hf:OWNER/NAME[:SPLIT])")
    data, name = hub_file(args.file) if hub else (None, path.name)
    path = Path(name)
    try:
        if data is None:
            check_size(Path(args.file).stat().st_size, path.name)  # before reading a huge file
            data = Path(args.file).read_bytes()
        record, created = add_dataset(
            open_store(args.db, args.shipped_runs),
            args.name,
            data,
            path.name,
            args.kind,
            args.columns,
            format=args.format,
            description=args.description or "",
            licence=args.licence or "",
            added_by=args.by,
        )
    except DataValidationError as err:
        problems = problem_table(err)
        print(f"negviz: error: {path.name}: {counted(len(problems), 'problem')}; nothing was stored:", file=sys.stderr)
        with pd.option_context("display.max_colwidth", 120, "display.width", 200):
            print(problems.to_string(index=False), file=sys.stderr)
        return 2
    if created:
        print(
            f"added {record.name}: {record.n:,} {record.kind} items from {record.source_file} "
            f"(sha256 {record.sha256[:12]})"
        )
    else:
        print(f"{record.name} already holds this file (same sha256, kind and mapping); nothing stored")
    return 0


def cmd_datasets_remove(args: argparse.Namespace) -> int:
    from negviz.results.dataset_view import DatasetView
    from negviz.store import datasets as stored
    from negviz.store import open_store

    store = open_store(args.db, args.shipped_runs)
    view = DatasetView(store)
    if view.added_record(args.name) is None:
        raise NegvizError(f"no added dataset named {args.name!r} in {store.url}; see `negviz datasets`")
    used = view.runs_using(args.name)
    if not args.yes:
        print(
            f"{args.name} is used by {used} stored run(s); run again with --yes to remove it "
            f"({'and them' if args.delete_runs else 'the runs are kept'})",
            file=sys.stderr,
        )
        return 1
    used = stored.remove(store, args.name, delete_runs=args.delete_runs)  # counted in the removing transaction
    kept = "deleted" if args.delete_runs else "kept"
    print(f"removed {args.name}; {used} stored run(s) used it ({kept})")
    return 0


def cmd_download(args: argparse.Namespace) -> int:
    from negviz.core.schema import ModelSpec
    from negviz.evaluation.catalog import resolve_model
    from negviz.scorers.loading import resolve_source

    resolved = resolve_model(ModelSpec.parse(args.model))
    if not resolved.hub_id:
        print(f"{resolved.spec.name} needs no model files")
        return 0
    source = resolve_source(resolved.hub_id, resolved.spec.revision)
    print(f"{resolved.hub_id}: {source.path} ({source.origin}, revision {source.revision})")
    return 0


def cmd_taxonomy(args: argparse.Namespace) -> int:
    from negviz.core.schema import DatasetSpec
    from negviz.datasets import load
    from negviz.language.taxonomy import distribution_summary, label_pairs
    from negviz.store import open_store

    options = {k: v for k, v in (("kind", args.kind), ("columns", args.columns)) if v}
    store = open_store(args.db, args.shipped_runs)
    ds = load(DatasetSpec.make(args.dataset, args.split, args.limit, **options), store=store)
    if args.source not in ("auto", "annotator"):
        store = None
    labels = label_pairs(ds, args.source, store=store, label_column=args.label_column)
    out = distribution_summary(labels, str(ds.spec))
    if args.json:
        print(dumps(out, indent=2))
        return 0
    print(f"{out['dataset']}: {out['n']:,} items, {out['typed']:,} typed, label sources {out['label_sources']}")
    table = pd.DataFrame(out["types"])
    table["share"] = (table["share"] * 100).map("{:.1f}%".format)
    print(table.to_string(index=False))
    return 0


def register(sub) -> None:
    """Add this group's commands to the `negviz` parser."""
    s = sub.add_parser("models", help="the model catalog, with an 'offline' column")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_models)

    s = sub.add_parser("datasets", help="shipped and added datasets; add or remove your own")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_datasets)
    dsub = s.add_subparsers(dest="datasets_command")
    a = dsub.add_parser("add", help="validate a file and keep it in the results store under NAME")
    a.add_argument("name", help="the dataset's name (letters, digits, _ - .), e.g. mypairs")
    a.add_argument("file", help="CSV, TSV, JSONL, JSON or Parquet file, or a Hub dataset hf:OWNER/NAME[:SPLIT]")
    a.add_argument("--kind", required=True, help=", ".join(KIND_HELP))
    a.add_argument("--columns", help="column mapping NEEDED=YOURS,..., e.g. pair_id=id,q1=query1")
    a.add_argument("--format", help="file format when the extension does not say it")
    a.add_argument("--description", help="what the dataset is (shown on the pages as plain text)")
    a.add_argument("--licence", help="the data's licence")
    a.add_argument("--by", help="who adds it (default: your user name)")
    a.set_defaults(func=cmd_datasets_add)
    r = dsub.add_parser("remove", help="remove an added dataset (says how many stored runs use it)")
    r.add_argument("name")
    r.add_argument("--yes", action="store_true", help="really remove it")
    r.add_argument("--delete-runs", action="store_true", help="also delete the stored runs made on it")
    r.set_defaults(func=cmd_datasets_remove)

    s = sub.add_parser("download", help="fetch a model into the Hugging Face cache (needs network)")
    s.add_argument("model")
    s.set_defaults(func=cmd_download)

    s = sub.add_parser("taxonomy", help="negation type distribution of a dataset (Petcu et al. taxonomy)")
    s.add_argument("--dataset", required=True, help="nevir, excluir, ... or a file")
    s.add_argument(
        "--source",
        default="auto",
        choices=["auto", "gold_cue", "detected", "dataset_label", "annotator"],
        help="auto: gold cue if the data has one, else a label column, else detection; annotations override",
    )
    s.add_argument("--label-column", default="negation_type", help="a user file's column of type labels")
    s.add_argument("--split", default="test")
    s.add_argument("--limit", type=bounded(int, ge=1, le=MAX_ITEMS), help="first N items only")
    s.add_argument("--kind", help="dataset kind of a user file")
    s.add_argument("--columns", help="column mapping of a user file")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_taxonomy)
