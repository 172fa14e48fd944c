"""The chapter's step decay, from a rate near the range test's edge: 1.0, then 0.1 after three quarters."""

EXPECT = "pass"


def learning_rates(steps: int) -> list[float]:
    return [1.0 if t < 3 * steps // 4 else 0.1 for t in range(steps)]
