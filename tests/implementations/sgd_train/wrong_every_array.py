"""Steps every array in params, so a parameter without a gradient raises KeyError."""

EXPECT = "not trained"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name, value in params.items():
            if value is not None:
                params[name] = value - learning_rate * grads[name]
        losses.append(float(loss))
    return losses
