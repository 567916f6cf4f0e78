"""The Evaluate page's "Fill the board's empty cells": the plan shown before it starts (cells,
shards, estimated cost, what it leaves out; negviz.results.board_fill), where it runs (here, or a
Ray address typed in), Start, then one row per running plan (negviz.evaluation.fill.fill_jobs)
with each cell's progress and Cancel, refreshed every 2 s, and what each plan ended with."""

from __future__ import annotations

import streamlit as st

from negviz.analyses.board import COLUMNS, SHORT, fillable
from negviz.core.errors import NegvizError
from negviz.evaluation.fill import fill_jobs
from negviz.ui import dataset_cache, resources
from negviz.ui.widgets import safe_md, show_error

MINE, ENDED, PLAN = "fill_jobs", "fill_ended", "fill_plan"
HERE, LOCAL_RAY, CLUSTER = "Here, on this server", "A Ray on this server's machine", "A Ray cluster"


def benchmarks() -> list[str]:
    """The board's columns a plan can fill, by their short names (what `--benchmarks` takes too)."""
    return [SHORT[c.key] for c in COLUMNS if fillable(c)]


def fill_section() -> None:
    st.subheader("Fill the board's empty cells")
    st.caption(
        "Evaluates every model on every benchmark whose cell on the board is empty, each cell cut into "
        "shards: here, one shard after another, or as tasks on a Ray cluster. A cell's run is stored "
        "once, when its last shard is in; finished shards are kept for a later fill."
    )
    with st.form("fill"):
        left, right = st.columns(2)
        models = left.multiselect("Models", _models(), key="fill_models", placeholder="every model on the board")
        chosen = right.multiselect("Benchmarks", benchmarks(), key="fill_benchmarks", placeholder="every benchmark")
        left, middle, right = st.columns(3)
        limit = left.number_input(
            "Only the first N items of each benchmark (0 = all)",
            min_value=0,
            value=0,
            step=50,
            key="fill_limit",
            help="DEMETR keeps the first N items of each of its perturbations.",
        )
        shards = middle.number_input("Shards per cell", min_value=1, max_value=64, value=4, key="fill_shards")
        where = right.radio("Where it runs", [HERE, LOCAL_RAY, CLUSTER], key="fill_where")
        address = st.text_input(
            "Ray cluster address",
            key="fill_address",
            placeholder="ray://HOST:PORT",
            help="The cluster's Ray Client address (its head node, port 10001 by default).",
        )
        asked = st.form_submit_button("Show the plan")
    if asked:
        try:
            on = {HERE: "here", LOCAL_RAY: "ray"}.get(where) or address.strip()
            st.session_state[PLAN] = _plan(models, chosen, int(limit) or None, int(shards), on)
        except NegvizError as exc:  # the library's own words; nothing started
            st.session_state.pop(PLAN, None)
            st.error(safe_md(exc), icon=":material/error:")
        except Exception as exc:  # anything else, with its kind
            st.session_state.pop(PLAN, None)
            show_error(exc)
    planned = st.session_state.get(PLAN)
    if planned:
        st.code(planned["text"], language=None, wrap_lines=True)
        if planned["cells"]:
            st.button(
                "Start",
                key="fill-start",
                type="primary",
                on_click=_start,
                args=(planned,),
                icon=":material/play_arrow:",
            )
    watch()


def _models() -> list[str]:
    """The catalog's models, then those on the board outside it (a fine-tuned model, an added one)."""
    names = resources.catalog()["name"].tolist()
    on_board = dataset_cache.dataset_view().board(resources.catalog())  # DatasetView caches its reads
    extra = [m for m in on_board.get("model", []) if m not in names] if not on_board.empty else []
    return names + sorted(set(extra))


def _plan(models: list[str], chosen: list[str], limit: int | None, shards: int, on: str) -> dict:
    """The plan for a person (as `negviz board --fill --dry-run` prints it) and the request that starts it."""
    from negviz.evaluation.fill.executor import ray_address
    from negviz.results.board_fill import board_plan

    address = ray_address(on, "The Ray cluster address")  # not ray://HOST:PORT: refused here
    store = resources.store()
    with st.spinner("Planning the cells…"):
        plan = board_plan(
            dataset_cache.dataset_view().board(), store, models=models, benchmarks=chosen, limit=limit, shards=shards
        )
    request = {"models": models, "benchmarks": chosen, "limit": limit, "shards": shards, "on": on}
    return {"text": plan.text(workers=None if address else 1), "cells": len(plan.cells), "request": request}


def _start(planned: dict) -> None:
    try:
        job = fill_jobs.start(store=resources.store(), **planned["request"])
    except Exception as exc:  # noqa: BLE001 - said on the page
        st.session_state[ENDED] = [*st.session_state.get(ENDED, []), ("error", f"The plan did not start: {exc}", [])]
        return
    st.session_state.pop(PLAN, None)
    if job.job_id not in st.session_state.get(MINE, []):
        st.session_state[MINE] = [*st.session_state.get(MINE, []), job.job_id]
    if job.joined:
        st.session_state[ENDED] = [
            *st.session_state.get(ENDED, []),
            ("info", f"The same plan is already running ({job.label}): following it.", []),
        ]


def watch() -> None:
    """One row per running plan (this session's and everyone's on this server), then the outcomes."""

    @st.fragment(run_every=2.0 if st.session_state.get(MINE) or fill_jobs.running() else None)
    def rows() -> None:
        mine = st.session_state.get(MINE, [])
        shown = set()
        for job_id in mine:
            try:
                job = fill_jobs.poll(job_id)
            except KeyError:  # its files are gone (the cache was cleared)
                continue
            shown.add(job_id)
            if job.done:
                st.session_state[MINE] = [j for j in st.session_state.get(MINE, []) if j != job_id]
                st.session_state[ENDED] = [*st.session_state.get(ENDED, []), outcome_text(job)]
                if job.state == fill_jobs.COMPLETE:
                    dataset_cache.clear_runs()  # every page lists the new runs
                st.rerun()
            _row(job)
        for job in fill_jobs.running():
            if job.job_id not in shown:
                _row(job)

    rows()
    for kind, head, lines in st.session_state.get(ENDED, []):
        getattr(st, kind)("\n".join([safe_md(head), *(f"- {safe_md(line)}" for line in lines)]))


def _row(job: fill_jobs.FillJob) -> None:
    left, right = st.columns([6, 1])
    left.progress(job.fraction, text=f"Filling {safe_md(job.label)}: {safe_md(job.line())}")
    cancelling = job.state == fill_jobs.RUNNING and fill_jobs.cancel_asked(job.job_id)
    right.button(
        "Cancel",
        key=f"fill-cancel-{job.job_id}",
        on_click=fill_jobs.cancel,
        args=(job.job_id,),
        icon=":material/stop:",
        disabled=cancelling,
    )
    lines = job.cell_lines() + (["stopping after the shard it is computing"] if cancelling else [])
    if lines:
        left.markdown("\n".join(f"- {safe_md(line)}" for line in lines))


def outcome_text(job: fill_jobs.FillJob) -> tuple[str, str, list[str]]:
    """(st's function, what happened, each cell's line) for how ``job`` ended."""
    cells = job.cell_lines()
    if job.state == fill_jobs.CANCELLED:
        head = (
            f"Cancelled the fill of {job.label}: no partial run was stored; finished shards are kept for a later fill."
        )
        return "warning", head, cells
    if job.state == fill_jobs.FAILED:
        return "error", f"The fill of {job.label} failed: {job.error}", []
    return "success", f"Filled {job.label}" + ("." if cells else ": nothing was left to fill."), cells
