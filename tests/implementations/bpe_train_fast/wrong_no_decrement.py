"""Adds the new pairs around each merged occurrence but never takes away the pairs it broke."""

import heapq

EXPECT = "the pairs a merge breaks kept their counts"


def bpe_train_fast(text: str, vocab_size: int) -> list[tuple[int, int]]:
    """bpe_train's merges, with each merge's work proportional to the occurrences it replaces."""
    if vocab_size < 256:
        raise ValueError(f"vocab_size must be at least 256 (the byte values), got {vocab_size}")
    ids = list(text.encode("utf-8"))
    n = len(ids)
    left = list(range(-1, n - 1))  # the live neighbours of each position: merged ones are skipped
    right = list(range(1, n + 1))
    starts = {}  # pair -> the positions where it starts (overlapping occurrences included)
    for i in range(n - 1):
        starts.setdefault((ids[i], ids[i + 1]), set()).add(i)
    queue = [(-len(at), min(at), pair) for pair, at in starts.items()]  # most frequent, then first
    heapq.heapify(queue)

    touched = set()  # the pairs whose occurrences one merge changed

    def moved(pair: tuple[int, int], at: int, gone: bool) -> None:
        """An occurrence of `pair` at `at` appeared or went."""
        positions = starts.setdefault(pair, set())
        (positions.discard if gone else positions.add)(at)
        touched.add(pair)

    merges = []
    while queue and len(merges) < vocab_size - 256:
        count, first, pair = heapq.heappop(queue)
        positions = starts.get(pair, ())
        if not positions or len(positions) != -count:
            continue  # an entry from before the pair's last change
        if -count < 2:
            break
        new = 256 + len(merges)
        taken = set()
        for i in sorted(positions):
            j = right[i]
            if i in taken or j >= n or ids[i] != pair[0] or ids[j] != pair[1]:
                continue  # taken just before (a run), or a position recorded long ago
            taken.add(j)
            h, k = left[i], right[j]
            if h >= 0:
                moved((ids[h], new), h, gone=False)
            if k < n:
                moved((new, ids[k]), i, gone=False)
                left[k] = i
            ids[i], right[i] = new, k
        del starts[pair]
        merges.append(pair)
        for other in touched - {pair}:  # queued again with their new count and first position
            if starts.get(other):
                heapq.heappush(queue, (-len(starts[other]), min(starts[other]), other))
        touched.clear()
    return merges
