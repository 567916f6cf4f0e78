"""negviz.datasets.training: each training source declared once, and what a record naming one says
about the data it trained on (which datasets, which split it never saw), auto included."""

from negviz.datasets import training
from negviz.datasets.shipped import FILES as SHIPPED


def test_every_source_draws_on_a_shipped_dataset_or_chooses_among_sources():
    for source in training.SOURCES.values():
        if source.choices:  # auto: chosen when the run starts, among declared sources
            assert source.dataset is None and set(source.choices) <= set(training.SOURCES)
        else:
            assert source.dataset in SHIPPED, source.name


def test_auto_reads_as_trained_on_every_dataset_its_choices_draw_on():
    assert training.trained_datasets(training.AUTO) == ["nevir"]  # nevir-train and nevir-split both
    assert training.chosen_when_run(training.AUTO) and not training.chosen_when_run(training.NEVIR_SPLIT)
    assert training.trained_datasets("my-triplets.jsonl") == []  # a user's file: no shipped dataset


def test_the_unseen_split_of_auto_is_the_one_every_choice_leaves_unseen():
    assert training.unseen_split(training.NEVIR_TRAIN) == "test"
    assert training.unseen_split(training.NEVIR_SPLIT) is None  # its held-out part is in the fine-tuning run
    assert training.unseen_split(training.AUTO) is None  # its choices disagree: never evaluated on NevIR
    assert training.unseen_split(training.CANNOT) == "heldout"


def test_sources_help_names_every_source_once():
    text = training.sources_help("or a file")
    assert text.endswith(", or a file")
    assert all(text.count(f"{name} (") + text.count(f", {name},") >= 1 for name in training.SOURCES)
