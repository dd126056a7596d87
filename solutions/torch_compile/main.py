"""torch_sdpa's layer under torch.compile (Inductor, default mode): what a PyTorch user gets by adding one decorator.
The projections stay cuBLAS calls and the attention SDPA's kernel; Inductor fuses the RoPE's elementwise work and the
bias adds into Triton kernels. The compilation happens in the first call of each case (correctness round 0, outside
every timed call; vlbench reports it as the case's first_call_ms), with dynamic shapes, so that the package's later
cases find the graph in the compile cache their workers share.
"""
import torch
import torch._inductor.config

import sdpa_layer  # solutions/torch_sdpa/main.py: the same math, eager

# Each case runs in a fresh process: a pool of compile workers costs more to start than it saves on this graph.
torch._inductor.config.compile_threads = 1


@torch.compile(dynamic=True)
def projected_attention(language_hidden_states, vision_hidden_states, language_position_ids, vision_grid_thw,
                        q_proj_weight, q_proj_bias, k_proj_weight, k_proj_bias, v_proj_weight, v_proj_bias,
                        o_proj_weight):
    attention = sdpa_layer.attention_output(language_hidden_states, vision_hidden_states, language_position_ids,
                                            vision_grid_thw, q_proj_weight, q_proj_bias, k_proj_weight, k_proj_bias,
                                            v_proj_weight, v_proj_bias)
    return torch.matmul(attention, o_proj_weight.t())


def run(language_hidden_states, vision_hidden_states, language_position_ids, vision_grid_thw, q_proj_weight,
        q_proj_bias, k_proj_weight, k_proj_bias, v_proj_weight, v_proj_bias, o_proj_weight, output):
    output.copy_(projected_attention(language_hidden_states, vision_hidden_states, language_position_ids,
                                     vision_grid_thw, q_proj_weight, q_proj_bias, k_proj_weight, k_proj_bias,
                                     v_proj_weight, v_proj_bias, o_proj_weight))
