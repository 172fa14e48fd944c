"""Computes every batch's gradient at the initial parameters, then applies them all."""

EXPECT = "initial parameters"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    results = [loss_and_grads(params, X, Y) for X, Y in batches]
    for _, grads in results:
        for name, grad in grads.items():
            params[name] -= learning_rate * grad
    return [loss for loss, _ in results]
