"""The `negviz` command: list models and datasets, evaluate, manage stored runs.

Bad input exits non-zero with a one-line message that says what is wrong and how to fix it.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any, Sequence

import pandas as pd

from negviz.errors import NegvizError
from negviz.json_values import dumps
from negviz.registry import UnknownNameError


# ---------------------------------------------------------------- progress
class TqdmProgress:
    """Adapts the library's progress(done, total, desc) callback to a tqdm bar on stderr."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.bar = None

    def __call__(self, done: int, total: int, desc: str) -> None:
        if not self.enabled:
            return
        from tqdm import tqdm

        if self.bar is None or self.bar.desc != desc or self.bar.total != total:
            self.close()
            self.bar = tqdm(total=total, desc=desc, unit="item", file=sys.stderr, leave=False)
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class ProgressTee:
    """The bar, and the job's progress record (negviz.jobs.ProgressFile) for a page to show."""

    def __init__(self, bar: TqdmProgress, path: str):
        from negviz.jobs import ProgressFile

        self.bar, self.file, self.start = bar, ProgressFile(path), time.perf_counter()

    def __call__(self, done: int, total: int, desc: str) -> None:
        self.bar(done, total, desc)
        self.file(
            {"done": done, "total": total, "desc": desc, "elapsed": time.perf_counter() - self.start},
            stage=desc,
            last=done >= total,
        )

    def close(self) -> None:
        self.bar.close()


# ---------------------------------------------------------------- commands
def cmd_models(args: argparse.Namespace) -> int:
    from negviz.catalog import FILELESS, load_catalog
    from negviz.scorers.loading import is_available_offline

    df = load_catalog().copy()
    df["offline"] = [fam in FILELESS or is_available_offline(hub) for fam, hub in zip(df["family"], df["hub_id"])]
    cols = ["name", "family", "hub_id", "params_m", "offline", "training_data"]
    return _emit(df[cols], args.json)


def cmd_datasets(args: argparse.Namespace) -> int:
    from negviz.datasets import list_datasets
    from negviz.store import Store

    table = list_datasets(Store(args.db))
    return _emit(table if args.json else table.drop(columns=["sha256"]), args.json)


def cmd_datasets_add(args: argparse.Namespace) -> int:
    from pathlib import Path

    from negviz.datasets.added import add_dataset
    from negviz.datasets.validate import problem_table
    from negviz.errors import DataValidationError
    from negviz.store import Store

    from negviz.datasets.hub import HUB_PREFIX, hub_file
    from negviz.datasets.userfile import check_size

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
            Store(args.db),
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
        print(f"negviz: error: {path.name}: {len(problems)} problem(s); nothing was stored:", file=sys.stderr)
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
    from negviz.store import Store
    from negviz.store import datasets as stored

    store = Store(args.db)
    if stored.get(store, args.name) is None:
        raise NegvizError(f"no added dataset named {args.name!r} in {store.url}; see `negviz datasets`")
    used = stored.runs_using(store, args.name)
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


def cmd_eval(args: argparse.Namespace) -> int:
    from negviz.schema import DatasetSpec, ModelSpec
    from negviz.store import Store

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
    lookup = Store(args.db)  # added datasets are read from the store even with --no-store
    store = None if args.no_store else lookup
    progress = TqdmProgress(enabled=not args.quiet)
    if args.progress_file:  # a background job (negviz.eval_jobs): the page reads this file
        progress = ProgressTee(progress, args.progress_file)
    if args.corpus:  # retrieval over a corpus: negviz.retrieval
        from negviz.retrieval.corpus_output import corpus_eval_command

        return corpus_eval_command(args, model, dataset, store, progress)
    if args.heartbeat_file:  # a background job says it lives (negviz.jobs.is_alive), whatever it is doing
        from pathlib import Path

        from negviz.jobs import Heartbeat, touch

        with Heartbeat(lambda: touch(Path(args.heartbeat_file))):
            return _eval(args, model, dataset, store, lookup, progress)
    return _eval(args, model, dataset, store, lookup, progress)


def _eval(args, model, dataset, store, lookup, progress) -> int:
    from negviz.runner import run_eval

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
    if result.note:  # e.g. another process stored this spec meanwhile: its run is shown
        print(f"negviz: {result.note}", file=sys.stderr)
    out = eval_payload(result)
    from negviz.against_base import against_base

    if (base := against_base(lookup, result.record)) is not None:
        out["against_base"] = base
    if args.json:
        print(dumps(out, indent=2), flush=True)  # eval_jobs: done once this is out
    else:
        print(format_eval(out))
    return 0


