"""The `tokens` and `serve` steps of `python -m autograder.cli.instructor`."""

import argparse
import os
import sys
from pathlib import Path

from autograder.sandbox.host import bwrap


def tokens(
    root: Path,
    students: list[str],
    instructors: list[str],
    db: str | None,
    parser: argparse.ArgumentParser,
    folder: Path | None = None,
    server: str | None = None,
) -> int:
    """Issue a token for every student and instructor named (each one's earlier token stops working).

    Printed as `name,token` lines; with `folder`, each student's is written instead into
    FOLDER/<student>/submit.toml (readable by the instructor alone), the server's address beside it:
    the file the student puts into their kit's folder, in place of the kit's own.
    """
    from autograder.kit.build import submit_config
    from autograder.server.db import database_url, open_database
    from autograder.server.tokens import check_name, issue

    server = server or None  # make passes SERVER_URL empty when it is not set
    if not students and not instructors:
        parser.error("tokens takes one or more student names (or --instructor NAME)")
    try:
        for name in [*students, *instructors]:
            check_name(name)
        submit_config(server)
    except ValueError as error:
        parser.error(str(error))
    if folder is not None and not server:
        parser.error("tokens --submit-toml needs --server (SERVER_URL): the address students use")
    if not root.is_dir():
        parser.error(f"no course directory at {root} (make course COURSE={root} first)")
    sessions = open_database(database_url(root, db))
    with sessions() as session:
        for name in students:
            token = issue(session, name)
            if folder is None:
                print(f"{name},{token}")
                continue
            (folder / name).mkdir(mode=0o700, parents=True, exist_ok=True)
            path = folder / name / "submit.toml"
            path.unlink(missing_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(submit_config(server, token))
            print(f"{name}: {path}")
        for name in instructors:
            print(f"{name},{issue(session, name, instructor=True)}")
    return 0


def serve(args: argparse.Namespace) -> int:
    """Run the submission server in the foreground until interrupted."""
    import uvicorn

    from autograder.server.app import create_app
    from autograder.server.grading_loop import released_chapters
    from autograder.server.service import Settings

    try:
        bwrap.check_available()
    except bwrap.SandboxUnavailable as error:
        print(f"refusing to serve: {error}", file=sys.stderr)
        return 2
    try:
        settings = Settings(
            root=args.root,
            per_hour=args.per_hour,
            max_bytes=args.max_bytes,
            scheduler=args.scheduler,
            db=args.db,
            workers=args.workers,
            queue=args.queue,
            waiting=args.waiting,
            body_seconds=args.body_seconds,
            refused_per_hour=args.refused_per_hour,
        )
    except ValueError as error:
        print(f"ERROR: {error}", file=sys.stderr)
        return 2
    released = sorted(released_chapters(args.root))
    if not released:
        print(f"note: no chapter released in {args.root} yet (make release)", file=sys.stderr)
    print(
        f"serving {args.root} on http://{args.host}:{args.port} (chapters: "
        f"{', '.join(released) or 'none'}); Ctrl-C stops",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
    return 0
