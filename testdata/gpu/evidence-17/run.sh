#!/usr/bin/env bash
# GPU machine, session 17: main's release build (.gpu17/planner.xz), with verify.py's two fixes of session 16 (a failed
# package import's leftover submodules taken out before each import; a module that puts another in its own place is
# its own). verify --all twice on the untouched venv; the forced Jinja2 2.11.3 plan and the clean jinja2 3.1.5 plan
# (session 14's, written on the live index for the shared h200 fixture; wheels carried) tried with the default
# baseline mode (needed on 16 cores), each after `sync` and 25 s idle.
set -u
G=/tmp/g; O=$OUT; rm -rf $G; mkdir -p $G
V=/opt/torch/.venv
python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu17/planner.xz $G/planner; chmod +x $G/planner
{ nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; $V/bin/python3 -c "import torch, triton, jinja2; print(torch.__version__, triton.__version__, jinja2.__version__)"; $G/planner --version; } > $O/machine.txt 2>&1
T=$O/timings.txt
python3 testdata/gpu/try-treehash.py $V > $G/th-before.txt 2>&1
for i in 1 2; do
  s=$(date +%s%N)
  $G/planner verify --python $V/bin/python3 --all --policy ml-cuda --format json > $G/verify-all-$i.json 2> $G/verify-all-$i.err
  echo "verify --all run $i: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $T
done
one() {  # plan label
  sync; sleep 25
  s=$(date +%s%N)
  PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu17/wj PATH=/usr/bin:/bin $G/planner try .gpu17/plans/$1/plans/1-* --python $V/bin/python3 --policy ml-cuda --format json > $G/try-$2.json 2> $G/try-$2.err
  echo "try $2 ($1): exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $T
}
one j2 j2; one j315 j315-1; one j315 j315-2
python3 testdata/gpu/try-treehash.py $V > $G/th-after.txt 2>&1
cmp -s $G/th-before.txt $G/th-after.txt && echo "venv unchanged (tree hash $(tail -1 $G/th-after.txt))" >> $T
python3 - $G $O <<'P'
import json, sys, glob, os
g, o = sys.argv[1], sys.argv[2]
rows = []
for f in sorted(glob.glob(g + "/verify-all-*.json")):
    r = json.load(open(f))
    rows.append({"file": os.path.basename(f), "seconds": r["seconds"], "summary": r["summary"], "failed": r["failed"],
                 "budget": {k: v for k, v in (r.get("budget") or {}).items() if k != "left_out"}})
for f in sorted(glob.glob(g + "/try-*.json")):
    try:
        r = json.load(open(f))
    except Exception as e:
        rows.append({"file": os.path.basename(f), "error": str(e)}); continue
    checks = {c["name"]: [c["status"], c.get("regression")] for c in (r.get("report") or {}).get("checks", [])}
    rows.append({"file": os.path.basename(f), "baseline_mode": r.get("baseline_mode"), "verdict": r["verdict"],
                 "seconds": r["seconds"], "copy": r["copy"]["seconds"], "baseline_copy": (r.get("baseline_copy") or {}).get("seconds"),
                 "after": (r.get("report") or {}).get("seconds"), "compile_caches": r.get("compile_caches"),
                 "regressions": r.get("regressions"), "checks": checks})
json.dump(rows, open(o + "/summary.json", "w"), indent=1)
P
tar -C $G -czf $O/raw.tgz $(cd $G && ls *.json *.err)
cat $T
