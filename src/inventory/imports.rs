//! Which installed dists import a module, read from their Python sources.
//!
//! In: an installed dist read from disk (its `RECORD` lists its files) and a top-level module
//! name (`pkg_resources`). Out: the first of its `.py` files with an `import` statement of that
//! module (`import pkg_resources`, `import pkg_resources.extern as x`, `from pkg_resources
//! import ...`, `import os, pkg_resources`), at any indentation (inside `try:` too).
//!
//! [`import_statements`] and [`import_uses_in`] read every absolute import statement of some
//! modules with what it imports (`from jinja2 import Markup, escape`: module `jinja2`, names
//! `Markup`, `escape`) and how it is guarded: statements under `if`/`elif`/`else`/`match` or in an
//! `except` handler run only sometimes and are left out (`if TYPE_CHECKING:` among them); one in
//! a `try:` body is guarded by what its handlers catch ([`ImportGuard`]); one inside a private
//! function that nothing else in its file names is marked dead (it never runs). Which names the imported module itself binds is
//! [`super::module_names`]'s job.
//!
//! What it cannot see: imports spelled at run time (`importlib.import_module("...")`,
//! `__import__`), imports in compiled extensions or in byte code without sources, statements
//! split over lines with backslashes, and dists read from a snapshot (no files).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use memchr::memmem;

use super::extensions::read_capped;
use super::{DistFormat, InstalledDist};

/// At most this many bytes are read from one source file.
pub(crate) const MAX_FILE_BYTES: u64 = 4 << 20;

/// The first `.py` file of `dist` (its path in `RECORD`) that imports `module`.
pub(crate) fn imports_module(dist: &InstalledDist, module: &str) -> Option<String> {
    if dist.format != DistFormat::DistInfo || module.is_empty() {
        return None;
    }
    let site = dist.path.parent()?;
    let paths = super::record::inside_paths(&dist.path)?;
    let finder = memmem::Finder::new(module.as_bytes());
    paths
        .into_iter()
        .filter(|path| path.ends_with(".py"))
        .find(|path| {
            read_capped(&site.join(path), MAX_FILE_BYTES).is_some_and(|bytes| {
                finder.find(&bytes).is_some()
                    && source_imports_module(&String::from_utf8_lossy(&bytes), module)
            })
        })
}

/// Whether `source` has an import statement of `module` (or of a submodule of it) on a line of
/// its own.
pub(crate) fn source_imports_module(source: &str, module: &str) -> bool {
    source.lines().any(|line| imports(line, module))
}

/// Whether one source line is an import statement of `module` (or of a submodule of it).
fn imports(line: &str, module: &str) -> bool {
    let names_it = |name: &str| {
        let name = name.trim();
        name == module
            || name
                .strip_prefix(module)
                .is_some_and(|r| r.starts_with('.'))
    };
    let line = line.trim_start();
    if let Some(rest) = line.strip_prefix("from ") {
        return rest.split_whitespace().next().is_some_and(names_it);
    }
    if let Some(rest) = line.strip_prefix("import ") {
        let rest = rest.split('#').next().unwrap_or("");
        return rest
            .split(',')
            .filter_map(|part| part.split_whitespace().next())
            .any(names_it);
    }
    false
}

/// What a `try:` around an import statement catches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ImportGuard {
    /// Nothing: a failing import fails the importing module.
    None,
    /// Only `ModuleNotFoundError`: a missing module is caught, a missing name
    /// (`from click import _unicodefun`, an `ImportError`) is not.
    MissingModule,
    /// `ImportError`, `Exception`, `BaseException` or everything.
    Any,
}

/// One absolute import statement of a module (`import a.b`, `from a.b import x, y`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportStatement {
    /// Its first line (1-based).
    pub line: usize,
    /// The module imported or imported from (`a.b`).
    pub module: String,
    /// The names a `from` import takes (empty for `import a.b`; `*` left out).
    pub names: Vec<String>,
    /// What catches its failure.
    pub guard: ImportGuard,
    /// It is inside a private function (`def _name`) that nothing else in its file names: it
    /// never runs (cffi 1.15's `_workaround_for_static_import_finders`, "This function is never
    /// called", imports `pycparser.lextab`). An import in a function that is called is kept:
    /// black 22.1's `patch_click()` imports `click._unicodefun` when `black` starts.
    pub dead: bool,
    /// Not an import: a module-level attribute use of an imported module in a class base or a
    /// decorator (`class VariableEffect(jax.core.Effect):` after `import jax` is module
    /// `jax.core`, names `Effect`), which fails at import as a missing name would.
    pub attribute: bool,
}

/// One import statement of an installed dist's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportUse {
    /// The importing dist and its version.
    pub dist: pep508_rs::PackageName,
    /// Its version.
    pub version: pep440_rs::Version,
    /// The file (its path in `RECORD`).
    pub file: String,
    /// The statement.
    pub statement: ImportStatement,
}

