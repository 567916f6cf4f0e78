"""The `negviz` command: list models and datasets, evaluate, manage stored runs, explain, fine-tune,
report. One module per command group, each registering its commands (``register(sub)``):
data_commands (models, datasets, download, taxonomy), eval_command, run_commands (runs,
import-runs, export-run, compare), report_command, explain_command; fine-tuning's commands live with
the training code (negviz.finetune.command).

Bad input exits non-zero with a one-line message that says what is wrong and how to fix it.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from negviz.core.errors import NegvizError
from negviz.core.registry import UnknownNameError


def build_parser() -> argparse.ArgumentParser:
    from negviz.cli import data_commands, eval_command, explain_command, report_command, run_commands
    from negviz.finetune import command as finetune_command  # arguments and command live with the training code

    p = argparse.ArgumentParser(prog="negviz", description="How and why retrievers fail on negation.")
    p.add_argument("--db", help="results store URL (default: $NEGVIZ_DB_URL or a local SQLite file)")
    p.add_argument(
        "--no-shipped-runs",
        dest="shipped_runs",
        action="store_const",
        const=False,
        help="leave the runs shipped in data/runs/ out of a store this command opens first "
        "(default: they are part of every store; also $NEGVIZ_NO_SHIPPED_RUNS=1)",
    )
    sub = p.add_subparsers(dest="command", required=True)
    data_commands.register(sub)
    eval_command.register(sub)
    run_commands.register(sub)
    report_command.register(sub)
    explain_command.register(sub)
    s = sub.add_parser("finetune", help=finetune_command.HELP)
    finetune_command.add_arguments(s)
    s.set_defaults(func=finetune_command.run_command)
    s = sub.add_parser("jobs", help=finetune_command.JOBS_HELP)
    finetune_command.add_jobs_arguments(s)
    s.set_defaults(func=finetune_command.jobs_command)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (NegvizError, UnknownNameError, ValueError, FileNotFoundError) as exc:
        print(f"negviz: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `negviz board --json | head`: the reader has what it wanted
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 0
