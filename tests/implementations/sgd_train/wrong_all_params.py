"""Loops over params instead of grads: fails on entries without a gradient (W3=None)."""

EXPECT = "W3=None"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name in params:
            params[name] -= learning_rate * grads[name]
        losses.append(loss)
    return losses
