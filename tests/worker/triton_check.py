#!/usr/bin/env python3
"""solutions/triton_attention's Triton attention kernel against F.scaled_dot_product_attention (enable_gqa) in fp32,
on random bf16 Q/K/V of ragged sizes (Lq and Lv not multiples of the kernel's blocks). Prints each shape's max abs
error and the share of elements within atol 0.01 + rtol 0.05; exit 1 if any share is under 99.9%, 77 (skipped)
without torch, triton or a CUDA GPU. Run by hand: python3 tests/worker/triton_check.py
"""
import importlib.util
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "solutions" / "triton_attention"
SHAPES = ((2, 128, 196), (1, 373, 588), (2, 541, 980), (1, 1024, 1568))  # (B, Lq, Lv)
ATOL, RTOL, REQUIRED = 0.01, 0.05, 0.999


def load_attention():
    sys.path.insert(0, str(PACKAGE))  # for its `from sdpa_layer import ...`
    spec = importlib.util.spec_from_file_location("triton_attention_main", PACKAGE / "main.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.attention


def main():
    try:
        import torch
        import torch.nn.functional as F
        import triton  # noqa: F401 (only its absence matters here)
    except ModuleNotFoundError as missing:
        print(f"SKIPPED: {sys.executable} lacks {missing.name}")
        return 77
    if not torch.cuda.is_available():
        print("SKIPPED: torch sees no CUDA GPU")
        return 77
    attention = load_attention()
    generator = torch.Generator(device="cuda").manual_seed(0)
    failed = False
    for batch, lang_seq, vision_seq in SHAPES:
        def random(*shape):
            return torch.randn(shape, generator=generator, device="cuda").to(torch.bfloat16)
        q, k, v = random(batch, lang_seq, 32, 128), random(batch, vision_seq, 8, 128), random(batch, vision_seq, 8, 128)
        out = attention(q, k, v).float()
        ref = F.scaled_dot_product_attention(*(t.float().transpose(1, 2) for t in (q, k, v)), enable_gqa=True)
        ref = ref.transpose(1, 2)
        error = (out - ref).abs()
        within = (error <= ATOL + RTOL * ref.abs()).float().mean().item()
        ok = within >= REQUIRED and bool(torch.isfinite(out).all())
        failed |= not ok
        print(f"B={batch} Lq={lang_seq} Lv={vision_seq}: max abs error {error.max().item():.3e}, "
              f"within {100 * within:.3f}% {'ok' if ok else 'FAILED'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
