#!/usr/bin/env bash
# The triton 3.7.0 forced plan tried on the H200: the wheel arrived in parts under /tmp/tp.
set -u
R=$OUT; G=/tmp/g; OUT=$G/out-triton; mkdir -p $OUT /tmp/tpw
gunzip -c /tmp/tp/planner.gz > $G/planner 2>/dev/null || gunzip -c .gpu/planner.gz > $G/planner; chmod +x $G/planner; P=$G/planner
W=triton-3.7.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
cat /tmp/tp/tp.* > /tmp/tpw/$W; echo "$(sha256sum /tmp/tpw/$W | cut -d' ' -f1) expected 8f111161d49bf903c0eaedde3962353a3d841c08a836839b7cc1025b8426efcf" | tee $OUT/wheel-sha.txt
V=/opt/torch/.venv
python3 testdata/gpu/try-treehash.py $V > $OUT/treehash-before.txt 2>&1
export PIP_NO_INDEX=1 PIP_FIND_LINKS=/tmp/tpw
s=$(date +%s)
PATH=/usr/bin:/bin $P try .gpu/plans-triton3/plans/2-forced-override --python $V/bin/python3 --policy ml-cuda --format json > $OUT/try-triton-3.7.0.json 2> $OUT/try-triton-3.7.0.err
echo "try: exit $?, $(( $(date +%s)-s )) s" | tee $OUT/timings.txt
python3 testdata/gpu/try-treehash.py $V > $OUT/treehash-after.txt 2>&1; cmp $OUT/treehash-before.txt $OUT/treehash-after.txt && echo "venv unchanged" | tee -a $OUT/timings.txt
python3 -c "
import json; d=json.load(open('$OUT/try-triton-3.7.0.json'))
print('verdict:', d.get('verdict')); print({k: d.get(k) for k in ('summary','caches') if k in d})
print('regressions:', json.dumps(d.get('regressions'))[:1500])"
tail -15 $OUT/try-triton-3.7.0.err
tar czf $R/triton.tgz -C $G out-triton
