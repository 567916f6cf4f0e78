"""Guards of the architecture: the library never imports streamlit; registries stay lazy."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
        "import sys, negviz.scorers, negviz.datasets, negviz.cli, negviz.core.metrics, negviz.evaluation.catalog;"
        "print('torch' in sys.modules, 'transformers' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.split() == ["False", "False"], out.stderr


# ---------------------------------------------------------------- caching lives in negviz/ui only
# Memoised readers of files shipped inside the package (data/, the bundled tokenizer): the value
# is a function of files that never change while the process runs, so no cache can go stale.
# Everything else, above all anything derived from the store, is read through DatasetView, whose
# cache negviz/ui gives it (negviz.ui.dataset_cache.PageCache: st.cache_data / st.cache_resource,
# keyed by store URL and run ids).
SHIPPED_FILE_READERS = {
    "negviz/evaluation/catalog.py": {"load_catalog"},
    "negviz/evaluation/published.py": {"_load"},
    "negviz/datasets/shipped.py": {"_read"},
    "negviz/evaluation/summaries.py": {"_shipped_size"},  # a shipped dataset's size (a --limit run's N)
    "negviz/evaluation/runner.py": {"code_version"},  # git HEAD of the running code
    "negviz/finetune/general.py": {"general_pool"},  # the shipped candidate pools
    "negviz/scorers/wheels.py": {"_sha256"},  # an installed weight file, keyed by its size and mtime
    "negviz/language/text/perturb.py": {"taxonomy_antonyms", "demetr_antonyms"},
    "negviz/language/taxonomy/cues.py": {"explain_cue"},
    "negviz/language/taxonomy/lexicon.py": {
        "phrases",
        "cue_types",
        "quantifiers",
        "antonyms",
        "affixes",
        "affixal_exceptions",
        "words",
    },
}
# The lead's rewrite of the inspector's data path moves these to negviz/ui.
PENDING: dict[str, set[str]] = {}
# Loaded models kept by a worker process for its next task, not results: a Ray worker scores
# many shards of one spec, and loading the model for each would cost more than the shard.
WORKER_RESOURCES = {"negviz/evaluation/fill/shards.py": {"_inputs"}}
# Module-level mutable state that is not a cache of results.
NOT_CACHES = {
    ("negviz/evaluation/jobs.py", "_PROCS"),  # the training processes this server started
    ("negviz/core/kinds.py", "_REGISTRY"),  # the registered dataset kinds
}


def _library_modules():
    for path in sorted((ROOT / "negviz").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith("negviz/ui/"):
            yield rel, ast.parse(path.read_text())


def _is_memo(decorator: ast.expr) -> bool:
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name in ("lru_cache", "cache")


def test_no_result_caches_outside_negviz_ui():
    memoised, state = [], []
    for rel, tree in _library_modules():
        allowed = SHIPPED_FILE_READERS.get(rel, set()) | PENDING.get(rel, set()) | WORKER_RESOURCES.get(rel, set())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(_is_memo(d) for d in node.decorator_list) and node.name not in allowed:
                    memoised.append(f"{rel}:{node.name}")
        for node in tree.body:  # module level: an empty dict / OrderedDict filled at run time
            if isinstance(node, ast.ClassDef) and "lru" in node.name.lower():
                state.append(f"{rel}:{node.name}")
            target, value = None, None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign):
                target, value = node.target, node.value
            if not isinstance(target, ast.Name) or value is None:
                continue
            empty_dict = isinstance(value, ast.Dict) and not value.keys
            made = (
                isinstance(value, ast.Call)
                and getattr(value.func, "id", getattr(value.func, "attr", ""))
                in ("dict", "OrderedDict", "defaultdict", "WeakValueDictionary")
                and not value.keywords
            )
            if (empty_dict or made) and (rel, target.id) not in NOT_CACHES:
                state.append(f"{rel}:{target.id}")
    assert memoised == [], "cache these in negviz/ui (st.cache_data / st.cache_resource)"
    assert state == [], "module-level caches belong in negviz/ui"


def test_analyses_charts_and_language_take_frames_not_a_store():
    """The pure layers never read the store: the ui (or the CLI) reads it and passes frames."""
    pending: set[str] = set()
    offenders = []
    for layer in ("analyses", "charts", "language/text"):
        for path in sorted((ROOT / "negviz" / layer).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text())
            if any(m.startswith("negviz.store") for m in _full_imports(tree)):
                offenders.append(f"{rel} imports negviz.store")
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    params = [a.arg for a in node.args.args + node.args.kwonlyargs]
                    if "store" in params and f"{rel}:{node.name}" not in pending:
                        offenders.append(f"{rel}:{node.name} takes a store")
    assert offenders == []


def _full_imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_pages_stay_thin():
    """Pages place widgets; logic lives in negviz: each page (and the router) at most 150 lines as
    formatted (`make lint` checks the formatting, so a file's lines are the formatter's), no line
    over 100 characters (pages/ruff.toml gives the formatter that width)."""
    files = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
    too_long = [f"{f.name}: {n} lines" for f in files if (n := len(f.read_text().splitlines())) > 150]
    too_wide = [
        f"{f.name}:{i}" for f in files for i, line in enumerate(f.read_text().splitlines(), 1) if len(line) > 100
    ]
    assert too_long == [] and too_wide == []


# The top of the stack (pages, app.py, negviz/ui, negviz/report, negviz/cli) hands the store only
# to these: the read model, writers and job control. Any other read goes through the read model
# (negviz.results.dataset_view.DatasetView, and negviz.projects.view.ProjectView on top of it), so every
# reader shares one cache and one rule; a function the top of the stack defines itself may pass
# the store along (its own calls are checked the same way).
READ_MODEL = {"DatasetView"}
WRITERS = {
    "ann.save": "saves a label",
    "ann.import_annotations": "imports a label file",
    "added.add_dataset": "keeps an added dataset",
    "stored.remove": "removes an added dataset",
    "P.create": "creates a project",
    "P.set_guidelines": "edits a project's guidelines",
    "P.import_project": "imports a project file",
    "P.export_project": "writes a project file, read in one transaction",
    "P.next_pair": "claims the annotator's next pair",
    "P.claim_extra": "claims a pair beyond the overlap",
    "P.release": "releases a claimed pair",
    "P.adjudicate": "stores a reviewer's decision",
    "eval_jobs.start": "starts an evaluation in the background",
    "jobs.start": "starts a fine-tuning job",
    "jobs.poll": "job control: marks a dead child's run failed",
    "jobs.running": "job control: polls the running jobs",
    "action": "job control: jobs.resume or jobs.discard, a button's callback",
    "corpus_eval_command": "`negviz eval --corpus`: evaluates over a corpus and stores the run",
    "run_eval": "evaluates and stores a run",
    "make_plan": "plans a fill: which specs the store holds, which shards an earlier fill kept",
    "run_plan": "runs a fill plan: keeps its shards and stores its runs",
    "board_plan": "plans a fill of the board's empty cells (make_plan)",
    "fill_jobs.start": "starts a fill plan in the background",
    "run_cue_influence": "computes and stores an attribution run",
    "run_layer_curves": "computes and stores layer curves",
    "build_report": "the report, which reads through its own DatasetView",
    "report_bytes": "the report (build_report)",
    "write_report": "the report (build_report)",
    "store.ensure_bundled": "records the shipped runs in the store",
    "load": "`negviz taxonomy` loads a dataset (an added one from the store) with the command's options",
    "label_pairs": "`negviz taxonomy`'s labels with the command's label column",
    "isinstance": "which kind of store it is",
}
TOP = ("pages", "app.py", "negviz/ui", "negviz/report", "negviz/cli")


def _top_files() -> list[Path]:
    return [p for top in TOP for p in ([ROOT / top] if top.endswith(".py") else sorted((ROOT / top).rglob("*.py")))]


def _is_store(node: ast.expr) -> bool:
    """``store``, ``x.store`` or ``resources.store()``."""
    if isinstance(node, ast.Call):
        node = node.func
        return isinstance(node, ast.Attribute) and node.attr == "store"
    return (isinstance(node, ast.Name) and node.id == "store") or (
        isinstance(node, ast.Attribute) and node.attr == "store"
    )


def _called(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        owner = func.value.func if isinstance(func.value, ast.Call) else func.value
        base = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "?")
        return f"{base}.{func.attr}"
    return getattr(func, "id", "?")


def store_handoffs(paths: list[Path], defined: set[str]) -> list[str]:
    """Calls in ``paths`` that hand the store to something outside the allowlist: a method of
    the store, or a function given the store as an argument."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = _called(node.func)
            on_store = isinstance(node.func, ast.Attribute) and _is_store(node.func.value)
            if on_store:
                name = f"store.{node.func.attr}"
            elif not any(_is_store(a) for a in [*node.args, *(k.value for k in node.keywords)]):
                continue
            if name in WRITERS or name.rsplit(".", 1)[-1] in READ_MODEL:
                continue
            if not on_store and name.rsplit(".", 1)[-1] in defined:  # the top of the stack passes it along
                continue
            found.append(f"{path.name}:{node.lineno} {name}")
    return found


