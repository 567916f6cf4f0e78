"""Guards of the architecture: the library never imports streamlit; registries stay lazy."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_library_never_imports_streamlit():
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "negviz").rglob("*.py")
        if "ui" not in p.relative_to(ROOT / "negviz").parts and "streamlit" in imported_modules(p)
    ]
    assert offenders == []


def test_importing_registries_and_cli_does_not_import_torch():
    code = (
        "import sys, negviz.scorers, negviz.datasets, negviz.cli, negviz.metrics, negviz.catalog;"
        "print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_pages_stay_thin():
    for page in (ROOT / "pages").glob("*.py"):
        assert len(page.read_text().splitlines()) < 150, page.name
