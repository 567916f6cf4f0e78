"""The Import scores page: a score file computed elsewhere stored as a run of the sidebar's dataset
(negviz.results.external.importing.import_scores), every problem of a refused file listed as plain text,
and, once stored, its headline and links to the pages that show it; the Models & data page's
table of models analysed from their scores alone (families ``imported`` and ``python``)."""

from __future__ import annotations

import io
from typing import Any

import pandas as pd
import streamlit as st

from negviz.core.errors import DataValidationError, NegvizError
from negviz.language.text.words import counted
from negviz.ui import dataset_cache, resources
from negviz.ui.navigation import links
from negviz.ui.navigation.run_links import headline_text, links_markdown, result_links
from negviz.ui.widgets import safe_md, show_error

TYPES = ("csv", "tsv", "jsonl", "parquet", "trec", "run", "txt")  # what the uploader takes
OUTCOME = "import_outcome"  # session state: the last stored import, shown after the rerun
CLI = "negviz import-scores FILE --dataset NAME --name MODEL [--source URL] [--allow-partial]"


# ---------------------------------------------------------------- the layouts, for the caption
def layouts(dataset: str) -> pd.DataFrame:
    """One row per score-file layout: its columns and an example row from ``dataset``'s first
    item (its real id, slot columns and texts), so the example is one this dataset accepts."""
    return dataset_cache.dataset_view(dataset).score_layouts()


def intro(dataset: str) -> None:
    """What the page does, the layouts it reads and the command that does the same."""
    st.caption(
        f"Scores computed elsewhere (a large reranker, a closed API, another toolkit) stored as a "
        f"run of **{safe_md(dataset)}** (the sidebar's dataset), then shown on every page like a "
        "run negviz computed. The file is checked whole first; a refused file stores nothing. "
        "CSV, TSV, JSON Lines or Parquet with one of the layouts below (a `slot` column with "
        "negviz's slot name, e.g. q1_d2, may stand for query_slot and doc_slot), or a TREC run "
        "of ExcluIR's queries over the offline corpus (space separated, best first per query). "
        "`negviz export-run RUN_ID FILE --format csv` writes the by-id layout."
    )
    st.dataframe(
        layouts(dataset),
        hide_index=True,
        key="layouts",
        width="stretch",
        column_config={
            "layout": st.column_config.TextColumn(width="small"),
            "columns": st.column_config.TextColumn(width="medium"),
            "example row": st.column_config.TextColumn(width="large"),
        },
    )
    st.caption(f"From a shell: `{CLI}`.")


# ---------------------------------------------------------------- importing
def import_bytes(
    data: bytes,
    file_name: str,
    dataset: str,
    model_name: str,
    source: str = "",
    allow_partial: bool = False,
    store: Any = None,
):
    """Check the size (the datasets' limit, before anything is parsed), then import the file as
    a run of ``dataset`` (into the app's store unless ``store``); the run lists are cleared so
    every page lists the new run. Raises what import_scores raises; nothing is stored then."""
    from negviz.datasets.userfile import check_size
    from negviz.results.external.importing import import_scores

    if not (model_name or "").strip():
        raise NegvizError("Give the model a name: what produced these scores, e.g. rank1-32b.")
    check_size(len(data), file_name)
    result = import_scores(
        io.BytesIO(data),
        file_name,
        dataset,
        model_name,
        store=resources.store() if store is None else store,
        source_url=source or None,
        allow_partial=allow_partial,
    )
    dataset_cache.clear_runs()
    return result


def outcome(result, dataset: str) -> dict:
    """What the page shows of a stored import: plain values and the links, built once."""
    record = result.record
    model, run_id = record.model_name, record.run_id
    shown = result_links(dataset, model, run_id, record.kind, record.dataset_kind)
    return {
        "dataset": dataset,
        "model": model,
        "run_id": run_id,
        "reused": result.reused,
        "note": result.note,
        "headline": headline_text(record.summary, int(record.n or 0)),
        "imported": dict(record.summary.get("imported") or {}),
        "links": shown,
    }


def submit(upload, dataset: str, model_name: str, source: str, allow_partial: bool) -> None:
    """The Import button: a stored run is remembered and the app reruns (the sidebar lists the
    model from then on); a refused file's problems are shown here."""
    from negviz.store import StoreError

    if upload is None:
        st.error("Choose a score file first.", icon=":material/error:")
        return
    try:
        result = import_bytes(upload.getvalue(), upload.name, dataset, model_name, source, allow_partial)
    except DataValidationError as exc:
        show_problems(exc, upload.name)
    except StoreError:  # a database away, a read-only store: the app's store guard says it
        raise
    except Exception as exc:  # a clear message; the page keeps running and nothing was stored
        show_error(exc)
    else:
        st.session_state[OUTCOME] = outcome(result, dataset)
        st.rerun()


