"""Falls back to the parameter itself when it has no gradient: a frozen array decays."""

EXPECT = "changed anyway"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for X, Y in batches:
        loss, grads = loss_and_grads(params, X, Y)
        for name, value in params.items():
            if value is not None:
                params[name] = value - learning_rate * grads.get(name, value)
        losses.append(float(loss))
    return losses
