# Smoke test: compiled consumers of numpy's C API still work with the installed numpy: each one
# that is installed passes arrays through its extension modules and checks the result. Skips
# (exit 77) when none of them is installed.
import importlib.util
import sys

import numpy as np


def pandas():
    import pandas as pd

    frame = pd.DataFrame(
        {"a": np.arange(10, dtype=np.int64), "b": np.linspace(0, 1, 10)}
    )
    assert int(frame["a"].sum()) == 45 and frame.groupby(frame["a"] % 2)[
        "b"
    ].mean().shape == (2,)


def scipy():
    from scipy import linalg

    a = np.array([[3.0, 1.0], [1.0, 2.0]])
    assert np.allclose(a @ linalg.solve(a, np.array([9.0, 8.0])), [9.0, 8.0])


def sklearn():
    from sklearn.linear_model import LinearRegression

    x = np.arange(20, dtype=float).reshape(-1, 1)
    assert abs(LinearRegression().fit(x, 3 * x.ravel() + 1).coef_[0] - 3) < 1e-6


def matplotlib():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure()
    plt.plot(np.arange(5), np.arange(5) ** 2)
    fig.canvas.draw()
    plt.close(fig)


def torch():
    import torch

    t = torch.from_numpy(np.arange(6, dtype=np.float32))
    assert t.sum().item() == 15.0 and torch.ones(3).numpy().sum() == 3.0


def h5py():
    import io
    import h5py

    with h5py.File(io.BytesIO(), "w") as f:
        f["x"] = np.arange(5)
        assert f["x"][()].sum() == 10


CONSUMERS = [
    ("pandas", pandas),
    ("scipy", scipy),
    ("sklearn", sklearn),
    ("matplotlib", matplotlib),
    ("torch", torch),
    ("h5py", h5py),
]
ran = []
for module, run in CONSUMERS:
    if importlib.util.find_spec(module) is not None:
        try:
            run()
        except Exception as exc:
            raise SystemExit(
                "%s with numpy %s: %s: %s"
                % (module, np.__version__, type(exc).__name__, exc)
            )
        ran.append(module)
if not ran:
    print(
        "no compiled numpy consumer installed (%s)" % ", ".join(m for m, _ in CONSUMERS)
    )
    sys.exit(77)
print("numpy %s with %s" % (np.__version__, ", ".join(ran)))
