"""The names corpus: loading, validating and the makemore-compatible split."""

import random
from pathlib import Path

DEFAULT_NAMES_PATH = Path(__file__).resolve().parent.parent / "data" / "names.txt"
ALPHABET = frozenset("abcdefghijklmnopqrstuvwxyz")


def load_names(path: str | Path | None = None) -> list[str]:
    """Read one lower-case a-z name per line (blank lines skipped); default: the course corpus."""
    path = DEFAULT_NAMES_PATH if path is None else Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no names file at {path}: expected one name per line")
    names = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        name = line.strip()
        if not name:
            continue
        bad = sorted(set(name) - ALPHABET)
        if bad:
            raise ValueError(
                f"{path}:{number}: {name!r} has characters {bad} outside a-z; "
                "expected lower-case letters only, one name per line"
            )
        names.append(name)
    if not names:
        raise ValueError(f"{path} holds no names: expected one name per line")
    return names


def split_names(names: list[str], seed: int = 42) -> tuple[list[str], list[str], list[str]]:
    """80/10/10 train/dev/test split after a `random.seed(seed)` shuffle, as in makemore."""
    shuffled = list(names)
    random.Random(seed).shuffle(shuffled)
    n1, n2 = int(0.8 * len(shuffled)), int(0.9 * len(shuffled))
    return shuffled[:n1], shuffled[n1:n2], shuffled[n2:]