/// The `.py` files of `dist` that have a line starting with `import` or `from` naming a
/// top-level module, and those modules: a cheap first pass over every file (no parsing), so
/// that [`import_uses_in`] parses only the files that import a changed dist.
///
/// A code generator's sources are left out: a file that another file of the dist says it was
/// generated from (transformers' `modeling_sam2.py` begins "This file was automatically
/// generated from src/transformers/models/sam2/modular_sam2.py"). Nothing imports them at run
/// time, and many do not import at all outside the generator.
pub(crate) fn imported_modules(dist: &InstalledDist) -> Vec<(String, BTreeSet<String>)> {
    let mut out = Vec::new();
    let Some(site) = dist.path.parent() else {
        return out;
    };
    let mut generator_paths = BTreeSet::new();
    for path in own_sources(dist) {
        let Some(bytes) = read_capped(&site.join(&path), MAX_FILE_BYTES) else {
            continue;
        };
        generator_paths.extend(generated_from(&bytes));
        let tops = imported_tops(&bytes);
        if !tops.is_empty() {
            out.push((path, tops));
        }
    }
    out.retain(|(path, _)| !is_named_by(path, &generator_paths));
    out
}

/// The paths a file's first lines name after "automatically generated from", trailing
/// punctuation cut (`src/transformers/models/sam2/modular_sam2.py`).
fn generated_from(source: &[u8]) -> Vec<String> {
    const HEAD: usize = 4096;
    const PHRASE: &[u8] = b"automatically generated from ";
    let head = &source[..source.len().min(HEAD)];
    memmem::find_iter(head, PHRASE)
        .filter_map(|at| {
            let rest = &head[at + PHRASE.len()..];
            let end = rest
                .iter()
                .position(|b| b.is_ascii_whitespace())
                .unwrap_or(rest.len());
            let named = std::str::from_utf8(&rest[..end]).ok()?;
            let named = named.trim_end_matches(['.', ',', ';', ':', ')']);
            named.ends_with(".py").then(|| named.to_string())
        })
        .collect()
}

/// Whether `path` (as `RECORD` lists it) is one of `named` or a tail of one at a `/`
/// (`transformers/x.py` is named by `src/transformers/x.py`).
fn is_named_by(path: &str, named: &BTreeSet<String>) -> bool {
    named
        .iter()
        .any(|n| n == path || n.strip_suffix(path).is_some_and(|head| head.ends_with('/')))
}

/// The top-level modules that the lines of `source` starting with `import` or `from` name.
/// Only the lines holding the word `import` are looked at (found with a vectorized search,
/// so the rest of the file is skipped, not split into lines or checked as UTF-8).
fn imported_tops(source: &[u8]) -> BTreeSet<String> {
    let mut tops = BTreeSet::new();
    let mut next_line = 0;
    for hit in memmem::find_iter(source, b"import") {
        if hit < next_line {
            continue;
        }
        let start = memchr::memrchr(b'\n', &source[..hit]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &source[hit..]).map_or(source.len(), |i| hit + i);
        next_line = end + 1;
        let line = source[start..end].trim_ascii_start();
        let names: Vec<&[u8]> = if let Some(rest) = line.strip_prefix(b"from ") {
            first_word(rest).into_iter().collect()
        } else if let Some(rest) = line.strip_prefix(b"import ") {
            rest.split(|&b| b == b',').filter_map(first_word).collect()
        } else {
            continue;
        };
        for name in names {
            let top = name.split(|&b| b == b'.').next().unwrap_or_default();
            if let Ok(top) = std::str::from_utf8(top)
                && !top.is_empty()
            {
                tops.insert(top.to_string());
            }
        }
    }
    tops
}

/// The first run of non-blank bytes in `text`.
fn first_word(text: &[u8]) -> Option<&[u8]> {
    text.split(|b| b.is_ascii_whitespace())
        .find(|word| !word.is_empty())
}

/// The import statements of `modules` (top-level names) in the given `.py` files of `dist` (paths
/// as `RECORD` lists them), at most one per distinct (module, names, guard).
pub(crate) fn import_uses_in(
    dist: &InstalledDist,
    paths: &[&str],
    modules: &BTreeSet<String>,
) -> Vec<ImportUse> {
    scan(dist, paths.iter().map(|p| p.to_string()), modules)
}

/// The `.py` files a dist's `RECORD` lists, less vendored copies of other libraries, tests
/// (not the dist's own code paths: pip's `_vendor/pyparsing/diagram` imports jinja2) and a build
/// folder's copy of the dist ([`is_build_copy`]).
fn own_sources(dist: &InstalledDist) -> Vec<String> {
    if dist.format != DistFormat::DistInfo {
        return Vec::new();
    }
    let Some(paths) = super::record::inside_paths(&dist.path) else {
        return Vec::new();
    };
    paths
        .into_iter()
        .filter(|path| path.ends_with(".py") && !is_build_copy(path))
        .filter(|path| {
            let mut folders = path.split('/').rev().skip(1);
            !folders.any(|f| {
                matches!(
                    f,
                    "test" | "tests" | "testing" | "_vendor" | "vendor" | "_vendored"
                )
            })
        })
        .collect()
}

/// Whether `path` is in a setuptools build folder that a wheel shipped by mistake
/// (`build/lib/botorch/...` in botorch 0.18.1, whose `top_level.txt` even lists `build`): a stale
/// copy of the dist's own code, not a module of it.
pub(crate) fn is_build_copy(path: &str) -> bool {
    let mut parts = path.split('/');
    parts.next() == Some("build") && parts.next().is_some_and(|p| p.starts_with("lib"))
}

