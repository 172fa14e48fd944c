"""A warm-up to 1.0, then 1.0 to the end: no settling."""

EXPECT = "last tenth of the steps"


def learning_rates(steps: int) -> list[float]:
    return [min(1.0, (t + 1) / 20) for t in range(steps)]
