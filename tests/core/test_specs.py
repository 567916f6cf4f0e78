"""Specs that round-trip, typed options, and CLI inputs that never crash (issues 10.4, 12.1-5, 12.7).

Real store (SQLite in a temp folder), real TF-IDF/BM25 scoring on shipped NevIR; the CLI runs
in-process through ``negviz.cli.main``, or in a subprocess where what got imported matters.
"""

import json
import os
import subprocess
import sys

import pytest

from negviz.cli import main
from negviz.core.errors import NegvizError, OptionError
from negviz.core.options import coerce_options
from negviz.core.schema import DatasetSpec, ModelSpec
from negviz.evaluation.catalog import resolve_model
from negviz.scorers import FAMILIES
from negviz.store import Store


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("NEGVIZ_DB_URL", f"sqlite:///{tmp_path / 'results.sqlite'}")
    monkeypatch.setenv("NEGVIZ_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("NEGVIZ_DEVICE", raising=False)
    return tmp_path


def eval_json(capsys, *args):
    assert main(["eval", *args, "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


def stored_runs(env):
    return Store(f"sqlite:///{env / 'results.sqlite'}").runs()


# ---------------------------------------------------------------- one spec, one run
def test_option_flag_and_bracket_spelling_give_one_run(env, capsys):
    flag = eval_json(capsys, "--model", "bm25", "--option", "k1=1.2", "--dataset", "nevir", "--limit", "20")
    bracket = eval_json(capsys, "--model", "bm25[k1=1.2]", "--dataset", "nevir", "--limit", "20")
    again = eval_json(capsys, "--model", "bm25", "--option", "k1=1.20", "--dataset", "nevir", "--limit", "20")
    assert not flag["reused_stored_run"]
    assert bracket["reused_stored_run"] and again["reused_stored_run"]
    assert flag["run_id"] == bracket["run_id"] == again["run_id"]
    assert flag["model_spec"]["options"] == {"k1": 1.2}
    assert list(stored_runs(env)["run_id"]) == [flag["run_id"]]


def test_options_are_typed_once_whatever_the_spelling():
    as_text = resolve_model(ModelSpec.parse("bm25", options=["k1=2", "b=1"]))
    as_float = resolve_model(ModelSpec.make("bm25", k1=2.0, b=1.0))
    assert as_text.spec == as_float.spec and as_text.spec.key == as_float.spec.key
    assert as_text.spec.opts == {"k1": 2.0, "b": 1.0} and isinstance(as_text.spec.opts["k1"], float)
    mini = resolve_model(ModelSpec.make("all-MiniLM-L6-v2").with_options(normalize="true", similarity="cosine"))
    assert mini.spec.opts == {"normalize": True, "similarity": "cosine"}
    # --option wins over the bracket, --family/--revision over the text.
    spec = ModelSpec.parse("org/m@v1[k=1]", family="bi-encoder", revision="v2", options=["k=2"])
    assert (spec.family, spec.revision, spec.opts) == ("bi-encoder", "v2", {"k": 2})


@pytest.mark.parametrize(
    "spec, message",
    [
        ("bm25[k1=abc]", "option k1 of bm25 must be a number (got 'abc')"),
        ("bm25[k1=-3]", "option k1 of bm25 must be > 0"),
        ("bm25[b=1.5]", "option b of bm25 must be <= 1"),
        ("bm25[k11=2]", "Did you mean 'k1'?"),
        ("all-MiniLM-L6-v2[similarity=cosinus]", "did you mean 'cosine'"),
        ("all-MiniLM-L6-v2[normalize=maybe]", "option normalize of bi-encoder must be true or false"),
        ("maxsim-all-MiniLM-L6-v2[max_length=2.5]", "must be a whole number"),
    ],
)
def test_bad_option_values_name_the_option(spec, message):
    with pytest.raises(OptionError) as err:
        resolve_model(ModelSpec.parse(spec))
    assert message in str(err.value)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_declares_typed_options_with_valid_defaults(family):
    cls = FAMILIES.get(family)
    assert [o.name for o in cls.declared_options] == list(cls.default_options)
    for option in cls.declared_options:
        assert option.help, f"{family} option {option.name} needs a line of help"
        assert option.coerce(option.default, family) == option.default  # the default obeys its own rule
    with pytest.raises(OptionError, match="known options"):
        cls.check_options({"no_such_option": 1})


def test_dataset_options_are_typed_and_checked():
    demetr = DatasetSpec.make("demetr", checked_only="yes")
    from negviz.datasets import DATASETS
    from negviz.datasets.base import check_options

    assert check_options(demetr, DATASETS.entry("demetr").meta["options"]) == {"checked_only": True}
    with pytest.raises(OptionError, match="option checked_only of dataset 'demetr' must be true or false"):
        check_options(DatasetSpec.make("demetr", checked_only="maybe"), DATASETS.entry("demetr").meta["options"])
    with pytest.raises(OptionError, match="dataset 'nevir' takes no option 'kind'"):
        from negviz.datasets import load

        load(DatasetSpec.make("nevir", kind="pairs"))
    assert coerce_options("x", (), {}) == {}
    for bad in (0, -1, 2.5, "many", True):
        with pytest.raises(NegvizError, match="limit must be a whole number >= 1"):
            DatasetSpec.make("nevir", limit=bad)


# ---------------------------------------------------------------- bad CLI input: a message, no traceback
CUDA = False
try:
    import torch

    CUDA = torch.cuda.is_available()
except ImportError:  # pragma: no cover
    pass

BAD_INPUT = [
    (["--model", "tfidf", "--limit", "0"], "limit must be a whole number >= 1 (got 0)"),
    (["--model", "tfidf", "--limit", "-5"], "limit must be a whole number >= 1 (got -5)"),
    (["--model", "tfidf", "--device", "foo"], "--device 'foo' is not a device; use cpu, cuda"),
    (["--model", "tfidf", "--device", "cpu:1"], "cpu takes no index"),
    (["--model", "tfidf", "--batch-size", "0"], "batch size must be a whole number >= 1 and at most 65,536 (got 0)"),
    (["--model", "tfidf", "--batch-size", "-1"], "batch size must be a whole number >= 1 and at most 65,536 (got -1)"),
    (["--model", "bm25", "--option", "k1=abc"], "option k1 of bm25 must be a number (got 'abc')"),
    (["--model", "bm25", "--option", "k1=-3"], "option k1 of bm25 must be > 0"),
    (["--model", "bm25", "--option", "k11=2"], "bm25 takes no option 'k11'. Did you mean 'k1'?"),
    (["--model", "bm25", "--option", "k1"], "is not of the form key=value"),
    (["--model", "all-MiniLM-L6-v3"], "did you mean 'all-MiniLM-L6-v2'"),
    (["--model", "minilm"], "'all-MiniLM-L6-v2'"),  # among the suggestions (negminilm matches too)
    (["--model", "ALL-minilm-l6"], "did you mean 'all-MiniLM-L6-v2'"),
    (["--model", "./no/such/model"], "no such path: './no/such/model'"),
    (["--model", "tfidf", "--checked-only"], "--checked-only applies to perturbation datasets"),
]
if not CUDA:
    BAD_INPUT.append((["--model", "tfidf", "--device", "cuda"], "CUDA is not available on this machine"))


@pytest.mark.parametrize("args, message", BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_cli_input_exits_with_a_message(env, capsys, args, message):
    rc = main(["eval", *args, "--dataset", "nevir", "--quiet"])
    err = capsys.readouterr().err
    assert rc != 0
    assert message in err
    assert "Traceback" not in err and err.startswith("negviz: error: ")
    assert stored_runs(env).empty  # nothing stored


def test_a_folder_that_is_not_a_model(env, capsys):
    folder = env / "not-a-model"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello")
    assert main(["eval", "--model", str(folder), "--dataset", "nevir", "--quiet"]) != 0
    assert "this folder holds no model (no config.json / modules.json)" in capsys.readouterr().err


def test_batch_size_and_device_are_refused_before_the_model_loads(env):
    """In a fresh process: the refusal comes before sentence-transformers is imported."""
    code = (
        "import sys; from negviz.cli import main; "
        "rc = main(['eval', '--model', 'all-MiniLM-L6-v2', '--dataset', 'nevir', '--batch-size', '0', '--quiet']); "
        "print(rc, 'sentence_transformers' in sys.modules)"
    )
    env_vars = {**os.environ, "PYTHONPATH": os.getcwd()}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env_vars, timeout=120)
    assert out.stdout.split() == ["2", "False"], out.stdout + out.stderr
    assert "batch size must be a whole number >= 1" in out.stderr and "Traceback" not in out.stderr


# ---------------------------------------------------------------- --force replaces
def test_force_replaces_the_stored_run(env, capsys):
    args = ("--model", "tfidf", "--dataset", "nevir", "--limit", "20")
    first = eval_json(capsys, *args)
    forced = [eval_json(capsys, *args, "--force") for _ in range(2)]
    assert not any(f["reused_stored_run"] for f in forced)
    runs = stored_runs(env)
    assert list(runs["run_id"]) == [forced[-1]["run_id"]] != [first["run_id"]]
    store = Store(f"sqlite:///{env / 'results.sqlite'}")
    assert len(store.scores(forced[-1]["run_id"])) == 20 * 4  # the replaced runs' scores went with them
    # Another spec is left alone.
    other = eval_json(capsys, "--model", "bm25", "--dataset", "nevir", "--limit", "20")
    eval_json(capsys, *args, "--force")
    assert other["run_id"] in set(stored_runs(env)["run_id"]) and len(stored_runs(env)) == 2
