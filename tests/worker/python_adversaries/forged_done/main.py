"""Adversary: a forged time. After its honest calls it queues its work behind a 50 ms GPU sleep and writes 'done'
into the handshake page itself (descriptor 4) the moment it has queued it, so that the judge's clock stops early.
The judge reads the output at that moment: the poisoned values are still there."""
import ctypes
import mmap

import torch

import torch_sdpa_main as sdpa

HANDSHAKE_FD = 4
READY_OFFSET, DONE_OFFSET = 0, 128  # the ready and done slots (isolation/call_handshake.hpp)
HONEST_CALLS = 4
SLEEP_CYCLES = 100_000_000  # about 50 ms at the H200's clock

page = mmap.mmap(HANDSHAKE_FD, 0)  # the whole page, as the worker maps it
calls = 0


def run(*tensors):
    global calls
    *inputs, output = tensors
    calls += 1
    if calls <= HONEST_CALLS:
        return sdpa.run(*inputs, output)
    torch.cuda._sleep(SLEEP_CYCLES)
    sdpa.run(*inputs, output)
    ctypes.c_uint64.from_buffer(page, DONE_OFFSET).value = ctypes.c_uint64.from_buffer(page, READY_OFFSET).value
