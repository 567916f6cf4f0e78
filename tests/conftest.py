"""Shared test setup: offline Hub, a throwaway negviz cache, tiny models built once.

The environment is set when this file is imported, before any test module imports
huggingface_hub (which reads HF_HUB_OFFLINE once, at import).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Callable

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"  # never reach for the network; missing models must fail fast
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # also quiets transformers' bars
_SESSION_CACHE = tempfile.mkdtemp(prefix="negviz-test-cache-")
os.environ["NEGVIZ_CACHE_DIR"] = _SESSION_CACHE  # the user's real cache stays untouched
# Processes the tests start (spawned writers, app servers) inherit this: pyarrow's default
# allocator aborted a spawned writer once on a loaded machine ("cannot create default memory
# pool", SIGABRT); the system allocator serves the same, and the store is what those tests test.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
# A store a test opens through the CLI, negviz.evaluate or the app holds what the test put in it
# (negviz.store.open_store); a test of the shipped runs in every store deletes this variable
# (monkeypatch.delenv), and an app server started by tests/support/browser.serve runs without it.
os.environ["NEGVIZ_NO_SHIPPED_RUNS"] = "1"
# One torch (OpenMP) thread per core among the xdist workers, for them and the processes they start:
# torch's default is a thread per core in every process, so 2 workers on 2 cores ran 4 compute
# threads, and OpenMP threads spin while they wait (tests/README.md, "Where the time goes").
# Set before anything here imports torch; a test or a job that asks for a thread count still gets it.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 0)
if _WORKERS > 1:
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // _WORKERS)))


# A test's tier is the directory it lives in (tests/README.md): `make test-fast`
# (-m "not browser and not slow") keeps to the unit, contract and store tests.
TESTS_DIR = Path(__file__).resolve().parent
BROWSER_DIRS = {"browser"}  # Playwright in Chromium
SLOW_DIRS = BROWSER_DIRS | {
    "pages",  # the whole app in AppTest over a copy of the shipped runs
    "concurrency",  # several processes at once on one store or cache (races, a killed child)
    "processes",  # negviz in a child process as a user runs it: CLI exits, jobs, kills, mounts
    "models",  # real model weights over whole datasets or many items
    "report",  # whole reports built, their figures exported to SVG through kaleido
}


def tier_of(path: Path) -> str:
    """The directory under tests/ that holds a test file ("" for one outside them)."""
    path = Path(path).resolve()
    if not path.is_relative_to(TESTS_DIR):
        return ""
    parts = path.relative_to(TESTS_DIR).parts
    return parts[0] if len(parts) > 1 else ""


# The slow tiers' files run first, longest kind first, then the fast tiers' files with the most
# tests first (xdist's own order, which starts the fast tier's largest file, scorers/test_contract.py,
# at once). The Makefile hands the files out to the workers one at a time in this order (--dist
# loadfile --no-loadscope-reorder): the long files start at once and the many short ones fill the
# end. xdist's order alone put the slow tiers' few long multi-process tests last, where one worker
# ran them alone for minutes.
LONGEST_FIRST = ("browser", "processes", "concurrency", "report", "pages", "models")
# Files longer than any other, started before all of them: the Ray file alone holds one worker for
# several minutes (tests/README.md, "Where the time goes"); handed out after the browser and process
# tiers, it was the last file still running while the other worker had finished.
LONGEST_FILES = ("concurrency/test_fill_on_ray.py",)


def pytest_collection_modifyitems(config, items):  # noqa: ARG001
    for item in items:
        tier = tier_of(item.path)
        if tier in BROWSER_DIRS:
            item.add_marker(pytest.mark.browser)
        if tier in SLOW_DIRS:
            item.add_marker(pytest.mark.slow)
    per_file: dict[Path, int] = {}
    for item in items:
        per_file[item.path] = per_file.get(item.path, 0) + 1
    items.sort(key=lambda item: collection_rank(item.path, per_file[item.path]))  # stable: a file stays whole


def collection_rank(path: Path, tests_in_file: int) -> tuple[int, int]:
    """Where a test file's tests go in the run: first the LONGEST_FILES in their order, then its
    slow tier's place in LONGEST_FIRST (in collection order within it), else after every slow
    tier, the files with more tests first."""
    path = Path(path).resolve()
    if path.is_relative_to(TESTS_DIR) and (name := path.relative_to(TESTS_DIR).as_posix()) in LONGEST_FILES:
        return -1, LONGEST_FILES.index(name)
    tier = tier_of(path)
    if tier in LONGEST_FIRST:
        return LONGEST_FIRST.index(tier), 0
    return len(LONGEST_FIRST), -tests_in_file


def pytest_ignore_collect(collection_path, config):
    """A run whose -m leaves the slow tiers out (`make test-fast`) does not collect their
    directories: importing their modules cost every worker seconds for tests it then deselects."""
    path = Path(collection_path)
    if path.parent != TESTS_DIR or path.name not in SLOW_DIRS or not config.option.markexpr:
        return None
    return True if leaves_out(config.option.markexpr, path.name) else None


def leaves_out(markexpr: str, tier: str) -> bool:
    """Whether ``-m markexpr`` deselects every test of the tier's directory, whatever other
    markers a test there carries (the tier's own markers come from the directory)."""
    from _pytest.mark.expression import Expression

    own = {"slow"} | ({"browser"} if tier in BROWSER_DIRS else set())
    expression = Expression.compile(markexpr)
    return not any(
        expression.evaluate(lambda name, /, **_: name in own or (others and name not in ("slow", "browser")))
        for others in (False, True)
    )


def pytest_unconfigure(config):  # noqa: ARG001
    shutil.rmtree(_SESSION_CACHE, ignore_errors=True)


def _late(builder: str) -> Callable[[Path], Path]:
    """A builder from tests/support/tiny/late.py, looked up when used (skips while it does not exist)."""

    def build(path: Path) -> Path:
        late = pytest.importorskip("tests.support.tiny.late")
        if not hasattr(late, builder):
            pytest.skip(f"tests.support.tiny.late.{builder} does not exist yet")
        return getattr(late, builder)(path)

    return build


def _bert(path: Path) -> Path:
    from tests.support.tiny.bert import build_tiny_bert

    return build_tiny_bert(path)


def _sentence_transformer(path: Path) -> Path:
    from tests.support.tiny.bert import build_tiny_sentence_transformer

    return build_tiny_sentence_transformer(path)


def _cross(num_labels: int) -> Callable[[Path], Path]:
    def build(path: Path) -> Path:
        from tests.support.tiny.cross import build_tiny_cross_encoder

        return build_tiny_cross_encoder(path, num_labels=num_labels)

    return build


def _t5(path: Path) -> Path:
    from tests.support.tiny.t5 import build_tiny_t5

    return build_tiny_t5(path)


def _causal(path: Path) -> Path:
    from tests.support.tiny.causal import build_tiny_causal_lm

    return build_tiny_causal_lm(path)


# Tiny checkpoint per model family (None: the family needs no files).
TINY_BUILDERS: dict[str, Callable[[Path], Path] | None] = {
    "bi-encoder": _sentence_transformer,
    "cross-encoder": _cross(3),
    "cross-encoder-1": _cross(1),  # single-logit head
    "monot5": _t5,
    "llm-pointwise": _causal,
    "llm-listwise": _causal,
    "colbert": _late("build_tiny_colbert"),
    "maxsim": _bert,
    "splade": _late("build_tiny_splade"),
    "tfidf": None,
    "bm25": None,
}


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory) -> Callable[[str], Path | None]:
    """``tiny_model_dir(name)``: the folder of a tiny checkpoint, built on first request only
    (so a run that needs no torch model builds none) and shared by the whole test run."""
    built: dict[str, Path | None] = {}

    def build(builder: Callable[[Path], Path], folder: Path) -> None:
        made = builder(folder / "model")
        (folder / "entry").write_text(str(made.relative_to(folder)))  # the checkpoint's folder

    def get(name: str) -> Path | None:
        if name not in built:
            builder = TINY_BUILDERS[name]
            if builder is None:
                built[name] = None
            else:  # one build per test run, shared by the xdist workers
                folder = built_once(tmp_path_factory, f"tiny-{name}", lambda f: build(builder, f))
                built[name] = folder / (folder / "entry").read_text()
        return built[name]

    return get


