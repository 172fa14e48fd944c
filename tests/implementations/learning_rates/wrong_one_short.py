"""A linear decay that leaves out the last step."""

EXPECT = "one rate per step"


def learning_rates(steps: int) -> list[float]:
    return [1.0 * (1 - t / steps) for t in range(steps - 1)]
