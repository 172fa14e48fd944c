"""Which hand-ins look copied: every pair of students' solution code compared, per chapter and exercise.

copydetect fingerprints each student's code by winnowing (k-grams of its tokens, with names,
strings and comments normalised away, so renaming variables changes nothing and reordering lines
moves fingerprints without removing them). The released notebook's code (the given set-up, the
demonstrations, the debug exercises' drafts and the solution cells' stubs) is boilerplate: its
fingerprints are left out of every student's, so a draft everyone was handed is not "similar".

A pair's similarity is the smaller of the two shares of each one's fingerprinted code found in the
other (a short hand-in wholly inside a long one is not a copy of it). Pairs at or above
`THRESHOLD` are listed for the instructor with the matching code marked side by side: a flag to
look at, never a change of score.

Bounds: each student's code is cut at `MAX_CHARS` per chapter before it is fingerprinted, so
fingerprinting is linear in the class and a student's share of the work is bounded whatever they
hand in; the pairs are quadratic in the class size (n(n-1)/2 per chapter), each comparison a set
intersection of at most a bounded number of fingerprints. `benchmarks/report.py` measures it.
"""

import io
from dataclasses import dataclass

import numpy as np

from autograder.judge.notebook import cell_source

K = 25  # characters of normalised code in a fingerprinted k-gram (copydetect's default)
WINDOW = 4  # winnowing window (copydetect's default)
THRESHOLD = 0.8  # a pair this similar (each one's code found in the other) is listed
MIN_TOKENS = 200  # an exercise's code shorter than this (normalised characters) tells nothing:
# measured on chapter 01's catalogue, two honest 180-character solutions reached 0.76
MAX_CHARS = 20_000  # a student's code per chapter beyond this is not compared (2.5 times the
# longest reference solution of a chapter, 08_gpt's 7,700 characters)


@dataclass(frozen=True)
class Pair:
    """Two students whose code for `part` (a chapter, or one exercise of it) looks alike."""

    chapter: str
    part: str  # "all solution cells" or an exercise's name
    first: str
    second: str
    similarity: float  # the smaller of the two shares of fingerprinted code found in the other
    marked: tuple[list[tuple[str, bool]], list[tuple[str, bool]]]  # each side: (text, matching)


def solution_cells(notebook: dict, exercises: list[str]) -> dict[str, str]:
    """Each exercise's solution cell (grade id `<exercise>_code`) in `notebook`: exercise -> source."""
    wanted = {f"{name}_code": name for name in exercises}
    found: dict[str, str] = {}
    for cell in notebook.get("cells", []):
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if cell.get("cell_type") == "code" and grade_id in wanted:
            found.setdefault(wanted[grade_id], cell_source(cell))
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


def similar_pairs(
    chapter: str,
    part: str,
    codes: dict[str, str],
    given: np.ndarray,
    threshold: float = THRESHOLD,
    min_tokens: int = 0,
) -> list[Pair]:
    """Every pair of `codes` (student -> code) at least `threshold` alike, most alike first.

    `given`: boilerplate fingerprints, left out. A code with fewer than `min_tokens` fingerprinted
    characters is not compared (too short to tell an honest solution from a copy).
    """
    from copydetect import compare_files

    prints = {}
    for student, code in sorted(codes.items()):
        if len(code) < min_tokens:  # normalising only shortens code: too short, left unread
            continue
        fingerprint = _fingerprint(code[:MAX_CHARS], given)
        if fingerprint.token_coverage >= max(min_tokens, 1):
            prints[student] = fingerprint
    names = list(prints)
    pairs = []
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            a, b = prints[first], prints[second]
            if not a.hashes & b.hashes:
                continue
            _, (share_a, share_b), (slices_a, slices_b) = compare_files(a, b)
            similarity = float(min(share_a, share_b))
            if similarity >= threshold:
                marked = (_marked(a.raw_code, slices_a), _marked(b.raw_code, slices_b))
                pairs.append(Pair(chapter, part, first, second, similarity, marked))
    return sorted(pairs, key=lambda p: (-p.similarity, p.part, p.first, p.second))


def chapter_pairs(
    chapter: str,
    released: dict,
    notebooks: dict[str, dict],
    exercises: list[str],
    threshold: float = THRESHOLD,
) -> list[Pair]:
    """The similar pairs of one chapter: all solution cells taken together, then each exercise long enough to tell."""
    given = boilerplate(released)
    cells = {
        student: solution_cells(notebook, exercises) for student, notebook in notebooks.items()
    }
    together = {student: "\n\n".join(found.values()) for student, found in cells.items()}
    pairs = similar_pairs(chapter, "all solution cells", together, given, threshold)
    for exercise in exercises:
        codes = {student: found[exercise] for student, found in cells.items() if exercise in found}
        pairs += similar_pairs(chapter, exercise, codes, given, threshold, MIN_TOKENS)
    return pairs
