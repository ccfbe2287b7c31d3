#!/bin/bash
# Apply one plan for real in a fresh copy of a recipe's venv, then judge it.
#
#   testdata/ml-venvs/apply.sh NAME PLAN_FOLDER [COPY]
#
# NAME is a recipe here (jax, tf, torch, data: NAME.freeze and NAME_smoke.py); PLAN_FOLDER is
# one plan's folder written by `planner propose ... --out-dir DIR` (DIR/plans/<n>-<kind>/).
# COPY (default /tmp/NAME-copy) is made anew: a uv venv on the recipe's interpreter holding the
# freeze list. The plan's own install-uv.sh runs there with --verify (its verify.py imports
# every installed module before and after and reports regressions; set NOVERIFY=1 to skip that),
# then `uv pip check`, the workload NAME_smoke.py, and the dists that changed against the
# freeze list. Exit status: the first step that failed (0: every step passed).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
name=$1
plan=$2
copy=${3:-/tmp/$name-copy}
case $name in
jax) python=3.12 ;;
*) python=3.11 ;;
esac
rm -rf "$copy"
uv venv -q -p "$python" "$copy" || exit 2
uv pip install -q --no-deps --python "$copy/bin/python" -r "$here/$name.freeze" || exit 2
verify=--verify
[ -n "${NOVERIFY:-}" ] && verify=
status=0
PLANNER_PYTHON="$copy/bin/python" bash "$plan/install-uv.sh" $verify || status=$?
echo "-- changed against $name.freeze:"
diff <(sort "$here/$name.freeze") <(uv pip freeze --python "$copy/bin/python" 2>/dev/null | sort) | grep '^[<>]'
echo "-- uv pip check:"
uv pip check --python "$copy/bin/python" || { [ "$status" = 0 ] && status=1; }
echo "-- workload:"
"$copy/bin/python" "$here/${name}_smoke.py" || { [ "$status" = 0 ] && status=1; }
exit "$status"