def test_only_the_read_model_reads_the_store_for_the_top_of_the_stack(tmp_path):
    """An allowlist: the top of the stack gives the store to the read model, to the writers and
    job control above (each with why), and to its own functions, nothing else."""
    files = _top_files()
    defined = {
        n.name
        for p in files
        for n in ast.walk(ast.parse(p.read_text()))
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    assert store_handoffs(files, defined) == []
    # the check itself finds reads, whatever the variable holding the reader is called
    page = tmp_path / "page.py"
    page.write_text(
        "latest = ann.latest(store, 'nevir')\nwide = resources.store().scores_wide(run)\n"
        "frames = views.drift_frames(self.store, runs)\nview = DatasetView(store, 'nevir').runs()\n"
        "ann.save(store, ds, item, who, label)\nshow(store)\n"
    )
    assert store_handoffs([page], {"show"}) == [
        "page.py:1 ann.latest",
        "page.py:2 store.scores_wide",
        "page.py:3 views.drift_frames",
    ]


def test_the_ui_reads_datasets_through_one_cached_accessor():
    """negviz.ui.dataset_cache is the only ui module that makes a DatasetView or loads a dataset."""
    offenders = []
    for path in [*(ROOT / "pages").glob("*.py"), *(ROOT / "negviz" / "ui").rglob("*.py")]:
        if path.name == "dataset_cache.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                if name == "DatasetView" or getattr(node.func, "id", "") == "load":
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    assert offenders == []


# ---------------------------------------------------------------- one cache layer for reads
# The Streamlit caches of negviz/ui besides DatasetView's own (negviz/ui/dataset_cache.py), each with
# what it holds: none is a read of results, which go through the dataset's view and its cache.
NOT_READS = {
    "negviz/ui/resources.py": {
        "_shipped_store": "the read-only stand-in store object",
        "_store": "the store object: its engine and connections",
        "_available_offline": "whether a model's files are on this machine",
        "catalog": "the model catalog, a file shipped with negviz",
        "reference": "the published numbers, files shipped with negviz",
        "scorer": "a loaded model",
        "_hub_file": "a file downloaded from the Hub",
    },
    "negviz/ui/search/corpus_index.py": {"corpus": "a loaded corpus", "_index": "a built index over a loaded model"},
    "negviz/ui/inspector/why_view.py": {
        "_memory": "this process's finished explanations and measured rates",
        "_curve": "a loaded model's layer curve of two texts",
    },
    "negviz/ui/overview/report_download.py": {"report_file": "a report built for download, keyed by its inputs"},
}
# Being folded into DatasetView with one section function per analysis (issue 49).
PENDING_READ_CACHES: set[str] = set()  # ui modules whose read caches are still to fold: none


def _streamlit_caches(tree: ast.AST) -> list[ast.FunctionDef]:
    def is_cache(d: ast.expr) -> bool:
        node = d.func if isinstance(d, ast.Call) else d
        return isinstance(node, ast.Attribute) and node.attr in ("cache_data", "cache_resource")

    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and any(map(is_cache, n.decorator_list))]


