#!/usr/bin/env python3
"""Function lengths in src/ and crates/*/src/: no function longer than LIMIT lines (100), the standard's
"functions short enough to read at once".

A function's length is its lines from the line of its `fn` keyword to the line of its closing
brace, both counted; a body-less `fn` (a trait's required method) has none. Nested functions
and closures count inside their function and on their own. Comments, strings (raw ones too)
and character literals are skipped when braces are matched.

The functions that were already longer when the check came in are listed in
scripts/long-functions.txt (`path name lines`), each to be split; the check fails on a long
function that is not listed, and names listed ones that are now short enough (delete their
line). `--report` prints every function over the limit, longest first, and the counts.

Usage: check-lengths.py [--limit N] [--report] [--self-test]
"""

from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE = os.path.join(ROOT, "scripts", "long-functions.txt")
FN = re.compile(r"\bfn\s+([A-Za-z_][A-Za-z0-9_]*)")


def code_only(source: str) -> str:
    """`source` with comments, strings and char literals blanked (newlines kept)."""
    out: list[str] = []
    i, n = 0, len(source)

    def blank(text: str) -> str:
        return "".join("\n" if c == "\n" else " " for c in text)

    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(blank(source[i:end]))
            i = end
        elif source.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if source.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif source.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(source[i:j]))
            i = j
        elif (m := re.match(r'b?r(#*)"', source[i:])) and (
            i == 0 or not source[i - 1].isalnum()
        ):
            close = '"' + m.group(1)
            end = source.find(close, i + m.end())
            end = n if end < 0 else end + len(close)
            out.append(blank(source[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            out.append(blank(source[i : j + 1]))
            i = j + 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F600}', '{') or a lifetime ('a).
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", source[i:])
            if m:
                out.append(blank(m.group(0)))
                i += m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(source: str) -> list[tuple[str, int, int]]:
    """(name, first line, line count) of every function with a body."""
    code = code_only(source)
    found = []
    for m in FN.finditer(code):
        # The body opens at the first `{` outside the signature's brackets; a `;` first means
        # no body.
        depth, j = 0, m.end()
        while j < len(code):
            c = code[j]
            if c in "([<":
                depth += 1
            elif c in ")]>" and depth:
                depth -= 1
            elif c == ";" and depth == 0:
                j = -1
                break
            elif c == "{" and depth == 0:
                break
            j += 1
        if j < 0 or j >= len(code):
            continue
        braces, k = 0, j
        while k < len(code):
            if code[k] == "{":
                braces += 1
            elif code[k] == "}":
                braces -= 1
                if braces == 0:
                    break
            k += 1
        first = code.count("\n", 0, m.start()) + 1
        last = code.count("\n", 0, k) + 1
        found.append((m.group(1), first, last - first + 1))
    return found


def sources(root: str) -> list[str]:
    """root/src and the src/ of each crate under root/crates (the workspace's leaf crates)."""
    found = [os.path.join(root, "src")]
    crates = os.path.join(root, "crates")
    if os.path.isdir(crates):
        found += [
            os.path.join(crates, name, "src") for name in sorted(os.listdir(crates))
        ]
    return [path for path in found if os.path.isdir(path)]


def scan(root: str) -> list[tuple[str, str, int, int]]:
    """(path, name, line, length) of every function under root/src and root/crates/*/src."""
    out = []
    walked = [entry for src in sources(root) for entry in os.walk(src)]
    for dirpath, _, files in walked:
        for name in sorted(files):
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    for fn, line, length in functions(f.read()):
                        out.append((rel, fn, line, length))
    return out


def read_baseline() -> set[tuple[str, str]]:
    listed = set()
    if os.path.exists(BASELINE):
        with open(BASELINE, encoding="utf-8") as f:
            for raw in f:
                line = raw.split("#", 1)[0].split()
                if line:
                    listed.add((line[0], line[1]))
    return listed


def self_test() -> None:
    src = """
fn short() { let s = "}"; let c = '}'; let r = r#"{"#; }
// fn not_a_fn() {
fn long<'a>(x: &'a str) -> Vec<[u8; 2]> {
    let _ = x;
    /* } */
    vec![]
}
trait T { fn required(&self); fn provided(&self) {} }
"""
    got = {name: length for name, _, length in functions(src)}
    assert got == {"short": 1, "long": 5, "provided": 1}, got
    import tempfile

    with tempfile.TemporaryDirectory() as root:
        for rel in ("src/lib.rs", "crates/leaf/src/lib.rs"):
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write("fn f() {\n}\n")
        seen = sorted(path for path, _, _, _ in scan(root))
        assert seen == ["crates/leaf/src/lib.rs", "src/lib.rs"], seen
    print("check-lengths self-test: ok")


def main(argv: list[str]) -> int:
    limit = 100
    if "--limit" in argv:
        limit = int(argv[argv.index("--limit") + 1])
    if "--self-test" in argv:
        self_test()
        return 0
    everything = scan(ROOT)
    long = sorted((f for f in everything if f[3] > limit), key=lambda f: -f[3])
    if "--report" in argv:
        for path, name, line, length in long:
            print(f"{length:5} {path}:{line} {name}")
        print(
            f"{len(long)} of {len(everything)} functions in src/ and crates/ over {limit} lines"
        )
        return 0
    listed = read_baseline()
    new = [f for f in long if (f[0], f[1]) not in listed]
    short_now = sorted(listed - {(f[0], f[1]) for f in long})
    for path, name in short_now:
        print(
            f"note: {path} {name} is {limit} lines or fewer now: delete its line in "
            "scripts/long-functions.txt"
        )
    for path, name, line, length in new:
        print(f"{path}:{line}: fn {name} is {length} lines (limit {limit}): split it")
    print(
        f"lengths: {len(everything)} functions, {len(long)} over {limit} lines "
        f"({len(long) - len(new)} listed as known), {len(new)} violation(s)"
    )
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
