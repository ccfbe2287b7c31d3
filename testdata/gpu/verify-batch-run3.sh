# planner verify --all with the smoke tests on the H200 machine, the final s4-24 code (deep imports one per child).
cd "$(dirname "$0")"
gunzip -f planner.gz; chmod +x planner
P=$(command -v python3); uptime
mkdir -p /tmp/reports
BENCH_REPORTS=/tmp/reports python3 bench-verify ./planner $P 3 --smoke --fork-only-after 0 | tee $OUT/bench-all-final.txt
uptime
