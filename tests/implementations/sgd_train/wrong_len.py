"""Indexes batches by position: a generator has no len()."""

EXPECT = "generator"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for i in range(len(batches)):
        X, Y = batches[i]
        loss, grads = loss_and_grads(params, X, Y)
        for name, grad in grads.items():
            params[name] -= learning_rate * grad
        losses.append(loss)
    return losses
