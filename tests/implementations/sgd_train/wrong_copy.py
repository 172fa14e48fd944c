"""Updates a copy of the parameters; the caller's dict never changes."""

EXPECT = "unchanged"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    params = dict(params)
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in grads.items():
            params[name] = params[name] - learning_rate * grad
        losses.append(loss)
    return losses
