"""Adds the gradient."""

EXPECT = "goes uphill"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in grads.items():
            params[name] += learning_rate * grad
        losses.append(loss)
    return losses
