"""Alembic's environment for the server's database: the migrations run on the connection that
`db.upgrade` hands over (in its transaction, holding the write lock), never on one of their own.

`alembic revision --autogenerate` compares the database with the models (`db.Base`, and the
`handins` table of `collect --from-server`).
"""

from alembic import context

from autograder.server import handin  # noqa: F401  its table, `handins`, joins Base.metadata
from autograder.server.db import Base

context.configure(
    connection=context.config.attributes["connection"],
    target_metadata=Base.metadata,
    transactional_ddl=True,  # SQLite too: the caller's transaction holds every step
)
with context.begin_transaction():
    context.run_migrations()
