"""Multiplies by the rate twice."""

EXPECT = "the rate squared"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in grads.items():
            step = learning_rate * grad
            params[name] -= learning_rate * step
        losses.append(loss)
    return losses
