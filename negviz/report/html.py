"""One self-contained HTML file of a report (build.Report): figures inline, no request to any
network when opened, print-friendly. The page comes from Jinja2 templates (templates/*.html.j2)
with autoescaping on: every value is escaped unless it is Markup, which only the figures (cleaned
SVG or plotly JSON, figures.py) and the example cards (paircard.card_html) are.

    rep = build.build_report(store, "all-MiniLM-L6-v2")
    page, fmt = render(rep)                         # fmt: "svg" or "plotly" (see figures.py)
    write_report(store, "all-MiniLM-L6-v2", "report.html")   # report.html and report.json
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterable, Mapping

import jinja2
from markupsafe import Markup

from negviz.analyses.leaderboard import published_note
from negviz.core import metric_text, metrics
from negviz.core.kinds import KindNames, kind_of
from negviz.report import figures as rf
from negviz.report.build import SECTION_TITLES, Report, build_report


def fmt_value(value: Any, percent: bool = False) -> str:
    """A table cell's text (escaped by the template), by negviz.core.metric_text's rules: a share
    in percent, other numbers with 3 decimals, thousands, yes/no, "—" for a missing value."""
    if percent and metric_text.is_missing(value) is False and not isinstance(value, bool):
        return metric_text.value(SHARE, value)
    return metric_text.cell(value)


SHARE = metrics.Metric("share", "share", unit=metrics.RATE)  # a table's share of items, in percent


def is_number(value: Any) -> bool:
    """Right-aligned in a table: a number that is not a yes/no."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ---------------------------------------------------------------- rows the templates draw