def run_shared_dir(tmp_path_factory) -> Path:
    """A folder shared by every process of this test run: the xdist workers' temporary folders
    sit side by side under one run folder (a run without workers has its own)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """``run folder/name``, built by ``build(folder)`` by the first process of the run that
    asks; the others wait on a file lock, then use what it built."""
    from filelock import FileLock

    shared = run_shared_dir(tmp_path_factory)
    done = shared / name
    with FileLock(str(shared / f"{name}.lock")):
        if not done.exists():
            partial = shared / f"{name}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            partial.mkdir()
            build(partial)
            partial.rename(done)  # whole or absent: a process killed mid-build leaves no half store
    return done


def _build_shipped_store(folder: Path) -> None:
    from negviz.core.paths import DATA_DIR
    from negviz.store import Store

    store = Store(f"sqlite:///{folder / 'results.sqlite'}")
    try:
        store.ensure_bundled(DATA_DIR / "runs", lazy=True)
        store.load_pending()
    finally:
        store.close()  # the last connection's close checkpoints the WAL into the file copied


def shipped_store_path(tmp_path_factory) -> Path:
    return built_once(tmp_path_factory, "shipped-store", _build_shipped_store) / "results.sqlite"


@pytest.fixture(scope="session")
def shipped_store_file(tmp_path_factory) -> Path:
    """A SQLite store holding every shipped run with its item scores, built once per test run
    (shared by the xdist workers). Page tests start from a copy: a fresh store would copy the
    shipped scores in again, in a background thread that outlives its test and competes with the
    next ones for the CPU. The first-start path itself (records at once, scores later) is tested
    in tests/store/test_store.py."""
    return shipped_store_path(tmp_path_factory)


def pytest_sessionstart(session):
    """With xdist workers, the controller (idle while they start and collect) builds the shipped-runs
    store in a thread, so no worker waits on the lock while another builds it (~6 s)."""
    config = session.config
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", None):
        return
    import threading

    factory = config._tmp_path_factory
    threading.Thread(target=shipped_store_path, args=(factory,), name="shipped-store", daemon=True).start()


@pytest.fixture(scope="module")
def shipped_store(shipped_store_file, tmp_path_factory):
    """A test module's own copy of the shipped-runs store, open (reads only, or writes that the
    module's tests expect to see)."""
    from negviz.store import Store

    from tests.support.store_copies import store_in

    folder = tmp_path_factory.mktemp("shipped-copy")
    with Store(store_in(folder, shipped_store_file)) as store:
        yield store
    shutil.rmtree(folder, ignore_errors=True)  # 181 MB a module: the disk is shared


