# s6 call 6 (device time nearly spent: one run each): the transformers plan numpy<2.4 on 2 cores,
# old (beca743's template, verify-s6-tf.spec) then final (this session's template with
# verify-s6-tf-fanin.spec), verdicts compared; then `planner verify --all` with smoke tests on
# all 16 cores with this session's planner (release build of 37fe234).
cd "$(dirname "$0")"
P=$(command -v python3); uptime
gunzip -f planner.gz; chmod +x planner
$P verify-s5-cut.py new.spec parts tf-old.py 2>/dev/null
$P verify-s5-cut.py fanin.spec parts-final tf-final.py 2>/dev/null
export PYTHONUNBUFFERED=1
for v in old final; do mkdir -p /tmp/q-$v
PLANNER_VERIFY_PROFILE=1 BENCH_REPORTS=/tmp/q-$v taskset -c 0,1 $P bench-verify tf-$v.py $P 1 --fork-only-after 0 | cut -c1-700 | sed "s/^/$v: /" | tee -a $OUT/runs.txt
done
$P verify-s5-compare.py /tmp/q-old/script-fork.json /tmp/q-final/script-fork.json | head -3 | tee -a $OUT/runs.txt
mkdir -p /tmp/r-all
PLANNER_VERIFY_PROFILE=1 BENCH_REPORTS=/tmp/r-all $P bench-verify ./planner $P 1 --smoke --fork-only-after 0 | cut -c1-900 | tee -a $OUT/runs.txt
uptime
