"""The server's tables: people, submissions and handins; from a database made before alembic,
what it lacks.

A database of an earlier version has no `alembic_version` table and may lack any of these tables
and the JSON columns `stages`, `written` and `reports` (added one at a time, by hand-written `ALTER
TABLE`, before alembic): this revision creates or adds only what is missing, and keeps every row.

Revision ID: 0001
Revises:
Create Date: 2026-12-06
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

LATER_COLUMNS = ("stages", "written", "reports")  # JSON columns older databases may lack


def upgrade() -> None:
    """Create the missing tables; add to an older `submissions` the columns it lacks."""
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "people" not in existing:
        op.create_table(
            "people",
            sa.Column("id", sa.Integer, primary_key=True),
            sa.Column("name", sa.String(64), nullable=False, unique=True),
            sa.Column("instructor", sa.Boolean, nullable=False),
            sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
            sa.Column("token_issued_at", sa.DateTime, nullable=False),
        )
    if "submissions" not in existing:
        op.create_table(
            "submissions",
            sa.Column("id", sa.Integer, primary_key=True),
            sa.Column("person_id", sa.Integer, sa.ForeignKey("people.id"), nullable=False),
            sa.Column("chapter", sa.String(100), nullable=False),
            sa.Column("notebook", sa.LargeBinary, nullable=False),
            sa.Column("sha256", sa.String(64), nullable=False),
            sa.Column("seed", sa.Integer, nullable=False),
            sa.Column("submitted_at", sa.DateTime, nullable=False),
            sa.Column("status", sa.String(10), nullable=False),
            sa.Column("attempts", sa.Integer, nullable=False),
            sa.Column("points", sa.Float, nullable=True),
            sa.Column("max_points", sa.Float, nullable=True),
            sa.Column("exercises", sa.JSON, nullable=True),
            sa.Column("written", sa.JSON, nullable=True),
            sa.Column("flags", sa.JSON, nullable=True),
            sa.Column("feedback", sa.Text, nullable=True),
            sa.Column("graded_at", sa.DateTime, nullable=True),
            sa.Column("stages", sa.JSON, nullable=True),
            sa.Column("reports", sa.JSON, nullable=True),
        )
        op.create_index(
            "ix_submissions_person_chapter_time",
            "submissions",
            ["person_id", "chapter", "submitted_at"],
        )
        op.create_index("ix_submissions_status", "submissions", ["status"])
    else:
        present = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("submissions")}
        for name in LATER_COLUMNS:
            if name not in present:
                op.add_column("submissions", sa.Column(name, sa.JSON, nullable=True))
    if "handins" not in existing:
        op.create_table(
            "handins",
            sa.Column(
                "submission_id", sa.Integer, sa.ForeignKey("submissions.id"), primary_key=True
            ),
            sa.Column("chapter", sa.String(100), nullable=False),
            sa.Column("late", sa.Boolean, nullable=False),
            sa.Column("handed_in", sa.Boolean, nullable=False),
            sa.Column("deadline", sa.DateTime, nullable=True),
            sa.Column("collected_at", sa.DateTime, nullable=False),
        )
