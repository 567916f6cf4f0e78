"""Corpus vectors built once and shared across processes: a second process reuses them, and
concurrent builders take turns so each text is encoded once."""

import pytest

from tests.evaluation.test_index import (
    N_TEXTS,
    build_in_processes,
    corpus_file,  # noqa: F401  (fixtures)
)


def test_a_second_process_reuses_the_corpus_vectors(tiny_model_dir, corpus_file, tmp_path):
    model = tiny_model_dir("bi-encoder")
    (first,) = build_in_processes(1, model, corpus_file, tmp_path / "cache", tmp_path / "b1")
    (second,) = build_in_processes(1, model, corpus_file, tmp_path / "cache", tmp_path / "b2")
    assert first["encoded"] == N_TEXTS and second["encoded"] == 0
    assert second["first"] == pytest.approx(first["first"])


def test_concurrent_builders_encode_each_text_once(tiny_model_dir, corpus_file, tmp_path):
    model = tiny_model_dir("bi-encoder")
    both = build_in_processes(2, model, corpus_file, tmp_path / "cache", tmp_path / "barrier")
    assert sum(r["encoded"] for r in both) == N_TEXTS  # not 2 x N_TEXTS
    assert all(r["rows"] == N_TEXTS for r in both)
    assert both[0]["first"] == pytest.approx(both[1]["first"])
