"""The draft handed out in chapter 06: three bugs (batches, by_position, in_place)."""

EXPECT = "were changed in place"


def sgd_train(params: dict, loss_and_grads, batches, learning_rate: float) -> list[float]:
    """The catalogued draft, as its file\'s docstring says."""
    losses = []
    for step in range(len(batches)):
        X, Y = batches[step]
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in zip(params, grads.values()):
            grad *= learning_rate  # the step
            params[name] -= grad
        losses.append(float(loss))
    return losses
