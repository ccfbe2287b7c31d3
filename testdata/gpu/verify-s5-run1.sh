# s5-24 call 1 on the H200 machine: the transformers plan on 2 cores (new template x3, main's x1,
# verdicts compared), then `planner verify --all` with smoke tests on all 16 cores (x2).
cd "$(dirname "$0")"
P=$(command -v python3); echo "python $P"; nproc; uptime
gunzip -f planner.gz; chmod +x planner
$P -m pip list 2>/dev/null | grep -i -E "^(pillow|transformers|torchvision|torch|numpy) "
for v in old new; do $P verify-s5-cut.py tf-orig.py parts-$v tf-$v.py 2>/dev/null; done
mkdir -p /tmp/r-old /tmp/r-new /tmp/r-all
export PLANNER_VERIFY_PROFILE=1 PYTHONUNBUFFERED=1
BENCH_REPORTS=/tmp/r-new taskset -c 0,1 $P bench-verify tf-new.py $P 3 --fork-only-after 0 | tee $OUT/tf-2cores-new.txt
BENCH_REPORTS=/tmp/r-old taskset -c 0,1 $P bench-verify tf-old.py $P 1 --fork-only-after 0 | tee $OUT/tf-2cores-old.txt
$P verify-s5-compare.py /tmp/r-old/script-fork.json /tmp/r-new/script-fork.json | tee -a $OUT/tf-2cores-new.txt
$P -c "
import json; r=json.load(open('/tmp/r-new/script-fork.json'))
r['checks']=[c for c in r['checks'] if c['status']!='pass' or c.get('detail')]; r['top_names']=[]
json.dump(r, open('$OUT/tf-2cores-new-report.json','w'), indent=1)"
uptime
BENCH_REPORTS=/tmp/r-all $P bench-verify ./planner $P 2 --smoke --fork-only-after 0 | tee $OUT/all-16cores.txt
$P -c "
import json; r=json.load(open('/tmp/r-all/all-fork.json'))
r['checks']=[c for c in r['checks'] if c['status']!='pass' or c.get('detail')]; r['top_names']=[]
json.dump(r, open('$OUT/all-16cores-report.json','w'), indent=1)"
uptime
