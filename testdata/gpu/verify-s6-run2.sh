# s6 call 2: the first (learn_all) batch of a dist cut to FIRSTB modules (experiment), 2 runs each.
cd "$(dirname "$0")"
P=$(command -v python3); uptime
$P verify-s5-cut.py new.spec parts tf-new.py 2>/dev/null
export PYTHONUNBUFFERED=1
for i in 1 2; do for k in 99 1 2 4; do mkdir -p /tmp/q-$k-$i
FIRSTB=$k BENCH_REPORTS=/tmp/q-$k-$i taskset -c 0,1 $P bench-verify tf-new.py $P 1 --fork-only-after 0 | grep -E "wall" | cut -c1-200 | sed "s/^/first=$k run $i: /" | tee -a $OUT/first.txt
done; done
for k in 1 2 4; do $P verify-s5-compare.py /tmp/q-99-1/script-fork.json /tmp/q-$k-1/script-fork.json | head -3 | tee -a $OUT/first.txt; done
PLANNER_VERIFY_PROFILE=1 FIRSTB=1 BENCH_REPORTS=/tmp/p1 taskset -c 0,1 $P bench-verify tf-new.py $P 1 --fork-only-after 0 | grep profile -i | tee -a $OUT/first.txt
cp /tmp/p1/script-fork.json $OUT/first1.json
uptime
