"""The shipped datasets, registered by name (one entry each); their origin and licence are in
data/SOURCES.md. ``negviz.datasets.load`` and the added datasets' name check both read it."""

from __future__ import annotations

from negviz.core.options import Option
from negviz.core.registry import Registry
from negviz.core.schema import EXCLUSION, PAIRS, PERTURBATION, SENTENCE_PAIRS
from negviz.datasets.facts import kind_facts

DATASETS = Registry("dataset")
DATASETS.register(
    "nevir",
    "negviz.datasets.shipped:load_nevir",
    **kind_facts(PAIRS),
    title="NevIR",
    description="Contrast pairs (q1, d1, q2, d2) that differ only by negation; a pair counts "
    "only if both queries rank their own document first. Joined with CondaQA for the negation "
    "cue and edit type.",
    splits=("test", "train", "validation"),
    source="orionw/NevIR (test split), joined with AbhilashaRavichander/CondaQA",
    licence="MIT (NevIR); Apache-2.0 (CondaQA cue metadata)",
    n=1383,
)
DATASETS.register(
    "excluir",
    "negviz.datasets.shipped:load_excluir",
    **kind_facts(EXCLUSION),
    title="ExcluIR (1,000-query sample)",
    description="Exclusionary queries with a positive document and an excluded one; Right Rank "
    "is the share of queries whose positive is ranked above the excluded document.",
    splits=("test",),
    source="zwh-sdu/ExcluIR manual test set, seed-42 sample from 01tilinfinity/FLIP",
    licence="unclear (no licence file); HotpotQA/Wikipedia text is CC BY-SA 4.0",
    n=1000,
)
DATASETS.register(
    "demetr",
    "negviz.datasets.shipped:load_demetr",
    **kind_facts(PERTURBATION),
    title="DEMETR",
    description="35 perturbations of 1,000 machine translations (negation, antonym, ...); a "
    "metric should score the perturbed translation below the correct one.",
    splits=("test",),
    source="marzenakrp/demetr",
    licence="MIT",
    n=35000,
    options=(
        Option("perturbations", None, None, "comma list of DEMETR perturbation names (default: all 35)"),
        Option("checked_only", bool, False, "keep only items whose perturbation was checked (pert_check)"),
    ),
)
DATASETS.register(
    "cannot",
    "negviz.datasets.shipped:load_cannot",
    **kind_facts(SENTENCE_PAIRS),
    title="CANNOT (per-source files)",
    description="Sentences paired with their negation (label 1) or, for SemAntoNeg, a paraphrase "
    "(label 0); a negation-aware model gives negated pairs low similarity.",
    splits=("test", "train", "heldout"),
    source="dmlls/cannot-dataset (processed per-source files)",
    licence="CC BY-SA 4.0",
    n=25948,
    options=(Option("sources", None, None, "comma list of CANNOT sources (default: all)"),),
)
