"""Added datasets (issue 16): kept in the results store, added through the CLI, evaluated and
looked up by name like a shipped dataset; every problem of a bad file listed, nothing stored."""

import json
import re
from pathlib import Path

import pytest
import sqlalchemy as sa

from negviz.cli import main
from negviz.core.errors import DataValidationError
from negviz.core.registry import UnknownNameError
from negviz.datasets import facts, list_datasets, load
from negviz.datasets.added import DatasetNameError, add_dataset
from negviz.store import Store, StoreError
from negviz.store import datasets as stored
from negviz.store import tables as t

DATA = Path(__file__).resolve().parents[1] / "data"
PAIRS_MAP = "pair_id=id,q1=query1,d1=doc1,q2=query2,d2=doc2"
EXCLUSION_CSV = (
    "qid,question,positive,excluded,negation_type\n"
    "e1,Who plays chess but not the piano?,Ann plays chess only.,Bob plays chess and piano.,exclusion\n"
    "e2,Which fruit is not sweet?,The lemon is sour.,The apple is sweet.,affixal\n"
)


def cli(db: str, *args: str, capsys=None) -> tuple[int, str, str]:
    code = main(["--db", db, *args])
    out, err = capsys.readouterr() if capsys else ("", "")
    return code, out, err


@pytest.fixture
def db(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'store.sqlite'}"


def add_all_kinds(db: str, tmp_path: Path, capsys) -> None:
    excl = tmp_path / "excl.csv"
    excl.write_text(EXCLUSION_CSV, encoding="utf-8")
    added = [
        ("mypairs", DATA / "pairs.csv", "pairs", PAIRS_MAP),
        ("mypert", DATA / "perturbations.csv", "perturbation", None),
        ("mysent", DATA / "sentences.tsv", "sentence_pairs", "pair_id=id,sentence1=first,sentence2=second"),
        ("myexcl", excl, "exclusion", "query_id=qid,query=question,pos_doc=positive,neg_doc=excluded"),
    ]
    for name, path, kind, columns in added:
        args = ["datasets", "add", name, str(path), "--kind", kind, "--licence", "CC0", "--by", "ana"]
        code, out, err = cli(db, *args, *(["--columns", columns] if columns else []), capsys=capsys)
        assert code == 0, err
        assert out.startswith(f"added {name}:")


def test_each_kind_added_listed_loaded_and_evaluated(db, tmp_path, capsys):
    add_all_kinds(db, tmp_path, capsys)
    code, out, _ = cli(db, "datasets", "--json", capsys=capsys)
    table = {r["name"]: r for r in json.loads(out)}
    assert {n: table[n]["origin"] for n in ("nevir", "mypairs", "mypert", "mysent", "myexcl")} == {
        "nevir": "shipped",
        "mypairs": "added",
        "mypert": "added",
        "mysent": "added",
        "myexcl": "added",
    }
    assert table["mypert"]["n"] == 6 and table["mypairs"]["licence"] == "CC0"

    store = Store(db)
    pairs = load("mypairs", store=store)
    assert pairs.kind.name == "pairs" and list(pairs.frame["pair_id"]) == ["p1", "p2", "007"]
    assert pairs.frame["note"].tolist()[0] == "first"  # free columns carried through
    assert facts("mypairs", store=store).metric == "paired_accuracy"
    assert load("myexcl", store=store).frame["negation_type"].tolist() == ["exclusion", "affixal"]

    for name, metric in (
        ("mypairs", "paired_accuracy"),
        ("myexcl", "right_rank"),
        ("mypert", "sensitivity_ratio"),
        ("mysent", "mean_similarity"),
    ):
        code, out, err = cli(db, "eval", "--model", "tfidf", "--dataset", name, "--json", "--quiet", capsys=capsys)
        assert code == 0, err
        result = json.loads(out)
        assert (result["dataset"], result["metric"]) == (name, metric)
    run = store.runs(dataset="mypairs").iloc[0]
    sha = stored.get(store, "mypairs").sha256
    assert run["dataset_spec"]["options"]["sha256"] == sha and len(sha) == 64  # provenance


def test_minilm_on_the_small_pairs_file(db, capsys, monkeypatch):
    code, _, err = cli(
        db,
        "datasets",
        "add",
        "mypairs",
        str(DATA / "pairs.csv"),
        "--kind",
        "pairs",
        "--columns",
        PAIRS_MAP,
        capsys=capsys,
    )
    assert code == 0, err
    code, out, err = cli(
        db, "eval", "--model", "all-MiniLM-L6-v2", "--dataset", "mypairs", "--json", "--quiet", capsys=capsys
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["n"] == 3 and result["family"] == "bi-encoder" and 0 <= result["paired_accuracy"] <= 1


def test_default_store_from_the_environment(db, capsys, monkeypatch):
    cli(
        db,
        "datasets",
        "add",
        "mypairs",
        str(DATA / "pairs.csv"),
        "--kind",
        "pairs",
        "--columns",
        PAIRS_MAP,
        capsys=capsys,
    )
    monkeypatch.setenv("NEGVIZ_DB_URL", db)
    assert load("mypairs").n == 3 and facts("mypairs").kind.name == "pairs"
    with pytest.raises(UnknownNameError, match="Did you mean 'mypairs'"):
        load("mypair")


def test_bad_files_list_every_problem_and_store_nothing(db, tmp_path, capsys):
    bad = tmp_path / "many.csv"
    bad.write_text("id,query1,doc1,query2,doc2\na,Q,D, ,D2\na,Q,,Q2,D2\n,Q,D,Q2,\n", encoding="utf-8")
    code, _, err = cli(db, "datasets", "add", "bad", str(bad), "--kind", "pairs", "--columns", PAIRS_MAP, capsys=capsys)
    assert code == 2 and "5 problems; nothing was stored" in err
    for needle in ("duplicate id 'a'", "whitespace-only", "missing id"):
        assert needle in err
    for fixture in (
        "bad_blank_text.csv",
        "bad_duplicate_ids.csv",
        "bad_missing_column.csv",
        "bad_not_utf8.csv",
        "bad_empty.csv",
        "bad_header_only.csv",
        "bad_malformed.jsonl",
    ):
        code, _, err = cli(db, "datasets", "add", "bad", str(DATA / fixture), "--kind", "pairs", capsys=capsys)
        assert code == 2 and re.search(r"\d+ problems?; nothing was stored", err), (fixture, err)
    store = Store(db)
    assert stored.listing(store).empty
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(t.added_datasets)).scalar() == 0


