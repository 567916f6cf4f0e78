"""Build data/taxonomy/<dataset>_detected.parquet (labels.SHIPPED_DETECTION: DEMETR's 35,000
items, 13-20 s to detect; CANNOT's 25,948 test pairs, about 10 s): the taxonomy detection of every
item (negviz.language.taxonomy.labels._detected) with a digest of the texts it compared, so the pages and
the CLI read it instead of detecting again (labels.shipped_detection). Run after a change to the
detector or the data:  python scripts/build_detected_types.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from negviz.core.paths import DATA_DIR  # noqa: E402
from negviz.datasets import load  # noqa: E402
from negviz.language.taxonomy.labels import SHIPPED_DETECTION, _detected, detection_texts  # noqa: E402


def main() -> None:
    for name, file in SHIPPED_DETECTION.items():
        ds = load(name)
        frame = ds.frame.reset_index(drop=True)
        out = _detected(ds.kind, frame).assign(text_digest=detection_texts(ds.kind, frame))
        out.to_parquet(DATA_DIR / "taxonomy" / file, index=False)
        print(f"{file}: {len(out):,} items, {out['type'].ne('none').sum():,} with a negation type")


if __name__ == "__main__":
    main()