def test_ui_read_caches_go_through_the_dataset_view():
    """One cache layer for reads: a Streamlit cache in negviz/ui outside dataset_cache.py is one of
    NOT_READS (each with what it holds), and none of those reads through a dataset view, so no
    read is kept twice under two keys."""
    unlisted, reading = [], []
    for path in sorted((ROOT / "negviz" / "ui").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if path.name == "dataset_cache.py" or rel in PENDING_READ_CACHES:
            continue
        for fn in _streamlit_caches(ast.parse(path.read_text())):
            if fn.name not in NOT_READS.get(rel, {}):
                unlisted.append(f"{rel}:{fn.name}")
            calls = {
                getattr(c.func, "id", getattr(c.func, "attr", "")) for c in ast.walk(fn) if isinstance(c, ast.Call)
            }
            if calls & {"dataset_view", "DatasetView"}:
                reading.append(f"{rel}:{fn.name}")
    assert unlisted == [], "a read: make it a DatasetView method (READS says how long it stays true)"
    assert reading == [], "a cache over a DatasetView read keeps it twice"
    listed = {f"{rel}:{name}" for rel, names in NOT_READS.items() for name in names}
    present = {f"{rel}:{fn.name}" for rel in NOT_READS for fn in _streamlit_caches(ast.parse((ROOT / rel).read_text()))}
    assert listed == present  # no stale entry


def test_negviz_holds_packages_named_by_what_they_do():
    """At most 17 entries in negviz/: the packages, __init__.py and __main__.py, no loose module."""
    entries = sorted(p.name for p in (ROOT / "negviz").iterdir() if p.name != "__pycache__")
    loose = [e for e in entries if e.endswith(".py") and e not in ("__init__.py", "__main__.py")]
    assert loose == [] and len(entries) <= 17, entries


def test_the_readme_layout_names_what_is_in_the_tree():
    """Every module and folder the README's Layout block names under negviz/ exists, and every
    top-level module and package of negviz/ is named there."""
    import re

    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Layout", 1)[1].split("```", 2)[1]
    named = set()
    for line in block.splitlines():
        m = re.match(r"^  ([\w./, ]+?)\s{2,}", line)  # "  name.py   what it is" (two-space indent: negviz/)
        if m:
            named |= {n.strip().rstrip("/") for n in m.group(1).split(",") if n.strip()}
    package = ROOT / "negviz"
    missing = [n for n in named if not (package / n).exists()]
    present = {p.name for p in package.iterdir() if p.suffix == ".py" or (p / "__init__.py").is_file()}
    unnamed = sorted(
        p.removesuffix(".py")
        for p in present - {"__init__.py", "__main__.py"}
        if p not in named and p.removesuffix(".py") not in named
    )
    assert missing == [] and unnamed == [], (missing, unnamed)
