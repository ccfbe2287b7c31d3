#!/usr/bin/env bash
# Final H200 proofs: what each file check costs on the 197-dist venv (unowned files included),
# an edit and a stray file found, and the jinja2 2.11.3 plan tried (names flex_attention and transformers).
set -u
R=$OUT; G=/tmp/g; OUT=$G/out-final; mkdir -p $OUT; gunzip -c .gpu/planner.gz > $G/planner; chmod +x $G/planner; P=$G/planner
V=/opt/torch/.venv; SP=$V/lib/python3.12/site-packages
t() { local name=$1; shift; local s=$(date +%s%N); "$@"; local rc=$?; echo "$name: exit $rc, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $OUT/timings.txt; }
for i in 1 2 3; do
t inventory-json $P inventory --venv $V --format json > $OUT/inventory.json 2> /dev/null
t check $P check --venv $V > $OUT/check.txt 2>&1
t check-hash-binaries $P check --venv $V --hash-binaries > $OUT/check-bin.txt 2>&1
t snapshot $P snapshot --venv $V --out $G/s.json
done
cp $G/s.json $OUT/snapshot.json
grep -ic "no RECORD\|unowned\|not listed" $OUT/check.txt; head -30 $OUT/check.txt
# A stray file and an edit, then check and diff against the snapshot.
echo "x = 1" > $SP/triton/runtime/_stray_by_hand.py
cp -a $SP/triton/runtime/autotuner.py $G/autotuner.bak; printf '\n# patched by hand\nPATCHED = True\n' >> $SP/triton/runtime/autotuner.py
t check-after $P check --venv $V > $OUT/check-after.txt 2>&1
t diff-after $P diff $G/s.json $V > $OUT/diff-after.txt 2>&1
cp -a $G/autotuner.bak $SP/triton/runtime/autotuner.py; rm -f $SP/triton/runtime/_stray_by_hand.py
$P check --venv $V > $OUT/check-restored.txt 2>&1; echo "check after restore: $?" >> $OUT/timings.txt
if [ -d .gpu/plans-jinja3 ]; then
  export PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu/wj
  s=$(date +%s)
  PATH=/usr/bin:/bin $P try .gpu/plans-jinja3/plans/1-* --python $V/bin/python3 --policy ml-cuda --format json > $OUT/try-jinja.json 2> $OUT/try-jinja.err
  echo "try jinja: exit $?, $(( $(date +%s)-s )) s" >> $OUT/timings.txt
  python3 -c "
import json; d=json.load(open('$OUT/try-jinja.json')); print('verdict', d.get('verdict'))
print([r.get('name') for r in d.get('regressions') or []])"
fi
cat $OUT/timings.txt; cat $OUT/diff-after.txt | head -20; cat $OUT/check-after.txt | head
tar czf $R/final.tgz -C $G out-final
