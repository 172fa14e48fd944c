"""The chapter's 2,000-step recipe squeezed into the budget: the range test's rate, a tenth after three quarters."""

EXPECT = "the largest rate is small"


def learning_rates(steps: int) -> list[float]:
    return [0.223 if t < 3 * steps // 4 else 0.0223 for t in range(steps)]
