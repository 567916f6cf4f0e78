"""negviz.store.shipped: the read-only stand-in for a store that is away: it lists and reads the
run files it was given, and refuses every write with the outage's message."""

import pytest

from negviz.store import Store, StoreUnavailableError
from negviz.store.shipped import ShippedStore
from tests.store.test_run_table import make_record, make_scores


def test_the_stand_in_reads_the_runs_and_refuses_writes(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    with Store(tmp_path / "made.sqlite") as made:
        run_id = made.save_run(make_record(summary={"rr": 0.5}), make_scores(3))
        made.export_run(run_id, runs)
        expected = made.scores(run_id)
    stand_in = ShippedStore("the results database at db:5432 is not reachable", host="db", runs_dir=runs)
    try:
        assert stand_in.runs()["run_id"].tolist() == [run_id] and stand_in.get_run(run_id).summary == {"rr": 0.5}
        assert stand_in.scores(run_id).equals(expected)  # read in place from the run file
        with pytest.raises(StoreUnavailableError, match="not reachable; nothing can be saved until it is back"):
            stand_in.add_annotation("nevir", "1", "ana", {"type": "none"})
        assert stand_in.annotations().empty and len(stand_in.runs()) == 1
    finally:
        stand_in.close()
