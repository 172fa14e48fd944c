"""The submission server attacked by a student who has read all of its code, on a real server.

One real server (`python -m autograder.cli.instructor serve`: uvicorn, the real SQLite database, one
grading worker) with chapter 01 released and PER_HOUR=1. Rows a test needs in the past (an hour's
submissions, another student's graded one) are written straight into the database, so that
nothing here waits for grading. Each attack is made over a real connection (httpx, or a raw socket
where the attack is in the bytes: a stalled body, a header that is not ASCII):

- the hourly limit and a forged upload form are answered while the body is still being sent (a
  stalled upload gets its 429 or 403 without the rest of it), with an exact Retry-After;
- one student's second upload while the first is being received is refused (409), and a student
  stalling uploads does not hold up another's;
- the CSRF token travels in a form field before the file, never in the address; a token in the
  address, or after the file, or none, is refused;
- the session cookie is `__Host-` prefixed and Secure over https (a TLS proxy's
  X-Forwarded-Proto), a plain-name cookie is then ignored; over plain http it has no prefix;
- forged, tampered, foreign-key and non-ASCII cookies and CSRF tokens give the sign-in page or a
  403, never an error; an anonymous session planted before sign-in stays anonymous (fixation);
- ids of others, ids past the database's integers: 404, never 500;
- file names with `../`, NUL, look-alike unicode, CR LF (header injection) or 100,000 characters:
  422, nothing stored, no injected header; a notebook of 150,000 cells is refused before nbformat
  validates it; slow connections that never finish their headers do not stop the server answering;
- `collect --from-server` with student names in the database that are paths writes nothing
  outside its scratch folder and refuses them by name; chapters no release has are not collected.
"""

import datetime as dt
import hashlib
import json
import re
import socket
import tempfile
import time
from contextlib import closing

import httpx
import pytest
from sqlalchemy import select
from support.server import CHAPTER, NOTEBOOK, Server, correct, course_with_chapter01, issue_tokens

from autograder.server.db import Person, Submission, database_url, now, open_database
from autograder.server.handin import collect_from_server
from autograder.server.web import Sessions

pytestmark = pytest.mark.slow
BAD = b'{"not": "a notebook"}'
COOKIE = "proof_lm_session"  # over plain http
SECURE_COOKIE = f"__Host-{COOKIE}"  # over https


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The server, its course, people's tokens and a correct notebook."""
    tmp = tmp_path_factory.mktemp("server-attacks")
    course = tmp / "course"
    released = course_with_chapter01(course)
    notebook = correct(released, tmp / "correct" / NOTEBOOK)
    names = ("alice", "bob", "carol", "dave", "erin", "frank")
    tokens = issue_tokens(course, *names, instructor="prof")
    server = Server(course, tmp / "server.log", "--workers", "1", "--per-hour", "1")
    with server:
        yield {"server": server, "tokens": tokens, "notebook": notebook, "course": course}


def database(served: dict):
    return open_database(database_url(served["course"]))


def graded_row(person: Person, ago: float = 0, **values: object) -> Submission:
    """A graded submission of `person` made `ago` seconds back (chapter 01 unless `values` say)."""
    return Submission(
        person_id=person.id,
        chapter=values.pop("chapter", CHAPTER),
        notebook=values.pop("notebook", b"{}"),
        sha256="0" * 64,
        seed=1,
        submitted_at=now() - dt.timedelta(seconds=ago),
        status="graded",
        **values,
    )


def add_row(served: dict, student: str, ago: float, **values: object) -> int:
    """A submission of `student` made `ago` seconds back, written straight into the database."""
    with database(served)() as session:
        row = graded_row(
            session.scalar(select(Person).where(Person.name == student)), ago, **values
        )
        session.add(row)
        session.commit()
        return row.id


def rows_of(served: dict, student: str) -> int:
    with database(served)() as session:
        person = session.scalar(select(Person).where(Person.name == student))
        return len(
            session.scalars(select(Submission).where(Submission.person_id == person.id)).all()
        )


