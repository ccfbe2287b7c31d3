# Smoke test: torch's CUDA build agrees with its local version label (`2.11.0+cu130` is built for
# CUDA 13.0, `+cpu` for none). Needs no GPU. Skips (exit 77) when the version has no such label.
import re
import sys
from importlib.metadata import version

import torch

installed = version("torch")
label = installed.partition("+")[2]
built = torch.version.cuda
m = re.fullmatch(r"cu(\d+)(\d)", label)
if label == "cpu":
    assert built is None, "torch %s is labelled CPU-only but was built for CUDA %s" % (
        installed,
        built,
    )
elif m:
    wanted = "%s.%s" % (int(m.group(1)), m.group(2))
    assert built is not None, "torch %s is labelled CUDA %s but is a CPU-only build" % (
        installed,
        wanted,
    )
    assert built.split(".")[:2] == wanted.split("."), (
        "torch %s is labelled CUDA %s but was built for CUDA %s"
        % (installed, wanted, built)
    )
else:
    print(
        "torch %s has no +cuXYZ/+cpu label to compare (built for CUDA %s)"
        % (installed, built)
    )
    sys.exit(77)
assert torch.__version__ == installed, (
    "torch.__version__ %s differs from the installed dist %s"
    % (torch.__version__, installed)
)
print("torch %s built for CUDA %s" % (installed, built))