def preference_rows(preference: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per model (model, n, one share per category) of preference_table's long rows."""
    by_model: dict[str, dict[str, Any]] = {}
    for r in preference:
        by_model.setdefault(r["model"], {"model": r["model"], "n": r["n"]})[r["category"]] = r["share"]
    return list(by_model.values())


def fix_rows(fixes: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The model against its base per benchmark (analyses.fixes), difference and CI in points
    (a difference of two accuracies, negviz.core.metric_text)."""
    return [
        {
            "dataset": f["dataset"],
            "base": f["base"],
            "n": f["n"],
            "difference": f"{metric_text.difference(ACCURACY, f['difference'])} "
            f"[{metric_text.difference_ci(ACCURACY, f['difference_ci_low'], f['difference_ci_high'])}]",
            "p": f"{f['p_value']:.2g}",
            "repaired": f["repaired"],
            "broken": f["broken"],
        }
        for f in fixes
    ]


ACCURACY = metrics.Metric("accuracy", "accuracy", unit=metrics.RATE)  # a share of items right


def labelled_cells(cells: list[Mapping[str, Any]], labels: Mapping[str, str]) -> list[dict[str, Any]]:
    """Heatmap cells with their column's label (the taxonomy title on the type axis)."""
    return [{**c, "label": labels.get(c["column"], c["column"])} for c in cells]


def sensitivity_grid(sv: Mapping[str, Any]) -> dict[str, list]:
    """Perturbation x model (published columns marked) of the sensitivity ratio: rows and columns."""
    models = list(dict.fromkeys((c["model"], c["published"]) for c in sv["cells"]))
    grid: dict[str, dict[str, Any]] = {}
    for c in sv["cells"]:
        row = grid.setdefault(c["perturbation"], {"perturbation": c["perturbation"], "severity": c["severity"]})
        row[f"{c['model']}|{c['published']}"] = c["sensitivity_ratio"]
    columns = [("severity", "severity"), ("perturbation", "perturbation")] + [
        (f"{m}|{p}", f"{m} (published)" if p else m) for m, p in models
    ]
    return {"rows": [grid[p] for p in sv["perturbations"] if p in grid], "columns": columns}


def score_columns(rows: list[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """An example's score matrix: the text, then one column per scored text."""
    return [("text", "")] + [(k, k) for k in rows[0] if k != "text"] if rows else []


def recipe_text(recipe: Mapping[str, Any] | None) -> str:
    return ", ".join(f"{k}={v}" for k, v in (recipe or {}).items() if v is not None)


def provenance_rows(runs: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per run: its id and the provenance table's cells (imported scores name their file)."""
    rows = []
    for r in runs.values():
        opts = ", ".join(f"{k}={v}" for k, v in (r.get("options") or {}).items() if not isinstance(v, dict))
        model_id, n = r["model_id"], r["n"]
        imported = r.get("imported") or {}
        if imported:  # scores computed elsewhere: the file they came from, not a model id
            source = f", {imported['source']}" if imported.get("source") else ""
            model_id = f"scores from {imported.get('file')} (sha256 {str(imported.get('sha256'))[:12]}){source}"
            if imported.get("of") and imported.get("items") != imported.get("of"):
                n = f"{imported['items']:,} of {imported['of']:,}"
        cells = [r["run_id"], r["model"], model_id, r["model_spec"], r["revision"], r["dataset"], r["split"]]
        cells += [opts, n, r["code_version"], r["device"], r["date"]]
        rows.append({"run_id": r["run_id"], "cells": cells})
    return rows


def perturbation_datasets() -> list[tuple[str, str]]:
    """(name, title) of the shipped datasets the sensitivity section draws."""
    from negviz.datasets import list_datasets

    table = list_datasets()
    part = table[table["kind"].map(lambda k: bool(kind_of(k).typed_by))]  # DEMETR's perturbations
    return list(zip(part["name"], part["title"]))


def _environment() -> jinja2.Environment:
    """The report's templates, autoescaped, with the helpers above."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("negviz.report", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.ChainableUndefined,  # a section a dataset lacks reads as empty
    )
    env.filters["fmt"] = fmt_value
    env.tests["num"] = is_number
    env.globals.update(
        bootstrap_note=metrics.BOOTSTRAP_NOTE,
        is_rate=lambda name: metrics.metric(name).is_rate,  # a rate's cells in percent
        typed_kinds=KindNames(lambda k: k.typed_by is not None),  # DEMETR's: the sensitivity section
        published_note=published_note,
        preference_rows=preference_rows,
        fix_rows=fix_rows,
        labelled_cells=labelled_cells,
        sensitivity_grid=sensitivity_grid,
        score_columns=score_columns,
        recipe_text=recipe_text,
        provenance_rows=provenance_rows,
    )
    return env


TEMPLATES = _environment()  # compiled once per process


def render(rep: Report, fig_format: str = "auto") -> tuple[str, str]:
    """(the HTML page, the figure format used)."""
    fmt, figs, why = rf.render_figures(rep.figures, fig_format)
    rep.data["figure_format"] = fmt
    if why:
        rep.data["figure_format_note"] = why
    d = rep.data
    page = TEMPLATES.get_template("report.html.j2").render(
        d=d,
        datasets=list(d["datasets"].values()),
        sections=list(SECTION_TITLES.items()),
        figs={k: Markup(v) for k, v in figs.items()},  # cleaned SVG / inert JSON (figures.py)
        cards={k: Markup(v) for k, v in rep.cards.items()},  # every text escaped by card_html
        captions=rep.captions,  # plain text, escaped by the templates
        fmt=fmt,
        why=why,
        perturbation_datasets=perturbation_datasets(),
        runtime=Markup(rf.plotly_runtime()) if fmt == rf.PLOTLY else "",
    )
    return page, fmt


def write_report(
    store,
    model: str,
    out: str | Path,
    against: Iterable[str] | None = None,
    datasets: Iterable[str] | None = None,
    fig_format: str = "auto",
    maxsim: bool = True,
    progress=None,
) -> dict[str, Any]:
    """Build and write ``out`` (HTML) and the JSON beside it; returns paths, sizes and seconds."""
    from negviz.core.output_files import check_writable_target, write_files

    start = time.perf_counter()
    out = Path(out)
    json_path = out.with_suffix(".json")
    for target in (out, json_path):  # before building: a report takes minutes
        check_writable_target(target, "the report")
    rep = build_report(store, model, against, datasets, maxsim=maxsim, progress=progress)
    page, fmt = render(rep, fig_format)
    text = {out: page, json_path: rf.dumps(rep.data)}
    out, json_path = write_files(
        {path: lambda tmp, path=path: tmp.write_text(text[path], encoding="utf-8") for path in text}, "the report"
    )
    return {
        "html": str(out),
        "json": str(json_path),
        "html_bytes": out.stat().st_size,
        "json_bytes": json_path.stat().st_size,
        "figure_format": fmt,
        "figures": len(rep.figures),
        "seconds": round(time.perf_counter() - start, 1),
    }


def report_bytes(
    store,
    model: str,
    against: Iterable[str] | None = None,
    datasets: Iterable[str] | None = None,
    fig_format: str = "auto",
) -> tuple[bytes, bytes]:
    """(HTML, JSON) bytes of a report, for a download button."""
    rep = build_report(store, model, against, datasets)
    page, _ = render(rep, fig_format)
    return page.encode("utf-8"), rf.dumps(rep.data).encode("utf-8")
