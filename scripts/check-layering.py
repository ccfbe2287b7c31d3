#!/usr/bin/env python3
"""The layering check: stages flow one way and no two files import each other.

Usage: scripts/check-layering.py [SRC_DIR]    (default: src and crates/*/src; exit 0 = clean,
                                              1 = violations)
       scripts/check-layering.py --self-test  (the checker's own tests, on inline examples)

It reads every `.rs` file under SRC_DIR (comments and string literals removed) and collects the
crate paths each file names: every path in a `use` declaration (braces expanded) and every path
in code that starts with `crate::`, `super::` or `self::`. `super::` and `self::` are resolved
against the file's module, inside inline `mod name { ... }` blocks too. A path's file is the
deepest module on it that has a file of its own (`crate::solve::provider::Provider` ->
src/solve/provider.rs; `crate::solve::Provider` -> src/solve/mod.rs, re-exports are not
followed). Bare paths (`child::f()` in a parent) are not imports of another file's code.

Rule 1, the layers. Each top-level module has a rank (LAYERS below); a file may name modules of
its own rank or lower, never a higher one:

    0  foundation   exit_status, metadata, tags, printer, clock, atomic (the one atomic
                    file writer), bounded (the one capped reader of local files),
                    terminal (the one terminal sanitizer), interrupt (Ctrl-C),
                    out_dir (an --out-dir written whole or not at all), logging (-v on
                    stderr, secrets masked), env_vars (the one reader of the
                    process environment), toml_error (line and column of a TOML
                    error): shared types and
                    helpers that know nothing of the pipeline
    1  inventory    the installed set and the target interpreter
    2  index        what the package index offers
    3  solve        pubgrub over the index and the installed set
    4  risk         scoring a change against a policy
    5  plan         upgrade plans, forced overrides, plan files; beside it, the analyses
                    that read plans and inventories: verify (what a plan's verification
                    checks), diff (two environments compared), review (pins in a change,
                    judged through plan::propose), trial (a plan tried in a copy of
                    the venv: planner try), bisect (the changes since a good state
                    narrowed down in such copies: planner bisect), outdated (how far
                    each installed dist is behind the index: planner outdated)
    6  render       text, JSON, markdown, scripts of every command
    7  cli          clap types (may name domain types for its value parsers)
    8  settings     Settings::resolve(cli, env, config): typed settings for the stages
    9  commands     parse -> stage(s) -> render -> ExitStatus
       crate root   src/lib.rs dispatches and may name anything

So a stage never names `crate::cli`, `crate::settings` or `crate::commands`, nor a later stage.
The leaf crates under crates/ are checked the same way, each against its own table
(CRATE_LAYERS): planner-pypi's modules are all foundation, so there only rule 2 and the
"no layer" rule bite. planner re-exports their modules (`pub use planner_pypi::metadata`), so
`crate::metadata::...` in src/ still names a foundation module (rank 0 in LAYERS).
A top-level module missing from LAYERS is itself a violation: place it in the table, with a
reason, when adding it. A module deeper down may be given a rank of its own (an entry such as
`"trial::attempt": 6`; none is needed today): the longest entry of LAYERS that a path starts
with gives its rank.

Rule 2, no file-level cycles. Two files (or more) that reach each other through their imports
are reported, e.g. solve/provider.rs <-> solve/explain.rs. A module's own file (`mod.rs`, or
`foo.rs` for `foo/`) naming its descendants is not counted: it declares them and re-exports
their items, and descendants naming their parent (`use super::Type`) is the ordinary Rust
module pattern. Test code (`#[cfg(test)]`) is checked like any other code.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field

# Top-level module -> rank. Same rank may name each other (cycles are rule 2's business).
LAYERS: dict[str, int] = {
    "exit_status": 0,
    # metadata, tags, atomic and bounded live in crates/planner-pypi, re-exported by lib.rs.
    "metadata": 0,
    "tags": 0,
    "printer": 0,
    "clock": 0,
    "atomic": 0,
    "bounded": 0,
    "child": 0,
    "terminal": 0,
    "interrupt": 0,
    "out_dir": 0,
    "logging": 0,
    "env_vars": 0,
    "toml_error": 0,
    "inventory": 1,
    "index": 2,
    "solve": 3,
    "risk": 4,
    "plan": 5,
    "verify": 5,
    "trial": 5,
    "bisect": 5,
    "diff": 5,
    "outdated": 5,
    "review": 5,
    "render": 6,
    "cli": 7,
    "settings": 8,
    "commands": 9,
}
LAYER_NAMES = {
    0: "foundation",
    7: "the CLI layer",
    8: "the CLI layer",
    9: "the CLI layer",
}

# The leaf crates under crates/ (folder name -> its modules' ranks). They sit below every stage
# of planner and name no module of it (Cargo would refuse the cycle).
CRATE_LAYERS: dict[str, dict[str, int]] = {
    "planner-pypi": {
        "atomic": 0,
        "bounded": 0,
        "filename": 0,
        "hashes": 0,
        "metadata": 0,
        "sdist": 0,
        "tags": 0,
        "terminal": 0,
        "urls": 0,
        "zip": 0,
    },
}

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
KEYWORD_ROOTS = ("crate", "super", "self")


# ---- lexing: identifiers, `::` and single punctuation, with line numbers ----


@dataclass
class Token:
    text: str
    line: int


def tokenize(source: str) -> list[Token]:
    """Identifiers, `::` and one-character punctuation; comments, strings and chars skipped."""
    tokens: list[Token] = []
    i, line, n = 0, 1, len(source)
    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if source.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif source.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += source[i] == "\n"
                    i += 1
        elif raw := re.match(r'(?:br|r|cr)(#*)"', source[i:]):
            end = source.find('"' + raw.group(1), i + raw.end())
            end = n if end < 0 else end + 1 + len(raw.group(1))
            line += source.count("\n", i, end)
            i = end
        elif c == '"' or (c in "bc" and source.startswith('"', i + 1)):
            i += 1 if c == '"' else 2
            while i < n and source[i] != '"':
                line += source[i] == "\n"
                i += 2 if source[i] == "\\" else 1
            i += 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{1b}') or a lifetime ('a, 'static).
            char = re.match(
                r"'(?:\\(?:u\{[0-9a-fA-F]+\}|x[0-9a-fA-F]{2}|.)|[^\\'\n])'", source[i:]
            )
            if char:
                i += char.end()
            else:
                life = IDENT.match(source, i + 1)
                i = life.end() if life else i + 1
        elif ident := IDENT.match(source, i):
            tokens.append(Token(ident.group(), line))
            i = ident.end()
        elif source.startswith("::", i):
            tokens.append(Token("::", line))
            i += 2
        else:
            tokens.append(Token(c, line))
            i += 1
    return tokens


# ---- parsing: the crate paths a file names ----


@dataclass
class Reference:
    """One path named in a file, resolved to an absolute module path (segments after `crate`)."""

    path: tuple[str, ...]
    line: int
    text: str


def parse_use_tree(
    tokens: list[Token], i: int, prefix: list[str]
) -> tuple[list[list[str]], int]:
    """Parse one use tree from `tokens[i]`; return the full paths it names and the next index."""
    path = list(prefix)
    while i < len(tokens):
        t = tokens[i].text
        if t == "{":
            paths: list[list[str]] = []
            i += 1
            while i < len(tokens) and tokens[i].text != "}":
                sub, i = parse_use_tree(tokens, i, path)
                paths.extend(sub)
                if i < len(tokens) and tokens[i].text == ",":
                    i += 1
            return paths, i + 1
        if t == "*":
            return [path], i + 1
        if IDENT.fullmatch(t):
            # `{self, ...}` names the prefix itself.
            if not (t == "self" and prefix and len(path) == len(prefix)):
                path.append(t)
            i += 1
            if i < len(tokens) and tokens[i].text == "as":
                i += 2
            if i < len(tokens) and tokens[i].text == "::":
                i += 1
                continue
            return [path], i
        return [path] if path else [], i
    return [path], i


def resolve(path: list[str], module: list[str]) -> tuple[str, ...] | None:
    """`crate::a::b`, `self::x`, `super::x` -> absolute segments; other roots -> None."""
    if not path or path[0] not in KEYWORD_ROOTS:
        return None
    if path[0] == "crate":
        return tuple(path[1:])
    base = list(module)
    rest = list(path)
    if rest[0] == "self":
        rest = rest[1:]
    while rest and rest[0] == "super":
        if not base:
            return (
                None  # `super` above the crate root: not valid Rust, not our business.
            )
        base.pop()
        rest = rest[1:]
    return tuple(base + rest)


def references(source: str, module: list[str]) -> list[Reference]:
    """Every crate path named in `source`, a file whose module path is `module`."""
    tokens = tokenize(source)
    refs: list[Reference] = []
    inline: list[tuple[str, int]] = []  # (module name, brace depth inside it)
    depth = 0
    i = 0
    while i < len(tokens):
        t = tokens[i].text
        here = module + [name for name, _ in inline]
        if t == "{":
            depth += 1
        elif t == "}":
            if inline and inline[-1][1] == depth:
                inline.pop()
            depth -= 1
        elif (
            t == "mod"
            and i + 2 < len(tokens)
            and IDENT.fullmatch(tokens[i + 1].text)
            and tokens[i + 2].text == "{"
        ):
            depth += 1
            inline.append((tokens[i + 1].text, depth))
            i += 3
            continue
        elif t == "use" and i + 1 < len(tokens) and tokens[i + 1].text != "<":
            start = tokens[i].line
            paths, i = parse_use_tree(tokens, i + 1, [])
            for path in paths:
                # In a use declaration a bare first segment is an external crate or, in a
                # parent, a child module; only the keyword roots name another file.
                resolved = resolve(path, here)
                if resolved is not None:
                    refs.append(Reference(resolved, start, "use " + "::".join(path)))
            continue
        elif (
            t in KEYWORD_ROOTS
            and i + 1 < len(tokens)
            and tokens[i + 1].text == "::"
            and not (i > 0 and tokens[i - 1].text in ("::", "in", "$"))
        ):
            path = [t]
            j = i + 1
            while (
                j + 1 < len(tokens)
                and tokens[j].text == "::"
                and IDENT.fullmatch(tokens[j + 1].text)
            ):
                path.append(tokens[j + 1].text)
                j += 2
            resolved = resolve(path, here)
            if resolved is not None:
                refs.append(Reference(resolved, tokens[i].line, "::".join(path)))
            i = j
            continue
        i += 1
    return refs


# ---- the crate: files, their modules, the edges between them ----


def module_of(rel: str) -> list[str]:
    """`lib.rs` -> [], `a.rs` -> [a], `a/mod.rs` -> [a], `a/b.rs` -> [a, b]."""
    parts = rel[: -len(".rs")].split("/")
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


@dataclass
class Finding:
    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


@dataclass
class Crate:
    files: dict[str, str]  # relative path -> source
    modules: dict[tuple[str, ...], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for rel in self.files:
            self.modules[tuple(module_of(rel))] = rel

    def file_of(self, path: tuple[str, ...]) -> str:
        """The file of the deepest module on `path` that has a file of its own."""
        for cut in range(len(path), -1, -1):
            if path[:cut] in self.modules:
                return self.modules[path[:cut]]
        return self.modules[()]


def layer_of(
    path: tuple[str, ...] | list[str], layers: dict[str, int] | None = None
) -> str | None:
    """The longest entry of `layers` (LAYERS) that `path` starts with (`trial::attempt::f` ->
    `trial::attempt`)."""
    layers = LAYERS if layers is None else layers
    for cut in range(len(path), 0, -1):
        key = "::".join(path[:cut])
        if key in layers:
            return key
    return None


def describe(layer: str, layers: dict[str, int] | None = None) -> str:
    rank = (LAYERS if layers is None else layers)[layer]
    return f"{layer} ({LAYER_NAMES.get(rank, f'stage {rank}')})"


def check(
    files: dict[str, str], prefix: str = "src/", layers: dict[str, int] | None = None
) -> list[Finding]:
    """All findings for a crate given as {path relative to src: source}, its modules ranked by
    `layers` (LAYERS: planner's). `main.rs` (the binary, a crate of its own) is skipped."""
    layers = LAYERS if layers is None else layers
    files = {rel: text for rel, text in files.items() if rel != "main.rs"}
    crate = Crate(files)
    findings: list[Finding] = []
    edges: dict[str, dict[str, Reference]] = {rel: {} for rel in files}
    for rel, text in sorted(files.items()):
        module = module_of(rel)
        if len(module) == 1 and module[0] not in layers:
            table = "LAYERS" if layers is LAYERS else "CRATE_LAYERS"
            findings.append(
                Finding(
                    prefix + rel,
                    1,
                    f"module `{module[0]}` has no layer: add it to {table} in scripts/check-layering.py",
                )
            )
        for ref in references(text, module):
            target = crate.file_of(ref.path)
            if target != rel:
                edges[rel].setdefault(target, ref)
            mine, theirs = layer_of(module, layers), layer_of(ref.path, layers)
            if mine is None or theirs is None:
                continue
            if layers[theirs] > layers[mine]:
                findings.append(
                    Finding(
                        prefix + rel,
                        ref.line,
                        f"`{ref.text}`: {describe(mine, layers)} may not use {describe(theirs, layers)}",
                    )
                )
    findings.extend(cycles(crate, edges, prefix))
    return findings


def is_ancestor(parent: str, child: str) -> bool:
    """Whether file `parent` is the module file of an ancestor of file `child`'s module."""
    a, b = module_of(parent), module_of(child)
    return len(a) < len(b) and b[: len(a)] == a


def cycles(
    crate: Crate, edges: dict[str, dict[str, Reference]], prefix: str
) -> list[Finding]:
    """Strongly connected groups of files (parent -> descendant edges left out)."""
    graph = {
        src: {dst: ref for dst, ref in targets.items() if not is_ancestor(src, dst)}
        for src, targets in edges.items()
    }
    findings = []
    for group in strongly_connected(graph):
        if len(group) < 2:
            continue
        members = set(group)
        steps = [
            f"{prefix}{src}:{ref.line} `{ref.text}` -> {prefix}{dst}"
            for src in sorted(members)
            for dst, ref in sorted(graph[src].items())
            if dst in members
        ]
        first = sorted(members)[0]
        findings.append(
            Finding(
                prefix + first,
                graph[first][min(d for d in graph[first] if d in members)].line,
                "files import each other: " + "; ".join(steps),
            )
        )
    return findings


def strongly_connected(graph: dict[str, dict[str, Reference]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively (no recursion limit to worry about)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(sorted(group))
    return groups


def read_tree(src: str) -> dict[str, str]:
    files = {}
    for dirpath, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs"):
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    files[os.path.relpath(path, src).replace(os.sep, "/")] = f.read()
    return files


def main(argv: list[str]) -> int:
    if argv[1:2] == ["--self-test"]:
        import unittest

        suite = unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest)
        return (
            0 if unittest.TextTestRunner(verbosity=1).run(suite).wasSuccessful() else 1
        )
    if len(argv) > 1:
        crates = [(argv[1], "src/", LAYERS)]
    else:
        root = os.path.join(os.path.dirname(__file__), "..")
        crates = [(os.path.join(root, "src"), "src/", LAYERS)]
        leaves = os.path.join(root, "crates")
        for name in sorted(os.listdir(leaves)) if os.path.isdir(leaves) else []:
            if os.path.isdir(os.path.join(leaves, name, "src")):
                # A crate missing from CRATE_LAYERS gets an empty table: each module reported.
                crates.append(
                    (
                        os.path.join(leaves, name, "src"),
                        f"crates/{name}/src/",
                        CRATE_LAYERS.get(name, {}),
                    )
                )
    count, findings = 0, []
    for src, prefix, layers in crates:
        files = read_tree(src)
        if "lib.rs" not in files:
            print(f"check-layering: no lib.rs under {src}", file=sys.stderr)
            return 2
        count += len(files)
        findings.extend(check(files, prefix, layers))
    for finding in findings:
        print(finding)
    print(
        f"layering: {count} files in {len(crates)} crate(s), {len(findings)} violation(s)",
        file=sys.stderr,
    )
    return 1 if findings else 0


# ---- the checker's own tests: each rule must fail on the case it exists for ----

import unittest  # noqa: E402


def run(files: dict[str, str]) -> list[str]:
    base = {"lib.rs": "pub mod cli; pub mod index; pub mod inventory; pub mod solve;\n"}
    return [str(f) for f in check({**base, **files})]


class SelfTest(unittest.TestCase):
    def test_clean_crate_passes(self) -> None:
        self.assertEqual(
            run(
                {
                    "cli.rs": "use crate::index::IndexLocation;\n",
                    "index/mod.rs": "mod parse;\nuse crate::inventory::Platform;\npub use parse::parse_page;\n",
                    "index/parse.rs": "use super::IndexError;\nuse crate::tags::Tags;\n",
                    "inventory/mod.rs": "pub struct Platform;\n",
                    "solve/mod.rs": "fn f(i: &crate::index::Index) {}\n",
                    "tags.rs": "pub struct Tags;\n",
                }
            ),
            [],
        )

    def test_leaf_crate_against_its_own_table(self) -> None:
        # crates/planner-pypi: every module foundation; a new one must be placed, cycles still fail.
        leaf = {
            "lib.rs": "pub mod tags; pub mod zip; pub mod sdist;\n",
            "tags.rs": "pub struct Tag;\n",
        }
        table = CRATE_LAYERS["planner-pypi"]
        self.assertEqual(
            [
                str(f)
                for f in check(
                    {**leaf, "zip.rs": "use crate::tags::Tag;\n"},
                    "crates/planner-pypi/src/",
                    table,
                )
            ],
            [],
        )
        found = [
            str(f)
            for f in check(
                {**leaf, "wheel.rs": "use crate::tags::Tag;\n"},
                "crates/planner-pypi/src/",
                table,
            )
        ]
        self.assertEqual(
            found,
            [
                "crates/planner-pypi/src/wheel.rs:1: module `wheel` has no layer: add it to CRATE_LAYERS in scripts/check-layering.py"
            ],
        )
        cyclic = {
            **leaf,
            "zip.rs": "use crate::sdist::f;\n",
            "sdist.rs": "use crate::zip::g;\n",
        }
        found = [str(f) for f in check(cyclic, "crates/planner-pypi/src/", table)]
        self.assertEqual(len(found), 1)
        self.assertIn("crates/planner-pypi/src/sdist.rs:1", found[0])

    def test_use_of_the_cli_layer_in_a_stage(self) -> None:
        # As src/index/mod.rs and src/inventory/discover.rs do today.
        self.assertEqual(
            run({"index/mod.rs": "use std::sync::Arc;\nuse crate::cli::IndexArgs;\n"}),
            [
                "src/index/mod.rs:2: `use crate::cli::IndexArgs`: index (stage 2) may not use cli (the CLI layer)"
            ],
        )

    def test_path_in_code(self) -> None:
        # As src/solve/mod.rs does today: no `use`, a path in an impl header.
        found = run(
            {
                "solve/mod.rs": "pub enum PrereleaseMode { A }\n\n"
                "impl From<crate::cli::PrereleaseMode> for PrereleaseMode {\n"
                "    fn from(m: crate::cli::PrereleaseMode) -> Self { PrereleaseMode::A }\n}\n"
            }
        )
        self.assertEqual(len(found), 2, found)
        self.assertTrue(
            found[0].startswith("src/solve/mod.rs:3: `crate::cli::PrereleaseMode`"),
            found,
        )

    def test_braces_settings_and_commands(self) -> None:
        found = run(
            {
                "lib.rs": "pub mod settings; pub mod commands; pub mod index; pub mod tags;\n",
                "index/config.rs": "use crate::{\n    tags::Tags,\n    settings::{IndexSettings as S, self},\n};\n"
                "fn f() { crate::commands::propose::run(); }\n",
            }
        )
        self.assertEqual(len(found), 3, found)
        self.assertIn(
            "`use crate::settings::IndexSettings`: index (stage 2) may not use settings",
            found[0],
        )
        self.assertIn("`use crate::settings`", found[1])
        self.assertIn(
            "src/index/config.rs:5: `crate::commands::propose::run`", found[2]
        )

    def test_later_stage(self) -> None:
        found = run(
            {
                "lib.rs": "pub mod inventory; pub mod solve; pub mod plan;\n",
                "inventory/mod.rs": "use crate::solve::Resolution;\n",
                "plan/mod.rs": "use crate::solve::Resolution;\nuse crate::inventory::Inventory;\n",
            }
        )
        self.assertEqual(
            found,
            [
                "src/inventory/mod.rs:1: `use crate::solve::Resolution`: inventory (stage 1) may not use solve (stage 3)"
            ],
        )

    def test_foundation_uses_only_foundation(self) -> None:
        found = run(
            {
                "printer.rs": "use crate::tags::Tags;\nuse crate::render::Text;\n",
                "tags.rs": "",
            }
        )
        self.assertEqual(len(found), 1, found)
        self.assertIn("printer (foundation) may not use render (stage 6)", found[0])

    def test_super_is_resolved(self) -> None:
        found = run(
            {
                "index/config.rs": "use super::super::cli::IndexArgs;\nuse super::Index;\n",
                "index/mod.rs": "pub struct Index;\n",
                "solve/explain.rs": "fn f() { self::super::super::cli::x(); }\n",
            }
        )
        self.assertEqual(len(found), 2, found)
        self.assertIn(
            "`use super::super::cli::IndexArgs`: index (stage 2) may not use cli",
            found[0],
        )
        self.assertIn("src/solve/explain.rs:1:", found[1])

    def test_super_in_an_inline_module(self) -> None:
        # `super` inside `mod tests { }` is the file's own module: no edge, no finding; one
        # level more leaves the file.
        found = run(
            {
                "solve/provider.rs": "pub struct P;\n#[cfg(test)]\nmod tests {\n    use super::*;\n"
                "    use super::super::explain::E;\n}\n",
                "solve/explain.rs": "use super::provider::P;\n",
            }
        )
        self.assertEqual(len(found), 1, found)
        self.assertIn("files import each other", found[0])

    def test_sibling_cycle(self) -> None:
        # As src/solve/provider.rs <-> src/solve/explain.rs today.
        found = run(
            {
                "solve/mod.rs": "mod explain; mod provider;\n",
                "solve/provider.rs": "use super::explain::explain;\n",
                "solve/explain.rs": "\nuse crate::solve::provider::Provider;\n",
            }
        )
        self.assertEqual(
            found,
            [
                "src/solve/explain.rs:2: files import each other: "
                "src/solve/explain.rs:2 `use crate::solve::provider::Provider` -> src/solve/provider.rs; "
                "src/solve/provider.rs:1 `use super::explain::explain` -> src/solve/explain.rs"
            ],
        )

    def test_three_file_cycle(self) -> None:
        found = run(
            {
                "inventory/a.rs": "use super::b::B;\n",
                "inventory/b.rs": "use super::c::C;\n",
                "inventory/c.rs": "fn f() -> crate::inventory::a::A {}\n",
            }
        )
        self.assertEqual(len(found), 1, found)
        self.assertIn("src/inventory/a.rs", found[0])
        self.assertIn("src/inventory/c.rs", found[0])

    def test_parent_and_child_are_not_a_cycle(self) -> None:
        self.assertEqual(
            run(
                {
                    "inventory/mod.rs": "mod scan;\nuse self::scan::scan;\npub use scan::Dist;\npub struct Inventory;\n",
                    "inventory/scan.rs": "use super::Inventory;\nuse crate::inventory::Inventory as I;\n",
                }
            ),
            [],
        )

    def test_comments_strings_and_visibility_are_not_imports(self) -> None:
        self.assertEqual(
            run(
                {
                    "index/mod.rs": "// use crate::cli::IndexArgs;\n/* crate::cli::X /* nested */ crate::cli::Y */\n"
                    '//! see crate::commands\nconst A: &str = "crate::cli::IndexArgs";\n'
                    'const B: &str = r#"use crate::settings::S;"#;\nconst C: char = \'"\';\n'
                    'pub(in crate::index) fn f<\'a>(x: &\'a str) {}\nconst D: &str = "\\"crate::cli";\n'
                }
            ),
            [],
        )

    def test_a_submodule_with_a_rank_of_its_own(self) -> None:
        # A submodule ranked with render: it may name render, the rest of trial may not, and
        # trial may not name it.
        LAYERS["trial::attempt"] = 6
        self.addCleanup(LAYERS.pop, "trial::attempt")
        found = run(
            {
                "lib.rs": "pub mod trial; pub mod render;\n",
                "trial/mod.rs": "pub mod copy; pub mod run;\n",
                "trial/attempt.rs": "use crate::render::commands::install_files;\nuse crate::trial::copy::C;\n",
                "trial/copy.rs": "use crate::render::commands::install_files;\npub struct C;\n",
                "trial/fresh.rs": "fn f() { crate::trial::attempt::try_plan(); }\n",
                "render/mod.rs": "pub mod commands; pub mod trial;\n",
                "render/commands.rs": "",
                "render/trial.rs": "use crate::trial::copy::C;\n",
            }
        )
        self.assertEqual(
            found,
            [
                "src/trial/copy.rs:1: `use crate::render::commands::install_files`: trial (stage 5) may not use render (stage 6)",
                "src/trial/fresh.rs:1: `crate::trial::attempt::try_plan`: trial (stage 5) may not use trial::attempt (stage 6)",
            ],
        )

    def test_unknown_module_must_be_placed(self) -> None:
        found = run({"lib.rs": "pub mod util;\n", "util.rs": "", "util/inner.rs": ""})
        self.assertEqual(
            found,
            [
                "src/util.rs:1: module `util` has no layer: add it to LAYERS in scripts/check-layering.py"
            ],
        )

    def test_the_binary_is_not_checked(self) -> None:
        self.assertEqual(
            run({"main.rs": "use planner::cli::Cli;\nfn main() { crate::x(); }\n"}), []
        )


if __name__ == "__main__":
    sys.exit(main(sys.argv))
