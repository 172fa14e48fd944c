"""Hand a notebook in to the course's submission server and print its grade (Python's standard library only).

    python submit.py notebooks/01_bigram_counting.ipynb     # upload, wait for the grade, print it
    python submit.py --id 12                                # an earlier submission: wait, print it

The server's address and your token come from the environment (PROOF_LM_SERVER, PROOF_LM_TOKEN)
or else from submit.toml beside this file (`server = "https://..."`, `token = "..."`). The file
name says which chapter it is: keep the name the notebook was handed out with. The feedback page
is saved beside the notebook (NAME.feedback.html) and is also on the server's page.
"""

import argparse
import email.utils
import json
import os
import re
import sys
import time
import tomllib
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import UTC, datetime
from pathlib import Path

CONFIG = Path(__file__).resolve().parent / "submit.toml"
NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}\.ipynb")
DONE = ("graded", "failed")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
INSTRUCTOR = "graded by your instructor"


class Refused(Exception):
    """A request the server (or this client) refused, with the message to print and the exit code."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Never follow a redirect: the token is sent to the configured address and nowhere else."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        """Refuse, naming where the server pointed."""
        raise Refused(
            f"the server at {req.full_url} redirected to {newurl}: if that is the course's "
            "server, set its address to it (PROOF_LM_SERVER or submit.toml)",
            2,
        )


OPENER = urllib.request.build_opener(NoRedirect)


def printable(value: object, limit: int = 300) -> str:
    """`value` as one line of visible text: control, format and separator characters escaped.

    The rule the instructor's tools print names with, written again here because the kit holds
    nothing of the grader (the repository's tests keep the two one rule): a server's text cannot
    colour or clear the terminal, reorder what is shown or start a line.
    """
    text = value if isinstance(value, str) else str(value)
    shown = []
    for character in text:
        if character == " " or unicodedata.category(character)[0] not in "CZ":
            shown.append(character)
        elif ord(character) < 0x100:
            shown.append(f"\\x{ord(character):02x}")
        elif ord(character) < 0x10000:
            shown.append(f"\\u{ord(character):04x}")
        else:
            shown.append(f"\\U{ord(character):08x}")
    line = "".join(shown)
    if len(line) > limit:
        line = line[:limit] + f"... ({len(line) - limit} more characters)"
    return line


def settings(config: Path) -> tuple[str, str]:
    """The server's address and the token, from the environment or else the config file."""
    values = {}
    if config.is_file():
        try:
            values = tomllib.loads(config.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise Refused(f"{config} is not valid TOML ({error})", 2) from None
    server = os.environ.get("PROOF_LM_SERVER") or str(values.get("server") or "")
    token = os.environ.get("PROOF_LM_TOKEN") or str(values.get("token") or "")
    if not server:
        raise Refused(
            f'no server address: set PROOF_LM_SERVER or `server = "https://..."` in {config}', 2
        )
    if not token:
        raise Refused(f'no token: set PROOF_LM_TOKEN or `token = "..."` in {config}', 2)
    parts = urllib.parse.urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused(f"the server address {server!r} should look like https://host[:port]", 2)
    if parts.scheme == "http" and parts.hostname not in LOOPBACK:
        print(
            "warning: the server's address is http://, not https://: your token and notebook "
            "travel unencrypted",
            file=sys.stderr,
        )
    return server.rstrip("/"), token


def retry_after(value: str | None) -> str:
    """Retry-After (seconds or an HTTP date) as words, e.g. 'in 1260 s (at 15:42 UTC)'."""
    if not value:
        return "later"
    if value.strip().isdigit():
        seconds = int(value)
        at = datetime.fromtimestamp(time.time() + seconds, UTC)
    else:
        try:
            at = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return "later"
        seconds = max(0, round(at.timestamp() - time.time()))
    return f"in {seconds} s (at {at:%H:%M} UTC)"


def detail(error: urllib.error.HTTPError) -> str:
    """The reason the server gave: a JSON body's "detail" (or "error"), else its text."""
    body = error.read(20_000).decode("utf-8", "replace")
    try:
        answer = json.loads(body)
    except ValueError:
        return printable(body.strip())
    if isinstance(answer, dict):
        answer = answer.get("detail") or answer.get("error") or answer
    return printable(answer if isinstance(answer, str) else json.dumps(answer))


def explain(error: urllib.error.HTTPError, size: int | None = None) -> Refused:
    """A clear message for the server's refusal."""
    reason = detail(error)
    code = error.code
    if code == 401:
        return Refused(
            "the server did not accept your token (401): check PROOF_LM_TOKEN or the token in "
            "submit.toml; a new token from your instructor replaces the old one"
        )
    if code == 413:
        size_text = f" ({size:,} bytes)" if size is not None else ""
        return Refused(
            f"the notebook is larger than the server accepts{size_text} (413): clear large "
            "outputs (Kernel > Restart Kernel and Clear Outputs of All Cells), save, submit again"
        )
    if code == 422:
        return Refused(
            f"the server could not take this notebook (422): {reason}. Submit the saved .ipynb "
            "under the name it was handed out with (for example 01_bigram_counting.ipynb)"
        )
    if code == 409:
        return Refused(f"not now (409): {reason}")
    if code == 429:
        return Refused(
            "you have made as many submissions of this chapter as the server accepts in an hour "
            f"(429): try again {retry_after(error.headers.get('Retry-After'))}"
        )
    if code == 503:
        return Refused(
            "the server is busy (503): its grading queue is full; try again "
            f"{retry_after(error.headers.get('Retry-After'))}"
        )
    if code == 404:
        return Refused(f"no such submission of yours on the server (404): {reason}")
    return Refused(f"the server answered {code}: {reason}")


def request(url: str, token: str, data: bytes | None = None, content_type: str = "") -> bytes:
    """One request with the token; the body of a 2xx answer (HTTPError and URLError propagate)."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    req = urllib.request.Request(url, data=data, headers=headers, method="POST" if data else "GET")
    with OPENER.open(req, timeout=120) as response:
        return response.read()


def call(url: str, token: str, size: int | None = None, **upload: object) -> bytes:
    """`request`, its failures turned into clear messages."""
    try:
        return request(url, token, **upload)
    except urllib.error.HTTPError as error:
        raise explain(error, size) from None
    except urllib.error.URLError as error:
        raise Refused(f"cannot reach the server at {url}: {printable(error.reason)}") from None
    except TimeoutError:
        raise Refused(f"the server at {url} did not answer in time") from None
    except ConnectionError as error:  # it stopped reading (a notebook over its size, a restart)
        raise Refused(
            f"the server at {url} closed the connection ({printable(error)}): if the notebook is "
            "large, clear its outputs and save; else try again in a minute"
        ) from None


def multipart(filename: str, data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body with one file field `notebook`; the body and its content type."""
    boundary = f"proof-lm-{uuid.uuid4().hex}"
    head = (
        f"--{boundary}\r\n"
        f'Content-Disposition: form-data; name="notebook"; filename="{filename}"\r\n'
        "Content-Type: application/x-ipynb+json\r\n\r\n"
    ).encode()
    return (
        head + data + f"\r\n--{boundary}--\r\n".encode(),
        f"multipart/form-data; boundary={boundary}",
    )


def upload(server: str, token: str, notebook: Path, name: str) -> int:
    """Send the notebook as `name`; the new submission's id."""
    if not NAME.fullmatch(name):
        raise Refused(
            f"{name!r} is not a notebook's name: the file should keep the name it was handed "
            "out with, for example 01_bigram_counting.ipynb (or pass --chapter)",
            2,
        )
    try:
        data = notebook.read_bytes()
    except OSError as error:
        raise Refused(f"cannot read {notebook}: {error.strerror}", 2) from None
    body, content_type = multipart(name, data)
    answer = call(
        f"{server}/api/submissions", token, size=len(data), data=body, content_type=content_type
    )
    return int(json.loads(answer)["id"])


def wait(server: str, token: str, submission: int, timeout: float) -> dict:
    """Poll the submission until it is graded or failed; its record (Refused after `timeout` s)."""
    deadline, pause, last = time.monotonic() + timeout, 1.0, None
    while True:
        record = json.loads(call(f"{server}/api/submissions/{submission}", token))
        if record.get("status") in DONE:
            return record
        if record.get("status") != last:
            last = record.get("status")
            print(f"submission {submission}: {printable(last)}", flush=True)
        if time.monotonic() + pause > deadline:
            raise Refused(
                f"submission {submission} is not graded after {timeout:.0f} s (still "
                f"{printable(last)}): it stays queued on the server; see it later with "
                f"`python submit.py --id {submission}`",
                3,
            )
        time.sleep(pause)
        pause = min(pause * 1.5, 5.0)


def number(value: object) -> str:
    """A score as 7 or 6.5."""
    return f"{value:g}" if isinstance(value, int | float) else "?"


def total(rows: list[dict], key: str) -> float:
    """The sum of the rows' `key` that are numbers."""
    return sum(row[key] for row in rows if isinstance(row.get(key), int | float))


def score_line(points: object, top: object, extra: list[dict], written: list[dict]) -> str:
    """The score as the server's pages and the feedback page say it: the autograded points, the
    challenges' extra credit apart, the written answers the instructor grades."""
    line = f"Score: {number(points)}/{number(top)}"
    if extra:
        line += f" + extra credit {number(total(extra, 'earned'))}/{number(total(extra, 'points'))}"
    if written:
        possible = number(total(written, "points"))
        if any(answer.get("earned") is None for answer in written):
            line += f"; written answers: {INSTRUCTOR} ({possible} points, pending)"
        else:
            line += (
                f"; written answers: {number(total(written, 'earned'))}/{possible}, {INSTRUCTOR}"
            )
    return line


def report(record: dict) -> str:
    """The grade as lines of text: the score, each exercise, the flags."""
    lines = [
        f"submission {record.get('id')} of {printable(record.get('chapter'))}: "
        f"{printable(record.get('status'))}"
    ]
    exercises = [e for e in record.get("exercises") or [] if isinstance(e, dict)]
    written = [w for w in record.get("written") or [] if isinstance(w, dict)]
    names = [e.get("exercise") for e in exercises] + [w.get("answer") for w in written]
    width = max([len(printable(name, 60)) for name in names] + [8])
    extra = [e for e in exercises if e.get("extra") is True]
    for exercise in exercises:
        mark = "passed" if exercise.get("passed") else "FAILED"
        if exercise in extra:
            mark = "challenge, extra credit" + (": passed" if exercise.get("passed") else "")
        name = printable(exercise.get("exercise"), 60)
        earned, points = number(exercise.get("earned")), number(exercise.get("points"))
        lines.append(f"  {name:<{width}}  {earned:>4}/{points:<4} {mark}")
    for answer in written:
        given = "–" if answer.get("earned") is None else number(answer.get("earned"))
        name, points = printable(answer.get("answer"), 60), number(answer.get("points"))
        lines.append(f"  {name:<{width}}  {given:>4}/{points:<4} written answer, {INSTRUCTOR}")
    if record.get("status") == "graded":
        lines.append(score_line(record.get("points"), record.get("max_points"), extra, written))
    if isinstance(record.get("seed"), int):
        lines.append(f"Hidden cases drawn from seed {record['seed']}.")
    for flag in record.get("flags") or []:
        lines.append(f"FLAG: {printable(flag)}")
    return "\n".join(lines)


def save_feedback(server: str, token: str, submission: int, target: Path) -> Path | None:
    """Save the feedback page to `target`; None when the server has none."""
    try:
        page = request(f"{server}/api/submissions/{submission}/feedback", token)
    except (urllib.error.URLError, TimeoutError, Refused):
        return None
    target.write_bytes(page)
    return target


def main(argv: list[str] | None = None) -> int:
    """Submit a notebook (or look up a submission) and print its grade."""
    parser = argparse.ArgumentParser(
        prog="python submit.py",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("notebook", nargs="?", type=Path, help="the saved notebook to submit")
    parser.add_argument("--id", type=int, help="an earlier submission to wait for and print")
    parser.add_argument(
        "--chapter", help="the chapter, when the file was renamed (e.g. 01_bigram_counting)"
    )
    parser.add_argument(
        "--timeout", type=float, default=600, help="seconds to wait for the grade (default 600)"
    )
    parser.add_argument("--config", type=Path, default=CONFIG, help=f"default: {CONFIG}")
    args = parser.parse_args(argv)
    if (args.notebook is None) == (args.id is None):
        parser.error("give a notebook to submit, or --id N of an earlier submission")
    try:
        server, token = settings(args.config)
        if args.notebook is not None:
            name = f"{args.chapter}.ipynb" if args.chapter else args.notebook.name
            submission = upload(server, token, args.notebook, name)
            print(f"submitted {args.notebook} as submission {submission}", flush=True)
            feedback = args.notebook.with_suffix(".feedback.html")
        else:
            submission, feedback = args.id, Path(f"submission-{args.id}.feedback.html")
        record = wait(server, token, submission, args.timeout)
    except Refused as refused:
        print(f"error: {refused}", file=sys.stderr)
        return refused.code
    print(report(record))
    saved = save_feedback(server, token, submission, feedback)
    if saved is not None:
        print(f"feedback: {saved} (open it in a browser)")
    print(f"all your submissions: {server}/ (sign in with your token)")
    return 0 if record.get("status") == "graded" else 1


if __name__ == "__main__":
    sys.exit(main())
