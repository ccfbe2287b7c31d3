#!/usr/bin/env python3
# Written by planner: verify an environment after carrying out one plan.
#
# Read-only and offline: it reads installed metadata with importlib.metadata, imports the
# changed packages in child processes, runs `pip check` when pip is present (accepting exactly
# the plan's overrides), and, when the plan touches a GPU stack, runs smoke checks on the GPU
# (skipped when there is none). Prints a JSON report; exits 0 when every check passed or was
# skipped, 1 when one failed, 2 when the script itself could not run.
#
# Usage: python verify.py [--report FILE] [--no-gpu] [--no-imports] [--timeout SECONDS]
# Run it with the environment's own interpreter.
import argparse
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tempfile
import time

# The plan, as one JSON literal (written by a JSON encoder; never interpolated into code).
PLAN = json.loads("{\"schema\":\"planner-plan/1\",\"kind\":\"upgrade\",\"title\":\"As asked: triton==3.6.0\",\"targets\":[\"triton==3.6.0\"],\"changes\":[{\"name\":\"triton\",\"from\":\"3.7.0\",\"to\":\"3.6.0\",\"action\":\"downgrade\",\"reasons\":[{\"kind\":\"requested\",\"requirement\":\"triton==3.6.0\"}],\"forced\":false,\"upload_time\":\"2026-01-20T16:00:43.041244Z\",\"top_level\":[\"triton\"]}],\"overrides\":[],\"held_back\":[],\"pins\":{\"absl-py\":\"2.5.0\",\"accelerate\":\"1.15.0\",\"aiofiles\":\"25.1.0\",\"aiohappyeyeballs\":\"2.7.1\",\"aiohttp\":\"3.14.3\",\"aiosignal\":\"1.4.0\",\"annotated-doc\":\"0.0.5\",\"anyio\":\"4.15.1\",\"attrs\":\"26.1.0\",\"botorch\":\"0.18.1\",\"build\":\"1.6.1\",\"certifi\":\"2026.7.22\",\"charset-normalizer\":\"3.5.1\",\"chex\":\"0.1.92\",\"click\":\"8.5.0\",\"cloudpickle\":\"3.1.2\",\"cmake\":\"4.4.3\",\"colorama\":\"0.4.6\",\"contourpy\":\"1.4.0\",\"coverage\":\"7.16.2\",\"cuda-bindings\":\"13.3.1\",\"cuda-core\":\"1.2.0\",\"cuda-pathfinder\":\"1.8.1\",\"cuda-toolkit\":\"13.0.2\",\"cupy-cuda13x\":\"14.2.0\",\"cycler\":\"0.12.1\",\"cython\":\"3.3.0\",\"diffrax\":\"0.7.2\",\"e3nn\":\"0.6.0\",\"einops\":\"0.8.2\",\"equinox\":\"0.13.8\",\"etils\":\"1.14.0\",\"execnet\":\"2.1.2\",\"filelock\":\"3.32.5\",\"flatbuffers\":\"25.12.19\",\"flax\":\"0.12.10\",\"fonttools\":\"4.66.1\",\"formulaic\":\"1.2.2\",\"frozenlist\":\"1.8.0\",\"fsspec\":\"2026.7.0\",\"gpytorch\":\"1.15.2\",\"grpcio\":\"1.84.0\",\"h11\":\"0.16.0\",\"h5py\":\"3.16.0\",\"hf-xet\":\"1.6.0\",\"httpcore\":\"1.0.9\",\"httpx\":\"0.28.1\",\"huggingface-hub\":\"1.33.0\",\"humanize\":\"4.16.0\",\"hypothesis\":\"6.168.3\",\"idna\":\"3.19\",\"imageio\":\"2.38.0\",\"iniconfig\":\"2.3.0\",\"interface-meta\":\"2.0.1\",\"jax\":\"0.11.2\",\"jax-cuda13-pjrt\":\"0.11.2\",\"jax-cuda13-plugin\":\"0.11.2\",\"jaxlib\":\"0.11.2\",\"jaxtyping\":\"0.3.11\",\"jinja2\":\"3.1.6\",\"joblib\":\"1.6.0\",\"kiwisolver\":\"1.5.1\",\"lazy-loader\":\"0.6\",\"lightning\":\"2.6.6\",\"lightning-utilities\":\"0.15.3\",\"linear-operator\":\"0.6.1\",\"lineax\":\"0.1.1\",\"llvmlite\":\"0.50.0\",\"lxml\":\"6.1.3\",\"markdown\":\"3.11\",\"markdown-it-py\":\"4.2.0\",\"markupsafe\":\"3.0.3\",\"matplotlib\":\"3.11.2\",\"mdurl\":\"0.1.2\",\"meson\":\"1.12.1\",\"ml-dtypes\":\"0.6.0\",\"mpi4py\":\"4.1.2\",\"mpmath\":\"1.3.0\",\"msgpack\":\"1.2.3\",\"multidict\":\"6.9.1\",\"multipledispatch\":\"1.0.0\",\"mypy-extensions\":\"1.1.0\",\"nanobind\":\"3.1.0\",\"narwhals\":\"2.26.0\",\"networkx\":\"3.6.1\",\"ninja\":\"1.13.2\",\"numba\":\"0.68.0\",\"numba-cuda\":\"0.30.4\",\"numpy\":\"2.5.2\",\"numpyro\":\"0.21.0\",\"nvidia-cublas\":\"13.1.0.3\",\"nvidia-cuda-cupti\":\"13.0.85\",\"nvidia-cuda-nvrtc\":\"13.0.88\",\"nvidia-cuda-runtime\":\"13.0.96\",\"nvidia-cudnn-cu13\":\"9.19.0.56\",\"nvidia-cufft\":\"12.0.0.61\",\"nvidia-cufile\":\"1.15.1.6\",\"nvidia-curand\":\"10.4.0.35\",\"nvidia-cusolver\":\"12.0.4.66\",\"nvidia-cusparse\":\"12.6.3.3\",\"nvidia-cusparselt-cu13\":\"0.8.0\",\"nvidia-ml-py\":\"13.610.43\",\"nvidia-nccl-cu13\":\"2.28.9\",\"nvidia-nvjitlink\":\"13.0.88\",\"nvidia-nvshmem-cu13\":\"3.4.5\",\"nvidia-nvtx\":\"13.0.85\",\"onnx\":\"1.23.1\",\"onnx-ir\":\"1.0.0\",\"onnxruntime\":\"1.30.0\",\"onnxscript\":\"0.7.2\",\"opencv-python-headless\":\"5.0.0.93\",\"opt-einsum\":\"3.4.0\",\"opt-einsum-fx\":\"0.1.4\",\"optax\":\"0.2.8\",\"optimistix\":\"0.1.0\",\"orbax-checkpoint\":\"0.12.4\",\"packaging\":\"26.3\",\"pandas\":\"3.0.6\",\"pathspec\":\"1.1.1\",\"patsy\":\"1.0.3\",\"peft\":\"0.21.0\",\"pillow\":\"12.3.0\",\"pip\":\"24.0\",\"pluggy\":\"1.6.0\",\"portalocker\":\"4.4.0\",\"prometheus-client\":\"0.26.0\",\"propcache\":\"0.5.4\",\"protobuf\":\"7.36.2\",\"psutil\":\"7.2.2\",\"py-cpuinfo\":\"9.0.0\",\"pyarrow\":\"25.0.1\",\"pybind11\":\"3.1.0\",\"pygments\":\"2.21.0\",\"pyparsing\":\"3.3.3\",\"pyproject-hooks\":\"1.3.3\",\"pyre-extensions\":\"0.0.32\",\"pytest\":\"9.1.1\",\"pytest-benchmark\":\"5.2.3\",\"pytest-cov\":\"7.1.0\",\"pytest-mock\":\"3.16.0\",\"pytest-timeout\":\"2.5.0\",\"pytest-xdist\":\"3.8.0\",\"python-dateutil\":\"2.9.0.post0\",\"pytorch-lightning\":\"2.6.6\",\"pyyaml\":\"6.0.3\",\"regex\":\"2026.9.3\",\"requests\":\"2.34.2\",\"rich\":\"15.0.0\",\"sacrebleu\":\"2.6.0\",\"safetensors\":\"0.8.0\",\"scikit-build-core\":\"1.1.0\",\"scikit-image\":\"0.26.0\",\"scikit-learn\":\"1.9.1\",\"scipy\":\"1.18.1\",\"seaborn\":\"0.13.2\",\"sentence-transformers\":\"6.0.1\",\"sentencepiece\":\"0.2.2\",\"setuptools\":\"81.0.0\",\"shellingham\":\"1.5.4\",\"simplejson\":\"4.1.2\",\"six\":\"1.17.0\",\"sortedcontainers\":\"2.4.0\",\"statsmodels\":\"0.15.0\",\"sympy\":\"1.14.0\",\"tabulate\":\"0.10.0\",\"tensorboard\":\"2.21.0\",\"tensorboard-data-server\":\"0.7.2\",\"tensorstore\":\"0.1.85\",\"threadpoolctl\":\"3.7.0\",\"tifffile\":\"2026.9.20\",\"tiktoken\":\"0.14.0\",\"timm\":\"1.0.29\",\"tokenizers\":\"0.23.2\",\"toolz\":\"1.1.0\",\"torch\":\"2.11.0\",\"torch-geometric\":\"2.8.0.post1\",\"torchaudio\":\"2.11.0\",\"torchdiffeq\":\"0.2.5\",\"torchmetrics\":\"1.9.0\",\"torchvision\":\"0.26.0\",\"tqdm\":\"4.70.1\",\"transformers\":\"5.17.0\",\"treescope\":\"0.1.10\",\"triton\":\"3.6.0\",\"typer\":\"0.27.2\",\"typing-extensions\":\"4.16.0\",\"typing-inspect\":\"0.9.0\",\"urllib3\":\"2.7.0\",\"uvloop\":\"0.23.0\",\"wadler-lindig\":\"0.1.7\",\"werkzeug\":\"3.1.9\",\"wheel\":\"0.48.0\",\"wrapt\":\"2.5.0\",\"xarray\":\"2026.9.0\",\"xxhash\":\"4.0.1\",\"yarl\":\"1.25.1\",\"zipp\":\"4.1.0\"},\"warnings\":[],\"risk\":{\"score\":29,\"level\":\"medium\",\"policy\":\"default\",\"factors\":[{\"kind\":\"downgrade\",\"points\":6,\"package\":\"triton\",\"detail\":\"triton goes back from 3.7.0 to 3.6.0\"},{\"kind\":\"direct-dependent\",\"points\":2,\"package\":\"triton\",\"detail\":\"1 installed dist requires triton: torch\"},{\"kind\":\"transitive-dependent\",\"points\":13,\"package\":\"triton\",\"detail\":\"14 more installed dists reach triton through others\"},{\"kind\":\"coupled-stack-change\",\"points\":8,\"package\":\"triton\",\"detail\":\"coupled group [torch, triton] changes (triton): torch's inductor generates code for one triton release\"}]}}")

