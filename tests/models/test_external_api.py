"""negviz.evaluate with real models: an in-memory sentence-transformer gives the CLI's verdicts pair by
pair, and the README's notebook example runs as written."""

from __future__ import annotations

import negviz
from negviz.store import Store
from tests.results.test_api import SLICE, readme_example, shipped_verdicts


def test_an_in_memory_sentence_transformer_gives_the_cli_verdicts_pair_by_pair():
    from sentence_transformers import SentenceTransformer

    from negviz.scorers.wheels import wheel_folder

    model = SentenceTransformer(str(wheel_folder("sentence-transformers/all-MiniLM-L6-v2")), device="cpu")
    result = negviz.evaluate(model, "nevir", limit=SLICE, progress=False)
    expected = shipped_verdicts("nevir__all-MiniLM-L6-v2.parquet")  # 98 of 1,383 over the whole test split
    got = result.items.set_index("item_id")["correct"]
    assert result.n == SLICE and result.correct == int(expected.loc[got.index].sum())
    assert (got == expected.loc[got.index]).all()
    assert result.record.summary["model_format"] == "sentence-transformers object"
    assert result.record.model_revision and result.record.model_revision != "unversioned"  # weights fingerprint


def test_the_readme_notebook_example_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'readme.sqlite'}")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(readme_example(), "README.md", "exec"), namespace)  # noqa: S102 - our own README
    assert namespace["result"].correct == 27  # the catalog tfidf's count, which the README prints
    runs = Store(f"sqlite:///{tmp_path / 'readme.sqlite'}").runs()
    assert len(runs) >= 1
