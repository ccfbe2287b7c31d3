#!/usr/bin/env bash
# A forced override bisected on the H200: typing-extensions 4.7.1 forced under torch's >=4.10.0,
# beside two harmless downgrades and a harmless edit in place; the test is `import torch`.
set -u
R=$OUT; G=/tmp/g; OUT=$G/out; mkdir -p $OUT; gunzip -c .gpu/planner.gz > $G/planner; chmod +x $G/planner; P=$G/planner
V=/opt/torch/.venv; PY=$V/bin/python3; SP=$V/lib/python3.12/site-packages; W=$PWD/.gpu/w39b
t() { local name=$1; shift; local s=$(date +%s%N); "$@"; local rc=$?; echo "$name: exit $rc, $(( ($(date +%s%N)-s)/1000000 )) ms" >> $OUT/timings.txt; }
$PY -m pip list 2>/dev/null | grep -iE "^(typing.extensions|filelock|tqdm|einops|torch) " | tee $OUT/before-versions.txt
t snapshot-good $P snapshot --venv $V --out $G/good.json
cp $G/good.json $OUT/good.json
# The changes made "since it worked".
$PY -m pip install -q --no-index --no-deps $W/filelock-3.32.4-py3-none-any.whl $W/tqdm-4.69.0-py3-none-any.whl
printf '\n# a local note added by hand\n' >> $SP/einops/_backends.py
$PY -m pip install -q --no-index --no-deps $W/typing_extensions-4.7.1-py3-none-any.whl 2>&1 | tail -2
$PY -m pip list 2>/dev/null | grep -iE "^(typing.extensions|filelock|tqdm|einops) " | tee $OUT/after-versions.txt
$PY -c "import torch" > $OUT/import-torch.txt 2>&1; echo "import torch: exit $?" | tee -a $OUT/import-torch.txt; tail -4 $OUT/import-torch.txt
t check-after $P check --venv $V > $OUT/check-after.txt 2>&1; grep -iE "typing|einops|edited" $OUT/check-after.txt | head -5
export PIP_NO_INDEX=1 PIP_FIND_LINKS=$W
PATH=/usr/bin:/bin t bisect-override $P bisect --good $G/good.json --venv $V --test "python -c 'import torch'" --format json > $OUT/bisect-override.json 2> $OUT/bisect-override.err
python3 -c "import json; d=json.load(open('$OUT/bisect-override.json')); print('verdict:', d.get('verdict')); print('culprits:', json.dumps(d.get('culprits'))[:700]); print('steps:', len(d.get('steps') or []))"; tail -4 $OUT/bisect-override.err
PATH=/usr/bin:/bin $P bisect --good $G/good.json --venv $V --test "python -c 'import torch'" > $OUT/bisect-override.txt 2>&1; echo "text bisect exit $?" >> $OUT/bisect-override.txt
# Restore the machine's venv.
$PY -m pip install -q --no-index --no-deps $W/typing_extensions-4.16.0-py3-none-any.whl $W/filelock-3.32.5-py3-none-any.whl $W/tqdm-4.70.1-py3-none-any.whl $W/einops-0.8.2-py3-none-any.whl
$P check --venv $V > $OUT/check-restored.txt 2>&1; echo "check after restore: $?"
tar czf $R/gpu39b.tgz -C $G out; cat $OUT/timings.txt
