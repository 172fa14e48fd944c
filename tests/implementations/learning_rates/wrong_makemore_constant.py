"""The makemore lectures' 0.1 at every step."""

EXPECT = "the same at every step"


def learning_rates(steps: int) -> list[float]:
    return [0.1] * steps
