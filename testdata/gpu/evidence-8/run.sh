#!/usr/bin/env bash
# H200, session 8's build: verify --all on the untouched venv (twice, timed), the Jinja2 2.11.3 forced plan tried
# (must regress naming flex_attention and transformers), the triton 3.7.0 forced plan tried (must stay clean); the
# venv's tree hashed before and after each try. The triton wheel arrived in parts under /tmp/tp.
set -u
R=$OUT; G=/tmp/g; O=$G/out8; mkdir -p $O /tmp/tpw
python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu8/planner8.xz $G/planner; chmod +x $G/planner; P=$G/planner
V=/opt/torch/.venv
W=triton-3.7.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
PHASE=${1:-all}
{ nproc; uptime; $V/bin/python3 -c "import torch, triton, jinja2; print(torch.__version__, triton.__version__, jinja2.__version__)"; $P --version; } > $O/machine.txt 2>&1
if [ "$PHASE" != b ]; then
for i in 1 2; do
  s=$(date +%s%N)
  $P verify --python $V/bin/python3 --all --policy ml-cuda --format json > $O/verify-all-$i.json 2> $O/verify-all-$i.err
  echo "verify-all run $i: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $O/timings.txt
done
fi
try_plan() { # name plan-dir find-links
  python3 testdata/gpu/try-treehash.py $V > $O/treehash-before-$1.txt 2>&1
  s=$(date +%s%N)
  PIP_NO_INDEX=1 PIP_FIND_LINKS=$3 PATH=/usr/bin:/bin $P try $2 --python $V/bin/python3 --policy ml-cuda --format json > $O/try-$1.json 2> $O/try-$1.err
  echo "try $1: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/timings.txt
  python3 testdata/gpu/try-treehash.py $V > $O/treehash-after-$1.txt 2>&1
  cmp -s $O/treehash-before-$1.txt $O/treehash-after-$1.txt && echo "$1: venv unchanged (tree hash)" >> $O/timings.txt
}
if [ "$PHASE" != b ]; then
try_plan jinja2-2.11.3 .gpu8/plans-jinja/plans/1-forced-override $PWD/.gpu8/wj
fi
if [ "$PHASE" != a ]; then
cat /tmp/tp/tp.* > /tmp/tpw/$W
echo "$(sha256sum /tmp/tpw/$W | cut -d' ' -f1) expected 8f111161d49bf903c0eaedde3962353a3d841c08a836839b7cc1025b8426efcf" > $O/wheel-sha.txt
try_plan triton-3.7.0 .gpu8/plans-triton/plans/2-forced-override /tmp/tpw
fi
python3 - "$O" <<'PY' >> $O/summary.txt
import json, sys
o = sys.argv[1]
import os
for i in (1, 2):
    if not os.path.exists(f"{o}/verify-all-{i}.json"):
        continue
    d = json.load(open(f"{o}/verify-all-{i}.json"))
    print("verify-all", i, d.get("ok"), d.get("summary"), d.get("seconds"))
    print("  failed:", [c.get("name") for c in d.get("checks", []) if c.get("status") not in ("pass", "skip", "skipped")][:10])
for name in ("jinja2-2.11.3", "triton-3.7.0"):
    if not os.path.exists(f"{o}/try-{name}.json"):
        continue
    t = json.load(open(f"{o}/try-{name}.json"))
    regs = [r if isinstance(r, str) else (r.get("name") or r.get("check")) for r in t.get("regressions") or []]
    print("try", name, t.get("verdict"), len(regs), t.get("summary"))
    print("  flex", [r for r in regs if r and "flex" in r]); print("  transformers", [r for r in regs if r and "transformers" in r][:5])
PY
cat $O/wheel-sha.txt $O/timings.txt $O/summary.txt 2>/dev/null
tar czf $R/out8-$PHASE.tgz -C $G out8; cp $O/timings.txt $R/timings-$PHASE.txt
