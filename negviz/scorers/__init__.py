"""Model families behind one Scorer interface, registered lazily (importing this is cheap).

A new family is one module plus one line here. Metadata drives the UI and the CLI:
``architecture`` groups families as in NevIR Table 2, ``supports`` lists the family extras
(``embeddings`` for bi-encoders, ``token_matrix`` for late interaction).
"""

from __future__ import annotations

from negviz.registry import Registry

FAMILIES = Registry("model family")
FAMILIES.register(
    "bi-encoder",
    "negviz.scorers.bi_encoder:BiEncoder",
    title="Bi-encoder",
    architecture="bi-encoder",
    supports=("embeddings",),
    description="Any sentence-transformers model; dot product by default (as the NevIR code), cosine optional.",
)
FAMILIES.register(
    "cross-encoder",
    "negviz.scorers.cross_encoder:CrossEncoderScorer",
    title="Cross-encoder",
    architecture="cross-encoder",
    supports=(),
    description="sentence-transformers CrossEncoder; 3-way NLI heads are scored by the entailment logit (id2label).",
)
FAMILIES.register(
    "monot5",
    "negviz.scorers.monot5:MonoT5",
    title="MonoT5",
    architecture="cross-encoder",
    supports=(),
    description='castorini/monot5-*: score = log-probability of "true" against "false" for the first decoded token.',
)
FAMILIES.register(
    "llm-pointwise",
    "negviz.scorers.llm_pointwise:LLMPointwise",
    title="Generative reranker (pointwise)",
    architecture="generative",
    supports=("reasoning",),
    description='A causal LM asked "does the document answer the query?"; score = log P(true) against false '
    "(templates: yes-no, true-false, Rank1 with reasoning); local transformers/GGUF or an OpenAI-compatible endpoint.",
)
FAMILIES.register(
    "llm-listwise",
    "negviz.scorers.llm_listwise:LLMListwise",
    title="Generative reranker (listwise)",
    architecture="generative",
    supports=("reasoning",),
    description="RankGPT's permutation prompt over each query's candidates (sliding window); "
    "first-named scores highest, unnamed documents tie; local transformers/GGUF or an OpenAI-compatible endpoint.",
)
FAMILIES.register(
    "colbert",
    "negviz.scorers.colbert:ColBERT",
    title="ColBERT",
    architecture="late-interaction",
    supports=("token_matrix",),
    description="ColBERT checkpoints (BERT + linear projection, [Q]/[D] markers, [MASK]-padded queries, MaxSim).",
)
FAMILIES.register(
    "maxsim",
    "negviz.scorers.maxsim:EncoderMaxSim",
    title="MaxSim over encoder tokens",
    architecture="late-interaction",
    supports=("token_matrix",),
    description="MaxSim over the contextual token embeddings of any transformer encoder (no projection).",
)
FAMILIES.register(
    "splade",
    "negviz.scorers.splade:Splade",
    title="SPLADE",
    architecture="sparse",
    supports=(),
    description="naver/splade*: MLM logits, log(1+relu), max-pooled over tokens, dot product.",
)
FAMILIES.register(
    "tfidf",
    "negviz.scorers.tfidf:TfIdf",
    title="TF-IDF (NevIR protocol)",
    architecture="sparse",
    supports=(),
    description="TfidfVectorizer(stop_words='english') refit on [query, doc] per score; cosine of the two rows.",
)
FAMILIES.register(
    "bm25",
    "negviz.scorers.bm25:BM25",
    title="BM25",
    architecture="sparse",
    supports=(),
    description="BM25 (bm25s, Lucene formula); the collection is the unique documents of one scoring call, negation words kept.",
)
FAMILIES.register(
    "python",
    "negviz.scorers.external:PythonModel",
    title="Python object (negviz.evaluate)",
    architecture="external",
    supports=(),
    scores_only=True,
    description="A model a notebook or script held (a SentenceTransformer, a CrossEncoder, an object with "
    "encode(), a score function), evaluated with negviz.evaluate; its stored scores are analysed like any run.",
)
FAMILIES.register(
    "imported",
    "negviz.scorers.external:ImportedScores",
    title="Imported scores",
    architecture="external",
    supports=(),
    scores_only=True,
    description="Scores computed elsewhere (a 7B reranker, a closed API, a TREC run file) and imported with "
    "`negviz import-scores`; the model itself is not here, its stored scores are analysed like any run.",
)


def scores_only(family: str | None) -> bool:
    """Whether a family's runs hold scores only: the model cannot be loaded here (an imported
    file's, or an object that lived in a Python session), so views that run a model refuse it."""
    return bool(family) and family in FAMILIES and bool(FAMILIES.entry(family).meta.get("scores_only"))


def runnable_families() -> tuple[str, ...]:
    """Families negviz can load and run from a spec (pickers that start a model offer these)."""
    return tuple(e.name for e in FAMILIES.entries() if not e.meta.get("scores_only"))


def families_of_architecture(architecture: str) -> tuple[str, ...]:
    """The registered families of one architecture (e.g. "late-interaction": those with a token
    matrix). A family's architecture, not a dataset kind nor a run kind."""
    return tuple(e.name for e in FAMILIES.entries() if e.meta.get("architecture") == architecture)