fn scan(
    dist: &InstalledDist,
    paths: impl Iterator<Item = String>,
    modules: &BTreeSet<String>,
) -> Vec<ImportUse> {
    let mut uses: Vec<ImportUse> = Vec::new();
    let Some(site) = dist.path.parent() else {
        return uses;
    };
    let finders: Vec<memmem::Finder<'_>> = modules
        .iter()
        .map(|m| memmem::Finder::new(m.as_bytes()))
        .collect();
    let mut seen = std::collections::HashSet::new();
    for path in paths {
        let Some(bytes) = read_capped(&site.join(&path), MAX_FILE_BYTES) else {
            continue;
        };
        if !finders.iter().any(|f| f.find(&bytes).is_some()) {
            continue;
        }
        for statement in import_statements(&String::from_utf8_lossy(&bytes), modules) {
            let key = (
                statement.module.clone(),
                statement.names.clone(),
                statement.guard,
                statement.dead,
                statement.attribute,
            );
            if seen.insert(key) {
                uses.push(ImportUse {
                    dist: dist.name().clone(),
                    version: dist.version().clone(),
                    file: path.clone(),
                    statement,
                });
            }
        }
    }
    uses
}

/// The paths an installed dist's `RECORD` lists (`None` without one: a snapshot, an egg).
pub(crate) fn record_paths(dist: &InstalledDist) -> Option<Vec<String>> {
    if dist.format != DistFormat::DistInfo {
        return None;
    }
    super::record::paths(&dist.path)
}

/// One installed file of a dist (a path its `RECORD` lists), at most 4 MiB.
pub(crate) fn read_installed(dist: &InstalledDist, path: &str) -> Option<Vec<u8>> {
    if !super::record::is_inside(path) {
        return None;
    }
    read_capped(&dist.path.parent()?.join(path), MAX_FILE_BYTES)
}

/// One logical line: its indentation, its text without the comment, its first line (1-based).
pub(super) struct Logical<'a> {
    pub(super) indent: usize,
    pub(super) text: Cow<'a, str>,
    pub(super) line: usize,
}

/// The logical lines of Python source: bracketed and backslash-continued lines joined,
/// triple-quoted strings and comments left out (a line that opens a string is cut there).
pub(super) fn logical_lines(source: &str) -> Vec<Logical<'_>> {
    let mut out: Vec<Logical<'_>> = Vec::new();
    let mut in_string: Option<&str> = None;
    let mut pending: Option<Logical<'_>> = None;
    let mut depth: i32 = 0;
    let mut carried_quote: Option<u8> = None;
    for (i, raw) in source.lines().enumerate() {
        let mut line = raw;
        if let Some(quote) = in_string {
            match find_closing(line, quote) {
                Some(at) => {
                    in_string = None;
                    line = &line[at + 3..];
                    if pending.is_none() {
                        // The rest of the closing line is not a statement start, but it may open
                        // the next string (`''' + TEMPLATE + '''`).
                        in_string = strip_line(line).1;
                        continue;
                    }
                }
                None => continue,
            }
        }
        let (code, opens) = strip_line(line);
        if let Some(quote) = opens {
            in_string = Some(quote);
        }
        let (change, open) = bracket_change(code, carried_quote);
        depth += change;
        carried_quote = open;
        let continued = depth > 0 || code.trim_end().ends_with('\\');
        let text = code.trim_end().trim_end_matches('\\').trim();
        match pending.as_mut() {
            Some(p) => {
                let joined = p.text.to_mut();
                joined.push(' ');
                joined.push_str(text);
            }
            None => {
                pending = Some(Logical {
                    indent: line.len() - line.trim_start().len(),
                    text: Cow::Borrowed(text),
                    line: i + 1,
                });
            }
        }
        if !continued || opens.is_some() {
            depth = 0;
            if let Some(p) = pending.take()
                && !p.text.is_empty()
            {
                out.push(p);
            }
        }
    }
    out.extend(pending.filter(|p| !p.text.is_empty()));
    out
}

/// Where `quote` (a triple quote) first occurs in `line` unescaped (`\"""` inside a `"""`
/// string is a quote, then the two that start the closing).
fn find_closing(line: &str, quote: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
        } else if bytes[i..].starts_with(quote.as_bytes()) {
            return Some(i);
        } else {
            i += 1;
        }
    }
    None
}

/// A line without its comment and without a triple-quoted string it opens (and that string's
/// quote, when it does not close on the line). Single-quoted strings are kept.
fn strip_line(line: &str) -> (&str, Option<&'static str>) {
    let bytes = line.as_bytes();
    if memchr::memchr3(b'#', b'"', b'\'', bytes).is_none() {
        return (line, None);
    }
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'#' => return (&line[..i], None),
            None if b == b'"' || b == b'\'' => {
                let delimiter = if b == b'"' { "\"\"\"" } else { "'''" };
                if line[i..].starts_with(delimiter) {
                    match find_closing(&line[i + 3..], delimiter) {
                        Some(end) => i += 3 + end + 2,
                        None => return (&line[..i], Some(delimiter)),
                    }
                } else {
                    quote = Some(b);
                }
            }
            None => {}
        }
        i += 1;
    }
    (line, None)
}

