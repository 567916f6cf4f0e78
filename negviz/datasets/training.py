"""The training sources `negviz finetune --train` offers besides a file, declared once: each one's
name, the shipped dataset it draws its training items from, whether it trains on triplets, how
its held-out part is measured, and what it is in words.

negviz.finetune.data loads them; the model catalog (negviz.evaluation.catalog) reads which
dataset a checkpoint trained on part of, so none of its cells there is read as held out; the
CLI's --help and the Fine-tune form say what each is from here. A new source is one entry here
and its loader in negviz.finetune.data.
"""

from __future__ import annotations

from dataclasses import dataclass

from negviz.core.kinds import EXCLUSION, PAIRS, SENTENCE_PAIRS


@dataclass(frozen=True)
class TrainingSource:
    name: str  # the --train value
    dataset: str | None  # the shipped dataset its training items come from (None: chosen when it runs)
    help: str  # what it is, for --help and the Fine-tune form ("": its name says it)
    triplets: bool = False  # (anchor, positive, negative) triplets, not NevIR pairs
    heldout_kind: str = PAIRS  # the kind its held-out part is measured as (negviz.finetune.run)
    choices: tuple[str, ...] = ()  # a source chosen when it runs: the sources it may become
    # the split of its dataset it never trains on, where `negviz eval` may score its checkpoints
    # (None: none; its held-out part is measured by the fine-tuning run, read by the board)
    unseen_split: str | None = None


AUTO = "auto"
NEVIR_SPLIT = "nevir-split"
NEVIR_TRAIN = "nevir-train"
CANNOT = "cannot"
EXCLUIR_SPLIT = "excluir-split"
SOURCES: dict[str, TrainingSource] = {
    s.name: s
    for s in (
        TrainingSource(
            AUTO, None, "NevIR train from the Hub when reachable, else nevir-split", choices=(NEVIR_TRAIN, NEVIR_SPLIT)
        ),
        TrainingSource(NEVIR_SPLIT, "nevir", "offline: passage-disjoint split of the shipped NevIR test"),
        TrainingSource(NEVIR_TRAIN, "nevir", "", unseen_split="test"),  # NevIR train (Hub); held out: NevIR test
        # held out: the CANNOT dataset's seeded heldout part
        TrainingSource(
            CANNOT,
            "cannot",
            "sentence/negation pairs of the shipped CANNOT files",
            True,
            SENTENCE_PAIRS,
            unseen_split="heldout",
        ),
        TrainingSource(
            EXCLUIR_SPLIT,
            "excluir",
            "offline: query-disjoint split of the shipped ExcluIR sample as query/document/excluded-document triplets",
            True,
            EXCLUSION,
        ),
    )
}


def sources_help(more: str) -> str:
    """Every source with what it is, then ``more`` (what else the field takes), in one line: the
    CLI's --help and the Fine-tune form's."""
    named = [f"{s.name} ({s.help})" if s.help else s.name for s in SOURCES.values()]
    return f"{', '.join(named)}, {more}"


def trained_datasets(source: str) -> list[str]:
    """The shipped datasets a run trained with ``source`` drew its training items from ([] for a
    file). A run stores the source ``auto`` resolved to (negviz.finetune.data.as_trained); a record
    older than that names ``auto`` itself, and is read as trained on every dataset its choices draw
    on (all of auto's draw on NevIR), so none of its cells is ever read as held out."""
    found = SOURCES.get(source)
    if found and found.choices:
        return sorted({d for choice in found.choices for d in trained_datasets(choice)})
    return [found.dataset] if found and found.dataset else []


def chosen_when_run(source: str) -> bool:
    """Whether ``source`` names a choice made when the run started (auto), not the data itself:
    a record naming it (made before runs stored the resolved source) does not say which."""
    found = SOURCES.get(source)
    return bool(found and found.choices)


def unseen_split(source: str) -> str | None:
    """The split of its dataset a checkpoint trained with ``source`` never saw (None: none; its
    held-out part lives in the fine-tuning run). For auto, the split every choice leaves unseen,
    else None: a record naming auto is never evaluated where it may have trained."""
    found = SOURCES.get(source)
    if found and found.choices:
        splits = {unseen_split(choice) for choice in found.choices}
        return splits.pop() if len(splits) == 1 else None
    return found.unseen_split if found else None
