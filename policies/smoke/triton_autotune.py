# Smoke test: an @triton.autotune'd kernel benchmarks its configs and scales correctly.
import sys

try:
    import torch
except ImportError:
    print("needs torch to allocate device memory")
    sys.exit(77)
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 256}, num_warps=4),
        triton.Config({"BLOCK": 1024}, num_warps=8),
    ],
    key=["n"],
)
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


n = 65536
x = torch.randn(n, device="cuda")
out = torch.empty_like(x)
scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
torch.cuda.synchronize()
diff = float((out - 2.0 * x).abs().max())
assert diff < 1e-5, "the autotuned kernel differs by %g" % diff
print("autotuned kernel ok (best %s)" % scale_kernel.best_config)
