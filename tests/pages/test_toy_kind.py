"""Every page on a dataset of a kind only a test registers (tests/support/toy_kind.py): it draws
the dataset, or says in the page registry's words which kinds it draws instead; none fails."""

import os
from pathlib import Path

from streamlit.testing.v1 import AppTest

from negviz.core.cache import ScoreCache
from negviz.datasets.added import add_dataset
from negviz.evaluation.runner import run_eval
from negviz.store import Store
from negviz.ui.navigation.page_registry import PAGES, kind_problem
from tests.support.toy_kind import CHOICE, TOY_FILE, toy_kind_registered

APP = str(Path(__file__).resolve().parents[2] / "app.py")
NAME = "questions"


def shown(at: AppTest) -> str:
    parts = [*at.title, *at.caption, *at.info, *at.markdown, *at.error, *at.warning, *at.success]
    return "\n".join(str(p.value) for p in parts)


def test_every_page_draws_a_new_kind_or_refuses_it_in_the_registrys_words(app_env, monkeypatch):
    with toy_kind_registered(monkeypatch) as kind:
        with Store(os.environ["NEGVIZ_DB_URL"]) as store:
            add_dataset(store, NAME, TOY_FILE.to_csv(index=False).encode(), "questions.csv", CHOICE)
            run_eval("tfidf", NAME, store=store, cache=ScoreCache(app_env / "scores.sqlite"))
        at = AppTest.from_file(APP, default_timeout=180)
        at.query_params["dataset"] = NAME
        at.run()
        refused, drawn = [], []
        for entry in PAGES:
            at.switch_page(entry.file).run()
            assert not at.exception, (entry.file, [e.message for e in at.exception])
            assert at.session_state["dataset"] == NAME, entry.file
            problem = kind_problem(entry, NAME, kind)
            if problem is None:
                drawn.append(entry.url_path)
            else:
                assert problem in shown(at) and kind.title in problem, entry.file
                refused.append(entry.url_path)
        assert set(refused) == {"maxsim", "playground"}, refused
        assert {"heatmap", "errors", "cue-influence", "inspector"} <= set(drawn)
