#!/usr/bin/env bash
# H200, session 10: a release build of main (verify.py compiles with TORCHINDUCTOR_COMPILE_THREADS=1 in private,
# empty caches). `verify --all` on the untouched venv twice, timed (target 30 s), then the Jinja2 2.11.3 forced plan
# tried (must REGRESS naming flex_attention and transformers), the venv's tree hashed before and after the try.
# The build arrives as .gpu10/planner.xz, the plan as .gpu10/plans-jinja, the Jinja2 wheel in .gpu10/wj.
set -u
G=/tmp/g; O=$OUT; mkdir -p $G
V=/opt/torch/.venv
python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu10/planner.xz $G/planner
chmod +x $G/planner; P=$G/planner
{ nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; $V/bin/python3 -c "import torch, triton, jinja2; print(torch.__version__, triton.__version__, jinja2.__version__)"; $P --version; } > $O/machine.txt 2>&1
for i in 1 2; do
  s=$(date +%s%N)
  $P verify --python $V/bin/python3 --all --policy ml-cuda --format json > $O/verify-all-$i.json 2> $O/verify-all-$i.err
  echo "verify --all run $i: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $O/timings.txt
done
python3 testdata/gpu/try-treehash.py $V > $G/treehash-before.txt 2>&1
s=$(date +%s%N)
PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu10/wj PATH=/usr/bin:/bin $P try .gpu10/plans-jinja/plans/1-forced-override --python $V/bin/python3 --policy ml-cuda --format json > $O/try-jinja2-2.11.3.json 2> $O/try-jinja2-2.11.3.err
echo "try jinja2-2.11.3: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/timings.txt
python3 testdata/gpu/try-treehash.py $V > $G/treehash-after.txt 2>&1
cmp -s $G/treehash-before.txt $G/treehash-after.txt && echo "jinja2-2.11.3: venv unchanged (tree hash $(tail -1 $G/treehash-after.txt))" >> $O/timings.txt
cat $O/timings.txt