def show_problems(exc: DataValidationError, file_name: str) -> None:
    """Every problem of a refused file, one list item each, shown as the text it is."""
    problems = [" ".join(str(getattr(p, "message", None) or p).split()) for p in exc.problems]
    problems = [p.removesuffix(" Nothing was stored.") for p in problems]  # said once, above them
    listed = "\n".join(f"- {safe_md(p)}" for p in problems)
    st.error(
        f"{safe_md(file_name)} was refused: {counted(len(problems), 'problem')}; nothing was stored.\n\n{listed}",
        icon=":material/error:",
    )
    if any("--allow-partial" in p for p in problems):
        st.caption("On this page, --allow-partial is the box *Allow a partial file*.")


def show_outcome(dataset: str) -> None:
    """The last import stored in this session on ``dataset``: its headline and links."""
    done = st.session_state.get(OUTCOME)
    if not done or done["dataset"] != dataset:
        return
    verb = "Already stored" if done["reused"] else "Imported"
    st.success(
        f"{verb} **{safe_md(done['model'])}** on {safe_md(dataset)}: {safe_md(done['headline'])} · "
        f"run {done['run_id'][:8]}",
        icon=":material/check_circle:",
    )
    if done["note"]:
        st.caption(safe_md(done["note"]))
    st.markdown(links_markdown(done["links"]))
    st.caption(safe_md(provenance(done["imported"])))


def provenance(imported: dict) -> str:
    """What the run records of its file: name, layout, rows, sha256 and source."""
    if not imported:
        return ""
    layout = {"id": "by id", "text": "by text", "trec": "TREC run"}.get(imported.get("layout"), "?")
    parts = [
        f"From {imported.get('file', '?')} ({layout} layout, {int(imported.get('rows') or 0):,} rows)",
        f"sha256 {str(imported.get('sha256', ''))[:12]}…",
    ]
    if imported.get("source"):
        parts.append(f"source {imported['source']}")
    return " · ".join(parts)


# ---------------------------------------------------------------- Models & data
def scores_only_section() -> None:
    """The Models & data page's section on runs whose model cannot be run here."""
    st.subheader("Models analysed from their scores")
    st.caption(
        "Runs whose model cannot be run here: scores imported from a file (the Import scores page "
        "or `negviz import-scores`) and model objects of a Python session (`negviz.evaluate`). "
        "Every page drawn from stored scores shows them; attributions, MaxSim, the playground and "
        "search need the model itself."
    )
    runs = scores_only_runs()
    families = scores_only_families()
    families["stored runs"] = [int((runs["family"] == f).sum()) for f in families["family"]]
    st.dataframe(families, hide_index=True, key="scores_only_families")
    if runs.empty:
        st.caption(f"None stored yet: [import a score file]({links.page('import-scores')}).")
        return
    st.dataframe(
        runs,
        hide_index=True,
        key="scores_only_runs",
        column_config={
            "created_at": st.column_config.DatetimeColumn("stored", format="YYYY-MM-DD"),
            "run": st.column_config.TextColumn(help="the run id's first 8 characters (negviz export-run takes it)"),
        },
    )


def scores_only_families() -> pd.DataFrame:
    """The families whose runs hold scores only (the model cannot be run here)."""
    from negviz.scorers import FAMILIES, scores_only

    rows = [{"family": e.name, "what": e.meta.get("title", e.name)} for e in FAMILIES.entries() if scores_only(e.name)]
    return pd.DataFrame(rows, columns=["family", "what"])


def scores_only_runs() -> pd.DataFrame:
    """Stored runs of those families, every dataset: model, dataset, headline, file and source."""
    runs = dataset_cache.dataset_view().runs(kind=None)
    families = set(scores_only_families()["family"])
    columns = ["model", "family", "dataset", "result", "file", "source", "created_at", "run"]
    if runs.empty:
        return pd.DataFrame(columns=columns)
    rows = []
    for r in runs[runs["family"].isin(families)].itertuples(index=False):
        summary = r.summary or {}
        imported = summary.get("imported") or {}
        rows.append(
            {
                "model": r.model_name,
                "family": r.family,
                "dataset": r.dataset_name,
                "result": headline_text(summary, int(r.n or 0)),
                "file": imported.get("file", ""),
                "source": imported.get("source", ""),
                "created_at": r.created_at,
                "run": str(r.run_id)[:8],
            }
        )
    return pd.DataFrame(rows, columns=columns)
