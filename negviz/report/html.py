"""One self-contained HTML file of a report (build.Report): every text escaped, figures inline,
no request to any network when opened, print-friendly.

    rep = build.build_report(store, "all-MiniLM-L6-v2")
    page, fmt = render(rep)                         # fmt: "svg" or "plotly" (see figures.py)
    write_report(store, "all-MiniLM-L6-v2", "report.html")   # report.html and report.json
"""

from __future__ import annotations

import html
import time
from pathlib import Path
from typing import Any, Iterable, Mapping

from negviz import metrics
from negviz.report import figures as rf
from negviz.report.build import SECTION_TITLES, Report, build_report

CSS = """
:root{--ink:#18181b;--muted:#52525b;--line:#e4e4e7;--bad:#b91c1c;--accent:#2563eb}
*{box-sizing:border-box}
body{font-family:Inter,Helvetica,Arial,sans-serif;color:var(--ink);max-width:1100px;margin:0 auto;padding:24px;
 line-height:1.45;font-size:14px}
h1{font-size:26px;margin:0 0 4px} h2{font-size:20px;margin:32px 0 8px;border-bottom:2px solid var(--ink);padding-bottom:4px}
h3{font-size:16px;margin:20px 0 6px} h4{font-size:14px;margin:14px 0 4px}
.muted,.note{color:var(--muted)} .note{font-size:13px}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12.5px;background:#f4f4f5;padding:1px 4px;border-radius:3px}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px;max-width:100%}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f5} td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
figure{margin:8px 0 16px;break-inside:avoid;page-break-inside:avoid} figure svg{max-width:100%;height:auto;display:block}
figcaption{font-size:12px;color:var(--muted)}
nav.toc{background:#f4f4f5;padding:8px 14px;border-radius:6px;margin:12px 0}
nav.toc a{margin-right:14px;color:var(--accent);text-decoration:none}
.missing{border-left:4px solid #f59e0b;background:#fffbeb;padding:6px 10px;margin:8px 0}
.example{border:1px solid var(--line);border-radius:6px;padding:10px 14px;margin:12px 0;break-inside:avoid}
.grid{display:flex;flex-wrap:wrap;gap:18px}
a.run{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
@page{size:A4;margin:12mm}
@media print{body{max-width:none;padding:0;font-size:11px} nav.toc{display:none} h2{break-before:page}
 h2.first{break-before:auto} a{color:inherit;text-decoration:none} table,.example{break-inside:avoid}
 .plotly-fig{break-inside:avoid}}
"""


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def fmt_value(value: Any, percent: bool) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1%}" if percent else f"{value:.3f}"
    if isinstance(value, int):
        return f"{value:,}"
    return esc(value)


def table(rows: list[Mapping[str, Any]], columns: Iterable[tuple[str, str]], percent: Iterable[str] = ()) -> str:
    """rows x (key, header); keys in ``percent`` shown as percentages; every cell escaped."""
    columns, percent = list(columns), set(percent)
    if not rows:
        return '<p class="note">No rows.</p>'
    head = "".join(f"<th>{esc(h)}</th>" for _, h in columns)
    body = []
    for r in rows:
        cells = []
        for key, _ in columns:
            v = r.get(key)
            if key == "run_id" and v:
                cells.append(f'<td><a class="run" href="#run-{esc(v)}">{esc(str(v)[:8])}</a></td>')
            else:
                num = isinstance(v, (int, float)) and not isinstance(v, bool)
                cells.append(
                    f'<td class="num">{fmt_value(v, key in percent)}</td>' if num else f"<td>{fmt_value(v, False)}</td>"
                )
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