/// How many brackets a line (without its comment) opens less those it closes, outside its
/// strings (`"("` opens none; triple-quoted ones that close on the line too), and the quote of a
/// single-quoted string it leaves open (continued on the next line by a backslash). `open` is
/// the quote of such a string the previous line left open.
fn bracket_change(code: &str, open: Option<u8>) -> (i32, Option<u8>) {
    let bytes = code.as_bytes();
    let mut depth = 0;
    let mut i = 0;
    let mut inside = open.map(|q| (q, 1));
    loop {
        if let Some((q, width)) = inside {
            while i < bytes.len() {
                if bytes[i] == b'\\' {
                    i += 2;
                } else if bytes[i] == q && (width == 1 || bytes[i..].starts_with(&[q, q, q])) {
                    i += width;
                    inside = None;
                    break;
                } else {
                    i += 1;
                }
            }
            if inside.is_some() {
                return (depth, (width == 1).then_some(q));
            }
        }
        let Some(&b) = bytes.get(i) else {
            return (depth, None);
        };
        match b {
            b'"' | b'\'' => {
                let width = if bytes[i..].starts_with(&[b, b, b]) {
                    3
                } else {
                    1
                };
                inside = Some((b, width));
                i += width;
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
}

/// The block a header line opens, for the statements inside it.
#[derive(Clone, Copy)]
enum Block {
    /// Runs when the function is called (`def`); `true`: a private function nothing else in the
    /// file names (it never runs).
    Def(bool),
    /// Runs whenever the enclosing code runs (`class`, `with`, `for`, `while`, `finally`).
    Runs,
    /// Runs only sometimes (`if`, `elif`, `else`, `except`, `match`, `case`); `true`: an `if` or
    /// `elif` whose test may hold whenever the module is imported here (`if is_jinja_available():`,
    /// true wherever the module it imports is installed), not a typing-only or platform test.
    Sometimes(bool),
    /// A `try:` body, guarded by what its handlers catch.
    Try(ImportGuard),
}

/// What a handler line (`except (ImportError, AttributeError) as e:`) catches of an import.
fn handler_guard(text: &str) -> ImportGuard {
    let rest = text.trim_start_matches("except").trim_start_matches('*');
    let rest = rest.split(" as ").next().unwrap_or(rest);
    let names: Vec<&str> = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if names.is_empty()
        || names
            .iter()
            .any(|n| matches!(*n, "ImportError" | "Exception" | "BaseException"))
    {
        ImportGuard::Any
    } else if names.contains(&"ModuleNotFoundError") {
        ImportGuard::MissingModule
    } else {
        ImportGuard::None
    }
}

/// The block a logical line opens, if it is a compound statement's header.
fn header(lines: &[Logical<'_>], at: usize) -> Option<Block> {
    let text = &lines[at].text;
    if !text.ends_with(':') {
        return None;
    }
    let word = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    let word = if word == "async" {
        text[5..].trim_start().split(' ').next().unwrap_or("")
    } else {
        word
    };
    match word {
        "if" | "elif" => Some(Block::Sometimes(may_hold_here(text))),
        "else" | "except" | "match" | "case" => Some(Block::Sometimes(false)),
        "def" => Some(Block::Def(uncalled_private(lines, at))),
        "class" | "with" | "for" | "while" | "finally" => Some(Block::Runs),
        "try" => {
            let indent = lines[at].indent;
            let guard = lines[at + 1..]
                .iter()
                .filter(|l| l.indent <= indent)
                .take_while(|l| {
                    l.indent == indent
                        && ["except", "else", "finally"]
                            .iter()
                            .any(|k| l.text.starts_with(k))
                })
                .filter(|l| l.text.starts_with("except"))
                .map(|l| handler_guard(&l.text))
                .max()
                .unwrap_or(ImportGuard::None);
            Some(Block::Try(guard))
        }
        _ => None,
    }
}

/// Whether the `def` header at `at` defines a private function (`_name`) whose name no other
/// logical line of the file holds as a word (no call, no reference: it never runs).
fn uncalled_private(lines: &[Logical<'_>], at: usize) -> bool {
    let text = lines[at].text.trim_start_matches("async").trim_start();
    let Some(rest) = text.strip_prefix("def ") else {
        return false;
    };
    let name: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if !name.starts_with('_') || name.starts_with("__") {
        return false;
    }
    let word = |text: &str| {
        text.match_indices(name.as_str()).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + name.len()..].chars().next();
            let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !ident(before) && !ident(after)
        })
    };
    !lines
        .iter()
        .enumerate()
        .any(|(i, l)| i != at && word(&l.text))
}

/// Whether an `if`/`elif` test may hold whenever its module is imported on this platform: not a
/// typing-only test (`TYPE_CHECKING`) nor one on the platform or interpreter (`sys.platform`,
/// `os.name`, `platform.system()`, `sys.version_info`), whose other branch is what runs here.
fn may_hold_here(test: &str) -> bool {
    const NOT_HERE: [&str; 6] = [
        "TYPE_CHECKING",
        "sys.platform",
        "os.name",
        "platform.system",
        "sys.version_info",
        "PY2",
    ];
    !NOT_HERE.iter().any(|word| test.contains(word))
}

/// The absolute import statements of `modules` (top-level names) in Python source, leaving
/// out those that run only sometimes (under `if`/`elif`/`else`/`match`, in `except`).
pub(crate) fn import_statements(source: &str, modules: &BTreeSet<String>) -> Vec<ImportStatement> {
    statements(source, modules, false)
}

/// The absolute import statements of `modules` that run when their module is imported, its
/// conditions holding: at module level (or in a class body), under an `if` whose test may hold
/// here (`if is_jinja_available(): import jinja2` in transformers' `chat_template_utils.py`
/// runs wherever Jinja2 is installed), not in a function, not under a typing-only or platform
/// test, and not in a `try:` that catches `ImportError`. Evidence that a dist uses another at
/// import time, whether or not it declares it.
pub(crate) fn import_time_statements(
    source: &str,
    modules: &BTreeSet<String>,
) -> Vec<ImportStatement> {
    statements(source, modules, true)
        .into_iter()
        .filter(|s| s.guard != ImportGuard::Any && !s.dead)
        .collect()
}

/// [`import_statements`]; with `import_time`, those under an `if` that may hold here too, and
/// none in a function (not marked: left out).
fn statements(source: &str, modules: &BTreeSet<String>, import_time: bool) -> Vec<ImportStatement> {
    let lines = logical_lines(source);
    let mut out = Vec::new();
    let mut open: Vec<(usize, Block)> = Vec::new();
    let mut aliases = BTreeMap::new();
    for (at, logical) in lines.iter().enumerate() {
        while open
            .last()
            .is_some_and(|(indent, _)| *indent >= logical.indent)
        {
            open.pop();
        }
        if open.is_empty() {
            out.extend(attribute_uses(logical, &mut aliases, modules));
        }
        let sometimes = open.iter().any(|(_, b)| match b {
            Block::Sometimes(may) => !(import_time && *may),
            Block::Def(_) => import_time,
            _ => false,
        });
        let dead = open.iter().any(|(_, b)| matches!(b, Block::Def(true)));
        if !sometimes {
            let guard = open
                .iter()
                .filter_map(|(_, b)| match b {
                    Block::Try(g) => Some(*g),
                    _ => None,
                })
                .max()
                .unwrap_or(ImportGuard::None);
            out.extend(
                parse_import(&logical.text, &|top| modules.contains(top))
                    .into_iter()
                    .map(|(module, names)| ImportStatement {
                        line: logical.line,
                        module,
                        names,
                        guard,
                        dead,
                        attribute: false,
                    }),
            );
        }
        if let Some(block) = header(&lines, at) {
            open.push((logical.indent, block));
        }
    }
    out
}

/// At module level: the names an import statement binds to modules of `modules` (`import
/// jax.core as jc`: `jc` -> `jax.core`; `import jax.core`: `jax` -> `jax`; `from jax import
/// core`: `core` -> `jax.core`) are added to `aliases`; a class header or decorator line yields
/// each attribute chain it holds on such a name (`jax.core.Effect`: module `jax.core`, names
/// `Effect`). Strings are skipped.
fn attribute_uses(
    logical: &Logical<'_>,
    aliases: &mut BTreeMap<String, String>,
    modules: &BTreeSet<String>,
) -> Vec<ImportStatement> {
    let text = logical.text.as_ref();
    let wanted = |m: &str| modules.contains(m.split('.').next().unwrap_or(""));
    if let Some(rest) = text.strip_prefix("import ") {
        for part in rest.split(',') {
            let words: Vec<&str> = part.split_whitespace().collect();
            match words.as_slice() {
                [m, "as", alias] if wanted(m) => aliases.insert(alias.to_string(), m.to_string()),
                [m] if wanted(m) => {
                    let top = m.split('.').next().unwrap_or(m);
                    aliases.insert(top.to_string(), top.to_string())
                }
                _ => None,
            };
        }
        return Vec::new();
    }
    if let Some(rest) = text.strip_prefix("from ") {
        let Some((module, names)) = rest.split_once(" import ") else {
            return Vec::new();
        };
        let module = module.trim();
        if wanted(module) {
            let names = names.trim().trim_start_matches('(').trim_end_matches(')');
            for part in names.split(',') {
                let words: Vec<&str> = part.split_whitespace().collect();
                let (name, alias) = match words.as_slice() {
                    [n, "as", a] => (*n, *a),
                    [n] => (*n, *n),
                    _ => continue,
                };
                aliases.insert(alias.to_string(), format!("{module}.{name}"));
            }
        }
        return Vec::new();
    }
    if !(text.starts_with("class ") || text.starts_with('@')) {
        return Vec::new();
    }
    let mut out: Vec<ImportStatement> = Vec::new();
    for chain in dotted_chains(text) {
        let mut parts = chain.split('.');
        let Some(base) = parts.next().and_then(|first| aliases.get(first)) else {
            continue;
        };
        let rest: Vec<&str> = parts.collect();
        let Some((name, inner)) = rest.split_last() else {
            continue;
        };
        let module = std::iter::once(base.as_str())
            .chain(inner.iter().copied())
            .collect::<Vec<_>>()
            .join(".");
        out.push(ImportStatement {
            line: logical.line,
            module,
            names: vec![name.to_string()],
            guard: ImportGuard::None,
            dead: false,
            attribute: true,
        });
    }
    out
}

/// The dotted names (`a.b.c`) of a line, outside its string literals.
fn dotted_chains(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == '\\' {
                chars.next();
            } else if c == q {
                quote = None;
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' || (c == '.' && !current.is_empty()) {
            current.push(c);
            continue;
        }
        if current.contains('.') && !current.starts_with(|d: char| d.is_ascii_digit()) {
            out.push(current.trim_end_matches('.').to_string());
        }
        current.clear();
        if c == '"' || c == '\'' {
            quote = Some(c);
        } else if c == '.' {
            // `x().y`: what follows a call is no chain on an imported name
            while chars
                .peek()
                .is_some_and(|n| n.is_alphanumeric() || *n == '_')
            {
                chars.next();
            }
        }
    }
    if current.contains('.') && !current.starts_with(|d: char| d.is_ascii_digit()) {
        out.push(current.trim_end_matches('.').to_string());
    }
    out
}

/// The (module, names) an import statement imports of `modules`.
fn parse_import(text: &str, wanted: &dyn Fn(&str) -> bool) -> Vec<(String, Vec<String>)> {
    let ours = |module: &str| wanted(module.split('.').next().unwrap_or(""));
    let is_path = |m: &str| {
        !m.is_empty()
            && m.split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
    };
    if let Some(rest) = text.strip_prefix("from ") {
        let mut parts = rest.splitn(2, " import ");
        let (module, names) = (parts.next().unwrap_or("").trim(), parts.next());
        let Some(names) = names else {
            return Vec::new();
        };
        if !is_path(module) || !ours(module) {
            return Vec::new();
        }
        let names: Vec<String> = names
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .split(',')
            .filter_map(|n| n.split_whitespace().next())
            .filter(|n| *n != "*" && is_path(n))
            .map(str::to_string)
            .collect();
        return vec![(module.to_string(), names)];
    }
    if let Some(rest) = text.strip_prefix("import ") {
        return rest
            .split(',')
            .filter_map(|part| part.split_whitespace().next())
            .filter(|m| is_path(m) && ours(m))
            .map(|m| (m.to_string(), Vec::new()))
            .collect();
    }
    Vec::new()
}

/// The import statements at a module's top level (no indent: outside every `def`, `class`,
/// `if` and `try`), which run whenever the module is imported, of any module. A relative import
/// is resolved against `package`, the dotted package the file is in (`from . import x` in
/// `tb/main.py` is `tb`, names `x`); one that climbs above it is left out.
pub(crate) fn unconditional_imports(source: &str, package: &str) -> Vec<ImportStatement> {
    let mut out = Vec::new();
    for logical in logical_lines(source).iter().filter(|l| l.indent == 0) {
        let text = resolve_relative(&logical.text, package);
        let Some(text) = text.as_deref() else {
            continue;
        };
        out.extend(
            parse_import(text, &|_| true)
                .into_iter()
                .map(|(module, names)| ImportStatement {
                    line: logical.line,
                    module,
                    names,
                    guard: ImportGuard::None,
                    dead: false,
                    attribute: false,
                }),
        );
    }
    out
}

/// `from .x import y` in `package` as `from package.x import y`; other lines as they are;
/// `None` for a relative import that climbs above `package`.
fn resolve_relative<'a>(text: &'a str, package: &str) -> Option<Cow<'a, str>> {
    let Some(rest) = text.strip_prefix("from .") else {
        return Some(Cow::Borrowed(text));
    };
    let dots = 1 + rest.bytes().take_while(|&b| b == b'.').count();
    let rest = &rest[dots - 1..];
    let parts: Vec<&str> = package.split('.').collect();
    let keep = parts.len().checked_sub(dots - 1).filter(|&k| k > 0)?;
    let base = parts[..keep].join(".");
    let (module, names) = rest.split_once(" import ")?;
    let module = module.trim();
    let full = if module.is_empty() {
        base
    } else {
        format!("{base}.{module}")
    };
    Some(Cow::Owned(format!("from {full} import {names}")))
}

