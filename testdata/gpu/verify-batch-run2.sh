# planner verify --all with the smoke tests on the H200 machine, the new code.
cd "$(dirname "$0")"
P=$(command -v python3); uptime
mkdir -p /tmp/reports
BENCH_REPORTS=/tmp/reports python3 bench-verify ./planner $P 3 --smoke --fork-only-after 1 | tee $OUT/bench-all.txt
python3 -c "
import json; r=json.load(open('/tmp/reports/all-fork.json'))
r['checks']=[c for c in r['checks'] if c['status']!='pass']; r['top_names']=[]
json.dump(r, open('$OUT/verify-all-fork.json','w'), indent=1)"
uptime
