"""A whole project as one JSON file (schema, guidelines, pairs, claims, every label version of its
pairs, every adjudication), and back into another store.

    data = export_project(store, "nevir-types")              # bytes
    import_project(other_store, data, "nevir-types.json")    # -> ImportedProject

The file is parsed as JSON (never executed). Import is all or nothing. Every field of the file is
checked first (types, ranges, times, plain names, negation types from the taxonomy, pairs that
exist in the target's dataset, no claim, label version or decision twice), then the store (the
project name must be free, and a stored label history of one (pair, annotator) must be the
file's, or absent). Any problem stops it with a ProjectFileError listing the first ones, each
"where: what is wrong; how to fix it", and nothing written. Then the project, its claims, labels
and adjudications are written with their original versions and times in ONE transaction
(negviz.store.projects.write_imported): a failure there, too, leaves nothing behind.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import pandas as pd

from negviz import __version__
from negviz.projects.project import MAX_CLAIM_HOURS, MAX_GUIDELINES, MAX_OVERLAP, Project, ProjectError, check_name
from negviz.results import annotations as ann
from negviz.store import StoreError
from negviz.store import projects as rows

FORMAT = "negviz-annotation-project"
FORMAT_VERSION = 1
MAX_BYTES = 50 * 2**20
MAX_PROBLEMS = 10  # problems listed; the rest are counted
MAX_SLOT = 1_000  # a pair's claims are numbered 1, 2, ...: beyond the overlap only for extra labels
MAX_VERSION = 1_000_000  # label and decision versions: 1, 2, ... per pair (and annotator)


class ProjectFileError(ProjectError):
    """A project file that cannot be imported, with what is wrong in it: ``problems`` holds the
    first MAX_PROBLEMS, each "where: what is wrong; how to fix it"; ``total`` counts them all.
    Nothing was written."""

    def __init__(self, filename: str, problems: list[str], total: int | None = None):
        self.filename = filename
        self.problems = list(problems[:MAX_PROBLEMS])
        self.total = max(total or 0, len(problems))
        more = self.total - len(self.problems)
        listed = " | ".join(self.problems) + (f" | and {more} more" if more else "")
        super().__init__(f"{self.headline()} {listed}")

    def headline(self) -> str:
        many = f"these {self.total} problems" if self.total > 1 else "this problem"
        return f"{self.filename}: nothing was imported. Fix {many} in the file and import it again:"


@dataclass(frozen=True)
class ImportedProject:
    project: str
    claims: int
    labels: int  # label versions written
    already: int  # label versions the target held already
    adjudications: int


def _iso(value) -> str:
    return pd.Timestamp(value).isoformat()


def export_project(store, name: str) -> bytes:
    from negviz.projects.project import get

    project = get(store, name)
    items = set(project.items)
    history = store.annotations(project.dataset, latest=False)
    history = history[history["item_id"].isin(items)]
    claims = rows.claims(store.engine, name)
    decisions = rows.adjudication_rows(store.engine, project=name, latest=False)
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "negviz_version": __version__,
        "project": {**project.row(), "created_at": _iso(project.created_at)},
        "claims": [{**r, "claimed_at": _iso(r["claimed_at"])} for r in claims.to_dict(orient="records")],
        "labels": [
            {k: (_iso(v) if k == "created_at" else v) for k, v in r.items() if k != "id"}
            for r in history.to_dict(orient="records")
        ],
        "adjudications": [
            {k: (_iso(v) if k == "created_at" else v) for k, v in r.items() if k != "id"}
            for r in decisions.to_dict(orient="records")
        ],
    }
    return json.dumps(doc, ensure_ascii=False, indent=1, default=int).encode("utf-8")


def _parse(data: bytes, filename: str) -> dict:
    """The file's JSON object, its format and sections checked (what the other checks need)."""
    if len(data) > MAX_BYTES:
        raise ProjectFileError(
            filename,
            [f"the file: {len(data) / 2**20:.1f} MiB; a project file is at most {MAX_BYTES // 2**20} MiB"],
        )
    try:
        doc = json.loads(data.decode("utf-8-sig"), parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, ValueError) as exc:
        raise ProjectFileError(
            filename, [f"the file: not a JSON file ({exc}); export the project again on its Set up tab"]
        ) from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ProjectFileError(
            filename, ["the file: not a negviz project file; export one on the Annotation projects page"]
        )
    found = _Problems()
    version = doc.get("format_version", _MISSING)
    if not _is_int(version) or version < 1:
        found.add(
            "format_version", _not(version, "a format version"), f"write {FORMAT_VERSION}, the format negviz exports"
        )
    elif version > FORMAT_VERSION:
        found.add(
            "format_version",
            f"{version}: the file was written by a newer negviz (this one reads {FORMAT_VERSION})",
            "upgrade negviz",
        )
    for key, kind in (("project", dict), ("claims", list), ("labels", list), ("adjudications", list)):
        if not isinstance(doc.get(key), kind):
            what = f"'{key}' is missing or not a JSON {'object' if kind is dict else 'list'}"
            found.add("the file", what, "export the project again")
    found.stop(filename)
    return doc


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


