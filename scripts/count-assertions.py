#!/usr/bin/env python3
"""Assertions in the integration tests (tests/it): snapshots against `.contains(` checks.

A snapshot holds a whole output, so a change anywhere in it fails the test; a `.contains(`
check holds one piece and passes whatever else the output says. The figures:

- `contains`: every `.contains(` in the code of tests/it/**/*.rs (comments skipped), the
  assertions and the helpers' filters alike, as a plain search counts them;
- `snapshots`: every snapshot call in that code (`planner_snapshot!`, insta's
  `assert_snapshot!`, `assert_json_snapshot!`, `assert_debug_snapshot!`...), not counting the
  macro's own definition (a `$` on the call's line) nor the call in tests/it/scenarios.rs,
  which records one snapshot per scenario: those are counted as the folders under
  tests/scenarios/ that hold a `world.toml`.

`--by-file` adds each file's figures. `--min-ratio R` fails (exit 1) when snapshots are fewer
than R times the `.contains(` count.

Usage: count-assertions.py [--by-file] [--min-ratio R]
"""

from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTS = os.path.join(ROOT, "tests", "it")
SCENARIOS = os.path.join(ROOT, "tests", "scenarios")
GLOB_RUNNER = os.path.join(TESTS, "scenarios.rs")
CONTAINS = re.compile(r"\.contains\(")
SNAPSHOT = re.compile(r"\b(?:planner_snapshot|assert_(?:\w+_)?snapshot)!\s*\(([^\n]*)")


def without_comments(source: str) -> str:
    """`source` with `//` comments removed (a `//` inside a string literal is kept)."""
    out = []
    for line in source.splitlines():
        in_string = False
        cut = len(line)
        i = 0
        while i < len(line):
            c = line[i]
            if c == "\\" and in_string:
                i += 2
                continue
            if c == '"':
                in_string = not in_string
            elif not in_string and line.startswith("//", i):
                cut = i
                break
            i += 1
        out.append(line[:cut])
    return "\n".join(out)


def count(path: str) -> tuple[int, int]:
    """(`.contains(` count, snapshot calls) in one file."""
    with open(path, encoding="utf-8") as f:
        code = without_comments(f.read())
    contains = len(CONTAINS.findall(code))
    snapshots = 0
    if path != GLOB_RUNNER:
        snapshots = sum(1 for m in SNAPSHOT.finditer(code) if "$" not in m.group(1))
    return contains, snapshots


def scenario_count() -> int:
    if not os.path.isdir(SCENARIOS):
        return 0
    return sum(
        os.path.isfile(os.path.join(SCENARIOS, name, "world.toml"))
        for name in os.listdir(SCENARIOS)
    )


def main(argv: list[str]) -> int:
    by_file = "--by-file" in argv
    min_ratio = None
    if "--min-ratio" in argv:
        min_ratio = float(argv[argv.index("--min-ratio") + 1])
    rows = []
    for dirpath, _, files in os.walk(TESTS):
        for name in files:
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                rows.append((os.path.relpath(path, ROOT), *count(path)))
    rows.sort()
    contains = sum(r[1] for r in rows)
    scenarios = scenario_count()
    snapshots = sum(r[2] for r in rows) + scenarios
    if by_file:
        for path, c, s in sorted(rows, key=lambda r: (-r[1], r[0])):
            if c or s:
                print(f"{path:45} contains {c:4}  snapshots {s:4}")
    ratio = snapshots / contains if contains else float("inf")
    print(
        f"tests/it: {snapshots} snapshots ({snapshots - scenarios} calls + {scenarios} "
        f"scenarios), {contains} .contains( ; ratio {ratio:.2f}"
    )
    if min_ratio is not None and ratio < min_ratio:
        print(f"fewer than {min_ratio} snapshots per .contains(", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
