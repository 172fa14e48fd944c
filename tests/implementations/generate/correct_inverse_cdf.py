"""Inverse CDF: one uniform per row from the generator against the cumulative probabilities."""

import torch

EXPECT = "pass"


def generate(model, idx, max_new_tokens, generator):
    training = model.training
    model.eval()
    out = idx.clone()
    with torch.no_grad():
        for _ in range(max_new_tokens):
            logits, _ = model(
                out
                if out.shape[1] <= model.block_size
                else out[:, out.shape[1] - model.block_size :]
            )
            cdf = logits[:, -1, :].double().softmax(-1).cumsum(-1)
            u = torch.rand(len(out), 1, generator=generator, dtype=torch.float64) * cdf[:, -1:]
            nxt = torch.searchsorted(cdf, u).clamp(max=logits.shape[-1] - 1)
            out = torch.cat([out, nxt.to(out.dtype)], dim=1)
    if training:
        model.train()
    return out