_MISSING = object()


class _Problems:
    """What is wrong with a file, in the order found: the first MAX_PROBLEMS kept, all counted."""

    def __init__(self) -> None:
        self.listed: list[str] = []
        self.total = 0

    def add(self, where: str, what: str, fix: str) -> None:
        self.total += 1
        if len(self.listed) < MAX_PROBLEMS:
            self.listed.append(f"{where}: {what}; {fix}")

    def stop(self, filename: str) -> None:
        if self.total:
            raise ProjectFileError(filename, self.listed, self.total)


def _show(value: Any) -> str:
    """A file's value as the file writes it, cut short (it is user text: quoted, never trusted)."""
    if value is _MISSING:
        return "missing"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "…"


def _not(value: Any, what: str) -> str:
    """What is wrong with a value that should be ``what``."""
    return "missing" if value is _MISSING else f"{_show(value)} is not {what}"


def _fix(exc: Exception | str) -> str:
    """A validator's message as the "how to fix it" part of a problem."""
    text = str(exc).strip().rstrip(".")
    return text[:1].lower() + text[1:]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _whole(found: _Problems, where: str, value: Any, low: int, high: int, fix: str) -> int | None:
    if not _is_int(value):
        found.add(where, _not(value, "a whole number"), fix)
        return None
    if not low <= value <= high:
        found.add(where, f"{value} is out of range", fix)
        return None
    return value


def _time(found: _Problems, where: str, value: Any) -> datetime | None:
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.strip())
        except ValueError:
            pass
        else:
            return when if when.tzinfo else when.replace(tzinfo=timezone.utc)
    found.add(where, _not(value, "a time"), "write an ISO 8601 time such as 2024-05-01T12:00:00+00:00")
    return None


def _name(found: _Problems, where: str, value: Any, who: str) -> str | None:
    """A person's name under the rule every label's annotator follows (plain text, no markup)."""
    if not isinstance(value, str) or not value.strip():
        found.add(where, _not(value, "a name"), f"write who {who} (letters, digits, spaces and . _ - ' @)")
        return None
    try:
        return ann.clean_annotator(value)
    except ann.AnnotationError as exc:
        found.add(where, _not(value, "a plain name"), _fix(exc))
        return None


def _note(found: _Problems, where: str, value: Any) -> str | None:
    if value is None or value is _MISSING:
        return ""
    if not isinstance(value, str):
        found.add(where, _not(value, "text"), 'write the note as a JSON string ("" for none)')
        return None
    if len(value) > ann.MAX_NOTE:
        found.add(where, f"{len(value):,} characters long", f"shorten it to at most {ann.MAX_NOTE:,}")
        return None
    return value


def _pair(found: _Problems, where: str, value: Any, items: set[str] | None) -> str | None:
    if not (isinstance(value, str) or _is_int(value)) or str(value) == "":
        found.add(where, _not(value, "a pair id"), "write the pair's id as in project.items")
        return None
    if items is not None and str(value) not in items:
        found.add(where, f"pair {_show(str(value))} is not one of the project's pairs", "remove this entry")
        return None
    return str(value)


def _labels(found: _Problems, where: str, value: Any, note: str, types: list[str], multi: bool) -> dict | None:
    """A label as the store keeps it (negviz.results.annotations): the raw fields typed, then the same
    checks a saved label passes (negation types of ``types``, several only when ``multi``)."""
    if not isinstance(value, dict):
        found.add(
            where,
            _not(value, "a JSON object"),
            'write {"negation_type": ..., "validity": ..., "query_ambiguous": ...}',
        )
        return None
    before = found.total
    kind = value.get("negation_type", _MISSING)
    if not isinstance(kind, str) or kind not in types:
        found.add(f"{where}.negation_type", _not(kind, "a negation type here"), f"use one of {', '.join(types)}")
    if "validity" in value and value["validity"] not in ann.VALIDITY:
        found.add(
            f"{where}.validity",
            _not(value["validity"], "a validity"),
            f"use one of {', '.join(ann.VALIDITY)}",
        )
    if "query_ambiguous" in value and not isinstance(value["query_ambiguous"], bool):
        found.add(f"{where}.query_ambiguous", _not(value["query_ambiguous"], "true or false"), "write true or false")
    more = value.get(ann.TYPES_KEY)
    if more is not None:
        if not isinstance(more, list) or not all(isinstance(t, str) for t in more):
            found.add(f"{where}.{ann.TYPES_KEY}", _not(more, "a list of negation types"), "write a JSON list")
        elif len(dict.fromkeys(more)) > 1 and not multi:
            found.add(
                f"{where}.{ann.TYPES_KEY}", "several negation types on one pair", "the project takes one: keep one"
            )
    if found.total > before:
        return None
    try:
        ann.check_label(ann.Label.from_labels(value, note), types)
    except ann.AnnotationError as exc:
        found.add(where, "not a label negviz saves", _fix(exc))
        return None
    return value