GPU_PACKAGES = re.compile(
    r"^(torch|triton|pytorch-triton.*|torchvision|torchaudio|torchao|flash-attn.*|xformers"
    r"|flash-linear-attention|fla-core|liger-kernel|nvidia-.*|cuda-.*|jax|jaxlib|jax-cuda.*)$"
)

_VERSION = re.compile(
    r"^\s*v?(?:(?P<epoch>[0-9]+)!)?(?P<release>[0-9]+(?:\.[0-9]+)*)"
    r"(?P<pre>[-_.]?(?P<pre_l>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>[0-9]+)?)?"
    r"(?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?"
    r"(?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$",
    re.IGNORECASE,
)
_PRE = {"a": "a", "alpha": "a", "b": "b", "beta": "b", "c": "rc", "rc": "rc", "pre": "rc", "preview": "rc"}


def canonical_version(text):
    """PEP 440 normal form, trailing zeros dropped, so `2.12` equals `2.12.0`."""
    m = _VERSION.match(text or "")
    if not m:
        return (text or "").strip().lower()
    release = [int(x) for x in m.group("release").split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    out = ""
    if m.group("epoch") and int(m.group("epoch")):
        out += "%d!" % int(m.group("epoch"))
    out += ".".join(str(x) for x in release)
    if m.group("pre"):
        out += _PRE[m.group("pre_l").lower()] + str(int(m.group("pre_n") or 0))
    if m.group("post"):
        out += ".post" + str(int(m.group("post_n1") or m.group("post_n2") or 0))
    if m.group("dev"):
        out += ".dev" + str(int(m.group("dev_n") or 0))
    if m.group("local"):
        out += "+" + ".".join(re.split(r"[-_.]", m.group("local").lower()))
    return out


def canonical_name(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def top_level_modules(name, known):
    """Import names of an installed dist: the plan's, else top_level.txt, else its files."""
    if known:
        return [m for m in known if m.isidentifier() and not m.startswith("_")]
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return []
    text = dist.read_text("top_level.txt")
    names = set()
    if text:
        names.update(line.strip() for line in text.splitlines())
    else:
        for path in dist.files or []:
            parts = path.parts
            if not parts or parts[0].endswith((".dist-info", ".egg-info", ".data")) or parts[0] in ("..", "__pycache__"):
                continue
            if len(parts) == 1 and parts[0].endswith(".py"):
                names.add(parts[0][:-3])
            elif len(parts) > 1 and parts[-1] == "__init__.py" and len(parts) == 2:
                names.add(parts[0])
    return sorted(m for m in names if m and m.isidentifier() and not m.startswith("_"))


def run_python(code_or_file, timeout, args=()):
    """Run Python in a child process; returns (ok, seconds, last stdout line or error text)."""
    start = time.monotonic()
    cmd = [sys.executable, code_or_file, *args] if os.path.isfile(code_or_file) else [sys.executable, "-c", code_or_file, *args]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, round(time.monotonic() - start, 2), "timed out after %ss" % timeout
    seconds = round(time.monotonic() - start, 2)
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return False, seconds, " | ".join(tail) or "exit %d" % proc.returncode
    lines = proc.stdout.strip().splitlines()
    return True, seconds, lines[-1] if lines else ""


class Report:
    def __init__(self):
        self.checks = []

    def add(self, name, status, **fields):
        entry = {"name": name, "status": status}
        entry.update(fields)
        self.checks.append(entry)
        mark = {"pass": "ok  ", "fail": "FAIL", "skip": "skip"}[status]
        detail = fields.get("detail") or ""
        sys.stderr.write("%s %s%s\n" % (mark, name, (": " + detail) if detail else ""))


def check_versions(report):
    for change in PLAN["changes"]:
        name = change["name"]
        expected = change.get("to")
        found = installed_version(name)
        if expected is None:
            ok = found is None
            report.add("version:" + name, "pass" if ok else "fail", expected=None, found=found,
                       detail="" if ok else "still installed")
            continue
        ok = found is not None and canonical_version(found) == canonical_version(expected)
        report.add("version:" + name, "pass" if ok else "fail", expected=expected, found=found,
                   detail="" if ok else ("not installed" if found is None else "found %s" % found))


def check_imports(report, timeout):
    code = "import importlib, sys\nimportlib.import_module(sys.argv[1])\nprint('ok')"
    for change in PLAN["changes"]:
        if change.get("to") is None:
            continue
        name = change["name"]
        modules = top_level_modules(name, change.get("top_level") or [])
        if not modules:
            report.add("import:" + name, "skip", detail="no importable top-level module found")
        for module in modules:
            ok, seconds, out = run_python(code, timeout, (module,))
            report.add("import:" + module, "pass" if ok else "fail", package=name, s=seconds,
                       detail="" if ok else out)


_BROKEN = re.compile(r"^(?P<dep>\S+) (?P<depver>\S+) has requirement (?P<req>.+), but you have (?P<pkg>\S+) (?P<ver>\S+)\.$")


def check_pip(report, timeout):
    import importlib.util

    if importlib.util.find_spec("pip") is None:
        report.add("pip-check", "skip", detail="pip is not installed in this environment")
        return
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "pip", "check", "--disable-pip-version-check"],
                              capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, PIP_NO_INPUT="1"))
    except subprocess.TimeoutExpired:
        report.add("pip-check", "fail", detail="timed out")
        return
    accepted, broken = [], []
    for line in proc.stdout.splitlines():
        line = line.strip()
        if not line or line.startswith("No broken requirements"):
            continue
        m = _BROKEN.match(line)
        covered = None
        if m:
            for o in PLAN["overrides"]:
                if (canonical_name(m.group("dep")) == o["dependent"]
                        and canonical_version(m.group("depver")) == canonical_version(o["dependent_version"])
                        and canonical_name(m.group("pkg")) == o["package"]
                        and canonical_version(m.group("ver")) == canonical_version(o["version"])):
                    covered = o
        (accepted if covered else broken).append(line)
    status = "fail" if broken else "pass"
    report.add("pip-check", status, s=round(time.monotonic() - start, 2), broken=broken, accepted=accepted,
               detail="; ".join(broken) if broken else ("%d accepted override(s)" % len(accepted) if accepted else ""))


