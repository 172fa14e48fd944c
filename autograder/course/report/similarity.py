"""Which hand-ins look copied: every pair of students' solution code compared, per chapter and exercise.

copydetect fingerprints each student's solution cells by winnowing (k-grams of their tokens, with
names, strings and comments normalised away, so renaming variables changes nothing and
reordering lines moves fingerprints without removing them). The released notebook's code (the
given set-up, the demonstrations, the debug exercises' drafts and the solution cells' stubs) is
boilerplate: its fingerprints are left out of every student's, so a draft everyone was handed is
not "similar".

A pair's similarity is the smaller of the two shares of each one's fingerprinted code found in the
other (a short hand-in wholly inside a long one is not a copy of it): for one exercise, its cell
against the other's; for the chapter, summed over the exercises' cells. Pairs at or above
`THRESHOLD` are listed for the instructor with the matching code marked side by side: a flag to
look at, never a change of score.

Bounds: a student's cells of a chapter are compared on `MAX_CHARS` characters together, shared
fairly (`shares`: a cell shorter than its share keeps it whole, the rest is divided among the
longer ones), so a cell padded past the cap (a 20,000-character comment) hides nothing in the
others; a cell cut is named on the page. Each is lexed once, so fingerprinting is linear in the
class and bounded per student whatever they hand in. Every pair is first screened by how many fingerprints the two share (a set
intersection: n(n-1)/2 of them a chapter, each bounded by the cap); only pairs sharing at least
`SCREEN` x threshold of each side's fingerprints are compared in full, the `MAX_COMPARED` most
sharing of them a chapter and part; more are counted, not compared. `benchmarks/report.py`
measures it.
"""

import io
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from autograder.judge.notebook import cell_source

K = 25  # characters of normalised code in a fingerprinted k-gram (copydetect's default)
WINDOW = 4  # winnowing window (copydetect's default)
THRESHOLD = 0.8  # a pair this similar (each one's code found in the other) is listed
MIN_TOKENS = 200  # an exercise's code shorter than this (normalised characters) tells nothing:
# measured on chapter 01's catalogue, two honest 180-character solutions reached 0.76
MAX_CHARS = 20_000  # a student's code per chapter beyond this is not compared (2.5 times the
# longest reference solution of a chapter, 08_gpt's 7,700 characters)
SCREEN = (
    0.5  # a pair is compared in full when it shares this share of the threshold in fingerprints
)
MAX_COMPARED = 200  # pairs compared in full per chapter and part at most (the most sharing first)
CHAPTER = "all solution cells"


@dataclass(frozen=True)
class Pair:
    """Two students whose code for `part` (a chapter, or one exercise of it) looks alike."""

    chapter: str
    part: str  # "all solution cells" or an exercise's name
    first: str
    second: str
    similarity: float  # the smaller of the two shares of fingerprinted code found in the other
    marked: tuple[list[tuple[str, bool]], list[tuple[str, bool]]]  # each side: (text, matching)


@dataclass(frozen=True)
class Cell:
    """A solution cell as compared: its first MAX_CHARS characters (no more is ever compared) and its length."""

    code: str
    length: int


def solution_cells(notebook: dict, exercises: list[str]) -> dict[str, Cell]:
    """Each exercise's solution cell (grade id `<exercise>_code`) in `notebook`: exercise -> cell.

    Only these are kept of a notebook, so the report holds a bounded part of each hand-in (a
    notebook of 64 MB keeps some 600 MB as Python objects: a class of them held whole ran out of
    memory)."""
    wanted = {f"{name}_code": name for name in exercises}
    found: dict[str, Cell] = {}
    for cell in notebook.get("cells", []):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("cell_type") == "code" and grade_id in wanted and grade_id not in found:
            code = cell_source(cell)
            found[wanted[grade_id]] = Cell(code[:MAX_CHARS], len(code))
    return found


def boilerplate(released: dict) -> np.ndarray:
    """The fingerprints of every code cell of the released notebook: what no pair is flagged for."""
    code = "\n".join(cell_source(c) for c in released.get("cells", []) if c["cell_type"] == "code")
    return np.array(sorted(_fingerprint(code, None).hashes), dtype=np.int64)


def _fingerprint(code: str, given: np.ndarray | None) -> object:
    from copydetect import CodeFingerprint

    return CodeFingerprint("code.py", K, WINDOW, given, fp=io.StringIO(code))


def _marked(code: str, slices: np.ndarray) -> list[tuple[str, bool]]:
    """`code` cut into runs, each marked whether copydetect found it in the other side."""
    runs, at = [], 0
    for start, end in sorted(zip(slices[0].tolist(), slices[1].tolist(), strict=True)):
        start, end = max(int(start), at), int(end)
        if start > at:
            runs.append((code[at:start], False))
        if end > start:
            runs.append((code[start:end], True))
            at = end
    if at < len(code):
        runs.append((code[at:], False))
    return runs


