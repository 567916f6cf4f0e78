"""The Annotation projects page (negviz.projects): label a queue, review disagreements, follow
progress and agreement, set a project up. Each tab is one function; the page only arranges them."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from negviz import projects as P
from negviz.analyses import agreement, paircard
from negviz.analyses.uncertainty import RULE as UNCERTAINTY_RULE
from negviz.core.metric_text import heading
from negviz.core.sample_size import MIN_N, too_few
from negviz.language.taxonomy import TAXONOMY
from negviz.language.text.words import counted
from negviz.projects import review as R
from negviz.projects.guidelines import safe_markdown
from negviz.projects.project import DEFAULT_GUIDELINES, check_label
from negviz.projects.view import ProjectView
from negviz.results import annotations as ann
from negviz.store import StoreError, StoreUnavailableError
from negviz.ui import inspector_data, outage, resources
from negviz.ui.dataset_cache import dataset_view
from negviz.ui.label_form import asks_ambiguity, cannot_save, validity_index
from negviz.ui.widgets import headed, safe_md, show_error

PAIR_KEY = "project_pair"
NEXT_PROJECT = "project_next"
MESSAGE = "project_message"  # the pair this annotator is labelling, pinned until it is saved or skipped


def project_reads(store=None) -> ProjectView:
    """The projects' reads in ``store`` (default: the app's), through the pages' read model
    (negviz.projects.view)."""
    return ProjectView(dataset_view(store=store))


def readable_projects(store) -> list[P.Project] | None:
    """The store's projects; None, having said so, when its database is not reachable: nothing
    could be read, so the page must neither say there is no project nor offer to create one."""
    from negviz.store.shipped import ShippedStore

    if isinstance(store, ShippedStore):  # resources.store() found the database away
        unreachable(store.host)
        return None
    try:
        return project_reads(store).projects()
    except StoreUnavailableError as exc:  # it went away since
        resources.note(exc)  # the next rerun gets the stand-in, and the retry banner
        unreachable(exc.host)
        return None


def unreachable(host: str) -> None:
    outage.unreadable("Annotation projects", host, "created or imported")


def pick_project(projects: list[P.Project]) -> P.Project | None:
    """The project picker (bound to the URL); a project just created is selected."""
    if NEXT_PROJECT in st.session_state:
        st.session_state["project"] = st.session_state.pop(NEXT_PROJECT)
    names = [p.name for p in projects]
    name = st.sidebar.selectbox(
        "Project",
        names,
        key="project",
        bind="query-params",
        index=0 if names else None,
        placeholder="none yet: create one",
    )
    return next((p for p in projects if p.name == name), None)


def summary(project: P.Project) -> str:
    many = " · several types per pair" if project.multi_type else ""
    return (
        f"**{paircard.md_escape(project.name)}** · {paircard.md_escape(project.dataset)} · "
        f"{len(project.items):,} pairs · overlap {project.overlap} · owner "
        f"{paircard.md_escape(project.owner)}{many}"
    )


def message() -> None:
    text = st.session_state.pop(MESSAGE, None)
    if text:
        st.success(safe_md(text))


def uncertainty(project: P.Project) -> pd.DataFrame:
    """The project's pairs, most uncertain first (ProjectView.uncertainty: kept per set of stored runs)."""
    return project_reads().uncertainty(project)


def pair_row(project: P.Project, item: str) -> dict:
    return dataset_view(project.dataset).dataset.item(item).as_row()


def show_pair(project: P.Project, item: str) -> None:
    ds = dataset_view(project.dataset).dataset
    st.html(paircard.card_html(ds.kind, pair_row(project, item)))


def guidelines(project: P.Project) -> None:
    st.markdown(safe_markdown(project.guidelines) or "_No guidelines written yet._")


