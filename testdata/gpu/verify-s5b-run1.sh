# s5-24b on the H200: the transformers plan on 2 cores (taskset -c 0,1), this branch's template x3
# (PLANNER_VERIFY_PROFILE=1) and main's x1, verdicts compared.
cd "$(dirname "$0")"
P=$(command -v python3); echo "python $P"; nproc; uptime
$P -m pip list 2>/dev/null | grep -i -E "^(transformers|torch|numpy) "
for v in old new; do $P verify-s5-cut.py verify-s5-tf.spec parts-$v tf-$v.py 2>/dev/null; done
mkdir -p /tmp/r-old /tmp/r-new
export PYTHONUNBUFFERED=1
PLANNER_VERIFY_PROFILE=1 BENCH_REPORTS=/tmp/r-new taskset -c 0,1 $P bench-verify tf-new.py $P 3 --fork-only-after 0 | tee $OUT/tf-2cores-new.txt
uptime
BENCH_REPORTS=/tmp/r-old taskset -c 0,1 $P bench-verify tf-old.py $P 1 --fork-only-after 0 | tee $OUT/tf-2cores-old.txt
$P verify-s5-compare.py /tmp/r-old/script-fork.json /tmp/r-new/script-fork.json | tee -a $OUT/tf-2cores-new.txt
cp /tmp/r-new/script-fork.json $OUT/new.json; cp /tmp/r-old/script-fork.json $OUT/old.json
uptime