def test_problems_carry_row_and_column():
    with pytest.raises(DataValidationError) as info:
        add_dataset(None, "x", b"pair_id,q1,d1,q2,d2\na,,d,q,d\nb,q,d,,\n", "x.csv", "pairs")
    where = [(p.row, p.column) for p in info.value.problems]
    assert where == [(1, "q1"), (2, "q2"), (2, "d2")]


def test_same_content_recognised_and_clashes_refused(db):
    store = Store(db)
    data = (DATA / "pairs.csv").read_bytes()
    rec, created = add_dataset(store, "mypairs", data, "pairs.csv", "pairs", PAIRS_MAP)
    assert created and rec.n == 3
    again, created = add_dataset(store, "mypairs", data, "pairs.csv", "pairs", PAIRS_MAP)
    assert not created and again.sha256 == rec.sha256
    with pytest.raises(StoreError, match="already added as 'mypairs'"):
        add_dataset(store, "copy", data, "pairs.csv", "pairs", PAIRS_MAP)
    other = (DATA / "pairs.tsv").read_bytes()
    with pytest.raises(StoreError, match="already added .* with other content"):
        add_dataset(store, "mypairs", other, "pairs.tsv", "pairs", PAIRS_MAP)
    for name, message in (("nevir", "shipped dataset"), ("my/pairs", "cannot name"), ("x.csv", "file name")):
        with pytest.raises(DatasetNameError, match=message):
            add_dataset(store, name, data, "pairs.csv", "pairs", PAIRS_MAP)
    assert stored.listing(store)["name"].tolist() == ["mypairs"]


def test_remove_says_how_many_runs_use_it(db, capsys):
    cli(
        db,
        "datasets",
        "add",
        "mypairs",
        str(DATA / "pairs.csv"),
        "--kind",
        "pairs",
        "--columns",
        PAIRS_MAP,
        capsys=capsys,
    )
    cli(db, "eval", "--model", "tfidf", "--dataset", "mypairs", "--quiet", capsys=capsys)
    code, _, err = cli(db, "datasets", "remove", "mypairs", capsys=capsys)
    assert code == 1 and "used by 1 stored run(s)" in err and "--yes" in err
    assert stored.get(Store(db), "mypairs") is not None
    code, out, _ = cli(db, "datasets", "remove", "mypairs", "--yes", capsys=capsys)
    assert code == 0 and "1 stored run(s) used it (kept)" in out
    assert stored.get(Store(db), "mypairs") is None and len(Store(db).runs(dataset="mypairs")) == 1
    code, _, err = cli(db, "eval", "--model", "tfidf", "--dataset", "mypairs", "--quiet", capsys=capsys)
    assert code == 2 and "unknown dataset 'mypairs'" in err


def test_two_clients_see_the_same_added_dataset(store_url):
    """On SQLite and a real PostgreSQL (the store_url fixture runs both)."""
    a, b = Store(store_url), Store(store_url)
    data = (DATA / "pairs.csv").read_bytes()
    add_dataset(a, "shared-pairs", data, "pairs.csv", "pairs", PAIRS_MAP, added_by="ana", description="d")
    rec = stored.get(b, "shared-pairs")
    assert (rec.added_by, rec.size, rec.n, rec.kind) == ("ana", len(data), 3, "pairs")
    assert load("shared-pairs", store=b).frame.equals(load("shared-pairs", store=a).frame)
    assert "shared-pairs" in list_datasets(b)["name"].tolist()
    stored.remove(b, "shared-pairs")
    assert stored.get(a, "shared-pairs") is None


def test_old_store_without_the_table_gets_it(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    Store(url).close()
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE added_datasets"))
    engine.dispose()
    store = Store(url)
    assert stored.listing(store).empty
    add_dataset(store, "mypairs", (DATA / "pairs.csv").read_bytes(), "pairs.csv", "pairs", PAIRS_MAP)
    assert stored.get(Store(url), "mypairs").n == 3


def test_a_hub_dataset_offline_is_a_clear_message_and_nothing_is_stored(tmp_path, capsys, monkeypatch):
    from negviz.cli import main
    from negviz.core.errors import DatasetUnavailableError
    from negviz.datasets.hub import parse_hub_ref

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    assert main(["--db", url, "datasets", "add", "hubpairs", "hf:someone/pairs:train", "--kind", "pairs"]) != 0
    err = capsys.readouterr().err
    assert "needs the Hugging Face Hub" in err and "hf://datasets/someone/pairs (train)" in err
    assert "Traceback" not in err
    assert main(["--db", url, "datasets", "--json"]) == 0
    assert "hubpairs" not in capsys.readouterr().out
    assert parse_hub_ref("hf:a/b") == ("a/b", "test")
    with pytest.raises(DatasetUnavailableError, match="not a Hub dataset id"):
        parse_hub_ref("hf:nope")
