#!/usr/bin/env bash
# planner try on the GPU machine (issue 27): run.sh NAME PLAN_FOLDER, reports in $OUT.
# Run from a folder holding: planner (the binary, or planner.xz), treehash.py (try-treehash.py),
# whl/ (the plan's wheels: the machine has no index) and the plan folders.
set -u
cd "$(dirname "$0")"
[ -x planner ] || python3 -c "import lzma,shutil,sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" planner.xz planner && chmod +x planner
NAME="$1"; PLAN="$2"
PY="$(command -v python3)"
VENV="$(dirname "$(dirname "$PY")")"
{ echo "python3: $PY -> $(readlink -f "$PY")"; echo "venv: $VENV"; cat "$VENV/pyvenv.cfg"; nproc;
  df -T /tmp "$VENV" | cat; command -v uv || echo "no uv on PATH"; nvidia-smi -L; } > "$OUT/$NAME-machine.txt" 2>&1
python3 treehash.py "$VENV" > "$OUT/$NAME-hash-before.txt"
export PIP_NO_INDEX=1 PIP_FIND_LINKS="$PWD/whl"
start=$SECONDS
# PATH without uv: uv reads no PIP_* variables, so with no index there pip applies the plan.
PATH=/usr/bin:/bin ./planner try "$PLAN" --python "$PY" --format json > "$OUT/$NAME-try.json" 2> "$OUT/$NAME-try.err"
echo "planner try exit $? in $((SECONDS - start))s" | tee "$OUT/$NAME-exit.txt"
python3 treehash.py "$VENV" > "$OUT/$NAME-hash-after.txt"
cat "$OUT/$NAME-hash-before.txt" "$OUT/$NAME-hash-after.txt" "$OUT/$NAME-try.err" | tail -5
