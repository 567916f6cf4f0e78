"""Model families behind one Scorer interface, registered lazily (importing this is cheap).

A new family is one module plus one line here. Metadata drives the UI and the CLI:
``architecture`` groups families as in NevIR Table 2, ``supports`` lists the family extras
(``embeddings`` for bi-encoders, ``token_matrix`` for late interaction).
"""

from __future__ import annotations

from negviz.core.registry import Registry

LATE_INTERACTION = "late-interaction"  # the architecture of MaxSim families (a token matrix)
FAMILIES = Registry("model family")
FAMILIES.register(
    "bi-encoder",
    "negviz.scorers.bi_encoder:BiEncoder",
    score="dot product",
    title="Bi-encoder",
    architecture="bi-encoder",
    supports=("embeddings",),
    description="Any sentence-transformers model; dot product by default (as the NevIR code), cosine optional.",
)
FAMILIES.register(
    "cross-encoder",
    "negviz.scorers.cross_encoder:CrossEncoderScorer",
    score="logit",
    title="Cross-encoder",
    architecture="cross-encoder",
    supports=(),
    description="sentence-transformers CrossEncoder; 3-way NLI heads are scored by the entailment logit (id2label).",
)
FAMILIES.register(
    "monot5",
    "negviz.scorers.monot5:MonoT5",
    score="log-odds of 'true'",
    title="MonoT5",
    architecture="cross-encoder",
    supports=(),
    description='castorini/monot5-*: score = log-probability of "true" against "false" for the first decoded token.',
)
FAMILIES.register(
    "llm-pointwise",
    "negviz.scorers.llm_pointwise:LLMPointwise",
    score="log-odds of 'true'",
    title="Generative reranker (pointwise)",
    architecture="generative",
    supports=("reasoning",),
    description='A causal LM asked "does the document answer the query?"; score = log P(true) against false '
    "(templates: yes-no, true-false, Rank1 with reasoning); local transformers/GGUF or an OpenAI-compatible endpoint.",
)
FAMILIES.register(
    "llm-listwise",
    "negviz.scorers.llm_listwise:LLMListwise",
    score="listwise rank score",
    title="Generative reranker (listwise)",
    architecture="generative",
    supports=("reasoning",),
    description="RankGPT's permutation prompt over each query's candidates (sliding window); "
    "first-named scores highest, unnamed documents tie; local transformers/GGUF or an OpenAI-compatible endpoint.",
)
FAMILIES.register(
    "colbert",
    "negviz.scorers.colbert:ColBERT",
    score="MaxSim: sum of token cosines",
    title="ColBERT",
    architecture=LATE_INTERACTION,
    supports=("token_matrix",),
    description="ColBERT checkpoints (BERT + linear projection, [Q]/[D] markers, [MASK]-padded queries, MaxSim).",
)
FAMILIES.register(
    "maxsim",
    "negviz.scorers.maxsim:EncoderMaxSim",
    score="MaxSim: sum of token cosines",
    title="MaxSim over encoder tokens",
    architecture=LATE_INTERACTION,
    supports=("token_matrix",),
    description="MaxSim over the contextual token embeddings of any transformer encoder (no projection).",
)
FAMILIES.register(
    "splade",
    "negviz.scorers.splade:Splade",
    score="sparse dot product",
    title="SPLADE",
    architecture="sparse",
    supports=(),
    description="naver/splade*: MLM logits, log(1+relu), max-pooled over tokens, dot product.",
)
FAMILIES.register(
    "tfidf",
    "negviz.scorers.tfidf:TfIdf",
    score="TF-IDF cosine",
    title="TF-IDF (NevIR protocol)",
    architecture="sparse",
    supports=(),
    description="TfidfVectorizer(stop_words='english') refit on [query, doc] per score; cosine of the two rows.",
)
FAMILIES.register(
    "bm25",
    "negviz.scorers.bm25:BM25",
    score="BM25 score",
    title="BM25",
    architecture="sparse",
    supports=(),
    description="BM25 (bm25s, Lucene formula); the collection is the unique documents of one scoring call, negation words kept.",
)
FAMILIES.register(
    "python",
    "negviz.scorers.external:PythonModel",
    score="the model's own score",
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
    score="the imported score",
    title="Imported scores",
    architecture="external",
    supports=(),
    scores_only=True,
    description="Scores computed elsewhere (a 7B reranker, a closed API, a TREC run file) and imported with "
    "`negviz import-scores`; the model itself is not here, its stored scores are analysed like any run.",
)


def score_unit(family: str | None, options: dict | None = None) -> str:
    """What a family's score is (its unit, for an axis title): scores of different families, and of
    one family under other options, live on different scales."""
    options = options or {}
    if family == "bi-encoder" and (options.get("similarity") == "cosine" or options.get("normalize")):
        return "cosine"
    if family == "maxsim" and options.get("similarity") == "l2":
        return "MaxSim: sum of token −‖q−d‖²"
    if family and family in FAMILIES:
        return str(FAMILIES.entry(family).meta.get("score") or "score")
    return "score"


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
