# s5-24b call 2: main's template and this branch's alternated, 2 runs each, 2 cores.
cd "$(dirname "$0")"
P=$(command -v python3); uptime
for v in old new; do $P verify-s5-cut.py verify-s5-tf.spec parts-$v tf-$v.py 2>/dev/null; done
export PYTHONUNBUFFERED=1
for i in 1 2; do for v in old new; do mkdir -p /tmp/q-$v-$i
BENCH_REPORTS=/tmp/q-$v-$i taskset -c 0,1 $P bench-verify tf-$v.py $P 1 --fork-only-after 0 | grep -E "wall" | sed "s/^/$v run $i: /" | tee -a $OUT/alt.txt
done; $P verify-s5-compare.py /tmp/q-old-$i/script-fork.json /tmp/q-new-$i/script-fork.json | head -3 | tee -a $OUT/alt.txt; done
uptime
