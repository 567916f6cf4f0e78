"""negviz.ui.inspector.why_view: the Why panel's choice of a model that explains quickly and its cost line
(what the work does and an estimate of how long), from hand-made inputs."""

from negviz.ui.inspector.why_view import STEPS, cost_text, default_model


def test_default_model_skips_scores_only_and_generative_models():
    families = {"ext": "imported", "llm": "llm-pointwise", "minilm": "bi-encoder", "bm25": "bm25"}
    assert default_model(["ext", "llm", "minilm", "bm25"], families) == "minilm"


def test_default_model_falls_back_to_the_first_when_none_is_quick():
    assert default_model(["llm", "ext"], {"ext": "imported", "llm": "llm-listwise"}) == "llm"


def test_cost_text_counts_scored_pairs_for_occlusion():
    assert cost_text("bm25", "occlusion", 1200, 0.0025, "measured") == (
        "Occlusion with bm25 scores 1,200 (query, document) pairs: about 3 s on this machine, "
        "estimated from 0.0025 s per pass (measured)."
    )


def test_cost_text_counts_passes_and_steps_for_integrated_gradients():
    text = cost_text("mini_lm", "integrated-gradients", 128, 0.5, "a first guess")
    assert text == (
        f"Integrated gradients with mini\\_lm runs 128 forward and backward passes ({STEPS} integration steps "
        "per text): about 1 min on this machine, estimated from 0.5 s per pass (a first guess)."
    )
    assert "integration steps" not in cost_text("m", "gradient-x-input", 2, 0.5, "x")
