"""The PyTorch way, as a user would assemble it from library calls: cuBLAS projections (F.linear), RoPE as tensor
ops, F.scaled_dot_product_attention with GQA (no K/V repeat in memory), and the output projection written straight
into the harness's output. Rounding points as the reference's (workloads/definition_reference.py), except inside
the attention, where SDPA's fused kernel keeps the scores and probabilities in fp32.
"""
import torch
import torch.nn.functional as F

NUM_HEADS = 32
NUM_KV_HEADS = 8
HEAD_DIM = 128
ROPE_THETA = 10000.0
K_SECTION_WIDTHS = (42, 42, 44)  # head_dim cut into t, h, w sections, each rotated on its own


def rope_cos_sin(positions, width):
    """cos and sin of position * theta^(-2i/width) in fp32, rounded to bf16."""
    exponents = torch.arange(0, width, 2, dtype=torch.float32, device=positions.device) / width
    angle = positions.to(torch.float32).unsqueeze(-1) * (1.0 / (ROPE_THETA ** exponents))
    return angle.cos().to(torch.bfloat16).unsqueeze(2), angle.sin().to(torch.bfloat16).unsqueeze(2)


def rotate_half(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def rope_vision(k, vision_grid_thw):
    sections, start = [], 0
    for axis, width in enumerate(K_SECTION_WIDTHS):
        cos, sin = rope_cos_sin(vision_grid_thw[..., axis], width)
        sections.append(rotate_half(k[..., start:start + width], cos, sin))
        start += width
    return torch.cat(sections, dim=-1)


def rotated_projections(language_hidden_states, vision_hidden_states, language_position_ids, vision_grid_thw,
                        q_proj_weight, q_proj_bias, k_proj_weight, k_proj_bias, v_proj_weight, v_proj_bias):
    """Q [B, Lq, 32, 128] and K [B, Lv, 8, 128] projected and rotated, V [B, Lv, 8, 128] projected."""
    batch, lang_seq, _ = language_hidden_states.shape
    vision_seq = vision_hidden_states.shape[1]
    q = F.linear(language_hidden_states, q_proj_weight, q_proj_bias).view(batch, lang_seq, NUM_HEADS, HEAD_DIM)
    k = F.linear(vision_hidden_states, k_proj_weight, k_proj_bias).view(batch, vision_seq, NUM_KV_HEADS, HEAD_DIM)
    v = F.linear(vision_hidden_states, v_proj_weight, v_proj_bias).view(batch, vision_seq, NUM_KV_HEADS, HEAD_DIM)
    cos, sin = rope_cos_sin(language_position_ids, HEAD_DIM)
    return rotate_half(q, cos, sin), rope_vision(k, vision_grid_thw), v


def attention_output(*inputs):
    """Everything before the output projection (the inputs but o_proj_weight): the attention's output as
    [B, Lq, 4096], head-major in a token."""
    q, k, v = rotated_projections(*inputs)
    batch, lang_seq = q.shape[:2]
    attention = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                               enable_gqa=True)
    return attention.transpose(1, 2).reshape(batch, lang_seq, NUM_HEADS * HEAD_DIM)


def run(language_hidden_states, vision_hidden_states, language_position_ids, vision_grid_thw, q_proj_weight,
        q_proj_bias, k_proj_weight, k_proj_bias, v_proj_weight, v_proj_bias, o_proj_weight, output):
    attention = attention_output(language_hidden_states, vision_hidden_states, language_position_ids, vision_grid_thw,
                                 q_proj_weight, q_proj_bias, k_proj_weight, k_proj_bias, v_proj_weight, v_proj_bias)
    torch.matmul(attention, o_proj_weight.t(), out=output)
