"""Shared helpers of the `scripts/bench-*` benchmarks: timing a child, medians, tables.

Each run is one child process; its wall time comes from a monotonic clock around it, its CPU
time (user + sys) and peak resident memory from the kernel's accounting of that child
(`os.wait4`, the same figures `/usr/bin/time -v` prints). Tools are interleaved run by run
(planner, uv, planner, uv, ...), so both see the same machine load and page-cache state.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# One target for both tools: CPython 3.12 on x86_64 manylinux_2_28.
PY_VERSION = "3.12"
PLATFORM = "x86_64-manylinux_2_28"
PLANNER_TARGET = ["--python-version", PY_VERSION, "--python-platform", PLATFORM]


def python312():
    """A CPython 3.12 interpreter, given to uv so that it never searches for one."""
    for cand in (
        os.environ.get("BENCH_PYTHON"),
        shutil.which("python3.12"),
        "/root/.pyenv/versions/3.12.1/bin/python3.12",
        "/usr/bin/python3.12",
    ):
        if not cand or not os.path.exists(cand):
            continue
        real = subprocess.run(
            [cand, "-c", "import sys; print(sys.executable)"],
            capture_output=True,
            text=True,
        )
        if real.returncode == 0:
            return real.stdout.strip()
    raise SystemExit("bench: no CPython 3.12 found (set BENCH_PYTHON)")


def find_uv(path=None):
    """uv: --uv, else $BENCH_UV, else the one on PATH, else pip-installed into a scratch venv."""
    for cand in (path, os.environ.get("BENCH_UV"), shutil.which("uv")):
        if cand and os.path.exists(cand):
            return cand
    venv = os.path.join(tempfile.gettempdir(), "planner-compare-uv-venv")
    uv = os.path.join(venv, "bin", "uv")
    if not os.path.exists(uv):
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run(
            [os.path.join(venv, "bin", "pip"), "install", "-q", "uv"], check=True
        )
    return uv


def uv_env():
    env = dict(os.environ, UV_PYTHON_DOWNLOADS="never", UV_NO_CONFIG="1", NO_COLOR="1")
    for k in (
        "UV_INDEX_URL",
        "UV_DEFAULT_INDEX",
        "UV_EXTRA_INDEX_URL",
        "PIP_INDEX_URL",
        "PIP_EXTRA_INDEX_URL",
        "VIRTUAL_ENV",
    ):
        env.pop(k, None)
    return env


class Run:
    """One child's figures."""

    def __init__(self, wall, cpu, rss_mib, rc, stdout, stderr):
        self.wall, self.cpu, self.rss_mib = wall, cpu, rss_mib
        self.rc, self.stdout, self.stderr = rc, stdout, stderr


def run(cmd, stdin=None, env=None, ok=(0, 1)):
    """Run `cmd` once: wall (s), user+sys CPU (s), peak RSS (MiB) of that child."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=env or uv_env(),
        )
        if stdin is not None:
            p.stdin.write(stdin.encode())
            p.stdin.close()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        stdout, stderr = (
            out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )
    if p.returncode not in ok:
        raise SystemExit(
            f"bench: {' '.join(cmd)} failed ({p.returncode}):\n{stderr[-2000:]}"
        )
    return Run(
        wall,
        ru.ru_utime + ru.ru_stime,
        ru.ru_maxrss / 1024,
        p.returncode,
        stdout,
        stderr,
    )


def medians(runs):
    """(wall, cpu, rss) medians of a list of Run."""
    return tuple(
        statistics.median(getattr(r, k) for r in runs)
        for k in ("wall", "cpu", "rss_mib")
    )


def interleaved(cmds, runs, prep=None):
    """Run each (label, cmd, stdin) in turn, `runs` rounds; `prep(label)` before each run.
    Returns {label: [Run]}."""
    out = {label: [] for label, _, _ in cmds}
    for _ in range(runs):
        for label, cmd, stdin in cmds:
            if prep:
                prep(label)
            out[label].append(run(cmd, stdin))
    return out


def machine():
    load = open("/proc/loadavg").read().split()[:3]
    return f"{os.cpu_count()} cores, load average {' '.join(load)}"


def fmt_ms(s):
    return f"{s * 1000:.0f} ms"


def table(header, rows):
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
