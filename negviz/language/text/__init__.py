"""Text edits and diffs: counterfactual negation edits, DEMETR-style perturbations, word diff."""
