"""`negviz report`: one self-contained HTML report of a model, with its JSON beside it."""

from __future__ import annotations

import argparse
import sys


def cmd_report(args: argparse.Namespace) -> int:
    from negviz.report.html import write_report
    from negviz.store import open_store

    say = (lambda msg: print(f"  {msg}", file=sys.stderr)) if not args.quiet else None
    store = open_store(args.db, args.shipped_runs)
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


def register(sub) -> None:
    """Add this group's commands to the `negviz` parser."""
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
