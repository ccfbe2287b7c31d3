#!/bin/bash
# The runtime context on the H200 machine: snapshot the real venv, then add a second toolkit
# folder (CUDA_HOME, version.json 12.8), set TORCH_CUDA_ARCH_LIST, fill inductor and Triton
# caches with a tiny torch.compile, patch triton/runtime/autotuner.py (restored from a copy at
# the end), snapshot again, diff and check. Outputs under $OUT. Run from the repository root
# with the planner binary at target/gpubin/planner.
set -u
P=$PWD/target/gpubin/planner
V=${V:-/opt/torch/.venv}
LOG=$OUT/log.txt
exec > >(tee "$LOG") 2>&1
cd /tmp
"$P" --version; nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader
ls -d /usr/local/cuda* ; env | grep -E '^(CUDA|TORCH|TRITON|NCCL|NVIDIA|LD_LIBRARY_PATH)' | sort
t() { TIMEFORMAT="%R s: ${*:2}"; { time "$@" >/dev/null 2>&1; } 2>> $OUT/timing.txt; }
for i in 1 2 3; do t "$P" inventory --venv "$V"; t "$P" inventory --venv "$V" --format json; t "$P" snapshot --venv "$V" --out /tmp/s.json; done
"$P" snapshot --venv "$V" --out /tmp/before.json
mkdir -p /tmp/cuda-12.8 && echo '{"cuda": {"name": "CUDA SDK", "version": "12.8.93"}}' > /tmp/cuda-12.8/version.json
export CUDA_HOME=/tmp/cuda-12.8 TORCH_CUDA_ARCH_LIST=9.0 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache TRITON_CACHE_DIR=/tmp/triton-cache
"$V/bin/python" -c "import torch; f = torch.compile(lambda x: (x * 2).sin() + 1); print(f(torch.ones(64, device='cuda')).sum().item())"
A=$("$V/bin/python" -c "import triton.runtime.autotuner as a; print(a.__file__)")
cp -p "$A" /tmp/autotuner.py.bak
printf '\n# local patch: retry on OOM\n# second line\n' >> "$A"
"$P" snapshot --venv "$V" --out /tmp/after.json
"$P" diff /tmp/before.json /tmp/after.json > $OUT/diff.txt; echo "diff exit $?"
"$P" diff /tmp/before.json /tmp/after.json --format json > $OUT/diff.json
"$P" check --venv "$V" > $OUT/check.txt; echo "check exit $?"
cp -p /tmp/autotuner.py.bak "$A" && echo restored "$A"
"$V/bin/python" -c "import json,sys; [print(json.dumps(json.load(open(f))['runtime'], indent=2), file=open('$OUT/runtime-' + n + '.json', 'w')) for n, f in (('before', '/tmp/before.json'), ('after', '/tmp/after.json'))]"
cat $OUT/diff.txt; grep -E "edited|stale" $OUT/check.txt; cat $OUT/timing.txt
