"""negviz.ui.cue_influence.cue_influence_view: the Cue influence page's sections over the shipped runs (app_env),
in AppTest: the layer curves of the stored NevIR runs, and on a dataset without attribution runs
the coverage of every evaluated model with the command that computes one."""

from streamlit.testing.v1 import AppTest


def _section(name, which):
    from negviz.ui.cue_influence import cue_influence_view as view
    from negviz.ui.dataset_cache import dataset_view

    ds = dataset_view(name).dataset
    (view.fading if which == "fading" else view.shares)(name, ds)


def _app(name, which) -> AppTest:
    return AppTest.from_function(_section, args=(name, which), default_timeout=120).run()


def test_the_layer_curves_of_the_stored_runs_are_drawn_per_type(app_env):
    at = _app("nevir", "fading")
    assert not at.exception
    runs = at.multiselect(key="layer_runs")
    assert len(runs.options) == 2 and runs.value == list(runs.options)  # both shipped runs by default
    assert {o.split(" · ")[0] for o in runs.options} == {"all-MiniLM-L6-v2", "negminilm"}
    (chart,) = at.get("plotly_chart")
    picker = at.selectbox(key="layer_type")
    assert picker.value == "all types" and len(picker.options) > 1
    picker.set_value(picker.options[1]).run()
    assert not at.exception and len(at.get("plotly_chart")) == 1


def test_no_layer_curves_says_the_command(app_env):
    at = _app("excluir", "fading")
    (info,) = at.info
    assert "negviz explain --layers --model all-MiniLM-L6-v2 --dataset excluir" in info.value


def test_a_dataset_without_cue_influence_runs_lists_every_model_and_why(app_env):
    from negviz.ui.dataset_cache import dataset_view

    at = _app("excluir", "shares")
    assert not at.exception
    coverage = at.dataframe[0].value
    assert set(coverage["model"]) == set(dataset_view("excluir").runs()["model_name"])
    (info,) = at.info
    assert (
        info.value.startswith("No cue-influence runs on ")
        and "--dataset excluir --method gradient-x-input" in info.value
    )
