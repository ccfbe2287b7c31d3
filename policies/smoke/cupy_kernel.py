# Smoke test: a CuPy elementwise kernel and a raw CUDA kernel compile and agree with numpy.
import cupy as cp
import numpy as np

x = np.arange(4096, dtype=np.float32)
square = cp.ElementwiseKernel(
    "float32 x", "float32 y", "y = x * x + 1", "planner_square"
)
got = cp.asnumpy(square(cp.asarray(x)))
assert np.allclose(got, x * x + 1), "ElementwiseKernel result differs"
raw = cp.RawKernel(
    r"""
extern "C" __global__ void planner_add(const float* a, const float* b, float* c, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}""",
    "planner_add",
)
a, b = cp.asarray(x), cp.asarray(x[::-1].copy())
c = cp.empty_like(a)
raw(((x.size + 255) // 256,), (256,), (a, b, c, np.int32(x.size)))
assert np.allclose(cp.asnumpy(c), x + x[::-1]), "RawKernel result differs"
print(
    "cupy %s kernels ok (CUDA runtime %s)"
    % (cp.__version__, cp.cuda.runtime.runtimeGetVersion())
)
