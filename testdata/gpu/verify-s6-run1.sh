# s6 call 1 on the H200 machine: the transformers plan `numpy<2.4` on 2 cores (taskset -c 0,1),
# the same verify.py template with two specs: old.spec (s5's, transformers' generator sources
# `modular_*.py` among the deep modules) x1 and new.spec (verify-s6-tf.spec: planner at s6: generator sources left
# out; written for a transformers 5.17.0 venv, the version installed there) x3; verdicts compared.
# Files staged beside it (carried): parts/ (the verify engine, src/verify/script/*.py), the two specs, bench-verify,
# verify-s5-cut.py, verify-s5-compare.py.
cd "$(dirname "$0")"
P=$(command -v python3); echo "python $P"; nproc; uptime
$P -m pip list 2>/dev/null | grep -i -E "^(transformers|torch|numpy) "
for v in old new; do $P verify-s5-cut.py $v.spec parts tf-$v.py; done
export PYTHONUNBUFFERED=1
mkdir -p /tmp/r-old /tmp/r-new
PLANNER_VERIFY_PROFILE=1 BENCH_REPORTS=/tmp/r-old taskset -c 0,1 $P bench-verify tf-old.py $P 1 --fork-only-after 0 | tee $OUT/tf-2cores-old.txt
uptime
PLANNER_VERIFY_PROFILE=1 BENCH_REPORTS=/tmp/r-new taskset -c 0,1 $P bench-verify tf-new.py $P 3 --fork-only-after 0 | tee $OUT/tf-2cores-new.txt
$P verify-s5-compare.py /tmp/r-old/script-fork.json /tmp/r-new/script-fork.json | tee -a $OUT/tf-2cores-new.txt
cp /tmp/r-new/script-fork.json $OUT/new.json; cp /tmp/r-old/script-fork.json $OUT/old.json
uptime