@pytest.fixture(scope="session")
def shipped_store_copies(shipped_store_file, tmp_path_factory):
    """A worker's copies of the shipped-runs store, each lent to its tests until one changes it
    (tests/support/store_copies.py): tests that only read share one copy, and so, through its URL,
    the pages' caches."""
    from tests.support.store_copies import StoreCopies

    copies = StoreCopies(shipped_store_file, tmp_path_factory.mktemp("store-copies"))
    yield copies
    copies.remove()  # 181 MB each: the disk is shared


@pytest.fixture
def app_env(tmp_path, monkeypatch, shipped_store_copies) -> Path:
    """The app's environment for one test: a SQLite store holding the shipped runs and nothing
    else (``tmp_path``/results.sqlite: a link to a copy of the one built for the test run that
    no earlier test has changed) and a negviz cache in ``tmp_path`` (returned), the Hub offline,
    no shared-server path setting, and no run list cached from another test's store."""
    copy, lent_as = shipped_store_copies.lend()
    (tmp_path / "results.sqlite").symlink_to(copy)
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{copy}")
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("NEGVIZ_DATA_DIRS", raising=False)
    from negviz.ui import dataset_cache

    dataset_cache.clear_runs()
    yield tmp_path
    shipped_store_copies.give_back(copy, lent_as)


@pytest.fixture(autouse=True)
def _main_module_restored():
    """Put back the process's __main__ after each test: Streamlit's AppTest leaves its script as
    __main__, and a process a later test spawns in this worker would re-run that script (a
    spawned child imports its parent's __main__ from its file)."""
    main = sys.modules.get("__main__")
    yield
    if main is not None and sys.modules.get("__main__") is not main:
        sys.modules["__main__"] = main


@pytest.fixture
def score_cache(tmp_path):
    from negviz.core.cache import ScoreCache

    cache = ScoreCache(tmp_path / "scores.sqlite")
    yield cache
    cache.close()


# Fixtures shared across test modules: the results store on both backends, and the browser.
from tests.support.browser import app_server, browser  # noqa: E402,F401
from tests.support.pg import pg_url, store, store_url  # noqa: E402,F401
from tests.support.router import component_scan_once, pages_run_under_the_router  # noqa: E402

pages_run_under_the_router()  # every AppTest here runs app.py, then the page, as the server does
component_scan_once()  # the installed packages' component manifests, read once per worker


def pytest_sessionfinish(session, exitstatus):  # noqa: ARG001
    """End child processes a test left behind: multiprocessing joins them at exit, and one that
    hangs would keep the whole run (and CI) from finishing after every test has passed."""
    import multiprocessing

    for child in multiprocessing.active_children():
        child.kill()
