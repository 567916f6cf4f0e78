"""Language of negation: the taxonomy (cues -> Petcu et al. types, taxonomy/) and text edits
(counterfactual negation, DEMETR-style perturbations, word diffs, the CSV cell rule; text/)."""
