"""The layers of negviz: no import cycle between two files (function-level imports included,
scripts/import_cycles.py), and the import-linter contract (.importlinter) kept; the cycle finder
is checked on hand-made modules first, so a clean result means something."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import import_cycles  # noqa: E402  (a script, not a package)


def test_cycles_are_the_strongly_connected_parts():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}, "g": set()}
    assert import_cycles.cycles(edges) == [["a", "b", "c"], ["e", "f"]]
    assert import_cycles.cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_function_level_and_relative_imports_are_edges(tmp_path, monkeypatch):
    pkg = tmp_path / "negviz"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "low.py").write_text("def f():\n    from negviz.sub import high\n    return high\n")
    (pkg / "sub" / "high.py").write_text("from ..low import f\nimport negviz.sub.missing_name\n")
    monkeypatch.setattr(import_cycles, "ROOT", tmp_path)
    edges = import_cycles.graph()
    assert edges["negviz.low"] == {"negviz.sub.high"}
    assert edges["negviz.sub.high"] == {"negviz.low", "negviz.sub"}
    assert import_cycles.cycles(edges) == [["negviz.low", "negviz.sub.high"]]


def test_negviz_has_no_import_cycle_between_files():
    edges = import_cycles.graph()
    assert len(edges) > 150  # the whole package was read
    assert import_cycles.cycles(edges) == []


def test_the_import_linter_contract_is_kept():
    linter = Path(sys.executable).with_name("lint-imports")
    if not linter.exists():
        pytest.skip("import-linter is not installed (requirements.txt has it; `make lint` runs it)")
    done = subprocess.run([str(linter), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    declared = (ROOT / ".importlinter").read_text().count("[importlinter:contract:")
    assert declared >= 7  # the packages' layers, the layers inside four packages, llm, no streamlit
    assert f"Contracts: {declared} kept, 0 broken" in done.stdout
