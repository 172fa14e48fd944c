"""Scales each gradient array in place before the step: the arrays loss_and_grads returned change."""

EXPECT = "changed in place"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in grads.items():
            grad *= learning_rate
            params[name] -= grad
        losses.append(float(loss))
    return losses
