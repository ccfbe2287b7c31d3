#!/usr/bin/env bash
# Time the two compile smoke tests from empty caches, alone, with inductor's default compile workers and with one.
V=/opt/torch/.venv/bin/python3
for t in torch_compile flex_attention; do
  for th in default 1 default 1; do
    R=$(mktemp -d); export TORCHINDUCTOR_CACHE_DIR=$R/i TRITON_CACHE_DIR=$R/t TORCHINDUCTOR_FORCE_DISABLE_CACHES=1
    if [ $th = 1 ]; then export TORCHINDUCTOR_COMPILE_THREADS=1; else unset TORCHINDUCTOR_COMPILE_THREADS; fi
    s=$(date +%s%N); out=$($V policies/smoke/$t.py 2>&1 | tail -1); e=$(( ($(date +%s%N)-s)/1000000 ))
    echo "$t threads=$th: $e ms: $out"
    rm -rf $R
  done
done
R=$(mktemp -d); export TORCHINDUCTOR_CACHE_DIR=$R/i TRITON_CACHE_DIR=$R/t; unset TORCHINDUCTOR_COMPILE_THREADS
s=$(date +%s%N); $V -c "import torch" ; echo "import torch: $(( ($(date +%s%N)-s)/1000000 )) ms"
s=$(date +%s%N); $V -X importtime -c "import torch._inductor.compile_fx, torch._dynamo" 2> /tmp/it.txt; echo "import inductor+dynamo: $(( ($(date +%s%N)-s)/1000000 )) ms"
sort -t'|' -k2 -n /tmp/it.txt | tail -5