@dataclass
class Compared:
    """How two students' code compares over some exercises' cells, summed."""

    overlap: list[float] = field(default_factory=lambda: [0.0, 0.0])  # tokens found in the other
    coverage: list[float] = field(default_factory=lambda: [0.0, 0.0])  # tokens fingerprinted
    marked: tuple[list, list] = field(default_factory=lambda: ([], []))

    def add(self, a: object, b: object) -> None:
        """Compare one exercise's cells (fingerprints) and add the result."""
        from copydetect import compare_files

        _, shares, (slices_a, slices_b) = compare_files(a, b)
        for side, (one, slices) in enumerate(((a, slices_a), (b, slices_b))):
            if self.marked[side]:
                self.marked[side].append(("\n\n", False))
            found = slices.size > 0  # copydetect gives an empty array when nothing matches
            self.marked[side].extend(
                _marked(one.raw_code, slices) if found else [(one.raw_code, False)]
            )
            # copydetect's share is of the tokens fingerprinted; summed as tokens over the cells
            self.overlap[side] += float(shares[side]) * float(one.token_coverage)
            self.coverage[side] += float(one.token_coverage)

    @property
    def similarity(self) -> float:
        """The smaller of the two shares of each side's fingerprinted code found in the other."""
        shares = [o / c if c else 0.0 for o, c in zip(self.overlap, self.coverage, strict=True)]
        return min(shares)


@dataclass
class Part:
    """The pairs of one chapter and part listed, how many more were screened in but not compared,
    and the students whose cell was compared only in part (cut at its share of MAX_CHARS)."""

    chapter: str
    part: str  # CHAPTER or an exercise's name
    pairs: list[Pair]
    not_compared: int = 0
    cut: list[tuple[str, int]] = field(default_factory=list)  # (student, the cell's characters)


def shares(lengths: dict[str, int], budget: int = MAX_CHARS) -> dict[str, int]:
    """The characters of each cell compared: `budget` shared max-min fairly (a cell shorter than
    an equal share keeps all of it, what it leaves goes to the longer ones)."""
    given, left = {}, budget
    for number, (name, length) in enumerate(sorted(lengths.items(), key=lambda item: item[1])):
        given[name] = min(length, left // (len(lengths) - number))
        left -= given[name]
    return given


def _screened(prints: dict[str, set], threshold: float) -> tuple[list[tuple[str, str]], int]:
    """The pairs sharing enough fingerprints, the most sharing first, at most MAX_COMPARED; how many more."""
    names = sorted(prints)
    found = []
    for i, first in enumerate(names):
        a = prints[first]
        for second in names[i + 1 :]:
            b = prints[second]
            if not a or not b:
                continue
            shared = len(a & b)
            share = min(shared / len(a), shared / len(b))
            if share >= SCREEN * threshold:
                found.append((share, first, second))
    found.sort(key=lambda f: (-f[0], f[1], f[2]))
    return [(a, b) for _, a, b in found[:MAX_COMPARED]], max(0, len(found) - MAX_COMPARED)


def chapter_pairs(
    chapter: str,
    released: dict,
    handed_in: dict[str, dict[str, Cell]],
    exercises: list[str],
    threshold: float = THRESHOLD,
) -> list[Part]:
    """The similar pairs of one chapter, from each student's `solution_cells`: all solution cells
    taken together, then each exercise long enough to tell (each a `Part`)."""
    given = boilerplate(released)
    prints: dict[str, dict[str, object]] = {}
    cut: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for student, cells in sorted(handed_in.items()):
        compared = shares({exercise: cell.length for exercise, cell in cells.items()})
        prints[student] = {
            exercise: _fingerprint(cell.code[: compared[exercise]], given)
            for exercise, cell in cells.items()
        }
        for exercise, cell in cells.items():
            if cell.length > compared[exercise]:
                cut[exercise].append((student, cell.length))
    parts = []
    for part in [CHAPTER, *exercises]:
        if part == CHAPTER:
            hashes = {s: set().union(*(f.hashes for f in p.values())) for s, p in prints.items()}
        else:
            hashes = {
                s: p[part].hashes
                for s, p in prints.items()
                if part in p and p[part].token_coverage >= MIN_TOKENS
            }
        candidates, more = _screened(hashes, threshold)
        listed = []
        for first, second in candidates:
            compared = Compared()
            for exercise in exercises if part == CHAPTER else [part]:
                if exercise in prints[first] and exercise in prints[second]:
                    compared.add(prints[first][exercise], prints[second][exercise])
            if compared.similarity >= threshold:
                listed.append(
                    Pair(chapter, part, first, second, compared.similarity, compared.marked)
                )
        listed.sort(key=lambda p: (-p.similarity, p.first, p.second))
        parts.append(Part(chapter, part, listed, more, cut.get(part, [])))
    return parts
