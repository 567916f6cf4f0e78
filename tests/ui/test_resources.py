"""negviz.ui.resources: the store and tables the pages share, over a copy of the shipped runs
(app_env): the store's URL as every cache key, and the shipped runs standing in while the
database is away; the model table and the published numbers; a Hub file in an uploaded file's shape."""

import os

from negviz.store import StoreUnavailableError
from negviz.store.shipped import ShippedStore
from negviz.ui import resources


def test_db_url_is_the_configured_store_and_marks_an_outage(app_env):
    url = os.environ["NEGVIZ_DB_URL"]
    assert resources.outage() is None and resources.db_url() == url
    assert not isinstance(resources.store(), ShippedStore)
    resources.note(StoreUnavailableError("gone", "db.example"))  # what a failed page noted
    try:
        # another cache key, so nothing read from the stand-in is kept as the store's data
        assert resources.db_url() == url + resources.AWAY
        stand_in = resources.store()
        assert isinstance(stand_in, ShippedStore) and stand_in.host == "db.example"
    finally:
        resources.note(None)
    assert resources.db_url() == url


def test_the_catalog_and_the_published_numbers_load(app_env):
    catalog = resources.catalog()
    assert {"all-MiniLM-L6-v2", "tfidf"} <= set(catalog["name"]) and "family" in catalog
    assert len(resources.reference()) > 0


def test_a_model_not_on_this_machine_is_not_available_offline():
    assert resources.available_offline("negviz-tests/no-such-model") is False


def test_hub_upload_has_an_uploaded_files_name_and_bytes():
    upload = resources.HubUpload("nevir-train.csv", b"q1,d1\n")
    assert upload.name == "nevir-train.csv" and upload.getvalue() == b"q1,d1\n"
