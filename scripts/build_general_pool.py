"""Write data/corpus/general_pool.parquet: BM25's top 30 over the offline corpus for each of the
shipped ExcluIR sample's original questions (question0), the fixed candidate pools of the
per-epoch retrieval figure without negation (negviz.finetune.general). Model-independent, so it
is computed once here instead of in every fine-tuning run; tests/finetune/test_general.py checks
it against BM25 run live. Usage: python scripts/build_general_pool.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from negviz.finetune.general import POOL_FILE, bm25_pools  # noqa: E402


def main() -> None:
    from negviz.datasets import load

    sample = load("excluir").frame
    pools = bm25_pools(sample["question0"].tolist())
    out = pd.DataFrame(
        {
            "query_id": [q for q, pool in zip(sample["query_id"], pools) for _ in pool],
            "rank": [r for pool in pools for r in range(1, len(pool) + 1)],
            "doc_id": [d for pool in pools for d in pool],
        }
    )
    out.to_parquet(POOL_FILE, index=False, compression="zstd")
    print(f"{POOL_FILE}: {len(sample)} questions, {len(out)} rows, {POOL_FILE.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
