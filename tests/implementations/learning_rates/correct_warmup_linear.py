"""A warm-up to 1.0 over 20 steps, then a linear decay to zero."""

EXPECT = "pass"


def learning_rates(steps: int) -> list[float]:
    return [min(1.0, (t + 1) / 20) * (1 - t / steps) for t in range(steps)]
