#!/usr/bin/env python3
"""Run `planner review` with the documented gate on every case of testdata/review-real/.

Usage: scripts/review-corpus.py [--planner target/debug/planner] [--cache-dir DIR] [--offline]
                                [--index-url URL] [--jobs N] [--only ID]...

Each case is a pull request made against one of the repositories whose dependency files
testdata/review-real/repos/ holds (at the commits its README names): the base is those files,
the head the case's edits (`append`, or `from` -> `to`, which must match). Each is committed to a
throw-away git repository and reviewed with

    planner review REPO --base main --head pr --fail-on medium --fail-on-unjudged \
        --python-version PY --python-platform x86_64-manylinux_2_28

A breaking case must exit 1 and its output must name `names`; a harmless one must exit 0. The
truth of each case (`truth`, `how`) was established with `uv pip compile --no-config`.
Prints one line per case and the figures: breaking passed, harmless failed, unjudged, time.
Exit 1 on any false pass or false alarm. Needs the index (live, or a cache made by an earlier
run: `--cache-dir DIR --offline`). `--jobs N` reviews N cases at once (for recording: the times
it prints are then not one review's alone; the figures in docs/review.md are from `--jobs 1`).
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "testdata", "review-real")


def git(repo, *args):
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        HOME=repo,
    )
    subprocess.run(["git", "-C", repo, *args], check=True, env=env, capture_output=True)


def make_repo(case, root):
    repo = os.path.join(root, case["id"])
    src = os.path.join(CORPUS, "repos", case["repo"])
    subprocess.run(["cp", "-r", src, repo], check=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "pr")
    for edit in case["edits"]:
        path = os.path.join(repo, edit["file"])
        text = open(path, encoding="utf-8").read()
        if "append" in edit:
            text += edit["append"]
        else:
            if edit["from"] not in text:
                sys.exit(f"{case['id']}: `{edit['from']}` is not in {edit['file']}")
            text = text.replace(edit["from"], edit["to"], 1)
        open(path, "w", encoding="utf-8").write(text)
    git(repo, "commit", "-q", "-am", "pr")
    return repo


def run(case, repo, args):
    cmd = [
        args.planner,
        "review",
        repo,
        "--base",
        "main",
        "--head",
        "pr",
        "--fail-on",
        "medium",
        "--fail-on-unjudged",
        "--python-version",
        case["python"],
        "--python-platform",
        "x86_64-manylinux_2_28",
    ]
    if args.cache_dir:
        cmd += ["--cache-dir", args.cache_dir]
    if args.offline:
        cmd += ["--offline"]
    if args.index_url:
        cmd += ["--index-url", args.index_url]
    start = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True)
    return out, time.monotonic() - start


def judge(case, out, figures):
    """The case's verdict ("ok", or what is wrong), counted into `figures`."""
    text = out.stdout + out.stderr
    figures["unjudged"] += "NOT JUDGED" in out.stdout
    if out.returncode not in (0, 1):
        figures["errors"] += 1
        return f"ERROR (exit {out.returncode})"
    if case["truth"] == "breaking":
        figures["breaking passed"] += out.returncode == 0
        if out.returncode == 1 and case["names"] in text:
            return "ok"
        return (
            "FALSE PASS"
            if out.returncode == 0
            else f"fails, but does not name `{case['names']}`"
        )
    figures["harmless failed"] += out.returncode == 1
    return "ok" if out.returncode == 0 else "FALSE ALARM"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--planner", default=os.path.join(HERE, "..", "target", "debug", "planner")
    )
    parser.add_argument("--cache-dir")
    parser.add_argument("--offline", action="store_true")
    parser.add_argument(
        "--index-url", help="the index (default: planner's, the live one)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="cases reviewed at once")
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args()
    cases = json.load(open(os.path.join(CORPUS, "cases.json")))
    cases = [c for c in cases if not args.only or c["id"] in args.only]
    figures = {"breaking passed": 0, "harmless failed": 0, "unjudged": 0, "errors": 0}
    times = []
    with tempfile.TemporaryDirectory() as root:

        def review(case):
            return run(case, make_repo(case, root), args)

        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for case, (out, took) in zip(cases, pool.map(review, cases)):
                times.append(took)
                verdict = judge(case, out, figures)
                print(
                    f"{case['id']:4} {case['truth']:9} exit {out.returncode}  {took:6.1f}s  "
                    f"{verdict}",
                    flush=True,
                )
                if verdict != "ok":
                    text = out.stdout + out.stderr
                    print("     " + "\n     ".join(text.strip().splitlines()[:12]))
    breaking = sum(c["truth"] == "breaking" for c in cases)
    harmless = len(cases) - breaking
    times.sort()
    median = times[len(times) // 2] if times else 0.0
    print(
        f"breaking passed {figures['breaking passed']}/{breaking}, harmless failed "
        f"{figures['harmless failed']}/{harmless}, unjudged {figures['unjudged']}, errors "
        f"{figures['errors']}; time median {median:.1f}s, max {max(times, default=0):.1f}s"
    )
    bad = figures["breaking passed"] + figures["harmless failed"] + figures["errors"]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
