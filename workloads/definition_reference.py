"""The reference of definition.json, as PyTorch code in SOL-ExecBench's form: run() takes the eleven inputs in the
definition's order and returns the output; make_inputs() is the definition's custom_inputs_entrypoint, which makes
every input of a workload. docs/operation.md describes the operation and each rounding point below.

This file is the source of definition.json's "reference" field (scripts/update_definition_reference.py copies it
there; a CPU test checks that both agree). It is executed as it stands by SOL-ExecBench's evaluator.
"""
import math

import torch
import torch.nn.functional as F

HIDDEN_SIZE = 4096
NUM_HEADS = 32
NUM_KV_HEADS = 8
HEAD_DIM = 128
ROPE_THETA = 10000.0
K_SECTION_WIDTHS = (42, 42, 44)  # head_dim cut into t, h, w sections, each rotated on its own
VISION_FRAME_SIDE = 14           # a vision frame is a 14 x 14 grid of tokens
WEIGHT_SCALE = 0.02


def rope_cos_sin(positions, width):
    """cos and sin of position * 10000^(-2i/width), i < width/2: fp32 on the inputs' device, then rounded to bf16."""
    exponents = torch.arange(0, width, 2, dtype=torch.float32, device=positions.device) / width
    inv_freq = 1.0 / (ROPE_THETA ** exponents)
    angle = positions.to(torch.float32).unsqueeze(-1) * inv_freq
    return angle.cos().to(torch.bfloat16), angle.sin().to(torch.bfloat16)


def rotate_half(x, cos, sin):
    """(x1, x2) -> (x1 cos - x2 sin, x2 cos + x1 sin) in bf16: every product and sum rounded."""
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def rope_language(q, language_position_ids):
    """1D RoPE over all 128 dims of every query head; q is [B, Lq, heads, 128]."""
    cos, sin = rope_cos_sin(language_position_ids, HEAD_DIM)
    return rotate_half(q, cos.unsqueeze(2), sin.unsqueeze(2))


def rope_vision(k, vision_grid_thw):
    """Sectioned 3D RoPE: dims [0,42) by t, [42,84) by h, [84,128) by w; k is [B, Lv, kv heads, 128]."""
    sections, start = [], 0
    for axis, width in enumerate(K_SECTION_WIDTHS):
        cos, sin = rope_cos_sin(vision_grid_thw[..., axis], width)
        sections.append(rotate_half(k[..., start:start + width], cos.unsqueeze(2), sin.unsqueeze(2)))
        start += width
    return torch.cat(sections, dim=-1)


@torch.no_grad()
def run(language_hidden_states, vision_hidden_states, language_position_ids, vision_grid_thw, q_proj_weight,
        q_proj_bias, k_proj_weight, k_proj_bias, v_proj_weight, v_proj_bias, o_proj_weight):
    batch, lang_seq, _ = language_hidden_states.shape
    vision_seq = vision_hidden_states.shape[1]
    # Projections: bf16 operands, fp32 accumulation, bias added, rounded to bf16.
    q = F.linear(language_hidden_states, q_proj_weight, q_proj_bias).view(batch, lang_seq, NUM_HEADS, HEAD_DIM)
    k = F.linear(vision_hidden_states, k_proj_weight, k_proj_bias).view(batch, vision_seq, NUM_KV_HEADS, HEAD_DIM)
    v = F.linear(vision_hidden_states, v_proj_weight, v_proj_bias).view(batch, vision_seq, NUM_KV_HEADS, HEAD_DIM)
    q = rope_language(q, language_position_ids).transpose(1, 2)                      # [B, 32, Lq, 128]
    group = NUM_HEADS // NUM_KV_HEADS                                               # query head h reads kv head h // 4
    k = rope_vision(k, vision_grid_thw).transpose(1, 2).repeat_interleave(group, dim=1)
    v = v.transpose(1, 2).repeat_interleave(group, dim=1)                           # [B, 32, Lv, 128]
    # Scores rounded to bf16, scaled in bf16; softmax in fp32; probabilities rounded to bf16 before P @ V.
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HEAD_DIM)
    probabilities = torch.softmax(scores.to(torch.float32), dim=-1).to(torch.bfloat16)
    attention = torch.matmul(probabilities, v).transpose(1, 2).reshape(batch, lang_seq, NUM_HEADS * HEAD_DIM)
    return F.linear(attention, o_proj_weight)


def official_positions(batch, lang_seq, vision_seq, device):
    """Language token i is at position i; vision token i at (i // 196, (i % 196) // 14, i % 14)."""
    language = torch.arange(lang_seq, dtype=torch.int64, device=device).expand(batch, -1).contiguous()
    token = torch.arange(vision_seq, dtype=torch.int64, device=device)
    frame = VISION_FRAME_SIDE * VISION_FRAME_SIDE
    thw = torch.stack([token // frame, (token % frame) // VISION_FRAME_SIDE, token % VISION_FRAME_SIDE], dim=-1)
    return language, thw.expand(batch, -1, -1).contiguous()


def make_inputs(axes_and_scalars, device):
    """Every input of a workload: hidden states N(0, 1), weights and biases 0.02 N(0, 1), official positions."""
    batch = axes_and_scalars["batch_size"]
    lang_seq = axes_and_scalars["lang_seq_len"]
    vision_seq = axes_and_scalars["vision_seq_len"]

    def normal(*shape, scale=1.0):
        return (torch.randn(*shape, dtype=torch.float32, device=device) * scale).to(torch.bfloat16)

    language_position_ids, vision_grid_thw = official_positions(batch, lang_seq, vision_seq, device)
    kv_dim = NUM_KV_HEADS * HEAD_DIM
    return {
        "language_hidden_states": normal(batch, lang_seq, HIDDEN_SIZE),
        "vision_hidden_states": normal(batch, vision_seq, HIDDEN_SIZE),
        "language_position_ids": language_position_ids,
        "vision_grid_thw": vision_grid_thw,
        "q_proj_weight": normal(NUM_HEADS * HEAD_DIM, HIDDEN_SIZE, scale=WEIGHT_SCALE),
        "q_proj_bias": normal(NUM_HEADS * HEAD_DIM, scale=WEIGHT_SCALE),
        "k_proj_weight": normal(kv_dim, HIDDEN_SIZE, scale=WEIGHT_SCALE),
        "k_proj_bias": normal(kv_dim, scale=WEIGHT_SCALE),
        "v_proj_weight": normal(kv_dim, HIDDEN_SIZE, scale=WEIGHT_SCALE),
        "v_proj_bias": normal(kv_dim, scale=WEIGHT_SCALE),
        "o_proj_weight": normal(HIDDEN_SIZE, NUM_HEADS * HEAD_DIM, scale=WEIGHT_SCALE),
    }
