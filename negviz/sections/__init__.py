"""One section function per analysis, called by its page (negviz.ui, pages/) and by the report
(negviz.report): each returns a negviz.sections.base.Section (its data, figures, the words under
them, the tables a page shows) from one declaration. The page's options are the function's
parameters; their defaults are the report's, so the report is each page at its defaults.

    headline   the leaderboard's rows and bars, the published rows beside them (Overview)
    per_type   the per-type heatmap and a model's difference to a reference (Per-type heatmap)
    errors     error preference and margins (Error preference)
    why        attribution runs and the lexical confound (Inspector's Why panel, Error preference)
    sensitivity  DEMETR's model x perturbation matrix (Perturbation sensitivity)
    drift      fine-tuning drift and the negation / retrieval trade-off (Fine-tuning drift)
    board      every model on every benchmark, a fix against its base (Across benchmarks)
"""
