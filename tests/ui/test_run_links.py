"""negviz.ui.navigation.run_links: a new run's headline in words and the links to the pages that show it."""

from negviz.ui.navigation.run_links import headline_text, links_markdown, result_links


def test_headline_text_shows_a_percent_metric_as_a_percentage_with_n():
    summary = {"metric": "paired_accuracy", "paired_accuracy": 98 / 1383}
    assert headline_text(summary, 1383) == "paired accuracy 7.1% (n = 1,383 items)"


def test_headline_text_says_a_partial_file_covers_part_of_the_items():
    summary = {"metric": "paired_accuracy", "paired_accuracy": 0.5, "items_of": 1383}
    assert headline_text(summary, 100) == "paired accuracy 50.0% on 100 of 1,383 items scored"
    # "(10 of 1,383 items)" read as 10 right: the share of items scored is said in words, and so
    # is a statistic over fewer items than the minimum every page applies
    assert headline_text(summary, 10) == (
        "paired accuracy 50.0% on 10 of 1,383 items scored (10 items, fewer than 20: too few to read as a result)"
    )


def test_headline_text_shows_other_metrics_with_three_decimals_and_a_missing_value_as_a_dash():
    assert headline_text({"metric": "mean_similarity", "mean_similarity": 0.81234}, 5) == (
        "mean similarity 0.812 (5 items, fewer than 20: too few to read as a result)"
    )
    assert headline_text({"metric": "paired_accuracy"}, 1) == (
        "paired accuracy — (1 item, fewer than 20: too few to read as a result)"
    )


def test_result_links_of_an_evaluation_pin_the_run_on_three_pages():
    shown = result_links("nevir", "bm25", "r1", "eval", "pairs")
    assert shown == [
        ("Overview", "overview?dataset=nevir&run=r1"),
        ("Per-type heatmap", "heatmap?dataset=nevir&models=bm25&run=r1"),
        ("Pair inspector", "inspector?dataset=nevir&models=bm25&model=bm25&run=r1"),
    ]


def test_result_links_of_a_corpus_run_pin_nothing_and_skip_the_inspector():
    shown = result_links("excluir", "bm25", "r2", "retrieval", "exclusion")
    assert shown == [("Overview", "overview?dataset=excluir"), ("Per-type heatmap", "heatmap?dataset=excluir")]


def test_result_links_leave_out_the_heatmap_for_a_kind_it_cannot_map():
    # CANNOT's similarity pairs have no right/wrong verdict to map per type
    titles = [title for title, _ in result_links("cannot", "bm25", "r3", "eval", "sentence_pairs")]
    assert titles == ["Overview", "Pair inspector"]


def test_links_markdown_joins_the_links_with_dots():
    shown = [("Overview", "overview?dataset=nevir"), ("Pair inspector", "inspector?dataset=nevir")]
    assert (
        links_markdown(shown)
        == "Open it: [Overview](overview?dataset=nevir) · [Pair inspector](inspector?dataset=nevir)"
    )