TORCH_CUDA = r'''
import json, torch
ok = torch.cuda.is_available()
print(json.dumps([ok, torch.version.cuda, torch.cuda.get_device_name(0) if ok else None]))
'''

TORCH_COMPILE = r'''
import json, torch
def f(x):
    return torch.sin(x) * torch.cos(x) + x * 0.5
x = torch.randn(4096, device="cuda")
g = torch.compile(f)
print(json.dumps(float((g(x) - f(x)).abs().max())))
'''

TRITON_KERNEL = r'''
import json, torch, triton, triton.language as tl

@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

n = 98432
x = torch.randn(n, device="cuda"); y = torch.randn(n, device="cuda"); out = torch.empty_like(x)
add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
torch.cuda.synchronize()
print(json.dumps(float((out - (x + y)).abs().max())))
'''

TRITON_AUTOTUNE = r'''
import json, torch, triton, triton.language as tl

@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=4), triton.Config({"BLOCK": 1024}, num_warps=8)], key=["n"])
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)

n = 65536
x = torch.randn(n, device="cuda"); out = torch.empty_like(x)
scale_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
torch.cuda.synchronize()
print(json.dumps(float((out - 2.0 * x).abs().max())))
'''

FLEX_ATTENTION = r'''
import json, torch
from torch.nn.attention.flex_attention import flex_attention
q, k, v = (torch.randn(1, 4, 256, 64, device="cuda", dtype=torch.float16) for _ in range(3))
out = torch.compile(flex_attention)(q, k, v)
torch.cuda.synchronize()
print(json.dumps(list(out.shape)))
'''