#[cfg(test)]
mod tests {
    use super::imports;

    #[test]
    fn unconditional_imports_are_the_module_level_ones() {
        let source = "import os, pkg_resources\nfrom .default import x\nfrom .. import up\n\
                      from . import lazy as _lazy\ntry:\n    import opt\nexcept ImportError:\n    \
                      pass\nif X:\n    import sometimes\ndef f():\n    import later\n";
        let found: Vec<(String, Vec<String>)> = super::unconditional_imports(source, "tb.sub")
            .into_iter()
            .map(|s| (s.module, s.names))
            .collect();
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            found,
            [
                ("os".to_string(), vec![]),
                ("pkg_resources".to_string(), vec![]),
                ("tb.sub.default".to_string(), names(&["x"])),
                ("tb".to_string(), names(&["up"])),
                ("tb.sub".to_string(), names(&["lazy"])),
            ]
        );
        assert!(super::unconditional_imports("from .. import x\n", "tb").is_empty());
    }

    /// transformers 5.17.0's sam2: `modeling_sam2.py` is generated from `modular_sam2.py`, whose
    /// imports fail outside the generator; both import numpy, only the generated one is read.
    #[test]
    fn a_code_generators_sources_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let head = "#                \u{1f6a8}\u{1f6a8}\u{1f6a8}\n#           This file was \
                    automatically generated from src/transformers/models/sam2/modular_sam2.py.\n\
                    #               Do NOT edit this file manually\n";
        let modeling = format!("{head}import numpy as np\n");
        let files = [
            ("transformers/__init__.py", ""),
            (
                "transformers/models/sam2/modeling_sam2.py",
                modeling.as_str(),
            ),
            (
                "transformers/models/sam2/modular_sam2.py",
                "import numpy as np\nimport torch\n",
            ),
            (
                "transformers/models/sam2/helpers.py",
                "# from a modular file\nimport numpy\n",
            ),
        ];
        let dist = crate::inventory::test_sources::installed_dist(
            dir.path(),
            ("transformers", "5.17.0"),
            &files,
        );
        let read: Vec<String> = super::imported_modules(&dist)
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        assert_eq!(
            read,
            [
                "transformers/models/sam2/modeling_sam2.py",
                "transformers/models/sam2/helpers.py",
            ]
        );
    }

    #[test]
    fn import_statements_of_a_module_and_its_submodules() {
        for line in [
            "import pkg_resources",
            "    import pkg_resources as pr",
            "import os, pkg_resources  # old API",
            "from pkg_resources import iter_entry_points",
            "from pkg_resources.extern import packaging",
            "import pkg_resources.extern",
        ] {
            assert!(imports(line, "pkg_resources"), "{line}");
        }
        for line in [
            "import pkg_resources_extra",
            "from mypkg import pkg_resources",
            "# import pkg_resources",
            "x = 'import pkg_resources'",
            "from . import pkg_resources",
        ] {
            assert!(!imports(line, "pkg_resources"), "{line}");
        }
    }
}

