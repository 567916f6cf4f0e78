"""Pages run in parallel script threads, and the MaxSim page once failed under load with
"cannot import name 'AutoModel' from 'transformers'": transformers resolves its names lazily, and
two threads importing it at once can each see it half initialised. Through
negviz.core.heavy.heavy_import, 16 threads released together in a fresh interpreter import
transformers' and sentence-transformers' names with no error, every time. (The same threads with
plain `from transformers import AutoModel` failed that way in 2 of 4 fresh interpreters here.)"""

from __future__ import annotations

import subprocess
import sys

import pytest

from negviz.core.paths import ROOT

THREADS = 16
REPEATS = 2
CHILD = f"""
import threading
from negviz.core.heavy import heavy_import

WANTED = [
    ("transformers", "AutoModel", "AutoTokenizer"),
    ("sentence_transformers", "CrossEncoder"),
    ("transformers", "AutoModelForMaskedLM"),
]
start, errors = threading.Barrier({THREADS}), []


def work(i):
    start.wait()
    try:
        found = heavy_import(*WANTED[i % len(WANTED)])
        assert all(callable(f) for f in (found if isinstance(found, tuple) else (found,)))
    except Exception as exc:
        errors.append(f"{{type(exc).__name__}}: {{exc}}"[:300])


threads = [threading.Thread(target=work, args=(i,)) for i in range({THREADS})]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(len(errors), *errors[:3], sep="\\n")
"""


@pytest.mark.parametrize("repeat", range(REPEATS))
def test_many_threads_import_transformers_at_once_without_an_error(repeat):
    pytest.importorskip("sentence_transformers")
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines()[0] == "0", done.stdout
