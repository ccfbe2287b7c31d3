#!/usr/bin/env bash
# GPU machine, session 15: main's release build (.gpu15/planner.xz): the hard budget stop; then RECORDs read without a PackagePath per line; then (fourth call) servers not waited for past the budget.
# verify --all three times (profiled) on the untouched venv; then the clean jinja2 3.1.5 plan (session 14's, written
# on the live index for the shared h200 fixture) tried twice, beside (the default from 4 cores).
set -u
G=/tmp/g; O=$OUT; mkdir -p $G
V=/opt/torch/.venv
python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu15/planner.xz $G/planner; chmod +x $G/planner
{ nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; $V/bin/python3 -c "import torch, triton, jinja2; print(torch.__version__, triton.__version__, jinja2.__version__)"; $G/planner --version; } > $O/machine.txt 2>&1
T=$O/timings.txt
for i in 1 2 3 4; do
  s=$(date +%s%N)
  PLANNER_VERIFY_PROFILE=1 $G/planner verify --python $V/bin/python3 --all --policy ml-cuda --format json > $G/verify-all-$i.json 2> $G/verify-all-$i.err
  echo "verify --all run $i: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $T
done
python3 testdata/gpu/try-treehash.py $V > $G/th-before.txt 2>&1
for r in 1; do
  s=$(date +%s%N)
  PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu15/wj PATH=/usr/bin:/bin $G/planner try .gpu15/plans/j315/plans/1-upgrade --python $V/bin/python3 --policy ml-cuda --format json > $G/try-j315-$r.json 2> $G/try-j315-$r.err
  echo "try j315 $r: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $T
done
python3 testdata/gpu/try-treehash.py $V > $G/th-after.txt 2>&1
cmp -s $G/th-before.txt $G/th-after.txt && echo "venv unchanged (tree hash $(tail -1 $G/th-after.txt))" >> $T
python3 - $G $O <<'P'
import json, sys, glob, os
g, o = sys.argv[1], sys.argv[2]
rows = []
for f in sorted(glob.glob(g + "/verify-all-*.json")):
    r = json.load(open(f))
    rows.append({"file": os.path.basename(f), "seconds": r["seconds"], "summary": r["summary"], "failed": r["failed"],
                 "budget": {k: v for k, v in (r.get("budget") or {}).items() if k != "left_out"}, "profile": r.get("profile")})
for f in sorted(glob.glob(g + "/try-*.json")):
    try:
        r = json.load(open(f))
    except Exception as e:
        rows.append({"file": os.path.basename(f), "error": str(e)}); continue
    rows.append({"file": os.path.basename(f), "verdict": r["verdict"], "seconds": r["seconds"], "copy": r["copy"]["seconds"],
                 "baseline_copy": (r.get("baseline_copy") or {}).get("seconds"), "after": (r.get("report") or {}).get("seconds"),
                 "regressions": r.get("regressions")})
json.dump(rows, open(o + "/summary.json", "w"), indent=1)
P
tar -C $G -czf $O/raw.tgz $(cd $G && ls *.json *.err)
cat $T
