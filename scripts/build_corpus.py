"""Build the offline test corpus, data/corpus/offline.parquet, from the shipped datasets.

    python scripts/build_corpus.py            # writes the file, prints counts and the sha256

Documents, in this order (the first occurrence of a text wins; later duplicates are dropped):
1. the ExcluIR sample's positive and excluded documents, doc_id = the paragraph's index in
   ExcluIR's corpus.json (``pos_corpus_index``/``neg_corpus_index``), so the same ids work
   against the full 90,406-paragraph corpus; title = the paragraph's first line;
2. NevIR test passages: ``nevir-<pair_id>-d1`` / ``-d2``;
3. CANNOT sentences: ``cannot-<pair_id>-s1`` / ``-s2``;
4. DEMETR English references and machine translations (not the 30k perturbed copies, which are
   near-duplicates): ``demetr-<item_id>-ref`` / ``-mt``.
Texts are kept byte for byte; duplicates are found on whitespace-collapsed text. Ids depend
only on the shipped files, so a rebuild gives the same ids and bytes.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from negviz.datasets.shipped import read_shipped  # noqa: E402
from negviz.evaluation.retrieval.corpus import OFFLINE_FILE, normalise  # noqa: E402


def rows() -> list[tuple[str, str, str, str]]:
    """(doc_id, text, title, source) in build order, before de-duplication."""
    out: list[tuple[str, str, str, str]] = []
    ex = read_shipped("excluir")
    for role in ("pos", "neg"):
        for idx, text in zip(ex[f"{role}_corpus_index"], ex[f"{role}_doc"]):
            out.append((str(int(idx)), text, text.split("\n", 1)[0].strip(), "excluir"))
    nv = read_shipped("nevir")
    for col in ("d1", "d2"):
        out += [(f"nevir-{pid}-{col}", t, "", "nevir") for pid, t in zip(nv["pair_id"], nv[col])]
    cn = read_shipped("cannot")
    for col, tag in (("sentence1", "s1"), ("sentence2", "s2")):
        out += [(f"cannot-{pid}-{tag}", t, "", "cannot") for pid, t in zip(cn["pair_id"], cn[col])]
    dm = read_shipped("demetr").drop_duplicates("item_id").sort_values("item_id", kind="stable")
    for col, tag in (("reference", "ref"), ("candidate", "mt")):
        out += [(f"demetr-{iid}-{tag}", t, "", "demetr") for iid, t in zip(dm["item_id"], dm[col])]
    return out


def build() -> pd.DataFrame:
    seen_ids: set[str] = set()
    seen_text: set[str] = set()
    kept = []
    for doc_id, text, title, source in rows():
        key = " ".join(text.split())
        if not key or key in seen_text or doc_id in seen_ids:
            continue  # the ExcluIR sample repeats documents across queries: same id, same text
        seen_text.add(key)
        seen_ids.add(doc_id)
        kept.append((doc_id, text, title, source))
    frame = pd.DataFrame(kept, columns=["doc_id", "text", "title", "source"])
    normalise(frame, "offline corpus")  # the same validation every corpus passes
    return frame


def main() -> int:
    frame = build()
    OFFLINE_FILE.parent.mkdir(parents=True, exist_ok=True)
    frame.to_parquet(OFFLINE_FILE, index=False, compression="zstd", use_dictionary=["source", "title"])
    digest = hashlib.sha256(OFFLINE_FILE.read_bytes()).hexdigest()
    print(
        f"{OFFLINE_FILE.relative_to(ROOT)}: {len(frame):,} documents, {OFFLINE_FILE.stat().st_size:,} bytes, "
        f"sha256 {digest}"
    )
    print(frame["source"].value_counts().to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