class _Page:
    def __init__(self, rep: Report, figs: Mapping[str, str], fmt: str):
        self.rep, self.d, self.figs, self.fmt = rep, rep.data, figs, fmt

    def figure(self, fig_id: str | None, caption: str = "") -> str:
        if not fig_id or fig_id not in self.figs:
            return ""
        cap = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
        return f'<figure id="fig-{esc(fig_id)}">{self.figs[fig_id]}{cap}</figure>'

    def missing(self, ds: Mapping[str, Any], what: str) -> str:
        cmds = [m["command"] for m in ds.get("missing_runs", [])]
        head = (
            f"No stored {esc(what)} run of <b>{esc(self.d['model'])}</b> on {esc(ds['name'])}."
            if not ds.get("present")
            else f"Some comparison runs on {esc(ds['name'])} are missing."
        )
        return (
            f'<div class="missing">{head} Fill it with: ' + "; ".join(f"<code>{esc(c)}</code>" for c in cmds) + "</div>"
        )

    def datasets(self, need=None):
        for ds in self.d["datasets"].values():
            if need is None or need(ds):
                yield ds

    # -------------------------------------------------------------- sections
    def headline(self) -> str:
        out = []
        for ds in self.datasets():
            out.append(
                f"<h3>{esc(ds['title'])} <span class='muted'>({esc(ds['name'])}, split {esc(ds['split'])}, "
                f"{ds['n_items']:,} items)</span></h3>"
            )
            if ds.get("missing_runs"):
                out.append(self.missing(ds, "evaluation"))
            if not ds.get("present"):
                continue
            pct = ds["random_baseline"] is not None
            base = f" · random {ds['random_baseline']:.0%}" if pct else ""
            out.append(
                f"<p class='note'>Metric: <b>{esc(ds['metric_label'])}</b>{esc(base)}; 95% CI: "
                f"{esc(metrics.BOOTSTRAP_NOTE)}.</p>"
            )
            cols = [
                ("model", "model"),
                ("metric", "metric"),
                ("value", "value"),
                ("ci_low", "95% CI low"),
                ("ci_high", "95% CI high"),
                ("n", "n"),
                ("ties", "ties"),
                ("tie_rule", "tie rule"),
            ]
            cols += [
                (k, k.replace("_", " "))
                for k in ("per_query_accuracy", "spearman_paraphrase")
                if any(k in r for r in ds["headline"])
            ]
            cols.append(("run_id", "run"))
            out.append(table(ds["headline"], cols, {"value", "ci_low", "ci_high", "per_query_accuracy"} if pct else ()))
            if ds.get("published"):
                out.append("<h4>Published numbers, same metric and protocol</h4>")
                out.append(
                    table(
                        ds["published"],
                        [("model", "model"), ("value", "value"), ("source", "source"), ("category", "category")],
                        {"value"},
                    )
                )
            elif ds["name"] == "excluir":
                out.append(
                    "<p class='note'>ExcluIR's published Right Rank comes from top-10 retrieval over the full "
                    "corpus; negviz ranks each query's two documents, so no published number is comparable.</p>"
                )
            else:
                out.append("<p class='note'>No published numbers of this metric and protocol.</p>")
            if ds.get("beside"):
                out.append("<h4>This model beside its published rows (any protocol; what differs is named)</h4>")
                out.append(
                    table(
                        ds["beside"],
                        [
                            ("source", "source"),
                            ("published_model", "published as"),
                            ("relation", "relation"),
                            ("metric", "metric"),
                            ("perturbation", "perturbation"),
                            ("negviz", "negviz"),
                            ("ci_low", "95% CI low"),
                            ("ci_high", "95% CI high"),
                            ("n", "n"),
                            ("published", "published"),
                            ("difference", "difference"),
                            ("published_in_ci", "paper inside CI"),
                            ("protocol", "what differs"),
                        ],
                        (),
                    )
                )
            if ds.get("mcnemar"):
                out.append("<h4>McNemar's test against each comparison (items both runs share)</h4>")
                out.append(
                    table(
                        ds["mcnemar"],
                        [
                            ("model_a", "model"),
                            ("accuracy_a", "accuracy"),
                            ("model_b", "comparison"),
                            ("accuracy_b", "accuracy"),
                            ("n_shared", "n shared"),
                            ("b", "model right, comparison wrong"),
                            ("c", "model wrong, comparison right"),
                            ("p_value", "p"),
                            ("method", "method"),
                        ],
                        {"accuracy_a", "accuracy_b"},
                    )
                )
            out.append(self.figure(ds.get("headline_figure"), "Hollow grey bars: published numbers."))
        return "".join(out)

    def board(self) -> str:
        b = self.d.get("board") or {}
        if not b.get("rows"):
            return "<p class='muted'>No stored run of these models on any benchmark.</p>"
        body = (
            "<p class='muted'>Each cell: the run the benchmark's page shows for the model, its value, 95% CI and n; "
            "colour: rank among the models shown here. The app's Across benchmarks page has every model.</p>"
        )
        body += "".join(self.figure(f) for f in b.get("figures", []))
        if b.get("fixes"):
            rows = [
                {
                    "dataset": f["dataset"],
                    "base": f["base"],
                    "n": f["n"],
                    "difference": f"{f['difference'] * 100:+.1f} pp [{f['difference_ci_low'] * 100:+.1f}, "
                    f"{f['difference_ci_high'] * 100:+.1f}]",
                    "p": f"{f['p_value']:.2g}",
                    "repaired": f["repaired"],
                    "broken": f["broken"],
                }
                for f in b["fixes"]
            ]
            body += f"<h3>{esc(self.d['model'])} against its base</h3>" + table(
                rows,
                [
                    ("dataset", "benchmark"),
                    ("base", "base"),
                    ("n", "n"),
                    ("difference", "difference (95% CI)"),
                    ("p", "McNemar p"),
                    ("repaired", "pairs repaired"),
                    ("broken", "pairs broken"),
                ],
            )
        return body

    def per_type(self) -> str:
        out = []
        for ds in self.datasets(lambda d: d["random_baseline"] is not None):
            out.append(f"<h3>{esc(ds['title'])}</h3>")
            pt = ds.get("per_type")
            if ds["kind"] == "perturbation" and ds.get("present"):
                out.append(
                    "<p class='note'>DEMETR's columns are its perturbations: see the sensitivity section "
                    "(detection accuracy per perturbation is in report.json).</p>"
                )
                continue
            if not pt:
                out.append(self.missing(ds, "evaluation"))
                continue
            out.append(
                f"<p class='note'>Columns: {esc(pt['axis_label'])}; cells with n &lt; {pt['min_n']} are greyed.</p>"
            )
            out.append(self.figure(pt["figure"]))
            for diff in pt["differences"]:
                out.append(f"<h4>Difference to {esc(diff['reference'])} (same items, 95% CI)</h4>")
                out.append(self.figure(diff["figure"]))
                rows = [{**c, "label": pt["column_labels"].get(c["column"], c["column"])} for c in diff["cells"]]
                out.append(
                    table(
                        rows,
                        [
                            ("label", pt["axis_label"]),
                            ("n", "n"),
                            ("value", "difference"),
                            ("ci_low", "95% CI low"),
                            ("ci_high", "95% CI high"),
                            ("enough", f"n ≥ {pt['min_n']}"),
                        ],
                        {"value", "ci_low", "ci_high"},
                    )
                )
        return "".join(out) or "<p class='note'>No dataset with per-item verdicts was requested.</p>"

    def _with_verdicts(self, key: str, body) -> str:
        """One block per dataset with per-item verdicts: its title, then ``body(ds, ds[key])``, or the
        note naming the missing run."""
        out = []
        for ds in self.datasets(lambda d: d["random_baseline"] is not None):
            out.append(f"<h3>{esc(ds['title'])}</h3>")
            part = ds.get(key)
            out.append(body(ds, part) if part else self.missing(ds, "evaluation"))
        return "".join(out) or "<p class='note'>No dataset with per-item verdicts was requested.</p>"

    def errors(self) -> str:
        return self._with_verdicts("errors", self._errors_body)

    def _errors_body(self, ds: Mapping[str, Any], er: Mapping[str, Any]) -> str:
        out = []
        labels = er["category_labels"]
        by_model: dict[str, dict[str, Any]] = {}
        for r in er["preference"]:
            row = by_model.setdefault(r["model"], {"model": r["model"], "n": r["n"]})
            row[r["category"]] = r["share"]
        out.append(
            table(
                list(by_model.values()),
                [("model", "model"), ("n", "n")] + [(c, labels[c]) for c in er["categories"]],
                er["categories"],
            )
        )
        out.append(self.figure(er["figures"][0]))
        out.append(
            "<h4>Margins</h4><p class='note'>"
            + esc("; ".join(er["margin_definitions"]))
            + ". Left of 0 the model ranks the wrong text first; each model keeps its own score scale.</p>"
        )
        out.append(
            table(
                er["margins"],
                [
                    ("model", "model"),
                    ("margin", "margin"),
                    ("n", "n"),
                    ("mean", "mean"),
                    ("q25", "25%"),
                    ("median", "median"),
                    ("q75", "75%"),
                    ("share_negative", "share < 0"),
                    ("ties", "exact ties"),
                ],
            )
        )
        out.append(self.figure(er["figures"][1]))
        return "".join(out)

    def why(self) -> str:
        return self._with_verdicts("why", self._why_body)

    def _why_body(self, ds: Mapping[str, Any], why: Mapping[str, Any]) -> str:
        out = []
        if not why["attribution"]:
            out.append(f"<div class='missing'>No cue-influence run: <code>{esc(why['command'])}</code>.</div>")
        for a in why["attribution"]:
            low, high = a["ci95"] or (None, None)
            out.append(
                f"<h4>{esc(a['model'])}: cue's share of |attribution| ({esc(a['method'])}"
                + (f", {a['steps']} steps" if a.get("steps") else "")
                + ")</h4>"
                f"<p class='note'>Median {fmt_value(a['median_cue_share'], True)} (95% CI "
                f"{fmt_value(low, True)} to {fmt_value(high, True)}) over {a['n_comparisons']} comparisons "
                f"of {a['n']} items; run {esc(a['run_id'])}.</p>"
            )
            cols = [
                ("comparisons", "comparisons"),
                ("median cue share", "median"),
                ("ci_low", "95% CI low"),
                ("ci_high", "95% CI high"),
                ("mean cue share", "mean"),
                ("cue under 5%", "cue under 5%"),
            ]
            pct = {"median cue share", "ci_low", "ci_high", "mean cue share", "cue under 5%"}
            if a["by_verdict"]:
                out.append(table(a["by_verdict"], [("category", "verdict"), *cols], pct))
            if a["by_type"]:
                out.append(table(a["by_type"], [("type", "negation type"), *cols], pct))
        lex = why.get("lexical")
        if lex:
            out.append(
                f"<h4>The lexical confound</h4><p class='note'>{esc(lex['measure'])}; here "
                f"{esc(lex['source'])}. Share of comparisons wrong or tied, by where BM25 leans.</p>"
            )
            out.append(
                table(
                    lex["table"],
                    [
                        ("model", "model"),
                        ("lexical lean", "BM25 leans"),
                        ("n", "n"),
                        ("wrong or tie", "wrong or tie"),
                        ("ci_low", "95% CI low"),
                        ("ci_high", "95% CI high"),
                    ],
                    {"wrong or tie", "ci_low", "ci_high"},
                )
            )
            out.append(
                table(
                    lex["follows"],
                    [
                        ("model", "model"),
                        ("n", "comparisons (BM25 not tied)"),
                        ("follows BM25", "picks BM25's document"),
                        ("ci_low", "95% CI low"),
                        ("ci_high", "95% CI high"),
                    ],
                    {"follows BM25", "ci_low", "ci_high"},
                )
            )
        return "".join(out)

    def sensitivity(self) -> str:
        ds = self.d["datasets"].get("demetr")
        if ds is None:
            return (
                "<div class='missing'>DEMETR was not among the requested datasets; add it with "
                "<code>--datasets demetr</code>.</div>"
            )
        sv = ds.get("sensitivity")
        if not sv:
            return self.missing(ds, "DEMETR")
        out = [
            f"<p class='note'>Sensitivity ratio mean((t − h) / (t − e)) per perturbation, all items; published "
            f"columns from {esc(sv['published_source'])} (not run here).</p>",
            self.figure(sv["figure"]),
        ]
        models = list(dict.fromkeys((c["model"], c["published"]) for c in sv["cells"]))
        grid: dict[str, dict[str, Any]] = {}
        for c in sv["cells"]:
            row = grid.setdefault(c["perturbation"], {"perturbation": c["perturbation"], "severity": c["severity"]})
            row[f"{c['model']}|{c['published']}"] = c["sensitivity_ratio"]
        cols = [("severity", "severity"), ("perturbation", "perturbation")] + [
            (f"{m}|{p}", f"{m} (published)" if p else m) for m, p in models
        ]
        out.append(table([grid[p] for p in sv["perturbations"] if p in grid], cols))
        return "".join(out)

    def drift(self) -> str:
        dr = self.d["drift"]
        out = [f"<p class='note'>{esc(dr.get('note', ''))}</p>"]
        if not dr.get("figure"):
            out.append(
                f"<div class='missing'>No drift to show. Fine-tune with <code>{esc(dr['command'])}</code>.</div>"
            )
            return "".join(out)
        out.append(self.figure(dr["figure"]))
        sentences = any(r.get("demetr_ratio_final") is not None for r in dr["comparison"])
        measure = (
            [
                ("demetr_ratio_epoch0", "DEMETR negation ratio epoch 0"),
                ("demetr_ratio_final", "DEMETR negation ratio final"),
            ]
            if sentences
            else [("acc_epoch0", "accuracy epoch 0"), ("acc_final", "accuracy final")]
        )
        out.append(
            table(
                dr["comparison"],
                [
                    ("run", "run"),
                    ("epochs", "epochs"),
                    ("n_heldout", "held-out items"),
                    *measure,
                    ("final_ci", "final 95% CI"),
                    ("cos_mean_epoch0", "cos mean epoch 0"),
                    ("cos_mean_final", "cos mean final"),
                    ("device", "device"),
                ],
                {"acc_epoch0", "acc_final"},
            )
        )
        if dr.get("tradeoff_figure"):
            out.append(
                "<h3>Negation gain against retrieval without negation</h3>"
                f"<p class='note'>{esc(dr['general_definition'])}; change since epoch 0.</p>"
            )
            out.append(self.figure(dr["tradeoff_figure"]))
            out.append(
                table(
                    dr["tradeoff"],
                    [
                        ("run", "run"),
                        ("epoch", "epoch"),
                        ("negation", "negation measure"),
                        ("negation_change", "change"),
                        ("general_recall10", "R@10"),
                        ("general_change", "change"),
                        ("general_n", "questions"),
                    ],
                    {"general_recall10", "general_change"},
                )
            )
        for r in dr["runs"]:
            recipe = ", ".join(f"{k}={v}" for k, v in (r["recipe"] or {}).items() if v is not None)
            out.append(
                f"<p class='note'><a class='run' href='#run-{esc(r['run_id'])}'>{esc(r['run_id'][:8])}</a> "
                f"{esc(r['label'])} · recipe: {esc(recipe)} · data: {esc(r.get('note') or '')}</p>"
            )
        return "".join(out)

    def examples(self) -> str:
        out = []
        for ds in self.datasets(lambda d: d["random_baseline"] is not None):
            ex = ds.get("examples")
            out.append(f"<h3>{esc(ds['title'])}</h3>")
            if not ex:
                out.append(
                    self.missing(ds, "evaluation")
                    if ds.get("missing_runs") or not ds.get("present")
                    else "<p class='note'>No comparison model to disagree with.</p>"
                )
                continue
            out.append(f"<p class='note'>{esc(ex['ranking'])}.</p>")
            for note in ex["notes"]:
                out.append(f"<p class='note'>{esc(note)}</p>")
            if not ex["items"]:
                out.append("<p class='note'>The two models never disagree.</p>")
            for item in ex["items"]:
                out.append(f"<div class='example'><h4>{esc(item['item_id'])} · {esc(item['side'])}</h4>")
                out.append(self.rep.cards.get(item["card"], ""))  # paircard.card_html: escaped by render_html
                out.append("<div class='grid'>")
                for model, rows in item["scores"].items():
                    cols = [("text", "")] + [(k, k) for k in rows[0] if k != "text"] if rows else []
                    out.append(f"<div><b>{esc(model)}</b>{table(rows, cols)}</div>")
                out.append("</div>")
                out.append(
                    table(
                        item["verdicts"],
                        [("model", "model"), ("category", "verdict"), ("margin1", "margin 1"), ("margin2", "margin 2")],
                    )
                )
                for ms in item["maxsim"]:
                    if ms["figure"]:
                        out.append(
                            self.figure(
                                ms["figure"],
                                f"MaxSim matrices of {ms['model']} ({ms['query']}): each "
                                "query token's best document token boxed.",
                            )
                        )
                    else:
                        out.append(f"<p class='note'>{esc(ms['note'])}</p>")
                out.append("</div>")
        return "".join(out)

    def provenance(self) -> str:
        rows = list(self.d["runs"].values())
        out = [
            f"<p class='note'>Which run stands for a model: {esc(self.d['run_policy'])}. Every number above "
            "links to its run here.</p>"
        ]
        head = [
            "run",
            "model",
            "model id",
            "spec",
            "revision",
            "dataset",
            "split",
            "options",
            "n",
            "code",
            "device",
            "date",
        ]
        body = []
        for r in rows:
            opts = ", ".join(f"{k}={v}" for k, v in (r.get("options") or {}).items() if not isinstance(v, dict))
            imported = r.get("imported") or {}
            if imported:  # scores computed elsewhere: the file they came from, not a model id
                source = f", {imported['source']}" if imported.get("source") else ""
                r = {
                    **r,
                    "model_id": f"scores from {imported.get('file')} (sha256 {str(imported.get('sha256'))[:12]}){source}",
                }
                if imported.get("of") and imported.get("items") != imported.get("of"):
                    r["n"] = f"{imported['items']:,} of {imported['of']:,}"
            cells = [
                r["run_id"],
                r["model"],
                r["model_id"],
                r["model_spec"],
                r["revision"],
                r["dataset"],
                r["split"],
                opts,
                r["n"],
                r["code_version"],
                r["device"],
                r["date"],
            ]
            body.append(
                f"<tr id='run-{esc(r['run_id'])}'>"
                + "".join(f"<td>{fmt_value(c, False)}</td>" for c in cells)
                + "</tr>"
            )
        out.append(
            "<table><thead><tr>"
            + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>"
            + "".join(body)
            + "</tbody></table>"
        )
        return "".join(out)


