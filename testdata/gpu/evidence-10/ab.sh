#!/usr/bin/env bash
# A/B on one GPU machine: `verify --all` on the untouched venv with main's release build (.gpu10/planner.xz) and with
# the build whose verify.py starts no deep import once fewer seconds of the budget are left than the recent ones took
# (the median of the last 32, 1 to 3 s) (.gpu10/planner-new.xz), alternating, the new one first in each round, three
# rounds; PLANNER_VERIFY_PROFILE=1 adds each run's phases to its report. Then the new build's `try` of the forced
# Jinja2 2.11.3 plan (must REGRESS naming flex-attention and transformers), the venv's tree hashed before and after.
# Reports are packed into one tarball. (Earlier calls, files ab1-* and ab2-*: keeping back the slowest deep import so
# far, at most 5 s, then the mean, at most 3 s; both cut the deep sample from about 200 modules to 40-50.)
set -u
G=/tmp/g; O=$G/ab3; mkdir -p $O
V=/opt/torch/.venv
for b in planner planner-new; do
  python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu10/$b.xz $G/$b
  chmod +x $G/$b
done
{ nproc; uptime; nvidia-smi --query-gpu=name --format=csv,noheader; } > $O/machine-ab3.txt 2>&1
for i in 1 2 3; do
  for b in planner-new planner; do
    s=$(date +%s%N)
    PLANNER_VERIFY_PROFILE=1 $G/$b verify --python $V/bin/python3 --all --policy ml-cuda --format json > $O/ab3-$b-$i.json 2> $O/ab3-$b-$i.err
    echo "verify --all $b run $i: exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms, load $(cut -d' ' -f1 /proc/loadavg)" >> $O/timings-ab3.txt
  done
done
python3 testdata/gpu/try-treehash.py $V > $G/treehash-before.txt 2>&1
s=$(date +%s%N)
PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu10/wj PATH=/usr/bin:/bin $G/planner-new try .gpu10/plans-jinja/plans/1-forced-override --python $V/bin/python3 --policy ml-cuda --format json > $O/try-jinja2-2.11.3-new.json 2> $O/try-jinja2-2.11.3-new.err
echo "try jinja2-2.11.3 (new build): exit $?, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $O/timings-ab3.txt
python3 testdata/gpu/try-treehash.py $V > $G/treehash-after.txt 2>&1
cmp -s $G/treehash-before.txt $G/treehash-after.txt && echo "jinja2-2.11.3: venv unchanged (tree hash $(tail -1 $G/treehash-after.txt))" >> $O/timings-ab3.txt
cp $O/timings-ab3.txt $OUT/
tar czf $OUT/ab3.tgz -C $G ab3
cat $O/timings-ab3.txt
