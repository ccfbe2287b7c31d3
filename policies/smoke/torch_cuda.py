# Smoke test: torch sees the CUDA device and computes on it (a matmul agrees with the CPU).
# Runs only where the driver sees a CUDA device; a CPU-only torch there fails.
import torch

assert torch.version.cuda, (
    "this torch is a CPU-only build (torch.version.cuda is None) on a machine with a CUDA device"
)
assert torch.cuda.is_available(), "torch %s (CUDA %s) sees no CUDA device" % (
    torch.__version__,
    torch.version.cuda,
)
a = torch.randn(256, 256)
b = torch.randn(256, 256)
diff = float((torch.matmul(a.cuda(), b.cuda()).cpu() - a @ b).abs().max())
assert diff < 1e-2, "a CUDA matmul differs from the CPU one by %g" % diff
print(
    "torch %s, CUDA %s, %s"
    % (torch.__version__, torch.version.cuda, torch.cuda.get_device_name(0))
)
