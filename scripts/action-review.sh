#!/usr/bin/env bash
# The review step of action.yml: `planner review` once per format asked for, each written where
# the workflow finds it. In (environment, as action.yml sets it): PLANNER_BASE, PLANNER_HEAD,
# PLANNER_FORMATS (comma- or space-separated: github, markdown, json, sarif, text),
# PLANNER_FAIL_ON, PLANNER_ARGS (more arguments, split at spaces), GITHUB_OUTPUT and
# GITHUB_STEP_SUMMARY when set. Out: github annotations on stdout, planner-review.FORMAT files for
# the others (markdown appended to the job summary too), the outputs `exit-code` and
# `FORMAT-file`; exits with the highest exit code of the runs (0 clean, 1 the user must act,
# 2 planner failed).
set -uo pipefail

output=${GITHUB_OUTPUT:-/dev/null}
common=(review --head "${PLANNER_HEAD:-HEAD}")
if [ -n "${PLANNER_BASE:-}" ]; then
    common+=(--base "$PLANNER_BASE")
fi
if [ -n "${PLANNER_FAIL_ON:-}" ]; then
    common+=(--fail-on "$PLANNER_FAIL_ON")
fi
read -r -a extra <<< "${PLANNER_ARGS:-}"
IFS=', ' read -r -a formats <<< "${PLANNER_FORMATS:-github}"

status=0
for format in "${formats[@]}"; do
    case "$format" in
        github)
            planner "${common[@]}" "${extra[@]}" --format github
            code=$?
            ;;
        markdown | json | sarif | text)
            file="planner-review.${format/markdown/md}"
            planner "${common[@]}" "${extra[@]}" --format "$format" > "$file"
            code=$?
            echo "${format}-file=$PWD/$file" >> "$output"
            if [ "$format" = markdown ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
                cat "$file" >> "$GITHUB_STEP_SUMMARY"
            fi
            ;;
        '')
            continue
            ;;
        *)
            echo "::error::planner review: unknown format \`$format\` (github, markdown, json, sarif, text)"
            code=2
            ;;
    esac
    if [ "$code" -gt "$status" ]; then
        status=$code
    fi
done
echo "exit-code=$status" >> "$output"
exit "$status"