def _entry(found: _Problems, where: str, value: Any) -> dict | None:
    if isinstance(value, dict):
        return value
    found.add(where, _not(value, "a JSON object"), "export the project again")
    return None


# ---------------------------------------------------------------- the project entry
def _project(found: _Problems, p: dict) -> Project | None:
    """The file's project, every field checked; None when any is wrong (all of them said)."""
    before = found.total
    name = p.get("name", _MISSING)
    try:
        name = check_name(name if isinstance(name, str) else "")
    except ProjectError as exc:
        found.add("project.name", _not(name, "a project name"), _fix(str(exc).split(";")[0]))
    dataset = p.get("dataset", _MISSING)
    if not isinstance(dataset, str) or not dataset.strip():
        found.add("project.dataset", _not(dataset, "a dataset name"), "write the dataset's name, e.g. nevir")
    items = p.get("items", _MISSING)
    if not isinstance(items, list) or not items:
        found.add("project.items", _not(items, "a list of pair ids"), "list the project's pairs")
        items = None
    else:
        ids = [_pair(found, f"project.items[{n}]", i, None) for n, i in enumerate(items)]
        seen: dict[str, int] = {}
        for n, i in enumerate(ids):
            if i is not None and i in seen:
                found.add(f"project.items[{n}]", f"pair {_show(i)} is listed twice (also [{seen[i]}])", "keep one")
            seen.setdefault(i, n)
        items = tuple(ids)
    overlap = _whole(
        found,
        "project.overlap",
        p.get("overlap", _MISSING),
        1,
        MAX_OVERLAP,
        f"give how many annotators label each pair, 1 to {MAX_OVERLAP}",
    )
    schema = p.get("label_schema", _MISSING)
    types, multi = list(ann.type_options()), False
    if not isinstance(schema, dict):
        found.add(
            "project.label_schema",
            _not(schema, "a JSON object"),
            'write {"types": [negation types], "multi_type": false}',
        )
    else:
        allowed = ann.type_options()
        chosen = schema.get("types")
        if chosen is not None:
            if not isinstance(chosen, list) or not chosen:
                found.add(
                    "project.label_schema.types",
                    _not(chosen, "a list of negation types"),
                    f"list some of {', '.join(allowed)}",
                )
            else:
                for n, t in enumerate(chosen):
                    if t not in allowed:
                        found.add(
                            f"project.label_schema.types[{n}]",
                            _not(t, "a negation type of the taxonomy"),
                            f"use one of {', '.join(allowed)}",
                        )
                if len(set(map(str, chosen))) < len(chosen):
                    found.add("project.label_schema.types", "a negation type is listed twice", "keep one of each")
                types = [t for t in chosen if t in allowed]
        multi = schema.get("multi_type", False)
        if not isinstance(multi, bool):
            found.add("project.label_schema.multi_type", _not(multi, "true or false"), "write true or false")
    guidelines = p.get("guidelines", _MISSING)
    if not isinstance(guidelines, str):
        found.add("project.guidelines", _not(guidelines, "text"), 'write them as a JSON string ("" for none)')
    elif len(guidelines) > MAX_GUIDELINES:
        found.add("project.guidelines", f"{len(guidelines):,} characters long", f"shorten them to {MAX_GUIDELINES:,}")
    hours = p.get("claim_hours", _MISSING)
    fix = f"give how long an unlabelled claim is kept, in hours: more than 0, at most {MAX_CLAIM_HOURS:g}"
    if isinstance(hours, bool) or not isinstance(hours, (int, float)):
        found.add("project.claim_hours", _not(hours, "a number"), fix)
    elif not (math.isfinite(hours) and 0 < hours <= MAX_CLAIM_HOURS):
        found.add("project.claim_hours", f"{hours} is out of range", fix)
    owner = _name(found, "project.owner", p.get("owner", _MISSING), "owns the project")
    created = _time(found, "project.created_at", p.get("created_at", _MISSING))
    if found.total > before:
        return None
    return Project(name, dataset, items, overlap, tuple(types), multi, guidelines, float(hours), owner, created)


