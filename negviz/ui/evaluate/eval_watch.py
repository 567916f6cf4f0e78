"""The Evaluate page's background job (negviz.evaluation.eval_jobs): its progress bar with counts and a
Cancel button, refreshed every 2 s, then what it ended with; other evaluations running on
this server are named, so two people do not start the same one twice."""

from __future__ import annotations

import streamlit as st

from negviz.core.cpu_features import device_label
from negviz.evaluation import eval_jobs
from negviz.ui import dataset_cache
from negviz.ui.navigation.run_links import headline_text, links_markdown, result_links
from negviz.ui.widgets import safe_md

JOB, OUTCOME = "eval_job", "eval_outcome"


def started(job: eval_jobs.EvalJob) -> None:
    """Follow ``job`` in this session (a job joined is followed the same way)."""
    st.session_state[JOB] = job.job_id
    st.session_state.pop(OUTCOME, None)
    if job.joined:
        st.info(f"The same evaluation is already running ({safe_md(job.label)}): following it.")


def watch() -> None:
    mine = st.session_state.get(JOB)

    @st.fragment(run_every=2.0 if mine else None)
    def progress() -> None:
        job_id = st.session_state.get(JOB)
        if not job_id:
            return
        try:
            job = eval_jobs.poll(job_id)
        except KeyError:  # its files are gone (the cache was cleared): nothing to follow
            st.session_state.pop(JOB, None)
            return
        if job.done:
            st.session_state.pop(JOB, None)
            st.session_state[OUTCOME] = job
            if job.state == eval_jobs.COMPLETE:
                dataset_cache.clear_runs()  # every page lists the new run
            st.rerun()  # the whole app: the sidebar's model list too
        left, right = st.columns([6, 1])
        left.progress(job.fraction, text=f"{safe_md(job.label)}: {job.line()}")
        right.button("Cancel", key="eval-cancel", on_click=eval_jobs.cancel, args=(job_id,), icon=":material/stop:")

    progress()
    others = [j for j in eval_jobs.running() if j.job_id != mine]
    for job in others:
        st.caption(f"Also running on this server: {safe_md(job.label)} ({job.line()}).")
    outcome = st.session_state.get(OUTCOME)
    if outcome is not None:
        show_outcome(outcome)


def show_outcome(job: eval_jobs.EvalJob) -> None:
    if job.state == eval_jobs.CANCELLED:
        st.warning(f"Cancelled {safe_md(job.label)}; nothing was stored.", icon=":material/stop:")
    elif job.state == eval_jobs.FAILED:
        st.error(f"{safe_md(job.label)} failed: {safe_md(job.error)}", icon=":material/error:")
    else:
        r = job.result
        verb = "Reused the stored run" if r["reused_stored_run"] else "Stored run"
        headline = headline_text(r, int(r.get("n") or 0))
        st.success(
            f"{verb} {r['run_id'][:8]}: {safe_md(r['model'])} on {safe_md(r['dataset'])}:{safe_md(r['split'])}, "
            f"n={r['n']} · {safe_md(headline)} · {r['wall_seconds']:.1f}s on {safe_md(device_label(r['device'], r))}.",
            icon=":material/check_circle:",
        )
        dataset = str(r["dataset"])
        kind = r.get("dataset_kind") or dataset_cache.dataset_view(dataset).kind.name  # a name, as links take it
        st.markdown(links_markdown(result_links(dataset, r["model"], r["run_id"], "eval", kind)))
        with st.expander("Every number of the run (JSON)"):
            st.json({k: v for k, v in r.items() if k not in ("model", "dataset", "split", "run_id")}, expanded=1)
