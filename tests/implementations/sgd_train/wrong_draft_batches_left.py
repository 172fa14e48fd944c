"""The draft with two bugs fixed: it still counts and indexes the batches."""

EXPECT = "batches may be a generator"


def sgd_train(params: dict, loss_and_grads, batches, learning_rate: float) -> list[float]:
    """The catalogued draft, as its file\'s docstring says."""
    losses = []
    for step in range(len(batches)):
        X, Y = batches[step]
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in grads.items():
            params[name] -= learning_rate * grad
        losses.append(float(loss))
    return losses
