#!/usr/bin/env bash
# Issue-39 proofs on the H200: runtime context, loaded CUDA libraries, a file edited in place bisected, timings.
set -u
R=$OUT; OUT=/tmp/g/out; G=/tmp/g; mkdir -p $G $OUT; gunzip -c .gpu/planner.gz > $G/planner; chmod +x $G/planner; P=$G/planner
V=/opt/torch/.venv; PY=$V/bin/python3; SP=$V/lib/python3.12/site-packages
t() { local name=$1; shift; local s=$(date +%s%N); "$@"; local rc=$?; echo "$name: exit $rc, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $OUT/timings.txt; }
if [ -z "${SKIP1:-}" ]; then t inventory-json $P inventory --venv $V --format json > $OUT/inventory.json 2> $OUT/inventory.err
python3 -c "import json; d=json.load(open('$OUT/inventory.json')); r=d.get('runtime',{}); print('toolkits:', r.get('cuda_toolkits')); print('driver:', r.get('driver'))" 
t check $P check --venv $V > $OUT/check.txt 2>&1
t check-hash-binaries $P check --venv $V --hash-binaries > $OUT/check-bin.txt 2>&1
t snapshot $P snapshot --venv $V --out $G/good.json
t verify-all $P verify --venv $V --all --format json > $OUT/verify-all.json 2> $OUT/verify-all.err
python3 -c "import json; d=json.load(open('$OUT/verify-all.json')); print('cuda_libraries:', json.dumps(d.get('cuda_libraries'))[:600]); print(d.get('summary'))"
LIB=$(ls /usr/local/cuda/lib64/libcudart.so.1* 2>/dev/null | head -1); echo "preload: $LIB"
LD_PRELOAD=$LIB t verify-all-preload $P verify --venv $V --all --format json > $OUT/verify-all-preload.json 2> $OUT/verify-all-preload.err
python3 -c "import json; d=json.load(open('$OUT/verify-all-preload.json')); print('outside:', (d.get('cuda_libraries') or {}).get('outside')); print(d.get('summary'))"; grep -i "outside" $OUT/verify-all-preload.err | head -3
fi
# A file edited in place (as the incident's autotuner patch), then bisect from the snapshot.
cp -a $SP/einops/__init__.py $G/einops-init.bak
printf '\nraise ImportError("einops patched by hand")\n' >> $SP/einops/__init__.py
t check-after-edit $P check --venv $V > $OUT/check-after-edit.txt 2>&1; grep -i "einops" $OUT/check-after-edit.txt | head -3
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu/w39
PATH=/usr/bin:/bin t bisect-edit $P bisect --good $G/good.json --venv $V --test "python -c 'import einops'" --format json > $OUT/bisect-edit.json 2> $OUT/bisect-edit.err
python3 -c "import json; d=json.load(open('$OUT/bisect-edit.json')); print('verdict:', d.get('verdict')); print('culprits:', json.dumps(d.get('culprits'))[:500])"; tail -3 $OUT/bisect-edit.err
cp -a $G/einops-init.bak $SP/einops/__init__.py; $P check --venv $V > /dev/null 2>&1; echo "check after restore: $?"
tar czf $R/gpu39.tgz -C /tmp/g out; cat $OUT/timings.txt
