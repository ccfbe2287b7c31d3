#!/usr/bin/env bash
# H200: verify --all on the untouched venv (private caches, smoke tests) three times, then the
# Jinja2 2.11.3 plan tried (must regress naming flex_attention and transformers), venv hashed around.
set -u
R=$OUT; G=/tmp/g; O=$G/out6; mkdir -p $O
python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu6/planner6.xz $G/planner; chmod +x $G/planner; P=$G/planner
V=/opt/torch/.venv
{ nproc; uptime; $V/bin/python3 -c "import torch, triton, jinja2; print(torch.__version__, triton.__version__, jinja2.__version__)"; } > $O/machine.txt 2>&1
for i in 1 2 3; do
  s=$(date +%s%N)
  $P verify --python $V/bin/python3 --all --policy ml-cuda --format json > $O/verify-all-$i.json 2> $O/verify-all-$i.err
  echo "verify-all run $i: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $O/timings.txt
done
python3 testdata/gpu/try-treehash.py $V > $O/treehash-before.txt 2>&1
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu6/wj
s=$(date +%s%N)
PATH=/usr/bin:/bin $P try .gpu6/plans-jinja6/plans/1-* --python $V/bin/python3 --policy ml-cuda --format json > $O/try-jinja2-2.11.3.json 2> $O/try-jinja2-2.11.3.err
echo "try jinja2 2.11.3: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/timings.txt
python3 testdata/gpu/try-treehash.py $V > $O/treehash-after.txt 2>&1
cmp -s $O/treehash-before.txt $O/treehash-after.txt && echo "venv unchanged (tree hash)" >> $O/timings.txt
python3 - "$O" <<'PY' >> $O/timings.txt
import json, sys
o = sys.argv[1]
for i in (1, 2, 3):
    d = json.load(open(f"{o}/verify-all-{i}.json"))
    print("verify-all", i, d.get("ok"), d.get("summary"), d.get("seconds"))
t = json.load(open(f"{o}/try-jinja2-2.11.3.json"))
regs = [r if isinstance(r, str) else r.get("name") for r in t.get("regressions") or []]
print("try verdict", t.get("verdict"), len(regs))
print("flex", [r for r in regs if "flex" in r]); print("transformers", [r for r in regs if "transformers" in r][:5])
PY
cat $O/timings.txt
tar czf $R/out6.tgz -C $G out6; cp $O/timings.txt $R/