#[cfg(test)]
mod statement_tests {
    use std::collections::BTreeSet;

    use super::{ImportGuard, import_statements, imported_tops};
    use crate::inventory::test_sources::{real, set};

    fn statements(source: &str, module: &str) -> Vec<(usize, String, Vec<String>, ImportGuard)> {
        import_statements(source, &set(&[module]))
            .into_iter()
            .filter(|s| !s.attribute)
            .map(|s| (s.line, s.module, s.names, s.guard))
            .collect()
    }

    #[test]
    fn imported_tops_reads_every_import_line_of_real_sources() {
        // The same modules as reading every line, on real sources.
        for path in [
            "black-22.1.0/black/__init__.py",
            "flask-1.1.2/flask/__init__.py",
            "jinja2-3.1.4/jinja2/__init__.py",
        ] {
            let source = real(path);
            let mut every_line = BTreeSet::new();
            for line in source.lines().map(str::trim_start) {
                let words: Vec<&str> = if let Some(rest) = line.strip_prefix("from ") {
                    rest.split_whitespace().take(1).collect()
                } else if let Some(rest) = line.strip_prefix("import ") {
                    rest.split(',')
                        .filter_map(|p| p.split_whitespace().next())
                        .collect()
                } else {
                    continue;
                };
                let tops = words.iter().map(|w| w.split('.').next().unwrap_or(""));
                every_line.extend(tops.filter(|t| !t.is_empty()).map(str::to_string));
            }
            assert_eq!(imported_tops(source.as_bytes()), every_line, "{path}");
        }
        let black = imported_tops(real("black-22.1.0/black/__init__.py").as_bytes());
        assert!(black.contains("click") && black.contains("typing"));
        // Relative imports name no top-level module; a word "import" inside a line that does
        // not start with `import`/`from` is not an import.
        let tops = imported_tops(
            b"from . import x\nx = 'import numpy'\n  import os.path, json as j\r\nfrom  a.b import c\n",
        );
        assert_eq!(tops, set(&["a", "json", "os"]));
    }

