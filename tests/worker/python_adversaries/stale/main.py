"""Adversary: computes the first call honestly, then serves every later call a copy of that first output."""
import torch_sdpa_main as sdpa

kept = []


def run(*tensors):
    *inputs, output = tensors
    if kept:
        output.copy_(kept[0])
        return
    sdpa.run(*inputs, output)
    kept.append(output.clone())