# ---------------------------------------------------------------- labelling
def label_tab(store, project: P.Project, annotator: str) -> None:
    if not annotator:
        st.info("Enter your annotator name in the sidebar: your queue is yours.")
        return
    read_key = f"read_guidelines_{project.name}_{annotator}"  # per person: a reviewer switching names reads them too
    if not st.session_state.get(read_key):
        st.subheader("Guidelines")
        guidelines(project)
        st.button(
            "I have read the guidelines: start",
            key="start_labelling",
            type="primary",
            on_click=lambda: st.session_state.update({read_key: True}),
        )
        return
    top = st.columns([2, 2, 1, 1], vertical_alignment="bottom")
    order = top[0].radio(
        "Queue order",
        P.ORDERS,
        key="order",
        bind="query-params",
        horizontal=True,
        help=f"uncertainty: {UNCERTAINTY_RULE}",
    )
    typed = inspector_data.automatic_types(project.dataset)
    only_types = top[1].multiselect(
        "Only pairs of type",
        sorted(set(typed["type"])),
        format_func=TAXONOMY.label,
        key="only_types",
        placeholder="any",
        help="The taxonomy's type of each pair (gold cue or detected); the queue skips the others.",
    )
    only = set(typed.loc[typed["type"].isin(only_types), "item_id"].astype(str)) if only_types else None
    with top[2].popover("Guidelines", icon=":material/menu_book:"):
        guidelines(project)
    skipped = st.session_state.setdefault(f"skipped_{project.name}", [])
    _extra(store, project, annotator)
    item = _current(store, project, annotator, order, skipped, only)
    if item is None:
        st.success("Your queue is empty: every pair of this project has its labels, or yours.")
        return
    done = project_reads(store).progress(project)
    mine = done[done["annotator"] == annotator]
    top[3].caption(f"{int(mine['labelled'].sum()) if len(mine) else 0} labelled by you")
    st.subheader(f"{project.name} · {item}")
    show_pair(project, item)
    _label_form(store, project, annotator, item, skipped)


def _extra(store, project: P.Project, annotator: str) -> None:
    """Label a chosen pair even when it has its overlap's labels (another opinion, on request)."""
    with st.expander("Label a chosen pair, beyond the overlap"):
        item = st.selectbox("Pair", project.items, index=None, key="extra_pair", placeholder="pair id")
        if st.button("Take it", key="extra_take", disabled=item is None):
            try:
                P.claim_extra(store, project, item, annotator)
            except (P.ProjectError, StoreError) as exc:
                show_error(exc)
            else:
                st.session_state[PAIR_KEY] = ((project.name, annotator), item)


def _current(store, project, annotator, order, skipped, only) -> str | None:
    pinned = st.session_state.get(PAIR_KEY)
    if pinned and pinned[0] == (project.name, annotator) and (only is None or pinned[1] in only):
        return pinned[1]
    ordered = uncertainty(project)["item_id"].tolist() if order == P.UNCERTAINTY else P.IN_TURN
    try:
        item = P.next_pair(store, project, annotator, ordered, skip=skipped, only=only)
    except (P.ProjectError, StoreError) as exc:
        show_error(exc)
        return None
    if item is not None:
        st.session_state[PAIR_KEY] = ((project.name, annotator), item)
    return item


def _label_form(store, project, annotator, item, skipped) -> None:
    ds = dataset_view(project.dataset).dataset
    mine, version = dataset_view(project.dataset, store).current_label(item, annotator)
    mine = mine or ann.Label(None)
    refusal = cannot_save(store)
    if refusal:
        st.warning(f"Labels cannot be saved now: {safe_md(refusal)}.", icon=":material/block:")
    form = f"{project.name}|{item}|{annotator}|{version}"
    types = list(project.types)
    with st.form(f"project-label-{form}"):
        st.caption(f"Labelling as **{paircard.md_escape(annotator)}**")
        kind = st.selectbox(
            "Negation type",
            types,
            index=types.index(mine.negation_type) if mine.negation_type in types else None,
            format_func=TAXONOMY.label,  # its title; the stored label is the id
            placeholder="choose",
            key=f"ptype_{form}",
        )
        more = (
            st.multiselect(
                "Further negation types (a pair with several cues)",
                types,
                default=[t for t in mine.more_types if t in types],
                key=f"pmore_{form}",
            )
            if project.multi_type
            else []
        )
        validity = st.radio(
            "Pair validity",
            ann.VALIDITY,
            index=validity_index(mine),
            horizontal=True,
            key=f"pvalid_{form}",
        )
        ambiguous = asks_ambiguity(ds.kind) and st.checkbox(
            "Query ambiguous", value=mine.query_ambiguous, key=f"pamb_{form}"
        )
        note = st.text_area("Note", value=mine.note, max_chars=ann.MAX_NOTE, key=f"pnote_{form}")
        a, b = st.columns(2)
        save = a.form_submit_button(
            "Save and next", type="primary", icon=":material/skip_next:", disabled=bool(refusal)
        )
        skip = b.form_submit_button("Skip this pair", icon=":material/redo:")
    if skip:
        P.release(store, project, item, annotator)
        skipped.append(item)
        st.session_state.pop(PAIR_KEY, None)
        st.rerun()
    if save:
        label = ann.Label(kind, validity, bool(ambiguous), note or "", tuple(t for t in more if t != kind))
        try:
            check_label(project, label)
            saved = ann.save(store, ds, item, annotator, label, types=types)
        except (ann.AnnotationError, StoreError) as exc:
            show_error(exc)
            return
        st.session_state.pop(PAIR_KEY, None)
        st.session_state[MESSAGE] = f"Saved {item} as version {saved} by {annotator}."
        st.rerun()


