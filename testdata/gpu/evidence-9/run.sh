#!/usr/bin/env bash
# H200, session 9: the triton 3.7.0 forced plan tried with main's build (must stay clean: 0 regressions, flex_attention
# and the Triton kernels compiled into private caches), the venv's tree hashed before and after; then `verify --all` on
# the untouched venv with a release build, twice, timed. The triton wheel arrives in parts (phase p: append the carried
# part to /tmp/tp), the builds as xz files under .gpu9/.
set -u
G=/tmp/g; O=$G/out9; mkdir -p $O /tmp/tp /tmp/tpw
PHASE=${1:-p}
cp .gpu9/tp/tp.* /tmp/tp/ 2>/dev/null; ls -la /tmp/tp
if [ "$PHASE" = p ]; then exit 0; fi
unxz() { python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" "$1" "$2"; chmod +x "$2"; }
V=/opt/torch/.venv
W=triton-3.7.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
if [ "$PHASE" = t ]; then
  unxz .gpu9/planner9.xz $G/planner; P=$G/planner
  { nproc; uptime; $V/bin/python3 -c "import torch, triton, jinja2; print(torch.__version__, triton.__version__, jinja2.__version__)"; $P --version; } > $O/machine.txt 2>&1
  cat /tmp/tp/tp.* > /tmp/tpw/$W
  echo "$(sha256sum /tmp/tpw/$W | cut -d' ' -f1) expected 8f111161d49bf903c0eaedde3962353a3d841c08a836839b7cc1025b8426efcf" > $O/wheel-sha.txt
  python3 testdata/gpu/try-treehash.py $V > $O/treehash-before-triton-3.7.0.txt 2>&1
  s=$(date +%s%N)
  PIP_NO_INDEX=1 PIP_FIND_LINKS=/tmp/tpw PATH=/usr/bin:/bin $P try .gpu9/plans-triton/plans/2-forced-override --python $V/bin/python3 --policy ml-cuda --format json > $O/try-triton-3.7.0.json 2> $O/try-triton-3.7.0.err
  echo "try triton-3.7.0: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/timings.txt
  python3 testdata/gpu/try-treehash.py $V > $O/treehash-after-triton-3.7.0.txt 2>&1
  cmp -s $O/treehash-before-triton-3.7.0.txt $O/treehash-after-triton-3.7.0.txt && echo "triton-3.7.0: venv unchanged (tree hash)" >> $O/timings.txt
fi
if [ "$PHASE" = v ]; then
  unxz .gpu9/planner9-release.xz $G/planner-release; P=$G/planner-release
  { nproc; uptime; $P --version; } > $O/machine-release.txt 2>&1
  for i in 1 2; do
    s=$(date +%s%N)
    $P verify --python $V/bin/python3 --all --policy ml-cuda --format json > $O/verify-all-release-$i.json 2> $O/verify-all-release-$i.err
    echo "verify-all release run $i: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $O/timings.txt
  done
fi
if [ "$PHASE" = j ]; then
  # The merged build (verify.py compiles with TORCHINDUCTOR_COMPILE_THREADS=1 in private caches): verify --all twice,
  # then the Jinja2 2.11.3 forced plan tried (must still regress naming flex_attention and transformers).
  unxz .gpu9/planner9m.xz $G/planner-m; P=$G/planner-m
  { nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; $P --version; } > $O/machine-merge.txt 2>&1
  for i in 1 2; do
    s=$(date +%s%N)
    $P verify --python $V/bin/python3 --all --policy ml-cuda --format json > $O/verify-all-merge-$i.json 2> $O/verify-all-merge-$i.err
    echo "verify-all merge run $i: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $O/timings.txt
  done
  python3 testdata/gpu/try-treehash.py $V > $O/treehash-before-jinja2-2.11.3.txt 2>&1
  s=$(date +%s%N)
  PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu9/wj PATH=/usr/bin:/bin $P try .gpu9/plans-jinja/plans/1-forced-override --python $V/bin/python3 --policy ml-cuda --format json > $O/try-jinja2-2.11.3.json 2> $O/try-jinja2-2.11.3.err
  echo "try jinja2-2.11.3: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/timings.txt
  python3 testdata/gpu/try-treehash.py $V > $O/treehash-after-jinja2-2.11.3.txt 2>&1
  cmp -s $O/treehash-before-jinja2-2.11.3.txt $O/treehash-after-jinja2-2.11.3.txt && echo "jinja2-2.11.3: venv unchanged (tree hash)" >> $O/timings.txt
fi
if [ "$PHASE" = k ]; then
  # The merged build (TORCHINDUCTOR_COMPILE_THREADS=1 in verify.py): the Jinja2 2.11.3 forced plan tried first (must
  # still regress naming flex_attention and transformers), then verify --all with it and with main's build, once each.
  unxz .gpu9/planner9m.xz $G/planner-m; unxz .gpu9/planner9.xz $G/planner
  { nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; } > $O/machine-k.txt 2>&1; cp $O/machine-k.txt $OUT/
  s=$(date +%s%N)
  PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu9/wj PATH=/usr/bin:/bin $G/planner-m try .gpu9/plans-jinja/plans/1-forced-override --python $V/bin/python3 --policy ml-cuda --format json > $O/try-jinja2-2.11.3.json 2> $O/try-jinja2-2.11.3.err
  echo "try jinja2-2.11.3 (merge build): exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/timings.txt
  cp $O/timings.txt $O/try-jinja2-2.11.3.json $O/try-jinja2-2.11.3.err $OUT/
  for b in planner-m planner; do
    s=$(date +%s%N)
    $G/$b verify --python $V/bin/python3 --all --policy ml-cuda --format json > $O/verify-all-ab-$b.json 2> $O/verify-all-ab-$b.err
    echo "verify-all $b: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $O/timings.txt
    cp $O/timings.txt $O/verify-all-ab-$b.json $OUT/
  done
fi
if [ "$PHASE" = a ]; then
  # A/B on one machine: verify --all with main's build (verify.py's inductor compile-worker pool), then with the
  # merged build (TORCHINDUCTOR_COMPILE_THREADS=1), once each; timings written to $OUT as they come.
  unxz .gpu9/planner9.xz $G/planner; unxz .gpu9/planner9m.xz $G/planner-m
  { nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; } > $O/machine-ab.txt 2>&1; cp $O/machine-ab.txt $OUT/
  for b in planner planner-m; do
    s=$(date +%s%N)
    $G/$b verify --python $V/bin/python3 --all --policy ml-cuda --format json > $O/verify-all-ab-$b.json 2> $O/verify-all-ab-$b.err
    echo "verify-all $b: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $O/timings.txt
    cp $O/timings.txt $O/verify-all-ab-$b.json $OUT/
  done
fi
python3 - "$O" <<'PY' >> $O/summary.txt
import json, os, sys
o = sys.argv[1]
for i, kind in ((1, "release"), (2, "release"), (1, "merge"), (2, "merge")):
    p = f"{o}/verify-all-{kind}-{i}.json"
    if os.path.exists(p):
        d = json.load(open(p))
        print("verify-all", kind, i, d.get("ok"), d.get("summary"), d.get("seconds"))
        print("  failed:", [c.get("name") for c in d.get("checks", []) if c.get("status") not in ("pass", "skip", "skipped")][:10])
for name in ("triton-3.7.0", "jinja2-2.11.3"):
    p = f"{o}/try-{name}.json"
    if os.path.exists(p):
        t = json.load(open(p))
        regs = [r if isinstance(r, str) else (r.get("name") or r.get("check")) for r in t.get("regressions") or []]
        print("try", name, t.get("verdict"), len(regs), t.get("summary"), [r for r in regs if r and ("flex" in r or "transformers" in r)][:6])
PY
cat $O/wheel-sha.txt $O/timings.txt $O/summary.txt 2>/dev/null
tar czf $OUT/out9-$PHASE.tgz -C $G out9