    #[test]
    fn black_22_1_imports_click_unicodefun_under_a_module_not_found_guard() {
        // The same statements Python's ast reads (testdata/risk-corpus/cases/
        // black221-click-8.1.7.json, `imports`): `from click import _unicodefun` inside
        // `try: ... except ModuleNotFoundError`, which a missing *name* is not.
        let got = statements(&real("black-22.1.0/black/__init__.py"), "click");
        let want = vec![
            (34, "click".to_string(), vec![], ImportGuard::None),
            (
                35,
                "click.core".to_string(),
                vec!["ParameterSource".to_string()],
                ImportGuard::None,
            ),
            (
                1408,
                "click".to_string(),
                vec!["core".to_string()],
                ImportGuard::MissingModule,
            ),
            (
                1409,
                "click".to_string(),
                vec!["_unicodefun".to_string()],
                ImportGuard::MissingModule,
            ),
        ];
        assert_eq!(got, want);
    }

    /// cffi 1.15.1's `cparser.py` imports `pycparser.yacctab` and `pycparser.lextab` (gone in
    /// pycparser 3) only in `_workaround_for_static_import_finders`, "This function is never
    /// called": dead. Its module-level `import pycparser` (in a `try:` body whose handler catches
    /// ImportError) is not. A public function, or a private one the file calls, is not dead.
    #[test]
    fn an_import_in_a_private_function_nothing_calls_is_dead() {
        let got: Vec<(usize, String, bool)> =
            import_statements(&real("cffi-1.15.1/cffi/cparser.py"), &set(&["pycparser"]))
                .into_iter()
                .map(|s| (s.line, s.module, s.dead))
                .collect();
        assert_eq!(
            got,
            vec![
                (23, "pycparser.yacctab".to_string(), true),
                (24, "pycparser.lextab".to_string(), true),
            ]
        );
        let source = "def patch():\n    import m.a\ndef _used():\n    import m.b\n\
                      async def _never():\n    import m.c\nclass C:\n    def _meth(self):\n        \
                      import m.d\nX = _used\n";
        let dead: Vec<(String, bool)> = import_statements(source, &set(&["m"]))
            .into_iter()
            .map(|s| (s.module, s.dead))
            .collect();
        assert_eq!(
            dead,
            vec![
                ("m.a".to_string(), false),
                ("m.b".to_string(), false),
                ("m.c".to_string(), true),
                ("m.d".to_string(), true),
            ]
        );
    }

