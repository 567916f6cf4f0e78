"""The Annotation projects page (AppTest): a project made through its form, a bad name refused with
a message, labelling through the queue, and the tabs' progress and review without errors."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from negviz import projects as P
from negviz.store import Store

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def open_projects(**params) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("pages/projects.py").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def create(at: AppTest, name: str) -> AppTest:
    at.text_input(key="new_project_name").input(name)
    at.number_input(key="new_project_size").set_value(4)
    next(b for b in at.button if b.label == "Create").click().run()
    return at


def test_make_a_project_and_label_its_queue(app_env):
    at = open_projects()
    assert any("No annotation project" in i.value for i in at.info)
    at.sidebar.text_input(key="annotator").input("ana").run()
    create(at, "bad name!")
    assert any("project name" in e.value for e in at.error) and not at.exception
    create(at, "types-1")
    assert not at.exception and any("created with 4 pairs" in s.value for s in at.success)
    url = f"sqlite:///{app_env / 'results.sqlite'}"
    with Store(url) as store:
        project = P.get(store, "types-1")
    assert project.owner == "ana" and project.overlap == 2
    at.button(key="start_labelling").click().run()
    assert [h.value for h in at.subheader] == [f"types-1 · {project.items[0]}"]
    next(s for s in at.selectbox if s.label == "Negation type").select("affixal")
    validity = next(r for r in at.radio if r.label == "Pair validity")
    assert validity.value is None  # nothing pre-selected: a label needs an explicit choice
    next(b for b in at.button if b.label == "Save and next").click().run()
    assert any("Choose the pair's validity" in e.value for e in at.error)
    assert [h.value for h in at.subheader] == [f"types-1 · {project.items[0]}"]  # refused: same pair
    next(r for r in at.radio if r.label == "Pair validity").set_value("valid")
    next(b for b in at.button if b.label == "Save and next").click().run()
    assert not at.exception and [h.value for h in at.subheader] == [f"types-1 · {project.items[1]}"]
    with Store(url) as store:
        assert store.annotations("nevir", annotator="ana")["item_id"].tolist() == [project.items[0]]
    for tab in ("Review", "Progress & agreement", "Set up"):
        at.query_params["tab"] = tab
        at.run()
        assert not at.exception, (tab, [e.message for e in at.exception])


def test_the_uncertainty_queue_serves_the_models_closest_call_first(app_env):
    from negviz.datasets import load
    from negviz.projects.ranking import uncertainty_ids
    from negviz.results.dataset_view import DatasetView

    url = f"sqlite:///{app_env / 'results.sqlite'}"
    with Store(url) as store:
        P.create(store, "unsure", load("nevir"), "ana", overlap=1, sample=30)
    at = open_projects(project="unsure", order="uncertainty")
    at.sidebar.text_input(key="annotator").input("ben").run()
    at.button(key="start_labelling").click().run()
    assert not at.exception, [e.message for e in at.exception]
    with Store(url) as store:  # the page loaded the shipped runs into the store
        first = uncertainty_ids(DatasetView(store, "nevir"), P.get(store, "unsure"))[0]
        assert len(store.runs(dataset="nevir")) > 3
    assert [h.value for h in at.subheader] == [f"unsure · {first}"]


def test_an_alpha_on_one_pair_is_no_headline(app_env):
    """Two annotators on one shared pair: alpha "0.000" stood in large type. Now no metric: a grey
    line with its n and the reason (fewer than the one minimum every page applies)."""
    from negviz.core.sample_size import MIN_N
    from tests.support import projects as T

    with Store(f"sqlite:///{app_env / 'results.sqlite'}") as store:
        project = T.new(store, "tiny-alpha", size=4)
        item = project.items[0]
        T.label(store, item, "ana", "affixal")
        T.label(store, item, "ben", "implicit")
    at = open_projects(tab="Progress & agreement", project="tiny-alpha")
    assert not at.exception, [e.message for e in at.exception]
    assert not [m for m in at.metric if "alpha" in m.label]
    [line] = [c.value for c in at.caption if "negation type:" in c.value]
    assert f"on 1 pair labelled by two or more annotators, fewer than {MIN_N}" in line
