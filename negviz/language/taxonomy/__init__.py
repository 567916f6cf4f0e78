"""Negation taxonomy: which kind of negation a pair holds, and why it got that type.

    from negviz.language.taxonomy import TYPES, find_cues, type_of_cue, detect, label_pairs
    type_of_cue("unsuccessful")                      # 'affixal'
    find_cues("He did not refuse.")                  # [Cue(3, 6, 'not', 'sentential'), Cue(7, 13, 'refuse', 'implicit')]
    detect("Who had no love for the violin?", "Who had love for the violin?", ("q1", "q2"))
    label_pairs("nevir")                             # item_id, type, cue, label_source, evidence, where

The types are the Petcu et al. taxonomy (Fig. 2, Table 3) kept as data in data/taxonomy/
(types.csv, lexicon.csv, quantifiers.csv, antonyms.csv, affixes.csv, cue_types.csv,
affixal_exceptions.txt); ``Taxonomy.from_labels`` replaces it with a dataset's own labels.
"""

from negviz.language.taxonomy.cues import Cue, Detection, detect, detect_one, explain_cue, find_cues, type_of_cue
from negviz.language.taxonomy.labels import (
    ANNOTATION_KEY,
    ANNOTATOR,
    DATASET_LABEL,
    DETECTED,
    GOLD_CUE,
    LABEL_COLUMNS,
    SOURCES,
    distribution_summary,
    label_pairs,
    source_words,
    taxonomy_for,
    type_distribution,
)
from negviz.language.taxonomy.types import NONE, TAXONOMY, TYPES, NegationType, Taxonomy

__all__ = [
    "ANNOTATION_KEY",
    "ANNOTATOR",
    "Cue",
    "DATASET_LABEL",
    "DETECTED",
    "Detection",
    "GOLD_CUE",
    "LABEL_COLUMNS",
    "NONE",
    "NegationType",
    "SOURCES",
    "TAXONOMY",
    "TYPES",
    "Taxonomy",
    "detect",
    "detect_one",
    "explain_cue",
    "distribution_summary",
    "find_cues",
    "label_pairs",
    "source_words",
    "taxonomy_for",
    "type_distribution",
    "type_of_cue",
]
