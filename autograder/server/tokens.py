"""Tokens: random, shown once, stored only as their SHA-256, compared in constant time.

A token is `secrets.token_urlsafe(32)` (256 bits of randomness), so one SHA-256 without salt or
stretching is enough: nothing about it can be guessed offline from its hash. Issuing a new token
for a name replaces that person's hash, so their earlier token stops working at once.
"""

import hashlib
import hmac
import re
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from autograder.server.db import Person, now

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # a student's id, as nbgrader folders take it
TOKEN = re.compile(r"[A-Za-z0-9_-]{20,100}")  # what token_urlsafe makes; anything else is unknown


def token_hash(token: str) -> str:
    """The SHA-256 of a token, in hex (what the database keeps)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_name(name: str) -> str:
    """`name` if it is a valid student or instructor name; ValueError saying what is expected."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(
            f"invalid name {name!r}: expected 1-64 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return name


def issue(session: Session, name: str, instructor: bool = False) -> str:
    """A new token for `name` (created if new); its earlier token stops working. Commits."""
    check_name(name)
    token = secrets.token_urlsafe(32)
    person = session.scalar(select(Person).where(Person.name == name))
    if person is None:
        person = Person(name=name, instructor=instructor, token_hash=token_hash(token))
        session.add(person)
    else:
        person.token_hash = token_hash(token)
        person.instructor = instructor
        person.token_issued_at = now()
    session.commit()
    return token


def authenticate(session: Session, token: str | None) -> Person | None:
    """The person whose current token is `token`, or None (missing, malformed or unknown)."""
    if not token or not TOKEN.fullmatch(token):
        return None
    digest = token_hash(token)
    person = session.scalar(select(Person).where(Person.token_hash == digest))
    if person is None or not hmac.compare_digest(person.token_hash, digest):
        return None
    return person


def bearer(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None
