"""Every rate 0: the model stays as initialised."""

EXPECT = "every rate is 0"


def learning_rates(steps: int) -> list[float]:
    return [0.0] * steps
