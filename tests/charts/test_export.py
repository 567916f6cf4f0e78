"""negviz.charts.export: CSV downloads neutralised against formulas, a hung export ended and tried
again. PNG and SVG bytes through kaleido and Chromium: tests/report/test_figure_export.py."""

import io

import pandas as pd
import pytest


def test_annotation_csv_export_is_neutralised_and_reimports(tmp_path):
    from negviz.datasets import load
    from negviz.results import annotations as ann
    from negviz.store import Store

    nevir = load("nevir")
    with Store(tmp_path / "a.sqlite") as store:
        ann.save(
            store,
            nevir,
            "1230-2",
            "@ana",
            ann.Label("sentential", "valid", False, '=HYPERLINK("https://evil.example","x")'),
        )
        ann.save(store, nevir, "994-2", "-bo", ann.Label("sentential", "valid", False, "=cmd|' /C calc'!A0"))
        frame = ann.export_frame(store, nevir)
        data = ann.to_bytes(frame, "csv")
        raw = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
        by_item = raw.set_index("item_id")
        assert by_item.at["1230-2", "annotator"] == "'@ana" and by_item.at["994-2", "annotator"] == "'-bo"
        assert by_item.at["1230-2", "note"].startswith("'=HYPERLINK(")
        assert by_item.at["994-2", "note"] == "'=cmd|' /C calc'!A0"
        with Store(tmp_path / "b.sqlite") as other:  # our own export reads back to the same labels
            assert ann.import_annotations(other, nevir, data, "labels.csv").added == 2
            got = ann.latest(other, "nevir").set_index("item_id")
            assert got.at["1230-2", "annotator"] == "@ana" and got.at["1230-2", "note"].startswith("=HYPERLINK(")
            assert got.at["994-2", "annotator"] == "-bo" and got.at["994-2", "note"] == "=cmd|' /C calc'!A0"


def test_a_hung_export_is_ended_and_tried_again():
    import threading

    from negviz.charts.export import FigureExportError, with_deadline

    release, calls, ended = threading.Event(), [], []

    def export():  # the first call hangs (as kaleido's Chromium at start) until it is ended
        calls.append(1)
        if len(calls) == 1:
            release.wait(30)
            raise RuntimeError("browser closed")
        return b"png"

    assert with_deadline(export, seconds=0.5, on_timeout=lambda: (ended.append(1), release.set())) == b"png"
    # The hung call was ended by the deadline: on_timeout ran once, and released it. Ended by its
    # own 30 s wait instead, it would have raised, with ended empty (no clock needed to tell).
    assert len(calls) == 2 and ended == [1]
    with pytest.raises(ValueError, match="bad figure"):  # an error of the call itself is raised as is
        with_deadline(lambda: (_ for _ in ()).throw(ValueError("bad figure")), seconds=5)
    never = threading.Event()
    with pytest.raises(FigureExportError, match="did not finish in 0 s \\(2 tries\\)"):
        with_deadline(lambda: never.wait(30), seconds=0.2)
    never.set()
