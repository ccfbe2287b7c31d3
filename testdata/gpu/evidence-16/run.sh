#!/usr/bin/env bash
# GPU machine, session 16: main's release build (.gpu16/planner.xz) with try's baseline of only what did not pass after
# the plan (PLANNER_TRY_BASELINE=needed, the default) against a whole baseline beside the install (beside, the default
# before on 4+ cores), alternated round by round: the clean jinja2 3.1.5 plan three times each, the forced Jinja2 2.11.3
# plan once each (call 1; `run.sh quiet`, call 2: each try after sync and 25 s idle) (session 14's plans, written on the live index for the shared h200 fixture; wheels carried).
set -u
G=/tmp/g; O=$OUT; mkdir -p $G
V=/opt/torch/.venv
python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu16/planner.xz $G/planner; chmod +x $G/planner
{ nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; $V/bin/python3 -c "import torch, triton, jinja2; print(torch.__version__, triton.__version__, jinja2.__version__)"; $G/planner --version; } > $O/machine.txt 2>&1
T=$O/timings.txt
python3 testdata/gpu/try-treehash.py $V > $G/th-before.txt 2>&1
one() {  # plan mode label
  [ -n "${QUIET:-}" ] && { sync; sleep $QUIET; }
  s=$(date +%s%N)
  PLANNER_TRY_BASELINE=$2 PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu16/wj PATH=/usr/bin:/bin $G/planner try .gpu16/plans/$1/plans/1-* --python $V/bin/python3 --policy ml-cuda --format json > $G/try-$3.json 2> $G/try-$3.err
  echo "try $3 ($1, $2): exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $T
}
if [ "${1:-}" = quiet ]; then
  # Call 2: each try after `sync` and 25 s idle (the disk done writing the previous try's copies), as one try alone.
  QUIET=25
  one j315 needed j315-needed-1; one j315 beside j315-beside-1
  one j315 needed j315-needed-2; one j315 needed j315-needed-3
else
  one j315 needed j315-needed-1; one j315 beside j315-beside-1
  one j315 beside j315-beside-2; one j315 needed j315-needed-2
  one j315 needed j315-needed-3; one j315 beside j315-beside-3
  one j2 needed j2-needed; one j2 beside j2-beside
fi
python3 testdata/gpu/try-treehash.py $V > $G/th-after.txt 2>&1
cmp -s $G/th-before.txt $G/th-after.txt && echo "venv unchanged (tree hash $(tail -1 $G/th-after.txt))" >> $T
python3 - $G $O <<'P'
import json, sys, glob, os
g, o = sys.argv[1], sys.argv[2]
rows = []
for f in sorted(glob.glob(g + "/try-*.json")):
    try:
        r = json.load(open(f))
    except Exception as e:
        rows.append({"file": os.path.basename(f), "error": str(e)}); continue
    checks = {c["name"]: [c["status"], c.get("regression")] for c in (r.get("report") or {}).get("checks", [])}
    rows.append({"file": os.path.basename(f), "baseline_mode": r.get("baseline_mode"), "verdict": r["verdict"],
                 "seconds": r["seconds"], "copy": r["copy"]["seconds"], "baseline_copy": (r.get("baseline_copy") or {}).get("seconds"),
                 "baseline": r.get("baseline"), "verify": r.get("verify"), "after": (r.get("report") or {}).get("seconds"),
                 "steps": [s["ran"]["seconds"] for s in r["steps"]], "compile_caches": r.get("compile_caches"),
                 "regressions": r.get("regressions"), "checks": checks})
json.dump(rows, open(o + "/summary.json", "w"), indent=1)
P
tar -C $G -czf $O/raw.tgz $(cd $G && ls *.json *.err)
cat $T
