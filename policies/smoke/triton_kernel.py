# Smoke test: a raw @triton.jit kernel compiles, launches and adds correctly.
import sys

try:
    import torch
except ImportError:
    print("needs torch to allocate device memory")
    sys.exit(77)
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(
        out_ptr + offs,
        tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
        mask=mask,
    )


n = 98432
x = torch.randn(n, device="cuda")
y = torch.randn(n, device="cuda")
out = torch.empty_like(x)
add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
torch.cuda.synchronize()
diff = float((out - (x + y)).abs().max())
assert diff < 1e-5, "the kernel's sum differs by %g" % diff
print("triton %s kernel ok" % triton.__version__)