JAX_GPU = r'''
import json, jax, jax.numpy as jnp
gpus = [d for d in jax.devices() if d.platform == "gpu"]
if not gpus:
    print(json.dumps(None)); raise SystemExit(0)
x = jnp.ones((512, 512))
y = jax.jit(lambda a: (a @ a).sum())(x)
print(json.dumps([str(gpus[0]), float(y)]))
'''


def check_gpu(report, timeout):
    touched = sorted({c["name"] for c in PLAN["changes"] if GPU_PACKAGES.match(c["name"])}
                     | {o["package"] for o in PLAN["overrides"] if GPU_PACKAGES.match(o["package"])}
                     | {o["dependent"] for o in PLAN["overrides"] if GPU_PACKAGES.match(o["dependent"])})
    if not touched:
        return None
    gpu = {"packages": touched}
    with tempfile.TemporaryDirectory(prefix="planner-verify-") as tmp:
        def run(name, code, judge):
            path = os.path.join(tmp, name + ".py")
            with open(path, "w") as f:
                f.write(code)
            ok, seconds, out = run_python(path, timeout)
            value = None
            if ok:
                try:
                    value = json.loads(out)
                except ValueError:
                    ok, value = False, out
                else:
                    ok = judge(value)
            gpu[name] = {"ok": ok, "s": seconds, "out": value if ok or value is not None else out}
            report.add("gpu:" + name, "pass" if ok else "fail", s=seconds,
                       detail="" if ok else str(value if value is not None else out))
            return ok, value

        if installed_version("torch") is not None:
            ok, value = run("cuda", TORCH_CUDA, lambda v: isinstance(v, list))
            if ok and value and value[0]:
                run("torch_compile", TORCH_COMPILE, lambda v: v < 1e-3)
                if installed_version("triton") is not None:
                    run("triton_kernel", TRITON_KERNEL, lambda v: v < 1e-5)
                    run("triton_autotune", TRITON_AUTOTUNE, lambda v: v < 1e-5)
                run("flex_attention", FLEX_ATTENTION, lambda v: v == [1, 4, 256, 64])
            elif ok:
                gpu["skipped"] = "torch sees no CUDA device"
                report.add("gpu:torch", "skip", detail="torch sees no CUDA device")
        if installed_version("jax") is not None and installed_version("jaxlib") is not None:
            path = os.path.join(tmp, "jax_gpu.py")
            with open(path, "w") as f:
                f.write(JAX_GPU)
            ok, seconds, out = run_python(path, timeout)
            value = json.loads(out) if ok and out.startswith(("[", "n")) else None
            if ok and value is None:
                report.add("gpu:jax", "skip", detail="jax sees no GPU")
                gpu["jax"] = {"ok": None, "s": seconds, "out": None}
            else:
                gpu["jax"] = {"ok": ok, "s": seconds, "out": value if ok else out}
                report.add("gpu:jax", "pass" if ok else "fail", s=seconds, detail="" if ok else out)
    return gpu


