"""Retrieval over a corpus: ExcluIR's main protocol (Zhang et al., Sec. 3) as a first-class run.

corpus.py    a corpus (doc_id, text, title): offline, a file, or a Hub dataset; validated
index.py     one Retriever per way of searching (exact dense, FAISS, BM25, TF-IDF, SPLADE,
             BM25 + re-ranking for late interaction and cross-encoders)
plan.py      what a run encodes (the corpus texts not cached, or for a limited run the shipped
             codes' candidates when fewer), decided before the work and said
rank_metrics.py   R@1/5/10 and MRR@10 of d+ and d−, ΔR@1, ΔMRR@10, Right Rank over the top 10
evaluate.py  run_corpus_eval: load, search, summarise, store (run kind "retrieval")
corpus_output.py  `negviz eval ... --corpus NAME [--top-k K]`

from negviz.evaluation.retrieval.evaluate import run_corpus_eval
result = run_corpus_eval("all-MiniLM-L6-v2", "excluir", "offline", top_k=100, store=Store())
"""
