"""Generative rerankers: prompts, the local ``transformers`` back end, the OpenAI-compatible
endpoint back end and RankGPT's listwise permutations. The scorer families that use them are
negviz.scorers.llm_pointwise and negviz.scorers.llm_listwise."""