def main():
    parser = argparse.ArgumentParser(description="Verify an environment after a planner plan.")
    parser.add_argument("--report", help="also write the JSON report to this file")
    parser.add_argument("--no-gpu", action="store_true", help="skip the GPU smoke checks")
    parser.add_argument("--no-imports", action="store_true", help="skip the import checks")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per child process")
    args = parser.parse_args()

    report = Report()
    check_versions(report)
    if not args.no_imports:
        check_imports(report, args.timeout)
    check_pip(report, args.timeout)
    gpu = None if args.no_gpu else check_gpu(report, args.timeout)
    failed = [c["name"] for c in report.checks if c["status"] == "fail"]
    result = {
        "schema": "planner-verify/1",
        "plan": {"kind": PLAN["kind"], "title": PLAN["title"]},
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "ok": not failed,
        "failed": failed,
        "versions": {c["name"]: installed_version(c["name"]) for c in PLAN["changes"]},
        "checks": report.checks,
        "gpu": gpu,
    }
    text = json.dumps(result, indent=1, sort_keys=False)
    if args.report:
        tmp = args.report + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, args.report)
    sys.stdout.write(text + "\n")
    return 0 if not failed else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as exc:  # the script itself failed, not a check
        sys.stderr.write("verify.py failed: %r\n" % (exc,))
        sys.exit(2)
