"""Fine-tuning jobs on the drift page: the form that starts one in the background (the CLI's own
code path, negviz.finetune.jobs) and the live progress of running jobs, with cancel; an
interrupted run (its process gone) with resume and discard."""

from __future__ import annotations

import streamlit as st

from negviz import finetune as ft
from negviz.datasets.training import SOURCES, sources_help
from negviz.finetune import jobs
from negviz.finetune.data import HEDGE_TRIPLE
from negviz.finetune.spec import TRAIN_KINDS
from negviz.ui.widgets import show_error, user_path

_FAILED = "_finetune_failed"  # (run id, error) of the job this session saw fail


def last_failure() -> None:
    """Say which job this session saw fail, with its error (set by live_jobs' progress)."""
    if err := st.session_state.get(_FAILED):
        st.error(f"Run {err[0][:8]} failed; its finished epochs are kept.", icon=":material/error:")
        st.code(err[1], language=None)


def start_form(store) -> None:
    """The "Fine-tune a model" form; a started or reused job's run id goes to session state.
    None while the store cannot be written: the job could not store its run."""
    from negviz.ui import outage

    if outage.refuses_writes(store, "Fine-tuning cannot start"):
        return
    with st.expander("Fine-tune a model (runs in the background; the page stays usable)"):
        with st.form("start"):
            c1, c2, c3, c4, c5 = st.columns([3, 2, 1, 1, 1])
            model = c1.text_input("Model", "all-MiniLM-L6-v2", help="Catalog name, hub id or local folder.")
            family = c2.radio(
                "Family",
                ft.FAMILIES,
                horizontal=True,
                help="late-interaction: MaxSim over the encoder's token vectors (MaxSim explorer).",
            )
            epochs = c3.number_input("Epochs", 1, 50, 3)
            lr = c4.number_input("Learning rate", 1e-7, 1e-2, 2e-5, format="%.1e")
            batch = c5.number_input("Batch (triplets)", 2, 512, 16, step=2)
            d1, d2, d3, d4 = st.columns([3, 1, 1, 1])
            train = d1.selectbox(
                "Training data",
                [*SOURCES, HEDGE_TRIPLE],
                accept_new_options=True,
                help=sources_help(
                    f"{HEDGE_TRIPLE} (HedgeTriple; needs the Hub), or type the name of a pairs dataset added "
                    "on 'Add a dataset' (how a file reaches a shared server), or a file path where this "
                    "server allows it."
                ),
            )
            limit = d2.number_input("Training items (0 = all)", 0, 100_000, 0)
            seed = d3.number_input("Seed", 0, 2**31 - 1, 0)
            general = d4.number_input(
                "Retrieval check (questions)",
                0,
                1000,
                ft.FinetuneSpec().general,
                help="HotpotQA questions re-ranked per epoch: a retrieval figure without "
                "negation, drawn beside the negation figures (0: none).",
            )
            e1, e2 = st.columns([1, 3])
            kind = e1.radio(
                "A file holds",
                TRAIN_KINDS,
                horizontal=True,
                help="pairs: NevIR's q1, d1, q2, d2; triplets: anchor, positive, negative (HedgeTriple).",
            )
            columns = e2.text_input(
                "Column mapping (optional)",
                placeholder="anchor=premise,positive=hypothesis,negative=contradiction",
                help="A file's own column names, as in the CLI's --columns.",
            )
            if st.form_submit_button("Start fine-tuning", icon=":material/play_arrow:"):
                try:
                    user_path(model.strip())  # typed folders and training files: only where this server may read
                    user_path(train)
                    triplets = kind == "triplets" or train == HEDGE_TRIPLE
                    spec = ft.FinetuneSpec(
                        model.strip(),
                        family,
                        train,
                        epochs=int(epochs),
                        lr=float(lr),
                        batch_size=int(batch),
                        seed=int(seed),
                        limit_train=int(limit) or None,
                        general=int(general),
                        train_kind="triplets" if triplets else "pairs",
                        columns=columns.strip() or None,
                    )
                    job = jobs.start(spec, store)
                    st.session_state["job"] = job.run_id
                    (st.info if job.reused else st.success)(
                        f"This spec's run {job.run_id[:8]} is already {job.state}: reusing it."
                        if job.reused
                        else f"Started run {job.run_id[:8]}; progress below."
                    )
                except Exception as exc:  # bad model or data: a message, the page keeps running
                    show_error(exc)


def live_jobs(store) -> dict[str, str]:
    """Progress bars of this server's running jobs (refreshed every 2 s while any runs), and the
    interrupted runs with Resume and Discard. Returns {run_id: state} of the runs listed."""
    if notice := st.session_state.pop("job_notice", None):
        st.warning(notice, icon=":material/warning:")
    active = {j.run_id: j for j in jobs.running(store)}

    live = any(j.state != jobs.INTERRUPTED for j in active.values())  # an interrupted run waits for a click

    @st.fragment(run_every=2 if live or st.session_state.get("job") else None)
    def progress() -> None:
        statuses = {j.run_id: j for j in jobs.running(store)}
        if (mine := st.session_state.get("job")) and mine not in statuses:
            try:
                statuses[mine] = jobs.poll(mine, store)
            except KeyError:  # the job has not written anything yet
                pass
        for run_id, job in statuses.items():
            if job.done:
                st.session_state.pop("job", None)
                if job.state == "failed":
                    st.session_state[_FAILED] = (run_id, job.error)
                st.rerun()
            left, right = st.columns([6, 1])
            if job.state == jobs.INTERRUPTED:
                left.warning(
                    f"Run {run_id[:8]} {job.line()}. Resume trains it again from epoch 0 (a checkpoint "
                    "holds no optimiser state to continue from); Discard deletes it.",
                    icon=":material/warning:",
                )
                if job.error:  # what its last job here said (a resume that could not take it over)
                    left.code(job.error, language=None)
                right.button(
                    "Resume",
                    key=f"resume-{run_id}",
                    on_click=_act,
                    args=(jobs.resume, run_id, store),
                    icon=":material/replay:",
                )
                right.button(
                    "Discard",
                    key=f"discard-{run_id}",
                    on_click=_act,
                    args=(jobs.discard, run_id, store),
                    icon=":material/delete:",
                )
                continue
            left.progress(job.fraction, text=f"Run {run_id[:8]}: {job.line()}")
            right.button(
                "Cancel",
                key=f"cancel-{run_id}",
                on_click=jobs.cancel,
                args=(run_id,),
                icon=":material/stop:",
                disabled=job.cancel_requested or not job.local,
                help=None if job.local else "Started elsewhere.",
            )

    progress()
    return {run_id: job.state for run_id, job in active.items()}


def _act(action, run_id: str, store) -> None:
    """Resume or discard (a button's callback); a run that came back to life meanwhile: a message."""
    from negviz.ui import dataset_cache

    try:
        action(run_id, store)
    except ValueError as exc:
        st.session_state["job_notice"] = str(exc)
        return
    if action is jobs.resume:
        st.session_state["job"] = run_id
    dataset_cache.clear_runs()
