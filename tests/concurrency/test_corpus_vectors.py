"""Corpus vectors built once and shared across processes: concurrent builders take turns so each
text is encoded once, and a process started later reuses their vectors."""

import pytest

from tests.evaluation.test_index import (
    N_TEXTS,
    build_in_processes,
    corpus_file,  # noqa: F401  (fixtures)
)


def test_concurrent_builders_encode_each_text_once_and_a_later_process_reuses_them(
    tiny_model_dir,
    corpus_file,  # noqa: F811
    tmp_path,
):
    model = tiny_model_dir("bi-encoder")
    both = build_in_processes(2, model, corpus_file, tmp_path / "cache", tmp_path / "barrier")
    assert sum(r["encoded"] for r in both) == N_TEXTS  # not 2 x N_TEXTS
    assert all(r["rows"] == N_TEXTS for r in both)
    assert both[0]["first"] == pytest.approx(both[1]["first"])
    (later,) = build_in_processes(1, model, corpus_file, tmp_path / "cache", tmp_path / "later")
    assert later["encoded"] == 0 and later["rows"] == N_TEXTS  # read back, nothing encoded
    assert later["first"] == pytest.approx(both[0]["first"])
