"""Background fine-tuning jobs (negviz.finetune.jobs): a bad spec is refused in the caller, before
any child starts. The jobs themselves, as real child processes (progress, cancel, a killed child,
a second start reusing the run): tests/processes/test_finetune_job_processes.py."""

from __future__ import annotations

import pytest

from negviz import finetune as ft
from negviz.finetune import jobs
from negviz.store import Store


@pytest.fixture
def sqlite_store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'runs.sqlite'}")
    yield s
    s.close()


def spec(model, **kw) -> ft.FinetuneSpec:
    return ft.FinetuneSpec(str(model), train="nevir-split", limit_heldout=4, batch_size=4, general=2, **kw)


def test_a_bad_spec_fails_in_the_caller(sqlite_store, tmp_path):
    with pytest.raises(Exception, match="no/such-model"):
        jobs.start(ft.FinetuneSpec("no/such-model", train="nevir-split"), sqlite_store, jobs_dir=tmp_path / "jobs")
    assert not (tmp_path / "jobs").exists() and sqlite_store.runs(status=None).empty