# ---------------------------------------------------------------- claims, labels, decisions
def _claims(found: _Problems, entries: list, project: Project | None, items: set[str] | None) -> list[dict]:
    out, slots, holders = [], {}, {}
    for n, c in enumerate(entries):
        where = f"claims[{n}]"
        if (c := _entry(found, where, c)) is None:
            continue
        item = _pair(found, f"{where}.item_id", c.get("item_id", _MISSING), items)
        slot = _whole(
            found,
            f"{where}.slot",
            c.get("slot", _MISSING),
            1,
            MAX_SLOT,
            f"number a pair's claims 1, 2, 3, … (at most {MAX_SLOT:,})",
        )
        who = _name(found, f"{where}.annotator", c.get("annotator", _MISSING), "holds the pair")
        when = _time(found, f"{where}.claimed_at", c.get("claimed_at", _MISSING))
        if item is not None and slot is not None and (item, slot) in slots:
            found.add(
                where,
                f"slot {slot} of pair {_show(item)} is claimed twice (also claims[{slots[item, slot]}])",
                "keep one",
            )
            continue
        if item is not None and who is not None and (item, who) in holders:
            found.add(
                where, f"{_show(who)} holds pair {_show(item)} twice (also claims[{holders[item, who]}])", "keep one"
            )
            continue
        slots.setdefault((item, slot), n)
        holders.setdefault((item, who), n)
        if None not in (project, item, slot, who, when):
            out.append({"project": project.name, "item_id": item, "slot": slot, "annotator": who, "claimed_at": when})
    return out


def _same_dataset(found: _Problems, where: str, row: dict, project: Project | None) -> None:
    if project is not None and "dataset" in row and row["dataset"] != project.dataset:
        found.add(
            f"{where}.dataset",
            f"{_show(row['dataset'])}, but the project's dataset is {_show(project.dataset)}",
            "remove this entry",
        )


def _label_rows(found: _Problems, entries: list, project: Project | None, items: set[str] | None) -> list[tuple]:
    """(position, row) of every valid label version (any negation type of the taxonomy: a pair's
    labels may come from outside this project)."""
    out, seen = [], {}
    types = ann.type_options()
    for n, r in enumerate(entries):
        where = f"labels[{n}]"
        if (r := _entry(found, where, r)) is None:
            continue
        _same_dataset(found, where, r, project)
        item = _pair(found, f"{where}.item_id", r.get("item_id", _MISSING), items)
        who = _name(found, f"{where}.annotator", r.get("annotator", _MISSING), "gave the label")
        version = _whole(
            found,
            f"{where}.version",
            r.get("version", _MISSING),
            1,
            MAX_VERSION,
            "number each annotator's labels of a pair 1, 2, 3, …",
        )
        note = _note(found, f"{where}.note", r.get("note"))
        labels = _labels(found, f"{where}.labels", r.get("labels", _MISSING), note or "", types, True)
        when = _time(found, f"{where}.created_at", r.get("created_at", _MISSING))
        key = (item, who, version)
        if None not in key and key in seen:
            found.add(
                where,
                f"version {version} of {_show(who)}'s label on {_show(item)} is there twice (also labels[{seen[key]}])",
                "keep one",
            )
            continue
        seen.setdefault(key, n)
        if project is not None and None not in (item, who, version, note, labels, when):
            out.append(
                (
                    n,
                    {
                        "dataset": project.dataset,
                        "item_id": item,
                        "annotator": who,
                        "version": version,
                        "labels": labels,
                        "note": note,
                        "created_at": when,
                    },
                )
            )
    return out


