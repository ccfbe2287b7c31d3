# Smoke test: jitted JAX runs on the GPU. Skips (exit 77) when no CUDA plugin for jax is
# installed (a CPU-only jax); with one installed, a jax that sees no GPU fails.
import sys
from importlib.metadata import distributions

plugins = sorted(
    d.metadata["Name"]
    for d in distributions()
    if (d.metadata["Name"] or "").lower().startswith(("jax-cuda", "jax_cuda"))
)
if not plugins:
    print("no jax CUDA plugin installed (a CPU-only jax)")
    sys.exit(77)
import jax
import jax.numpy as jnp

gpus = [d for d in jax.devices() if d.platform == "gpu"]
assert gpus, "jax sees no GPU although %s is installed (devices: %s)" % (
    ", ".join(plugins),
    jax.devices(),
)
x = jnp.ones((512, 512))
y = float(jax.jit(lambda a: (a @ a).sum())(x))
assert abs(y - 512.0**3) < 1.0, "jitted matmul sum is %g, expected %g" % (y, 512.0**3)
print("jax %s on %s" % (jax.__version__, gpus[0]))