def multipart(parts: list[tuple[str, str | None, bytes]]) -> tuple[str, bytes]:
    """(Content-Type, body) of a multipart form with `parts` (name, file name or None, data) in this order."""
    boundary = "proof-lm-attack"
    body = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (
            f'; filename="{filename}"' if filename is not None else ""
        )
        body += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data
        body += b"\r\n"
    return f"multipart/form-data; boundary={boundary}", body + f"--{boundary}--\r\n".encode()


def stalled(server: Server, path: str, headers: dict[str, str], start: bytes, length: int):
    """A socket that sent a POST's headers (Content-Length `length`) and `start` of its body, then waits."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
    lines = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{server.port}", f"Content-Length: {length}"]
    lines += [f"{name}: {value}" for name, value in headers.items()]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + start)
    return sock


def answer_of(sock: socket.socket, timeout: float = 60) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and body the server sent on `sock` (raises socket.timeout if it sent none)."""
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", len(body)))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(status_line.split()[1]), headers, body


def file_head(filename: str = NOTEBOOK, fields: dict[str, str] | None = None) -> bytes:
    """The start of a multipart body: `fields`, then the notebook part's headers (its data to follow)."""
    head = b""
    for name, value in (fields or {}).items():
        head += (
            f'--proof-lm-attack\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
        )
        head += value.encode() + b"\r\n"
    head += (
        "--proof-lm-attack\r\nContent-Disposition: form-data; "
        f'name="notebook"; filename="{filename}"\r\nContent-Type: application/json\r\n\r\n'
    ).encode()
    return head + b'{"cells": ['


MULTIPART = {"Content-Type": "multipart/form-data; boundary=proof-lm-attack"}


def test_the_hourly_limit_answers_before_the_notebook_is_read(served):
    server, token = served["server"], served["tokens"]["alice"]
    add_row(served, "alice", ago=600)  # PER_HOUR=1: alice's hour is used, a slot opens in 3000 s
    before = rows_of(served, "alice")
    headers = {**MULTIPART, "Authorization": f"Bearer {token}"}
    with stalled(server, "/api/submissions", headers, file_head(), 5_000_000) as sock:
        status, answer, body = answer_of(sock)  # the rest of the 5 MB is never sent
    assert status == 429, body
    assert abs(int(answer["retry-after"]) - 3000) <= 5, answer
    assert b"1 submissions of 01_bigram_counting in the last hour" in body
    assert rows_of(served, "alice") == before  # the refusal was not counted


def test_one_upload_at_a_time_per_student(served):
    server, tokens = served["server"], served["tokens"]
    headers = {**MULTIPART, "Authorization": f"Bearer {tokens['bob']}"}
    with stalled(server, "/api/submissions", headers, file_head(), 5_000_000):
        with server.client(tokens["bob"]) as bob:
            deadline = time.monotonic() + 60
            while (second := upload_bad(bob)).status_code != 409:
                assert second.status_code == 422 and time.monotonic() < deadline, second.text
                time.sleep(0.2)
            assert "another upload of yours is still being received" in second.json()["detail"]
        with server.client(tokens["carol"]) as carol:  # another student is not held up
            assert upload_bad(carol).status_code == 422
    with server.client(tokens["bob"]) as bob:  # the stalled one gone, bob uploads again
        deadline = time.monotonic() + 60
        while (again := upload_bad(bob)).status_code == 409:
            assert time.monotonic() < deadline, "bob's closed upload still counts as in flight"
            time.sleep(0.2)
        assert again.status_code == 422, again.text


def upload_bad(client: httpx.Client, name: str = NOTEBOOK, data: bytes = BAD) -> httpx.Response:
    return client.post("/api/submissions", files={"notebook": (name, data)})