    /// flax 0.12.1's `nnx/variablelib.py` line 277, `class VariableEffect(jax.core.Effect):`
    /// after `import jax`: module `jax.core`, names `Effect`, an attribute use. A chain in a
    /// string, on a name not imported from the module, or after a call is none.
    #[test]
    fn a_class_base_on_an_imported_module_is_an_attribute_use() {
        let uses: Vec<(usize, String, Vec<String>)> =
            import_statements(&real("flax-0.12.1/flax/nnx/variablelib.py"), &set(&["jax"]))
                .into_iter()
                .filter(|s| s.attribute)
                .map(|s| (s.line, s.module, s.names))
                .collect();
        assert!(
            uses.contains(&(277, "jax.core".to_string(), vec!["Effect".to_string()])),
            "{uses:?}"
        );
        let source = "import jax.numpy as jnp\nfrom jax import tree_util as tu\nimport other\n\
                      class A(jnp.ndarray, other.Base):\n    x = 'jax.core.Y'\n\
                      @tu.register_pytree_node_class\nclass B(f().jax.Z, \"jnp.Q\"):\n    pass\n\
                      def g():\n    class C(jnp.Inner):\n        pass\n";
        let uses: Vec<(usize, String, Vec<String>)> = import_statements(source, &set(&["jax"]))
            .into_iter()
            .filter(|s| s.attribute)
            .map(|s| (s.line, s.module, s.names))
            .collect();
        assert_eq!(
            uses,
            vec![
                (4, "jax.numpy".to_string(), vec!["ndarray".to_string()]),
                (
                    6,
                    "jax.tree_util".to_string(),
                    vec!["register_pytree_node_class".to_string()]
                ),
            ]
        );
    }

    #[test]
    fn flask_1_1_2_imports_markup_and_escape_from_jinja2() {
        let got = statements(&real("flask-1.1.2/flask/__init__.py"), "jinja2");
        assert_eq!(
            got,
            vec![
                (
                    14,
                    "jinja2".to_string(),
                    vec!["escape".to_string()],
                    ImportGuard::None
                ),
                (
                    15,
                    "jinja2".to_string(),
                    vec!["Markup".to_string()],
                    ImportGuard::None
                ),
            ]
        );
    }

    #[test]
    fn guards_and_conditions() {
        let source = "\
import os
try:
    import click.termui
except ImportError:
    pass
try:
    from click import style
except (ModuleNotFoundError, OSError) as e:
    style = None
if TYPE_CHECKING:
    from click import Context
else:
    import click.parser
def f():
    from click import (
        echo,  # a comment
        secho as s,
    )
    x = \"\"\"
from click import not_code
\"\"\"
class C:
    import click.core
from click.testing import *
from .click import relative
";
        assert_eq!(
            statements(source, "click"),
            vec![
                (3, "click.termui".to_string(), vec![], ImportGuard::Any),
                (
                    7,
                    "click".to_string(),
                    vec!["style".to_string()],
                    ImportGuard::MissingModule
                ),
                (
                    15,
                    "click".to_string(),
                    vec!["echo".to_string(), "secho".to_string()],
                    ImportGuard::None
                ),
                (23, "click.core".to_string(), vec![], ImportGuard::None),
                (24, "click.testing".to_string(), vec![], ImportGuard::None),
            ]
        );
    }

    #[test]
    fn an_import_under_an_availability_test_runs_at_import_time() {
        // transformers 5.17.0: `if is_jinja_available():` then `import jinja2` at line 36, which
        // runs wherever Jinja2 is installed; import_statements leaves it out (an `if`).
        let source = real("transformers-5.17.0/transformers/utils/chat_template_utils.py");
        let wanted = set(&["jinja2"]);
        assert!(import_statements(&source, &wanted).is_empty());
        let found: Vec<(usize, String)> = super::import_time_statements(&source, &wanted)
            .into_iter()
            .map(|s| (s.line, s.module))
            .collect();
        assert_eq!(found.first(), Some(&(36, "jinja2".to_string())));
        assert!(found.iter().all(|(line, _)| (36..=43).contains(line)));
        // Never: typing-only, platform tests, a function body, a caught ImportError, an else.
        let source = "import sys\nif TYPE_CHECKING:\n    import typed\n\
                      if sys.platform == 'win32':\n    import winonly\n\
                      def f():\n    import later\n\
                      try:\n    import opt\nexcept ImportError:\n    opt = None\n\
                      if have():\n    pass\nelse:\n    import fallback\n\
                      class C:\n    import inclass\n\
                      if have():\n    import real\n";
        let wanted = set(&[
            "typed", "winonly", "later", "opt", "fallback", "inclass", "real",
        ]);
        let found: Vec<String> = super::import_time_statements(source, &wanted)
            .into_iter()
            .map(|s| s.module)
            .collect();
        assert_eq!(found, ["inclass", "real"]);
    }
}
