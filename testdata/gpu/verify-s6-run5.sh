# s6 call 5: the transformers plan numpy<2.4 on 2 cores, alternated x3: "old" = the template of
# beca743 (parts) with verify-s6-tf.spec; "final" = this change's template (parts-final: pip check
# at nice +10; a dist's jobs ordered top-level, then by planner's fan_in) with
# verify-s6-tf-fanin.spec (planner's spec, each deep module's fan_in). Verdicts compared.
cd "$(dirname "$0")"
P=$(command -v python3); uptime
$P verify-s5-cut.py new.spec parts tf-old.py 2>/dev/null
$P verify-s5-cut.py fanin.spec parts-final tf-final.py 2>/dev/null
export PYTHONUNBUFFERED=1
for i in 1 2 3; do for v in old final; do mkdir -p /tmp/q-$v-$i
PLANNER_VERIFY_PROFILE=1 BENCH_REPORTS=/tmp/q-$v-$i taskset -c 0,1 $P bench-verify tf-$v.py $P 1 --fork-only-after 0 | cut -c1-700 | sed "s/^/$v run $i: /" | tee -a $OUT/runs.txt
done; done
$P verify-s5-compare.py /tmp/q-old-1/script-fork.json /tmp/q-final-1/script-fork.json | head -3 | tee -a $OUT/runs.txt
cp /tmp/q-final-1/script-fork.json $OUT/final.json
uptime