def signed_in(server: Server, token: str) -> tuple[httpx.Client, str]:
    """A client signed in through the form (its cookie jar holds the session); the page's CSRF token."""
    client = httpx.Client(base_url=server.url, timeout=60, headers={"Origin": server.url})
    csrf = csrf_of(client.get("/").text)
    assert client.post("/signin", data={"token": token, "csrf": csrf}).status_code == 303
    return client, csrf_of(client.get("/").text)


def csrf_of(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def test_the_upload_forms_csrf_token_is_a_field_before_the_file_never_in_the_address(served):
    server, tokens = served["server"], served["tokens"]
    client, csrf = signed_in(server, tokens["dave"])
    with closing(client):
        page = client.get("/").text
        form = re.search(r'<form[^>]*id="upload"[^>]*>(.*?)</form>', page, re.S)
        assert 'action="/upload"' in form.group(0), form.group(0)
        fields = re.findall(r'name="(\w+)"', form.group(1))
        assert fields == ["csrf", "notebook"], fields
        ok = client.post("/upload", data={"csrf": csrf}, files={"notebook": (NOTEBOOK, BAD)})
        assert ok.status_code == 422, "the right token as a field: the upload is read"
        assert csrf not in server.log(), "the CSRF token reached the access log"
        for wrong in ({}, {"csrf": "x" * 43}, {"csrf": "é" * 20}):
            refused = client.post("/upload", data=wrong, files={"notebook": (NOTEBOOK, BAD)})
            assert refused.status_code == 403, (wrong, refused.text)
        in_address = client.post(f"/upload?csrf={csrf}", files={"notebook": (NOTEBOOK, BAD)})
        assert in_address.status_code == 403, "a token in the address is not the form's"
        kind, body = multipart([("notebook", NOTEBOOK, BAD), ("csrf", None, csrf.encode())])
        after = client.post("/upload", content=body, headers={"Content-Type": kind})
        assert after.status_code == 403, "a token after the file comes too late"
        # a wrong token is answered while the body is still coming
        cookie = "; ".join(f"{name}={value}" for name, value in client.cookies.items())
        headers = {**MULTIPART, "Cookie": cookie, "Origin": server.url}
        start = file_head(fields={"csrf": "y" * 43})
        with stalled(server, "/upload", headers, start, 5_000_000) as sock:
            status, _, body = answer_of(sock)
        assert status == 403 and b"not from this site" in body
    # no cookie at all: refused, whatever the form holds
    with httpx.Client(base_url=server.url, timeout=60) as anonymous:
        kind, body = multipart([("csrf", None, csrf.encode()), ("notebook", NOTEBOOK, BAD)])
        answer = anonymous.post("/upload", content=body, headers={"Content-Type": kind})
        assert answer.status_code == 403


def cookies_set(response: httpx.Response) -> list[str]:
    return response.headers.get_list("set-cookie")


def test_the_session_cookie_is_host_prefixed_when_secure(served):
    server, tokens = served["server"], served["tokens"]
    (plain,) = cookies_set(httpx.get(f"{server.url}/"))
    assert plain.startswith(f"{COOKIE}=") and "secure" not in plain.lower(), plain
    forwarded = httpx.get(f"{server.url}/", headers={"X-Forwarded-Proto": "https"})
    (secure,) = cookies_set(forwarded)
    assert secure.startswith(f"{SECURE_COOKIE}="), secure
    attributes = [part.strip().lower() for part in secure.split(";")[1:]]
    assert "secure" in attributes and "path=/" in attributes and "httponly" in attributes
    assert not [a for a in attributes if a.startswith("domain")], secure
    https = {"X-Forwarded-Proto": "https", "Origin": server.url}
    first = forwarded.headers["set-cookie"].split(";")[0]
    signin = httpx.post(
        f"{server.url}/signin",
        data={"token": tokens["erin"], "csrf": csrf_of(forwarded.text)},
        headers={**https, "Cookie": first},
    )
    assert signin.status_code == 303, signin.text[:300]
    (session,) = cookies_set(signin)
    assert session.startswith(f"{SECURE_COOKIE}=") and "secure" in session.lower()
    value = session.split(";")[0].partition("=")[2]
    tossed = httpx.get(f"{server.url}/", headers={**https, "Cookie": f"{COOKIE}={value}"})
    assert 'id="token"' in tossed.text, "over https a cookie without the prefix is not read"
    kept = httpx.get(f"{server.url}/", headers={**https, "Cookie": f"{SECURE_COOKIE}={value}"})
    assert 'id="who">erin<' in kept.text


def test_forged_cookies_and_tokens_give_the_sign_in_page_or_403_never_an_error(served):
    server, tokens = served["server"], served["tokens"]
    client, _ = signed_in(server, tokens["frank"])
    value = client.cookies[COOKIE]
    client.close()
    encoded, _, signature = value.partition(".")
    payload = json.loads(_unb64(encoded))
    with database(served)() as session:
        alice = session.scalar(select(Person).where(Person.name == "alice"))
        as_alice = {**payload, "person": alice.id, "issued": alice.token_issued_at.isoformat()}
    other_key = Sessions(key=b"k" * 32)
    forged = json.dumps(as_alice, separators=(",", ":")).encode()
    cookies = {
        "tampered": f"{_b64(json.dumps(as_alice).encode())}.{signature}",
        "other key": f"{_b64(forged)}.{other_key._sign(forged)}",
        "no signature": encoded,
        "not base64": "%%%.***",
        "empty": "",
    }
    for what, cookie in cookies.items():
        page = httpx.get(f"{server.url}/", headers={"Cookie": f"{COOKIE}={cookie}"})
        assert page.status_code == 200 and 'id="token"' in page.text, what
    # bytes that are not ASCII, in the cookie and in the CSRF field: no 500
    raw = {"Cookie": f"{COOKIE}=".encode() + encoded.encode() + b".\xe9\xe9\xe9"}
    page = httpx.get(f"{server.url}/", headers=raw)
    assert page.status_code == 200 and 'id="token"' in page.text, page.text[:300]
    wrong = httpx.post(
        f"{server.url}/signin",
        data={"token": tokens["frank"], "csrf": "é" * 30},
        headers={"Cookie": f"{COOKIE}={value}", "Origin": server.url},
    )
    assert wrong.status_code == 403, wrong.text[:300]
    latin = {"Authorization": b"Bearer " + "é".encode("latin-1") * 43}
    assert httpx.get(f"{server.url}/api/submissions", headers=latin).status_code == 401


def _b64(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    import base64

    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def test_a_session_planted_before_sign_in_stays_anonymous(served):
    """Session fixation: the anonymous cookie an attacker gave the victim is not the one signed in."""
    server, tokens = served["server"], served["tokens"]
    planted = httpx.get(f"{server.url}/")  # the attacker's anonymous session and its CSRF token
    fixed, csrf = planted.cookies[COOKIE], csrf_of(planted.text)
    signed = httpx.post(  # the victim signs in with the planted cookie in their browser
        f"{server.url}/signin",
        data={"token": tokens["frank"], "csrf": csrf},
        headers={"Cookie": f"{COOKIE}={fixed}", "Origin": server.url},
    )
    assert signed.status_code == 303
    fresh = signed.cookies[COOKIE]
    assert fresh != fixed
    mine = httpx.get(f"{server.url}/", headers={"Cookie": f"{COOKIE}={fresh}"})
    assert 'id="who">frank<' in mine.text
    attacker = httpx.get(f"{server.url}/", headers={"Cookie": f"{COOKIE}={fixed}"})
    assert 'id="token"' in attacker.text, "the planted cookie was signed in"


def test_other_students_ids_and_ids_past_the_databases_integers_are_404(served):
    server, tokens = served["server"], served["tokens"]
    theirs = add_row(
        served, "carol", ago=7200, feedback="<html>carol's feedback</html>", points=7.0
    )
    client, _ = signed_in(server, tokens["dave"])
    with closing(client), server.client(tokens["dave"]) as api:
        for number in (theirs, 2**63, 10**30):
            assert api.get(f"/api/submissions/{number}").status_code == 404, number
            assert api.get(f"/api/submissions/{number}/feedback").status_code == 404, number
            page = client.get(f"/submissions/{number}/feedback")
            assert page.status_code == 404 and "carol" not in page.text, number
        assert theirs not in [row["id"] for row in api.get("/api/submissions").json()]
        assert api.get("/api/class").status_code == 403
        assert 'id="class"' not in client.get("/").text
    owner, _ = signed_in(server, tokens["carol"])
    with closing(owner):
        assert "carol's feedback" in owner.get(f"/submissions/{theirs}/feedback").text


def test_hostile_file_names_are_refused_and_inject_nothing(served):
    server, token = served["server"], served["tokens"]["carol"]
    before = rows_of(served, "carol")
    notebook = served["notebook"]
    names = [
        f"../{NOTEBOOK}",
        f"/{NOTEBOOK}",
        f"{CHAPTER}.ipynb\x00.txt",
        f"{CHAPTER}\u200b.ipynb",  # a zero-width space
        "01_bigram_c\u03bfunting.ipynb",  # a Greek omicron for the o
        "０１_bigram_counting.ipynb",  # full-width digits (NFKC would make them plain)
        f"{CHAPTER}.ipynb\r\nX-Injected: yes",
        "x" * 100_000 + ".ipynb",
    ]
    with server.client(token) as carol:
        for name in names:
            kind, body = multipart([("notebook", name, notebook)])
            answer = carol.post("/api/submissions", content=body, headers={"Content-Type": kind})
            assert answer.status_code == 422, (name[:40], answer.status_code, answer.text[:200])
            assert "x-injected" not in answer.headers
            assert len(answer.text) < 1000, "the refusal repeats an unbounded name"
        huge = {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {"cell_type": "raw", "id": f"c{i}", "metadata": {}, "source": ""}
                for i in range(150_000)
            ],
        }
        data = json.dumps(huge, separators=(",", ":")).encode()
        answer = upload_bad(carol, data=data)
        assert answer.status_code == 422 and "cells and outputs" in answer.text, answer.text
    assert rows_of(served, "carol") == before


def test_a_stalled_upload_gets_408_after_the_body_timeout_and_frees_its_slot(tmp_path):
    course = tmp_path / "course"
    course_with_chapter01(course)
    tokens = issue_tokens(course, "gina")
    with Server(course, tmp_path / "server.log", "--workers", "1", "--body-seconds", "3") as server:
        headers = {**MULTIPART, "Authorization": f"Bearer {tokens['gina']}"}
        with closing(stalled(server, "/api/submissions", headers, file_head(), 5_000_000)) as sock:
            started = time.monotonic()
            status, _, body = answer_of(sock, timeout=30)  # the rest of the body never comes
            waited = time.monotonic() - started
        assert status == 408 and b"not received in full within 3 s" in body, (status, body)
        assert 2.5 < waited < 20, waited
        with server.client(tokens["gina"]) as gina:  # the slot is free again at once
            assert upload_bad(gina).status_code == 422
        assert rows_of({"course": course}, "gina") == 0


def test_a_student_whose_uploads_keep_being_refused_is_stopped_before_the_body_is_read(tmp_path):
    course = tmp_path / "course"
    released = course_with_chapter01(course)
    notebook = json.loads(correct(released, tmp_path / "correct" / NOTEBOOK))
    tokens = issue_tokens(course, "ivan", "hana")
    options = ("--body-seconds", "8", "--refused-per-hour", "5", "--max-bytes", "1000000")
    with Server(course, tmp_path / "server.log", "--workers", "1", *options) as server:
        notebook["cells"][0]["metadata"]["padding"] = [0] * 250_000  # 500 kB, 250,000 values
        headers = {**MULTIPART, "Authorization": f"Bearer {tokens['ivan']}"}
        first = time.monotonic()
        stalled(server, "/api/submissions", headers, file_head(), 500_000).close()  # cut off
        with server.client(tokens["ivan"]) as ivan:  # four refusals more that each cost a read
            deadline = time.monotonic() + 60
            while (bad := upload_bad(ivan)).status_code == 409:  # the cut-off one still ending
                assert time.monotonic() < deadline, "the cut-off upload never ended"
                time.sleep(0.2)
            assert bad.status_code == 422, bad.text
            padded = upload_bad(ivan, data=json.dumps(notebook, separators=(",", ":")).encode())
            assert padded.status_code == 422 and "JSON values" in padded.text, padded.text
            assert upload_bad(ivan, data=b" " * 1_100_000).status_code == 413
        with closing(stalled(server, "/api/submissions", headers, file_head(), 500_000)) as sock:
            assert answer_of(sock, timeout=30)[0] == 408
        with closing(stalled(server, "/api/submissions", headers, file_head(), 500_000)) as sock:
            started = time.monotonic()
            status, answer, body = answer_of(sock, timeout=30)  # the body is never sent
        assert status == 429 and b"5 uploads of yours in the last hour were refused" in body, body
        assert time.monotonic() - started < 6  # at once, not after the 8 s body timeout
        since_first = time.monotonic() - first  # Retry-After: until the first is an hour old
        assert 3600 - since_first - 1 <= int(answer["retry-after"]) <= 3600, (since_first, answer)
        del notebook["cells"][0]["metadata"]["padding"]
        with server.client(tokens["ivan"]) as ivan:  # for the hour, even a good notebook
            assert upload_bad(ivan, data=json.dumps(notebook).encode()).status_code == 429
        with server.client(tokens["hana"]) as hana:  # another student is not held up
            assert upload_bad(hana).status_code == 422
    assert rows_of({"course": course}, "ivan") == 0


def test_slow_connections_do_not_stop_the_server(served):
    server, tokens = served["server"], served["tokens"]
    sockets = []
    try:
        for _ in range(40):  # headers begun, never finished
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
            sock.sendall(b"POST /api/submissions HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            sockets.append(sock)
        headers = {**MULTIPART, "Authorization": f"Bearer {tokens['frank']}"}
        sockets.append(stalled(server, "/api/submissions", headers, file_head(), 5_000_000))
        assert httpx.get(f"{server.url}/api/health", timeout=30).status_code == 200
        with server.client(tokens["carol"]) as carol:
            assert upload_bad(carol).status_code == 422  # parsing is not held by the stalled ones
    finally:
        for sock in sockets:
            sock.close()


def test_redirects_stay_on_the_site(served):
    server, tokens = served["server"], served["tokens"]
    with httpx.Client(base_url=server.url, timeout=60, headers={"Origin": server.url}) as client:
        csrf = csrf_of(client.get("/").text)
        signed = client.post(
            "/signin?next=https://evil.example/",
            data={"token": tokens["frank"], "csrf": csrf, "next": "//evil.example"},
        )
        assert signed.status_code == 303 and signed.headers["location"] == "/"
        page = client.get("/?submitted=//evil.example/")
        assert page.status_code == 200 and "evil" not in page.text


def test_collect_from_server_refuses_student_names_that_are_paths(served, tmp_path, monkeypatch):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    hostile = ["../escaped", str(tmp_path / "absolute"), "..", "a/b"]
    with database(served)() as session:
        for number, name in enumerate(hostile):
            token = hashlib.sha256(f"hostile-{number}".encode()).hexdigest()
            person = Person(name=name, token_hash=token)
            session.add(person)
            session.flush()
            session.add(graded_row(person, notebook=served["notebook"]))
        frank = session.scalar(select(Person).where(Person.name == "frank"))
        for chapter in ("../../chapter-escaped", "/absolute-chapter"):  # chapters no release has
            session.add(graded_row(frank, chapter=chapter, notebook=served["notebook"]))
        session.commit()
    result = collect_from_server(served["course"])
    assert not list(served["course"].rglob("*chapter-escaped*"))
    assert not (served["course"] / "submitted" / "frank").exists()
    assert not (scratch / "escaped").exists() and not (tmp_path / "escaped").exists()
    assert not (tmp_path / "absolute").exists()
    assert not list(tmp_path.rglob(NOTEBOOK)), "a hostile name wrote a notebook outside"
    refused = {refusal.student for refusal in result.collected.refused}
    assert set(hostile) <= refused, result.collected.refused
    assert not {student for student, _ in result.collected.notebooks} & set(hostile)
    manifest = json.loads((served["course"] / "collected.json").read_text())
    assert set(hostile) <= {entry["student"] for entry in manifest["_refused"]}


@pytest.mark.browser
def test_a_hostile_file_name_shows_as_text_in_chromium(served):
    """The 422 page repeats the file name a student chose: in a real browser, nothing of it runs."""
    from support.browser import browser_page, chromium
    from test_page_safety import watch

    server, token = served["server"], served["tokens"]["dave"]
    name = "<img src=x onerror=alert(1)><svg onload=alert(2)><script>alert(3)</script>.ipynb"
    with browser_page(chromium()) as page:
        dialogs = watch(page)
        page.goto(f"{server.url}/")
        page.fill("#token", token)
        page.click("#signin button[type=submit]")
        page.locator("#who").wait_for()
        title = page.title()
        files = {"name": name, "mimeType": "application/json", "buffer": served["notebook"]}
        page.set_input_files("#notebook", files=[files])
        with page.expect_response(f"{server.url}/upload") as answer:
            page.click("#upload button[type=submit]")
        assert answer.value.status == 422
        error = page.locator("#error")
        assert "<img src=x onerror=alert(1)>" in error.inner_text()
        assert page.locator("main img, main svg, main script").count() == 0
        page.hover("#error")
        page.wait_for_timeout(500)
        assert not dialogs and page.title() == title


@pytest.mark.browser
def test_the_hourly_limit_page_shows_in_chromium_for_a_large_notebook(served):
    """Refused as the file begins, a 3 MB upload still gets its 429 page (not a reset connection)."""
    from support.browser import browser_page, chromium

    server, token = served["server"], served["tokens"]["alice"]
    add_row(served, "alice", ago=60)  # alice's hour is used (PER_HOUR=1)
    notebook = json.loads(served["notebook"])
    notebook["cells"].append(
        {"cell_type": "markdown", "id": "padding", "metadata": {}, "source": "x" * 3_000_000}
    )
    with browser_page(chromium()) as page:
        page.goto(f"{server.url}/")
        page.fill("#token", token)
        page.click("#signin button[type=submit]")
        page.locator("#who").wait_for()
        files = {"name": NOTEBOOK, "mimeType": "application/json"}
        files["buffer"] = json.dumps(notebook).encode()
        page.set_input_files("#notebook", files=[files])
        with page.expect_response(f"{server.url}/upload") as answer:
            page.click("#upload button[type=submit]")
        assert answer.value.status == 429
        assert "in the last hour" in page.locator("#error").inner_text()


@pytest.mark.browser
def test_with_secure_cookies_forced_chromium_signs_in_over_loopback_http(tmp_path, monkeypatch):
    """PROOF_LM_SECURE_COOKIE=1 on plain http: Chromium keeps a `__Host-` Secure cookie from loopback."""
    from support.browser import browser_page, chromium

    course = tmp_path / "course"
    course_with_chapter01(course)
    token = issue_tokens(course, "alice")["alice"]
    monkeypatch.setenv("PROOF_LM_SECURE_COOKIE", "1")
    with (
        Server(course, tmp_path / "server.log", "--workers", "1") as server,
        browser_page(chromium()) as page,
    ):
        page.goto(f"{server.url}/")
        page.fill("#token", token)
        page.click("#signin button[type=submit]")
        assert page.locator("#who").inner_text() == "alice"
        (cookie,) = page.context.cookies()
        assert cookie["name"] == SECURE_COOKIE and cookie["secure"] and cookie["httpOnly"]
