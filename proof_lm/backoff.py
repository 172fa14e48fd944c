"""A count model over any tokens that backs off to the longest context it has seen."""

from collections import Counter, defaultdict
from collections.abc import Hashable, Sequence


class BackoffLM:
    """Next-token distributions from counts of contexts up to `order - 1` tokens long.

    For a context it uses the longest suffix seen in training (stupid back-off without discounting:
    the distribution of that context's continuations, or the unigram distribution if none was seen).
    """

    def __init__(self, order: int) -> None:
        if order < 1:
            raise ValueError(f"order must be at least 1, got {order}")
        self.order = order
        self.counts: dict[tuple, Counter] = defaultdict(Counter)

    def fit(self, sequences: Sequence[Sequence[Hashable]]) -> "BackoffLM":
        """Count every continuation of every context of length 0 .. order-1 in the sequences."""
        for sequence in sequences:
            for position, token in enumerate(sequence):
                for length in range(min(self.order - 1, position) + 1):
                    self.counts[tuple(sequence[position - length : position])][token] += 1
        if not self.counts:
            raise ValueError("no tokens to count: expected at least one non-empty sequence")
        return self

    def context_used(self, context: Sequence[Hashable]) -> tuple:
        """The longest suffix of `context` (at most order-1 tokens) seen in training."""
        context = (
            tuple(context)[max(0, len(context) - (self.order - 1)) :] if self.order > 1 else ()
        )
        while context and context not in self.counts:
            context = context[1:]
        return context

    def distribution(self, context: Sequence[Hashable]) -> dict[Hashable, float]:
        """P(next token | the longest seen suffix of context), as a dict that sums to 1."""
        counter = self.counts[self.context_used(context)]
        total = sum(counter.values())
        return {token: count / total for token, count in counter.items()}