def eval_payload(result) -> dict[str, Any]:
    r = result.record
    head = {
        "model": r.model_name,
        "model_spec": r.model_spec,
        "family": r.family,
        "revision": r.model_revision,
        "dataset": r.dataset_name,
        "split": r.split,
        "n": r.n,
        "wall_seconds": round(r.wall_seconds, 3),
        "device": r.device,
        "run_id": r.run_id,
        "reused_stored_run": result.reused,
        "code_version": r.code_version,
    }
    if result.note:
        head["note"] = result.note
    return {**head, **{k: v for k, v in result.summary.items() if k != "n"}}


def format_eval(out: dict[str, Any]) -> str:
    lines = [
        f"{out['model']} ({out['family']}, rev {out['revision']}) on {out['dataset']}:{out['split']}, "
        f"n={out['n']}, {out['wall_seconds']:.1f}s on {out['device']}"
        + (" [stored run reused]" if out["reused_stored_run"] else "")
    ]
    metric = out.get("metric")
    if metric == "paired_accuracy":
        lo, hi = out["ci95"]
        lines.append(
            f"paired accuracy ({out['tie_rule']} ties): {out['paired_accuracy']:.1%} [95% CI {lo:.1%}-{hi:.1%}]; "
            f"random {out['random_baseline']:.0%}; {out['other_tie_rule']} tie rule: {out['paired_accuracy_other_tie_rule']:.1%} "
            f"({out['verdicts_differing_by_tie_rule']} verdicts differ)"
        )
        lines.append(f"ties: {out['ties']}; per-query accuracy {out['per_query_accuracy']:.1%}")
        prefs = ", ".join(f"{k} {v:.1%}" for k, v in out["error_preference"].items())
        lines.append(f"error preference among {out['failures']} failures: {prefs}")
    elif metric == "right_rank":
        lo, hi = out["ci95"]
        lines.append(
            f"Right Rank: {out['right_rank']:.1%} [95% CI {lo:.1%}-{hi:.1%}]; random {out['random_baseline']:.0%}; ties {out['ties']}"
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


def cmd_runs(args: argparse.Namespace) -> int:
    from negviz.run_choice import chosen_mask
    from negviz.store import Store
    from negviz.summaries import headline

    store = Store(args.db)
    df = store.runs(dataset=args.dataset)
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
    return _emit(table, args.json)


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
    from negviz.analyses.compare import compare
    from negviz.run_choice import resolve_run
    from negviz.store import Store

    store = Store(args.db)
    runs = store.runs(dataset=args.dataset, kind="eval")
    a, b = (resolve_run(runs, ref, args.dataset) for ref in (args.run_a, args.run_b))
    out = compare(store.get_run(a), store.scores_wide(a), store.get_run(b), store.scores_wide(b))
    if args.json:
        print(dumps(out, indent=2))
    else:
        print(
            f"{out['model_a']} {out['accuracy_a']:.1%} vs {out['model_b']} {out['accuracy_b']:.1%} on "
            f"{out['n_shared']} shared items of {out['dataset']}: McNemar b={out['b']} c={out['c']}, "
            f"p={out['p_value']:.4g} ({out['method']})"
        )
    return 0


def cmd_download(args: argparse.Namespace) -> int:
    from negviz.catalog import resolve_model
    from negviz.schema import ModelSpec
    from negviz.scorers.loading import resolve_source

    resolved = resolve_model(ModelSpec.parse(args.model))
    if not resolved.hub_id:
        print(f"{resolved.spec.name} needs no model files")
        return 0
    source = resolve_source(resolved.hub_id, resolved.spec.revision)
    print(f"{resolved.hub_id}: {source.path} ({source.origin}, revision {source.revision})")
    return 0


def cmd_taxonomy(args: argparse.Namespace) -> int:
    from negviz.datasets import load
    from negviz.schema import DatasetSpec
    from negviz.taxonomy import distribution_summary, label_pairs

    from negviz.store import Store

    options = {k: v for k, v in (("kind", args.kind), ("columns", args.columns)) if v}
    store = Store(args.db)
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


def cmd_report(args: argparse.Namespace) -> int:
    from negviz.report.html import write_report
    from negviz.store import Store

    say = (lambda msg: print(f"  {msg}", file=sys.stderr)) if not args.quiet else None
    store = Store(args.db)
    if not store.read_only:  # the shipped runs, as the app shows them (records now, scores on read)
        store.ensure_bundled(lazy=True)
    out = write_report(
        store,
        args.model,
        args.out,
        against=args.against,
        datasets=args.datasets,
        fig_format=args.figures,
        maxsim=not args.no_maxsim,
        progress=say,
    )
    print(
        f"wrote {out['html']} ({out['html_bytes'] / 1e6:.2f} MB, {out['figures']} figures as {out['figure_format']}) "
        f"and {out['json']} in {out['seconds']:.1f} s"
    )
    return 0


# ---------------------------------------------------------------- plumbing
def _emit(df: pd.DataFrame, as_json: bool) -> int:
    if as_json:
        print(dumps(df, indent=2))
    else:
        with pd.option_context("display.max_colwidth", 60, "display.width", 200):
            print(df.to_string(index=False))
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="negviz", description="How and why retrievers fail on negation.")
    p.add_argument("--db", help="results store URL (default: $NEGVIZ_DB_URL or a local SQLite file)")
    sub = p.add_subparsers(dest="command", required=True)

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
    a.add_argument("--kind", required=True, help="pairs, exclusion, perturbation or sentence_pairs")
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

    s = sub.add_parser("eval", help="evaluate a model on a dataset and store the run")
    s.add_argument("--model", required=True, help="catalog name, hub id or local path; NAME[@REV][key=value,...]")
    s.add_argument(
        "--dataset",
        required=True,
        help="nevir, excluir, demetr, cannot, an added dataset, or a file (CSV/TSV/JSONL/Parquet)",
    )
    s.add_argument("--split", default="test")
    s.add_argument("--limit", type=int, help="first N items only (N >= 1)")
    s.add_argument("--family", help="model family for models outside the catalog")
    s.add_argument("--revision", help="model revision (hub branch, tag or commit)")
    s.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help="family option, e.g. k1=1.2 or similarity=cosine; typed and range-checked, the same as NAME[k1=1.2]",
    )
    s.add_argument("--kind", help="dataset kind of a user file: pairs, exclusion, perturbation, sentence_pairs")
    s.add_argument("--columns", help="column mapping of a user file, e.g. pair_id=id,q1=query1,...")
    s.add_argument("--tie-rule", default="strict", choices=["strict", "mteb"])
    s.add_argument("--checked-only", action="store_true", help="DEMETR: keep only items with pert_check")
    s.add_argument(
        "--dataset-option",
        action="append",
        metavar="KEY=VALUE",
        help="a dataset option, e.g. perturbations=critical_id8_negation,critical_id7_antonym (DEMETR) "
        "or sources=glue_diagnostic (CANNOT); repeatable",
    )
    s.add_argument("--device", help="cpu, cuda, cuda:1 ... (default: cuda if present)")
    s.add_argument("--batch-size", type=int, help="texts per batch, >= 1 (default: per device)")
    s.add_argument(
        "--force",
        action="store_true",
        help="re-run even if the store holds this run; the new run replaces the stored one",
    )
    s.add_argument("--no-store", action="store_true", help="do not write the run to the store")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.add_argument("--progress-file", help=argparse.SUPPRESS)  # negviz.eval_jobs
    s.add_argument("--heartbeat-file", help=argparse.SUPPRESS)  # negviz.eval_jobs
    s.add_argument("--corpus", help="retrieve over a corpus: offline, excluir, hf:OWNER/NAME or a file")
    s.add_argument("--corpus-columns", help="column mapping of a corpus file, e.g. doc_id=id,text=body")
    s.add_argument("--top-k", type=int, default=100, help="documents retrieved per query (with --corpus)")
    s.set_defaults(func=cmd_eval)

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
    s.add_argument("--limit", type=int, help="first N items only")
    s.add_argument("--kind", help="dataset kind of a user file")
    s.add_argument("--columns", help="column mapping of a user file")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_taxonomy)

    s = sub.add_parser("report", help="one self-contained HTML report of a model (and report.json beside it)")
    s.add_argument("--model", required=True, help="the model whose stored runs the report shows")
    s.add_argument(
        "--against",
        nargs="+",
        metavar="NAME",
        help="comparison models (default: the catalog's base model, else tfidf and bm25)",
    )
    s.add_argument("--datasets", nargs="+", metavar="NAME", help="default: every shipped dataset")
    s.add_argument("--out", default="report.html", help="HTML file; the JSON goes next to it (.json)")
    s.add_argument(
        "--figures",
        default="auto",
        choices=["auto", "svg", "plotly"],
        help="inline SVG (kaleido + Chromium), or plotly JSON with plotly.js inlined once; "
        "auto: SVG, plotly if SVG export fails",
    )
    s.add_argument("--no-maxsim", action="store_true", help="do not load late-interaction models for MaxSim matrices")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_report)

    from negviz.finetune import command as finetune_cli  # arguments and command live with the training code

    from negviz import explain_cli

    s = sub.add_parser("explain", help=explain_cli.HELP)
    explain_cli.add_arguments(s)
    s.set_defaults(func=explain_cli.run_command)

    s = sub.add_parser("finetune", help=finetune_cli.HELP)
    finetune_cli.add_arguments(s)
    s.set_defaults(func=finetune_cli.run_command)
    s = sub.add_parser("jobs", help=finetune_cli.JOBS_HELP)
    finetune_cli.add_jobs_arguments(s)
    s.set_defaults(func=finetune_cli.jobs_command)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (NegvizError, UnknownNameError, ValueError, FileNotFoundError) as exc:
        print(f"negviz: error: {exc}", file=sys.stderr)
        return 2
