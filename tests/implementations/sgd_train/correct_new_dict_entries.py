"""Builds the new values first, then stores them all; a list comprehension per batch."""

EXPECT = "pass"


def sgd_train(params, loss_and_grads, batches, learning_rate):
    losses = []
    for batch in batches:
        loss, grads = loss_and_grads(params, *batch)
        updated = {name: params[name] + (-learning_rate) * grads[name] for name in grads}
        params.update(updated)
        losses += [loss]
    return losses
