//! Which files of an installed dist are read, and the first, cheap pass over them (which
//! modules a file names at all) before [`super::statements`] parses the ones that matter.

use std::collections::BTreeSet;

use memchr::memmem;

use super::ImportUse;
use super::fallbacks::fallback_imports;
use super::statements::import_statements_run_by;
use super::{ImportGuard, ImportStatement};
use crate::inventory::extensions::read_capped;
use crate::inventory::{DistFormat, InstalledDist};
use crate::inventory::{editable, record};

/// At most this many bytes are read from one source file.
pub(crate) const MAX_FILE_BYTES: u64 = 4 << 20;

/// The first `.py` file of `dist` (its path in `RECORD`, or an editable install's absolute
/// path in its project) that imports `module`.
pub(crate) fn imports_module(dist: &InstalledDist, module: &str) -> Option<String> {
    if dist.format == DistFormat::Snapshot || module.is_empty() {
        return None;
    }
    let site = dist.path.parent()?;
    let mut paths = record::inside_paths(&dist.path)?;
    paths.extend(editable::sources(dist));
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
pub(super) fn imports(line: &str, module: &str) -> bool {
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
pub(super) fn imported_tops(source: &[u8]) -> BTreeSet<String> {
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

/// The `.py` files a dist's `RECORD` lists, and an editable install's in its project
/// ([`editable::sources`], absolute paths), less vendored copies of other libraries, tests
/// (not the dist's own code paths: pip's `_vendor/pyparsing/diagram` imports jinja2) and a build
/// folder's copy of the dist ([`is_build_copy`]).
fn own_sources(dist: &InstalledDist) -> Vec<String> {
    if dist.format == DistFormat::Snapshot {
        return Vec::new();
    }
    let paths = record::inside_paths(&dist.path).unwrap_or_default();
    let mut own: Vec<String> = paths
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
        .collect();
    own.extend(editable::sources(dist));
    own
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
    let scripts = script_functions(dist);
    for path in paths {
        let Some(bytes) = read_capped(&site.join(&path), MAX_FILE_BYTES) else {
            continue;
        };
        if !finders.iter().any(|f| f.find(&bytes).is_some()) {
            continue;
        }
        let entry = scripts.get(&path).map_or(&[][..], Vec::as_slice);
        let source = String::from_utf8_lossy(&bytes);
        let fallbacks = fallback_imports(&source, modules).into_iter().map(
            |(line, module, names, fallback)| ImportStatement {
                line,
                module,
                names,
                guard: ImportGuard::Any,
                dead: false,
                deferred: false,
                attribute: false,
                function: None,
                fallback: Some(Box::new(fallback)),
            },
        );
        for statement in import_statements_run_by(&source, modules, entry)
            .into_iter()
            .chain(fallbacks)
        {
            let key = (
                statement.module.clone(),
                statement.names.clone(),
                statement.guard,
                statement.dead,
                statement.deferred,
                statement.attribute,
                statement.fallback.as_ref().map(|_| statement.line),
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

/// The paths an installed dist's `RECORD` lists (`None` without one, and for a snapshot: its
/// files are on another machine), or a legacy
/// egg-info's `installed-files.txt` ([`record::inside_paths`]).
pub(crate) fn record_paths(dist: &InstalledDist) -> Option<Vec<String>> {
    match dist.format {
        DistFormat::DistInfo => record::paths(&dist.path),
        DistFormat::EggInfo => record::inside_paths(&dist.path),
        DistFormat::Snapshot => None,
    }
}

/// One installed file of a dist (a path its `RECORD` lists), at most 4 MiB.
pub(crate) fn read_installed(dist: &InstalledDist, path: &str) -> Option<Vec<u8>> {
    if !record::is_inside(path) {
        return None;
    }
    read_capped(&dist.path.parent()?.join(path), MAX_FILE_BYTES)
}

/// Per file of `dist` (its path in `RECORD`), the functions its console and GUI scripts call
/// (`black = black:patched_main` in black 22.1.0's `entry_points.txt`: `black/__init__.py`,
/// `patched_main`; `mod:Class.method`: `Class` and `method`).
fn script_functions(dist: &InstalledDist) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut out: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    let Some(text) = read_capped(&dist.path.join("entry_points.txt"), MAX_FILE_BYTES) else {
        return out;
    };
    let mut section = String::new();
    for line in String::from_utf8_lossy(&text).lines().map(str::trim) {
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = s.trim().to_string();
            continue;
        }
        if !matches!(section.as_str(), "console_scripts" | "gui_scripts") {
            continue;
        }
        let Some((module, object)) = line.split_once('=').and_then(|(_, t)| t.split_once(':'))
        else {
            continue;
        };
        let object = object.split('[').next().unwrap_or("").trim();
        let stem = module.trim().replace('.', "/");
        let names: Vec<String> = [object.split('.').next(), object.rsplit('.').next()]
            .into_iter()
            .flatten()
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect();
        for file in [format!("{stem}.py"), format!("{stem}/__init__.py")] {
            out.entry(file).or_default().extend(names.iter().cloned());
        }
    }
    out
}
