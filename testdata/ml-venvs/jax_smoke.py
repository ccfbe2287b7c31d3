import jax
import jaxlib
import flax
import optax
import jax.numpy as jnp
from flax import nnx
import orbax.checkpoint  # noqa: F401 (the stack's checkpoint module must import)


class M(nnx.Module):
    def __init__(self, rngs):
        self.l = nnx.Linear(4, 2, rngs=rngs)

    def __call__(self, x):
        return self.l(x)


m = M(nnx.Rngs(0))
opt = (
    nnx.Optimizer(m, optax.adam(1e-2), wrt=nnx.Param)
    if "wrt" in nnx.Optimizer.__init__.__code__.co_varnames
    else nnx.Optimizer(m, optax.adam(1e-2))
)
x = jnp.ones((8, 4))
y = jnp.zeros((8, 2))


def loss(m):
    return ((m(x) - y) ** 2).mean()


l, g = nnx.value_and_grad(loss)(m)
opt.update(
    m, g
) if "model" in opt.update.__code__.co_varnames or opt.update.__code__.co_argcount > 2 else opt.update(
    g
)
print(
    "ok jax",
    jax.__version__,
    jaxlib.__version__,
    "flax",
    flax.__version__,
    "optax",
    optax.__version__,
    float(l),
)
