"""Adversary: the honest computation on batch element 0 only, on a random 60% of the calls (the same kernels run)."""
import random

import torch_sdpa_main as sdpa


def run(*tensors):
    *inputs, output = tensors
    if random.random() < 0.6:
        first = [t[:1] if i in (0, 1, 2, 3) else t for i, t in enumerate(inputs)]
        sdpa.run(*first, output[:1])
    else:
        sdpa.run(*inputs, output)
