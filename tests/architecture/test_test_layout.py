"""The test suite's own layout (tests/README.md): every test file lives in the directory of what it
tests, each such directory is a package named in the README's map, and a test's tier (the
``browser`` and ``slow`` markers) comes from its directory alone."""

import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import BROWSER_DIRS, LONGEST_FILES, LONGEST_FIRST, SLOW_DIRS, collection_rank, leaves_out

TESTS = Path(__file__).resolve().parents[1]
NOT_TESTS = {"support", "data", "__pycache__"}


def tier_directories() -> list[Path]:
    return sorted(d for d in TESTS.iterdir() if d.is_dir() and d.name not in NOT_TESTS)


def test_every_test_file_lives_in_a_directory_of_its_tier():
    assert sorted(p.name for p in TESTS.glob("test_*.py")) == []
    assert not list((TESTS / "support").rglob("test_*.py")), "support/ holds helpers, not tests"
    for folder in tier_directories():
        assert (folder / "__init__.py").exists(), f"{folder.name}/ is not a package"
        assert list(folder.glob("test_*.py")), f"{folder.name}/ holds no test file"


def test_the_readme_maps_every_directory_and_names_the_slow_ones():
    readme = (TESTS / "README.md").read_text()
    mapped = set(re.findall(r"`([a-z_]+)/`", readme))
    assert {d.name for d in tier_directories()} <= mapped
    for name in SLOW_DIRS:
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{name}/`"))
        assert row.rstrip(" |").endswith("slow"), row


def test_the_markers_come_from_the_directory():
    """`make test-fast`'s selection, collected: a page test and a browser test are left out by their
    directory, a unit test in core/ is kept (none of the three carries a marker of its own)."""
    files = ["tests/pages/test_board_page.py", "tests/browser/test_board.py", "tests/core/test_outcomes.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + ["-m", "not browser and not slow", *files],
        cwd=TESTS.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    kept = {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}
    assert kept == {"tests/core/test_outcomes.py"}, done.stdout + done.stderr
    assert BROWSER_DIRS <= SLOW_DIRS, "a browser test is slow too"


def test_the_long_tiers_are_collected_first():
    """The order the Makefile hands test files to the workers: the longest files (LONGEST_FILES)
    first, then the slow tiers, in LONGEST_FIRST's order (the page tours and child processes before
    the AppTest pages), each in collection order, then the fast tiers' files with the most tests
    first (tests/conftest.py sorts the items stably by this rank, so a file stays whole)."""
    files = {  # a file and how many tests it holds
        "core/test_outcomes.py": 5,
        "concurrency/test_store_writers.py": 4,
        "concurrency/test_fill_on_ray.py": 7,
        "pages/test_board_page.py": 9,
        "browser/test_board.py": 2,
        "processes/test_server_stop.py": 1,
        "processes/test_server_start.py": 3,
        "scorers/test_contract.py": 120,
        "analyses/test_board.py": 9,
    }
    ordered = sorted(files, key=lambda name: collection_rank(TESTS / name, files[name]))
    assert ordered == [
        "concurrency/test_fill_on_ray.py",
        "browser/test_board.py",
        "processes/test_server_stop.py",
        "processes/test_server_start.py",
        "concurrency/test_store_writers.py",
        "pages/test_board_page.py",
        "scorers/test_contract.py",
        "analyses/test_board.py",
        "core/test_outcomes.py",
    ]
    assert set(LONGEST_FIRST) == SLOW_DIRS
    assert all((TESTS / name).is_file() for name in LONGEST_FILES), "a longest file was moved or renamed"


def test_a_marker_expression_leaves_out_a_tier_only_when_no_test_there_can_match():
    """The directories `make test-fast` does not collect at all: those its -m deselects whatever
    other marker a test there carries."""
    assert leaves_out("not browser and not slow", "pages") and leaves_out("not browser and not slow", "browser")
    assert leaves_out("not browser", "browser") and not leaves_out("not browser", "pages")
    assert not leaves_out("slow", "processes") and not leaves_out("browser", "browser")
    assert not leaves_out("not slow or gpu", "models")  # a models test marked gpu would be selected


def test_every_module_with_logic_has_a_test_file_of_its_name():
    """The tests of negviz/<package>/<module>.py are in tests/<package>/test_<module>.py, also for
    a module one package further down (negviz/evaluation/retrieval/index.py: tests/evaluation/);
    a module that only re-exports or holds constants needs none."""
    import ast

    negviz = TESTS.parent / "negviz"
    missing = []
    for module in sorted(negviz.rglob("*.py")):
        if module.name in ("__init__.py", "__main__.py"):
            continue
        tree = ast.parse(module.read_text())
        if not any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in tree.body):
            continue
        parts = module.relative_to(negviz).parts
        assert len(parts) > 1, f"{module.name}: negviz/ holds packages only (README, Layout)"
        folder = parts[0]
        if not (TESTS / folder / f"test_{module.stem}.py").exists():
            missing.append(f"{module.relative_to(TESTS.parent)} -> tests/{folder}/test_{module.stem}.py")
    assert missing == [], "modules without their test file:\n" + "\n".join(missing)
