"""The Gumbel-max trick: argmax of logits plus Gumbel noise drawn from the generator."""

import torch

EXPECT = "pass"


def generate(model, idx, max_new_tokens, generator):
    mode = model.training
    model.eval()
    with torch.no_grad():
        for _ in range(max_new_tokens):
            logits = model(idx[:, -model.block_size :])[0][:, -1]
            u = torch.rand(logits.shape, generator=generator, dtype=torch.float64).clamp_min(1e-300)
            nxt = torch.argmax(logits - torch.log(-torch.log(u)), dim=-1, keepdim=True)
            idx = torch.cat((idx, nxt), dim=1)
    model.train(mode)
    return idx
