"""Evaluating a model on a dataset: the catalog of known models, scoring every slot once
(item_scoring), run summaries, evaluate-once (runner), which stored run stands for a model
(run_choice), background jobs (jobs, eval_jobs), the papers' published numbers, and corpus
retrieval (retrieval/)."""
