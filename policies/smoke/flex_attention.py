# Smoke test: flex_attention under torch.compile agrees with scaled_dot_product_attention.
import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import flex_attention

q, k, v = (
    torch.randn(1, 4, 256, 64, device="cuda", dtype=torch.float16) for _ in range(3)
)
out = torch.compile(flex_attention)(q, k, v)
ref = F.scaled_dot_product_attention(q, k, v)
torch.cuda.synchronize()
diff = float((out - ref).abs().max())
assert out.shape == ref.shape, "flex_attention returned shape %s" % (tuple(out.shape),)
assert diff < 1e-2, "flex_attention differs from SDPA by %g" % diff
print("flex_attention == sdpa (max diff %.2g)" % diff)
