"""Pairs the parameters with the gradients by position: right only while both dicts agree on order."""

EXPECT = "paired with another one's gradient"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        trained = [name for name, value in params.items() if value is not None]
        for name, grad in zip(trained, grads.values(), strict=False):
            params[name] = params[name] - learning_rate * grad
        losses.append(float(loss))
    return losses
