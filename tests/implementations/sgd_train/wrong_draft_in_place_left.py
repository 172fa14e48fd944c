"""The draft with two bugs fixed: it still scales the gradients in place."""

EXPECT = "were changed in place"


def sgd_train(params: dict, loss_and_grads, batches, learning_rate: float) -> list[float]:
    """The catalogued draft, as its file\'s docstring says."""
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in grads.items():
            grad *= learning_rate  # the step
            params[name] -= grad
        losses.append(float(loss))
    return losses
