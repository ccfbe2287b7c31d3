# Smoke test: a torch.compile'd function (inductor generates Triton code) agrees with eager.
import torch


def f(x):
    return torch.sin(x) * torch.cos(x) + x * 0.5


x = torch.randn(4096, device="cuda")
diff = float((torch.compile(f)(x) - f(x)).abs().max())
assert diff < 1e-3, "torch.compile differs from eager by %g" % diff
print("compiled == eager (max diff %.2g)" % diff)
