"""The sample_next probe: trusted code that builds non-plain arguments (callables) in the grading process.

A probe is called as probe(student_fn, *plain_args) and returns plain data only. Whatever it
reports is judged by the parent against references the parent computed itself.
"""

from collections.abc import Callable

import numpy as np


def sample_next_probe(
    fn: Callable, logits: np.ndarray, seed: int, draws: int, kwargs: dict
) -> dict:
    """Draw `draws` tokens, then the first 100 again from a generator seeded alike; report whether
    the global RNG state moved. A run stops at an answer that is not one token."""
    import random

    np.random.seed(12345)
    random.seed(12345)
    global_before = (np.random.get_state()[1].copy(), random.getstate())
    runs, modified = [], False
    for count in (draws, min(draws, 100)):  # the second run checks reproducibility
        rng = np.random.default_rng(seed)
        picks = []
        for _ in range(count):
            given = np.array(logits, copy=True)
            token = fn(given, rng, **kwargs)
            modified = modified or not np.array_equal(given, logits)
            if type(token) is np.ndarray and token.size == 1:
                token = token.item()  # one token in an array: the judge reads it as that token
            picks.append(token)
            if isinstance(token, np.ndarray | list | tuple):
                break  # not one token: judged on this one (the answers hold few arrays)
        runs.append(picks)
    moved = not (
        np.array_equal(global_before[0], np.random.get_state()[1])
        and global_before[1] == random.getstate()
    )
    return {
        "first": runs[0],
        "second": runs[1],
        "global_state_moved": moved,
        "logits_modified": modified,
    }