def _decisions(found: _Problems, entries: list, project: Project | None, items: set[str] | None) -> list[dict]:
    out, seen = [], {}
    types = list(project.types) if project is not None else ann.type_options()
    multi = project.multi_type if project is not None else True
    for n, d in enumerate(entries):
        where = f"adjudications[{n}]"
        if (d := _entry(found, where, d)) is None:
            continue
        _same_dataset(found, where, d, project)
        item = _pair(found, f"{where}.item_id", d.get("item_id", _MISSING), items)
        version = _whole(
            found,
            f"{where}.version",
            d.get("version", _MISSING),
            1,
            MAX_VERSION,
            "number a pair's decisions 1, 2, 3, …",
        )
        who = _name(found, f"{where}.reviewer", d.get("reviewer", _MISSING), "decided")
        note = _note(found, f"{where}.note", d.get("note"))
        labels = _labels(found, f"{where}.labels", d.get("labels", _MISSING), note or "", types, multi)
        when = _time(found, f"{where}.created_at", d.get("created_at", _MISSING))
        if item is not None and version is not None and (item, version) in seen:
            found.add(
                where,
                f"decision {version} on {_show(item)} is there twice (also adjudications[{seen[item, version]}])",
                "keep one",
            )
            continue
        seen.setdefault((item, version), n)
        if project is not None and None not in (item, version, who, note, labels, when):
            out.append(
                {
                    "project": project.name,
                    "dataset": project.dataset,
                    "item_id": item,
                    "version": version,
                    "reviewer": who,
                    "labels": labels,
                    "note": note,
                    "created_at": when,
                }
            )
    return out


# ---------------------------------------------------------------- import
def import_project(store, data: bytes, filename: str) -> ImportedProject:
    """Read a project file into ``store`` (see the module's docstring): all of it, or nothing and
    a ProjectFileError listing what is wrong."""
    doc = _parse(data, filename)
    found = _Problems()
    project = _project(found, doc["project"])
    items = _items_here(store, found, doc["project"])
    claims = _claims(found, doc["claims"], project, items)
    labels = _label_rows(found, doc["labels"], project, items)
    decisions = _decisions(found, doc["adjudications"], project, items)
    found.stop(filename)  # the file is sound; now what the store holds
    if rows.project_rows(store.engine, project.name):
        found.add(
            "project.name",
            f"this store has a project named {_show(project.name)} already",
            "rename the project in the file, or import into another store",
        )
    new, already = _new_label_rows(store, found, project, labels)
    found.stop(filename)
    try:
        rows.write_imported(store.engine, project.row(), claims, new, decisions)
    except rows.ProjectExistsError as exc:  # made at the same moment by someone else
        raise ProjectError(str(exc)) from exc
    return ImportedProject(project.name, len(claims), len(new), already, len(decisions))


def _items_here(store, found: _Problems, p: dict) -> set[str] | None:
    """The file's pairs (what its claims, labels and decisions may name), each checked to be a
    pair of the project's dataset here; None when the file lists none that can be read."""
    from negviz.datasets import load

    listed = p.get("items")
    if not isinstance(listed, list):
        return None
    items = {str(i) for i in listed if isinstance(i, str) or _is_int(i)}
    dataset = p.get("dataset")
    if not isinstance(dataset, str) or not dataset.strip():
        return items
    try:
        ds = load(dataset, store=store)
    except StoreError:  # the store itself failed (its database is away, ...): say that, not the dataset
        raise
    except Exception as exc:  # an unknown or unloadable dataset: say which, in a line
        why = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        found.add(
            "project.dataset", f"{_show(dataset)} cannot be loaded here ({why})", "add it first (Add a dataset page)"
        )
        return items
    known = set(map(str, ds.kind.item_ids(ds.frame)))
    missing = [str(i) for i in listed if str(i) in items - known]
    if missing:
        found.add(
            "project.items",
            f"{len(missing)} of its pairs are not in {dataset} here (e.g. {_show(missing[0])})",
            "is the file of another version of the dataset? Import it where that version is",
        )
    return items


def _new_label_rows(store, found: _Problems, project: Project, labels: list[tuple]) -> tuple[list[dict], int]:
    """The file's label versions the store lacks; a (pair, annotator) whose stored history differs
    from the file's stops the import (two stores edited the same labels apart)."""
    stored = store.annotations(project.dataset, latest=False)
    have = {(r.item_id, r.annotator, int(r.version)): (r.labels, r.note) for r in stored.itertuples()}
    newest: dict[tuple[str, str], int] = {}
    for item, who, version in have:
        newest[(item, who)] = max(version, newest.get((item, who), 0))
    out, already = [], 0
    for n, row in labels:
        key = (row["item_id"], row["annotator"], row["version"])
        if key in have:
            if have[key] != (row["labels"], row["note"]):
                found.add(
                    f"labels[{n}]",
                    f"this store holds another version {key[2]} of {_show(key[1])}'s label on {_show(key[0])}",
                    "the two stores were labelled apart: import into a store without these labels",
                )
            else:
                already += 1
            continue
        if key[2] <= newest.get(key[:2], 0):
            found.add(
                f"labels[{n}]",
                f"{_show(key[1])}'s labels on {_show(key[0])} differ between the file and this store",
                "the two stores were labelled apart: import into a store without these labels",
            )
            continue
        out.append(row)
    return out, already