# ---------------------------------------------------------------- review
def review_tab(store, project: P.Project, reviewer: str) -> None:
    diff = project_reads(store).disagreements(project)
    todo = R.awaiting(diff)
    st.caption(
        f"{counted(len(diff), 'pair')} whose labels disagree · {len(todo):,} awaiting review · a pair "
        f"disagrees when two or more annotators' latest labels differ in {', '.join(R.REVIEWED)}"
    )
    if diff.empty:
        st.info("No disagreements yet: pairs show here once two annotators label one differently.")
        return
    pending = st.toggle("Only pairs awaiting review", value=True, key="review_pending")
    choices = todo if pending else diff["item_id"].astype(str).tolist()
    if not choices:
        st.success("Every disagreement has a decision.")
        return
    item = st.selectbox("Pair", choices, key="review_pair")
    row = diff[diff["item_id"].astype(str) == item].dropna(axis=1)
    st.html(_side_by_side(row.drop(columns=["item_id", "awaiting_review"]).iloc[0]))
    show_pair(project, item)
    if not reviewer:
        st.info("Enter your name in the sidebar to record a decision.")
        return
    _decision_form(store, project, reviewer, item)


def _side_by_side(row: pd.Series) -> str:
    """Each annotator's label beside the others, as an HTML table of escaped text (names are user text)."""
    from html import escape

    cells = "".join(f"<tr><th>{escape(str(k))}</th><td>{escape(str(v))}</td></tr>" for k, v in row.items())
    return f'<table class="negviz-review" data-testid="review-labels">{cells}</table>'


def _decision_form(store, project, reviewer, item) -> None:
    types = list(project.types)
    # Nothing is chosen for the reviewer: a pre-filled form once stored a validity no annotator chose.
    with st.form(f"decide-{project.name}-{item}"):
        st.caption(
            f"Deciding as **{paircard.md_escape(reviewer)}**: stored as the adjudicated label (a new version each time)"
        )
        kind = st.selectbox(
            "Negation type",
            types,
            key=f"dtype_{item}",
            format_func=TAXONOMY.label,  # its title; the stored label is the id
            placeholder="choose",
            index=None,
        )
        validity = st.radio("Pair validity", ann.VALIDITY, horizontal=True, key=f"dvalid_{item}", index=None)
        ambiguous = asks_ambiguity(dataset_view(project.dataset).kind) and st.checkbox(
            "Query ambiguous", key=f"damb_{item}"
        )
        note = st.text_area("Why", max_chars=ann.MAX_NOTE, key=f"dnote_{item}")
        go = st.form_submit_button(
            "Save decision", type="primary", icon=":material/gavel:", disabled=bool(cannot_save(store))
        )
    if go:
        if kind is None or validity is None:
            st.error("Choose the negation type and the pair's validity before saving the decision.")
            return
        try:
            version = P.adjudicate(store, project, item, reviewer, ann.Label(kind, validity, bool(ambiguous), note))
        except (ann.AnnotationError, StoreError) as exc:
            show_error(exc)
            return
        st.session_state[MESSAGE] = f"Decision on {item} saved (version {version}) by {reviewer}."
        st.rerun()


# ---------------------------------------------------------------- progress and agreement
def progress_tab(store, project: P.Project) -> None:
    whole = project_reads(store).project_progress(project)
    a, b, c = st.columns(3)
    a.metric("Pairs with all their labels", f"{whole['complete_pairs']:,} / {whole['pairs']:,}")
    b.metric("Labels", f"{whole['labels']:,} / {whole['needed']:,}", help=f"overlap {project.overlap}")
    c.metric("Awaiting review", f"{len(project_reads(store).review_queue(project)):,}")
    st.markdown("**Per annotator**")
    st.dataframe(project_reads(store).progress(project), hide_index=True, key="progress_table")
    labels = project_reads(store).labels(project)
    who = sorted(set(labels["annotator"]))
    if len(who) >= 2:
        alphas = agreement.alpha_table(labels, who)
        kind = alphas.set_index("label").loc["negation_type"]
        pairs = int(kind["pairable_items"])
        if too_few(pairs):  # no headline in large type on a pair or two: greyed, with its n
            value = "undefined" if pd.isna(kind["alpha"]) else f"{kind['alpha']:.3f}"
            st.caption(
                f"{agreement.KRIPPENDORFF}, negation type: {value} on {counted(pairs, 'pair')} labelled by two "
                f"or more annotators, fewer than {MIN_N}: too few to read as agreement yet."
            )
        else:
            st.metric(
                f"{agreement.KRIPPENDORFF}, negation type",
                "undefined" if pd.isna(kind["alpha"]) else f"{kind['alpha']:.3f}",
                help=f"Nominal; every pair two or more annotators labelled counts ({pairs:,} pairs).",
            )
        if warning := agreement.few_items_warning(alphas):
            st.warning(warning)
        st.markdown(f"**{agreement.KRIPPENDORFF}** per label (all annotators, missing labels allowed)")
        shown = alphas.assign(label=[heading(str(v)) for v in alphas["label"]]) if "label" in alphas else alphas
        st.dataframe(  # headers and label names in words: "pairable items", "negation type"
            shown, hide_index=True, key="project_alpha", placeholder="undefined", column_config=headed(shown)
        )
    agree = project_reads(store).agreement_with_adjudicated(project)
    if len(agree):
        st.markdown("**Agreement with the adjudicated labels**")
        st.dataframe(
            agree,
            hide_index=True,
            key="with_adjudicated",
            column_config=headed(
                agree,
                {"agrees_with_adjudicated": st.column_config.NumberColumn("agrees", format="percent")},
            ),
        )


