"""Write data/examples/: one small score file per dataset kind, in the layouts `negviz import-scores`
reads, made from the shipped BM25 runs (the first 10 items of each dataset, so each is a partial
file: import it with --allow-partial). Run: .venv/bin/python scripts/make_score_examples.py"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from negviz.core.paths import DATA_DIR
from negviz.datasets import load
from negviz.evaluation.item_scoring import scoring_inputs
from negviz.results.external.exporting import hit_frame, score_csv
from negviz.results.external.trec import run_lines
from negviz.store import portable

OUT = DATA_DIR / "examples"
RUNS = DATA_DIR / "runs"
FIRST = 10


def first_items(dataset: str, run_file: str) -> tuple[object, pd.DataFrame]:
    ds = load(dataset)
    scores = portable.read_scores(RUNS / run_file)
    keep = set(ds.kind.item_ids(ds.frame).head(FIRST))
    return ds, scores[scores["item_id"].isin(keep)].reset_index(drop=True)


def by_text(ds, scores: pd.DataFrame) -> pd.DataFrame:
    queries, docs, items, slots = scoring_inputs(ds.kind, ds.frame)
    text = pd.DataFrame({"item_id": items, "slot": slots, "query": queries, "document": docs})
    out = scores.merge(text, on=["item_id", "slot"])
    return out[["query", "document", "score"]].drop_duplicates(["query", "document"])


def main() -> None:
    OUT.mkdir(exist_ok=True)
    ds, scores = first_items("nevir", "nevir__bm25.parquet")
    Path(OUT / "nevir-scores.csv").write_text(score_csv(ds.kind, scores))
    ds, scores = first_items("demetr", "demetr__bm25.parquet")
    Path(OUT / "demetr-scores.csv").write_text(score_csv(ds.kind, scores))
    ds, scores = first_items("excluir", "excluir__bm25.parquet")
    by_text(ds, scores).to_json(OUT / "excluir-scores.jsonl", orient="records", lines=True, force_ascii=False)
    ds, scores = first_items("cannot", "cannot__bm25.parquet")
    by_text(ds, scores).to_csv(OUT / "cannot-scores.csv", index=False)
    corpus_scores = portable.read_scores(RUNS / "excluir-corpus-offline__bm25.parquet")
    hits = hit_frame(corpus_scores)
    queries = list(dict.fromkeys(load("excluir").frame["query_id"].astype(str)))[:FIRST]
    hits = hits[hits["query_id"].isin(queries) & (hits["rank"] <= 10)]
    Path(OUT / "excluir-offline-bm25.trec").write_text("".join(run_lines(hits, "bm25")))
    for path in sorted(OUT.iterdir()):
        print(path, path.stat().st_size)


if __name__ == "__main__":
    main()
