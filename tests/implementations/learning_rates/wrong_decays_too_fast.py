"""An exponential decay from 1.0 to 0.001: most of the budget runs below a tenth of the peak."""

EXPECT = "small fraction of the peak"


def learning_rates(steps: int) -> list[float]:
    return [0.001 ** (t / steps) for t in range(steps)]
