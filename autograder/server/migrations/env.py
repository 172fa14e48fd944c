"""Alembic's environment for the server's database: the revisions in versions/ run on the
connection that `db.upgrade` hands over, inside its transaction (which holds the write lock),
never on a connection of their own."""

from alembic import context

context.configure(connection=context.config.attributes["connection"])
with context.begin_transaction():  # inside the caller's transaction: alembic opens none
    context.run_migrations()
