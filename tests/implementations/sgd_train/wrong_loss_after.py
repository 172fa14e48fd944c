"""Reports the loss after the update (a second call per batch)."""

EXPECT = "loss and gradients together"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        _, grads = loss_and_grads(params, X, Y)
        for name, grad in grads.items():
            params[name] -= learning_rate * grad
        losses.append(loss_and_grads(params, X, Y)[0])
    return losses
