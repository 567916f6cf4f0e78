"""Every import of an optional heavy library in negviz/ and pages/ goes through
negviz.core.heavy.heavy_import (one lock: page threads never import one at the same time), and
none is imported at a module's top (the library loads them when a model is used)."""

from __future__ import annotations

import ast
from pathlib import Path

from negviz.core.heavy import HEAVY

ROOT = Path(__file__).resolve().parents[2]
# A notebook's own objects (negviz.evaluate), never reached from a page.
NOT_FROM_PAGES = {"negviz/scorers/external.py"}


def heavy_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if n.split(".")[0] in HEAVY]
    return found


def test_no_heavy_library_is_imported_but_through_heavy_import():
    files = [*sorted((ROOT / "negviz").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py")), ROOT / "app.py"]
    direct = [hit for f in files if str(f.relative_to(ROOT)) not in NOT_FROM_PAGES for hit in heavy_imports(f)]
    assert direct == [], "import these through negviz.core.heavy.heavy_import:\n" + "\n".join(direct)
