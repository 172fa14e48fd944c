"""The draft with two bugs fixed: it still pairs gradients with parameters by position."""

EXPECT = "which entries does grads name?"


def sgd_train(params: dict, loss_and_grads, batches, learning_rate: float) -> list[float]:
    """The catalogued draft, as its file\'s docstring says."""
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in zip(params, grads.values()):
            params[name] -= learning_rate * grad
        losses.append(float(loss))
    return losses
