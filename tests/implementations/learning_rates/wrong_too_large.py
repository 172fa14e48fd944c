"""A constant 4.0, far past the range test's edge."""

EXPECT = "spiked"


def learning_rates(steps: int) -> list[float]:
    return [4.0] * steps