# ---------------------------------------------------------------- set-up
def setup_tab(store, project: P.Project | None, annotator: str, datasets: list[str]) -> None:
    if project is not None:
        _edit_guidelines(store, project, annotator)
        st.download_button(
            "Export the project (one JSON file)",
            P.export_project(store, project.name),
            file_name=f"negviz-project-{project.name}.json",
            mime="application/json",
            icon=":material/download:",
            key="project_export",
            on_click="ignore",
        )
    upload = st.file_uploader("Import a project file", type=["json"], key="project_import_file")
    if upload is not None and st.button("Import", key="project_import", icon=":material/upload:"):
        try:
            done = P.import_project(store, upload.getvalue(), upload.name)
        except P.ProjectFileError as exc:
            import_problems(exc)
        except (ann.AnnotationError, StoreError) as exc:
            show_error(exc)
        else:
            st.success(
                f"Imported {done.project}: {done.claims} claims, {done.labels} label versions "
                f"({done.already} already here), {done.adjudications} decisions."
            )
    create_form(store, annotator, datasets)


def import_problems(exc: P.ProjectFileError) -> None:
    """What is wrong with a project file, as a plain list (the file's text escaped, never markup)."""
    listed = "\n".join(f"- {safe_md(problem)}" for problem in exc.problems)
    more = exc.total - len(exc.problems)
    tail = f"\n\n…and {more} more." if more else ""
    st.error(f"{safe_md(exc.headline())}\n\n{listed}{tail}", icon=":material/error:")


def _edit_guidelines(store, project, annotator) -> None:
    with st.form(f"guidelines-{project.name}"):
        text = st.text_area(
            "Guidelines (markdown; no HTML or images)",
            value=project.guidelines,
            height=240,
            key=f"guidelines_text_{project.name}",
        )
        if st.form_submit_button(
            "Save guidelines", disabled=annotator != project.owner, help=f"Only the owner ({project.owner}) edits them."
        ):
            try:
                P.set_guidelines(store, project.name, text)
            except (ann.AnnotationError, StoreError) as exc:
                show_error(exc)
            else:
                st.session_state[MESSAGE] = "Guidelines saved."
                st.rerun()


def create_form(store, annotator: str, datasets: list[str]) -> None:
    with st.form("new_project"):
        st.markdown("**New project**")
        name = st.text_input("Name", key="new_project_name", placeholder="e.g. nevir-types")
        dataset = st.selectbox("Dataset", datasets, key="new_project_dataset")
        a, b, c = st.columns(3)
        overlap = a.number_input("Annotators per pair (overlap)", 1, 10, 2, key="new_project_overlap")
        sample = b.number_input("Pairs (a seeded sample; 0 = all)", 0, value=100, step=50, key="new_project_size")
        multi = c.checkbox("Several negation types per pair", key="new_project_multi")
        text = st.text_area("Guidelines (markdown)", value=DEFAULT_GUIDELINES, height=200, key="new_project_guidelines")
        go = st.form_submit_button("Create", type="primary", icon=":material/add:")
    if go:
        if not annotator:
            st.error("Enter your name in the sidebar: the project's owner is who creates it.")
            return
        try:
            made = P.create(
                store,
                name,
                dataset_view(dataset).dataset,
                annotator,
                int(overlap),
                text,
                bool(multi),
                int(sample) or None,
            )
        except (ann.AnnotationError, StoreError) as exc:
            show_error(exc)
        else:
            st.session_state[NEXT_PROJECT] = made.name  # applied before the picker is drawn
            st.session_state[MESSAGE] = f"Project {made.name} created with {len(made.items):,} pairs."
            st.rerun()
