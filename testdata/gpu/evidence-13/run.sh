#!/usr/bin/env bash
# GPU machine, session 13: a release build of main (bbcd2bf5) as .gpu12/planner.xz, plans written by
# `planner propose 'jinja2==2.11.3' --allow-override` and `planner propose 'triton==3.7.0' --allow-override` on the
# shared h200 fixture (.gpu12/plans-*), the Jinja2 2.11.3 wheel in .gpu12/wj, the 201 MB triton 3.7.0 wheel in five
# parts (.gpu12/tp1 .. tp5), one a call while the machine is warm.
#   run.sh part N   append part N to /tmp/tp
#   run.sh main     verify --all twice on the untouched venv (timed; target 30 s), then the Jinja2 2.11.3 forced plan
#                   tried (must REGRESS naming flex_attention and transformers), the venv's tree hashed around it
#   run.sh triton   the triton 3.7.0 forced plan tried (must stay clean), tree hashed around it
# verify.py compiles in private, empty caches (inductor, Triton, JAX), baseline and after alike.
set -u
G=/tmp/g; O=$G/out; mkdir -p $G $O /tmp/tp /tmp/tpw
V=/opt/torch/.venv
W=triton-3.7.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
unpack() {
  [ -x $G/planner ] || python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu12/planner.xz $G/planner
  chmod +x $G/planner
}
tried() { # NAME PLAN FIND_LINKS
  python3 testdata/gpu/try-treehash.py $V > $G/treehash-before-$1.txt 2>&1
  local s=$(date +%s%N)
  PIP_NO_INDEX=1 PIP_FIND_LINKS=$3 PATH=/usr/bin:/bin $G/planner try $2 --python $V/bin/python3 --policy ml-cuda --format json > $O/try-$1.json 2> $O/try-$1.err
  echo "try $1: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/timings.txt
  python3 testdata/gpu/try-treehash.py $V > $G/treehash-after-$1.txt 2>&1
  cmp -s $G/treehash-before-$1.txt $G/treehash-after-$1.txt && echo "$1: venv unchanged (tree hash $(tail -1 $G/treehash-after-$1.txt))" >> $O/timings.txt
}
case "${1:-}" in
  part) cp .gpu12/tp$2/* /tmp/tp/ && ls -la /tmp/tp ;;
  main)
    unpack
    { nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; $V/bin/python3 -c "import torch, triton, jinja2; print(torch.__version__, triton.__version__, jinja2.__version__)"; $G/planner --version; } > $O/machine.txt 2>&1
    for i in 1 2; do
      s=$(date +%s%N)
      $G/planner verify --python $V/bin/python3 --all --policy ml-cuda --format json > $O/verify-all-$i.json 2> $O/verify-all-$i.err
      echo "verify --all run $i: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $O/timings.txt
    done
    tried jinja2-2.11.3 .gpu12/plans-jinja/plans/1-forced-override $PWD/.gpu12/wj ;;
  triton)
    unpack
    cat /tmp/tp/tp.0 /tmp/tp/tp.1 /tmp/tp/tp.2 /tmp/tp/tp.3 /tmp/tp/tp.4 > /tmp/tpw/$W
    echo "$(sha256sum /tmp/tpw/$W | cut -d' ' -f1) expected 8f111161d49bf903c0eaedde3962353a3d841c08a836839b7cc1025b8426efcf" > $O/wheel-sha.txt
    tried triton-3.7.0 .gpu12/plans-triton/plans/2-forced-override /tmp/tpw ;;
esac
cat $O/timings.txt 2>/dev/null
cp -r $O/. $OUT/ 2>/dev/null; true