def render(rep: Report, fig_format: str = "auto") -> tuple[str, str]:
    """(the HTML page, the figure format used)."""
    fmt, figs, why = rf.render_figures(rep.figures, fig_format)
    rep.data["figure_format"] = fmt
    if why:
        rep.data["figure_format_note"] = why
    d = rep.data
    page = _Page(rep, figs, fmt)
    against = ", ".join(d["against"]) or "none"
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        # no request leaves the file: nothing but inline data, styles and (plotly fallback) scripts
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; img-src data:; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; font-src data:\">",
        f"<meta name='viewport' content='width=device-width,initial-scale=1'><title>Negation report: {esc(d['model'])}"
        f"</title><style>{CSS}</style></head><body>",
        f"<header><h1>Negation report: {esc(d['model'])}</h1>",
        f"<p class='muted'>Against {esc(against)} ({esc(d['against_reason'])}) · built {esc(d['built_at'])} with negviz "
        f"{esc(d['negviz_version'])} from stored runs only · figures: {esc(fmt)}"
        + (f" ({esc(why)})" if why else "")
        + " · the same numbers are in the JSON beside this file.</p></header>",
        "<nav class='toc'>" + "".join(f"<a href='#{k}'>{esc(t)}</a>" for k, t in SECTION_TITLES.items()) + "</nav>",
    ]
    if d["missing"]:
        parts.append(
            "<div class='missing'><b>Missing runs.</b> "
            + "; ".join(f"<code>{esc(m['command'])}</code>" for m in d["missing"])
            + "</div>"
        )
    for i, key in enumerate(SECTION_TITLES):
        body = getattr(page, key)()
        parts.append(
            f"<section id='{key}'><h2{' class=first' if i == 0 else ''}>{esc(SECTION_TITLES[key])}</h2>{body}</section>"
        )
    if fmt == rf.PLOTLY:
        parts.append(rf.plotly_runtime())
    parts.append("</body></html>")
    return "".join(parts), fmt


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
    from negviz.paths import check_writable_target

    start = time.perf_counter()
    out = Path(out)
    json_path = out.with_suffix(".json")
    for target in (out, json_path):  # before building: a report takes minutes
        check_writable_target(target, "the report")
    rep = build_report(store, model, against, datasets, maxsim=maxsim, progress=progress)
    page, fmt = render(rep, fig_format)
    out.write_text(page, encoding="utf-8")
    json_path.write_text(rf.dumps(rep.data), encoding="utf-8")
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
