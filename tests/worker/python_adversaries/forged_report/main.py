"""Adversary: a forged time. After its honest calls it computes honestly, then sends the judge a report of its own
on the worker's channel (descriptor 3), ahead of the worker's: the call done in a microsecond."""
import ctypes
import json
import mmap
import os

import torch_sdpa_main as sdpa

CHANNEL_FD, HANDSHAKE_FD = 3, 4
READY_OFFSET = 0  # the ready slot holds the call being made (isolation/call_handshake.hpp)
HONEST_CALLS = 4

page = mmap.mmap(HANDSHAKE_FD, 0)  # the whole page, as the worker maps it
calls = 0


def run(*tensors):
    global calls
    *inputs, output = tensors
    sdpa.run(*inputs, output)
    calls += 1
    if calls <= HONEST_CALLS:
        return
    call = ctypes.c_uint64.from_buffer(page, READY_OFFSET).value
    forged = {"type": "called", "call": call, "event_ms": 0.001, "stop_observed_ns": 0, "failure": None}
    os.write(CHANNEL_FD, json.dumps(forged).encode())
