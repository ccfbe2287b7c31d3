#!/usr/bin/env bash
# The jinja2 2.11.3 plan tried on the H200 with dependents chosen from what installed files import.
set -u
R=$OUT; G=/tmp/g; OUT=$G/out-jinja; mkdir -p $OUT; python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2],'wb'))" .gpu/planner.xz $G/planner; chmod +x $G/planner; P=$G/planner
V=/opt/torch/.venv
python3 testdata/gpu/try-treehash.py $V > $OUT/treehash-before.txt 2>&1
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$PWD/.gpu/wj
s=$(date +%s)
PATH=/usr/bin:/bin $P try .gpu/plans-jinja3/plans/1-* --python $V/bin/python3 --policy ml-cuda --format json > $OUT/try-jinja2-2.11.3-importers.json 2> $OUT/try-jinja2-2.11.3-importers.err
echo "try: exit $?, $(( $(date +%s)-s )) s" | tee $OUT/timings.txt
python3 testdata/gpu/try-treehash.py $V > $OUT/treehash-after.txt 2>&1; cmp $OUT/treehash-before.txt $OUT/treehash-after.txt && echo "venv unchanged" | tee -a $OUT/timings.txt
python3 -c "
import json; d=json.load(open('$OUT/try-jinja2-2.11.3-importers.json')); print('verdict', d.get('verdict'))
r=d.get('regressions') or []; print(len(r)); print([x if isinstance(x,str) else x.get('name') for x in r])"
tail -5 $OUT/try-jinja2-2.11.3-importers.err
tar czf $R/jinja.tgz -C $G out-jinja
