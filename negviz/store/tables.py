"""The store's tables (SQLAlchemy Core), identical on SQLite and PostgreSQL.

Bump SCHEMA_VERSION with any change a stored database must be migrated for; ``Store`` refuses
a database written by a newer version instead of misreading it.
"""

from __future__ import annotations

from datetime import datetime, timezone

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB

from negviz.store.record import COMPLETE

SCHEMA_VERSION = 1

metadata = sa.MetaData()

# JSONB on PostgreSQL (indexable, compact); JSON text elsewhere. None is stored as SQL NULL.
JSON = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


class UTCDateTime(sa.types.TypeDecorator):
    """Timezone-aware UTC datetimes on both backends (SQLite has no time zones: store naive UTC)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        value = (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


meta = sa.Table(
    "negviz_meta",
    metadata,
    sa.Column("key", sa.String, primary_key=True),
    sa.Column("value", sa.String, nullable=False),
)

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("run_id", sa.String, primary_key=True),
    sa.Column("spec_key", sa.String, nullable=False, index=True),
    sa.Column("status", sa.String, nullable=False),
    sa.Column("kind", sa.String, nullable=False),
    sa.Column("model_name", sa.String, nullable=False),
    sa.Column("model_spec", JSON),
    sa.Column("family", sa.String),
    sa.Column("model_revision", sa.String),
    sa.Column("dataset_name", sa.String, nullable=False, index=True),
    sa.Column("dataset_spec", JSON),
    sa.Column("dataset_kind", sa.String),
    sa.Column("split", sa.String),
    sa.Column("n", sa.Integer),
    sa.Column("options", JSON),
    sa.Column("summary", JSON),
    sa.Column("code_version", sa.String),
    sa.Column("device", sa.String),
    sa.Column("wall_seconds", sa.Double),
    sa.Column("created_at", UTCDateTime, nullable=False, index=True),
    sa.Column("finished_at", UTCDateTime),
    sa.Column("error", sa.Text),
    sa.Column("host", sa.String),
)
# The listing every page makes (kind + status, newest first). Indexes are added to an existing
# store when it opens (see ADDED_INDEXES), so a store made by an older negviz gets them too.
ix_runs_listing = sa.Index("ix_runs_listing", runs.c.kind, runs.c.status, runs.c.created_at)
ADDED_INDEXES = (ix_runs_listing,)
# A spec is stored once: at most one complete run per spec key, enforced by the database, so two
# writers racing with one spec cannot both store it (the loser reuses the winner's run). Running,
# failed and cancelled runs are not limited. A store made before this index gets it on opening,
# after its older duplicates are removed (Store._migrate).
ux_runs_complete_spec = sa.Index(
    "ux_runs_complete_spec",
    runs.c.spec_key,
    unique=True,
    sqlite_where=runs.c.status == COMPLETE,
    postgresql_where=runs.c.status == COMPLETE,
)

# Long per-item scores (schema.SCORE_COLUMNS); the primary key also serves the cascade delete.
# Laid out for its one access path, "all scores of one run, by item": on SQLite the table is
# clustered on (run_id, item_id, slot) (WITHOUT ROWID: one B-tree, no rowid lookups, half the
# size); PostgreSQL reads it through the same primary key. Stores made before this layout keep
# their rowid table: it reads the same, only slower.
item_scores = sa.Table(
    "item_scores",
    metadata,
    sa.Column("run_id", sa.String, sa.ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("item_id", sa.String, primary_key=True),
    sa.Column("slot", sa.String, primary_key=True),
    sa.Column("score", sa.Double, nullable=False),
    sqlite_with_rowid=False,
)

# Text behind a run's scores, per item and query (a generative reranker's reasoning or
# permutation answer, negviz.store.item_texts). Created on open in stores made before it existed.
item_texts = sa.Table(
    "item_texts",
    metadata,
    sa.Column("run_id", sa.String, sa.ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("item_id", sa.String, primary_key=True),
    sa.Column("slot", sa.String, primary_key=True),
    sa.Column("name", sa.String, primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
)

# Runs imported lazily (Store.import_runs(lazy=True)): their record is stored, their item scores
# are still in the run file named here, read from it in place until Store.load_pending copies them in.
pending_scores = sa.Table(
    "pending_scores",
    metadata,
    sa.Column("run_id", sa.String, sa.ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("file", sa.String, nullable=False),
)

# Fine-tuning: aggregate metrics per epoch, and per-item measurements (e.g. cosine per pair).
epochs = sa.Table(
    "epochs",
    metadata,
    sa.Column("run_id", sa.String, sa.ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("epoch", sa.Integer, primary_key=True),
    sa.Column("metrics", JSON),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

epoch_items = sa.Table(
    "epoch_items",
    metadata,
    sa.Column("run_id", sa.String, primary_key=True),
    sa.Column("epoch", sa.Integer, primary_key=True),
    sa.Column("item_id", sa.String, primary_key=True),
    sa.Column("name", sa.String, primary_key=True),
    sa.Column("value", sa.Double, nullable=False),
    sa.ForeignKeyConstraint(["run_id", "epoch"], ["epochs.run_id", "epochs.epoch"], ondelete="CASCADE"),
)

# Append-only: an edit is a new row with the next version; rows are never updated or deleted.
annotations = sa.Table(
    "annotations",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("dataset", sa.String, nullable=False),
    sa.Column("item_id", sa.String, nullable=False),
    sa.Column("annotator", sa.String, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("labels", JSON),
    sa.Column("note", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    # Two writers computing the same next version collide here; the loser retries.
    sa.UniqueConstraint("dataset", "item_id", "annotator", "version", name="uq_annotation_version"),
)

# Annotation projects (negviz.projects): a named labelling job over a dataset's pairs, with its
# guidelines, label schema and overlap (each pair to ``overlap`` annotators). Labels themselves
# go to ``annotations`` (by dataset), so every page that reads labels sees a project's too.
annotation_projects = sa.Table(
    "annotation_projects",
    metadata,
    sa.Column("name", sa.String, primary_key=True),
    sa.Column("dataset", sa.String, nullable=False),
    sa.Column("items", JSON, nullable=False),  # the project's pair ids, in the dataset's order
    sa.Column("overlap", sa.Integer, nullable=False),
    sa.Column("label_schema", JSON, nullable=False),  # {"types": [...], "multi_type": bool}
    sa.Column("guidelines", sa.Text, nullable=False),
    sa.Column("claim_hours", sa.Double, nullable=False),  # an unlabelled claim older than this is free again
    sa.Column("owner", sa.String, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

# Who holds which pair of a project: slot 1..overlap per pair (more only when someone asks for an
# extra label). The primary key is the concurrency guard: two annotators taking the last free slot
# of a pair at once compute the same slot number, and the database lets only one of them in.
project_claims = sa.Table(
    "project_claims",
    metadata,
    sa.Column("project", sa.String, sa.ForeignKey("annotation_projects.name", ondelete="CASCADE"), primary_key=True),
    sa.Column("item_id", sa.String, primary_key=True),
    sa.Column("slot", sa.Integer, primary_key=True),
    sa.Column("annotator", sa.String, nullable=False),
    sa.Column("claimed_at", UTCDateTime, nullable=False),
    sa.UniqueConstraint("project", "item_id", "annotator", name="uq_claim_annotator"),
)

# A reviewer's decision on a pair whose labels disagree: append-only and versioned per
# (project, item_id), like annotations; the newest version is the adjudicated label.
adjudications = sa.Table(
    "adjudications",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("project", sa.String, nullable=False),
    sa.Column("dataset", sa.String, nullable=False, index=True),
    sa.Column("item_id", sa.String, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    sa.Column("reviewer", sa.String, nullable=False),
    sa.Column("labels", JSON),
    sa.Column("note", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.UniqueConstraint("project", "item_id", "version", name="uq_adjudication_version"),
)

# Datasets a user added (negviz.store.datasets): the validated items as Parquet bytes, with where
# they came from. Created on first use in stores made before this table existed.
added_datasets = sa.Table(
    "added_datasets",
    metadata,
    sa.Column("name", sa.String, primary_key=True),
    sa.Column("kind", sa.String, nullable=False),
    sa.Column("items", sa.LargeBinary, nullable=False),
    sa.Column("n", sa.Integer, nullable=False),
    sa.Column("columns", sa.String, nullable=False),  # the mapping NEEDED=YOURS,... ("" = none)
    sa.Column("source_file", sa.String, nullable=False),
    sa.Column("size", sa.BigInteger, nullable=False),
    sa.Column("sha256", sa.String, nullable=False, index=True),
    sa.Column("added_by", sa.String, nullable=False),
    sa.Column("added_at", UTCDateTime, nullable=False),
    sa.Column("description", sa.Text, nullable=False),
    sa.Column("licence", sa.String, nullable=False),
)

# Heartbeats of running runs (fine-tuning): the process that owns the run ("host:pid") updates
# beat_at every few seconds (negviz.evaluation.jobs.Heartbeat), so a run whose process died is told apart
# from one still working. A table of its own: created on open in older stores (like the tables
# above), it leaves the runs table and SCHEMA_VERSION as they were, and an older negviz that
# ignores it still reads and writes the store.
run_heartbeats = sa.Table(
    "run_heartbeats",
    metadata,
    sa.Column("run_id", sa.String, sa.ForeignKey("runs.run_id", ondelete="CASCADE"), primary_key=True),
    sa.Column("owner", sa.String, nullable=False),
    sa.Column("beat_at", UTCDateTime, nullable=False),
)

# Finished shards of a run not committed yet (negviz.evaluation.fill): one row per shard of a
# spec cut into ``shard_count`` parts, its scores (and a generative scorer's texts) as Parquet
# bytes in their scoring order, and the shard's own record (device, cost, host) as JSON. Written
# once by the driver as each shard comes back (the primary key refuses a second copy); a driver
# killed half-way leaves them for the next one; the spec's rows go when its run is committed.
# Created on open in older stores, like the tables above.
pending_shards = sa.Table(
    "pending_shards",
    metadata,
    sa.Column("spec_key", sa.String, primary_key=True),
    sa.Column("shard_count", sa.Integer, primary_key=True),
    sa.Column("shard_index", sa.Integer, primary_key=True),
    sa.Column("start", sa.Integer, nullable=False),
    sa.Column("stop", sa.Integer, nullable=False),
    sa.Column("record", JSON, nullable=False),
    sa.Column("scores", sa.LargeBinary, nullable=False),
    sa.Column("texts", sa.LargeBinary),
    sa.Column("created_at", UTCDateTime, nullable=False),
)


def now() -> datetime:
    return datetime.now(timezone.utc)
