//! Breaks that follow the import chain: a dist whose own import fails takes down every kept
//! dist that imports it when it is imported. Jinja2 2.11.3 beside MarkupSafe 3 fails `import
//! jinja2` (`jinja2/filters.py` line 13 imports `soft_unicode`, which MarkupSafe 3 does not
//! have), so transformers' `utils/chat_template_utils.py`, which runs `import jinja2` at import
//! time (line 36), fails with it.
//!
//! In: the failing statements the other checks found ([`Failing`]: an installed dist's import
//! of a name a changed dist no longer has, `import-target-missing`; a planned release's import
//! the planned environment cannot satisfy, `planned-import-missing`), the inventory, the planned
//! environment, the [`Oracle`] (the planned wheel's files) and the installed dists' import-time
//! imports ([`ImportIndex`]). Out: per dependent that breaks through the chain, one sentence
//! citing each link with its file and line, its [`Citation`] (the dependent's import), and the
//! dependent's name ([`Chained`]).
//!
//! A link is claimed only where it is certain: the failing statement sits at its module's top
//! level (outside every `def`, `if` and `try`), its file is reached from the dist's top-level
//! package by top-level imports of its own modules ([`reach`], the path cited), and the
//! dependent's statement runs when its file is imported (the [`ImportIndex`]'s rule). A
//! dependent the plan moves is left out (its planned files are not these), and so is one that
//! breaks by itself already. Bounded: [`DEPTH`] links past the failing dist, [`NAMED`]
//! dependents per change, [`READ`] files per path searched.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::imports_check::module_file;
use super::modules::top_level_of;
use super::oracle::Oracle;
use super::planned::PlannedEnvironment;
use super::proposal::{Break, BreakKind};
use crate::inventory::importers::ImportIndex;
use crate::inventory::imports::{read_installed, unconditional_imports};
use crate::inventory::{InstalledDist, Inventory};
use crate::risk::Citation;

/// How many links past the failing dist are followed (transformers importing jinja2 is one).
const DEPTH: usize = 2;

/// At most this many dependents are named per change.
const NAMED: usize = 5;

/// At most this many files of a dist are read looking for the path to a failing file.
const READ: usize = 64;

/// One statement that fails on import after the plan.
#[derive(Debug, Clone)]
pub(crate) struct Failing {
    /// The dist whose file it is (jinja2) and its version after the plan (2.11.3).
    pub dist: PackageName,
    pub version: Version,
    /// The file is the planned release's wheel member (not the installed copy).
    pub planned: bool,
    /// The file (`jinja2/filters.py`) and the statement's line (13).
    pub file: String,
    pub line: usize,
    /// What fails, as the rest of a sentence: "imports `soft_unicode` from `markupsafe`, which
    /// markupsafe 3.0.4 does not have".
    pub what: String,
    /// The statement is known to run whenever its file is imported (else its line is checked to
    /// be a top-level import).
    pub top_level: bool,
    /// A dependent is named only where its importing file is reached from one of its own
    /// top-level packages by top-level imports ([`reach`] over its installed files): pandas
    /// 2.2.3's `core/arrays/arrow/extension_types.py` imports pyarrow at module level, yet
    /// `import pandas` does not import that file and works beside a pyarrow that fails.
    pub reached_only: bool,
}

/// The first of `citations` made in `dependent`'s files (where its import fails).
pub(crate) fn cited_import(citations: &[Citation], dependent: &PackageName) -> Option<Citation> {
    citations
        .iter()
        .find(|c| c.dist.parse::<PackageName>().is_ok_and(|d| &d == dependent))
        .cloned()
}

/// The dependents that break through the chain.
#[derive(Debug, Default)]
pub(crate) struct Chained {
    /// One sentence per dependent (the first [`NAMED`], then how many more).
    pub sentences: Vec<String>,
    /// Each dependent's import, as data (every one).
    pub citations: Vec<Citation>,
    /// The dependents, in the order found.
    pub dependents: Vec<PackageName>,
}

impl Chained {
    /// The breaks of moving `package` to `to` that the chain names: one
    /// [`BreakKind::ImportChain`] per dependent, which are taken out of `self`.
    pub(crate) fn take_breaks(&mut self, package: &PackageName, to: &Version) -> Vec<Break> {
        std::mem::take(&mut self.dependents)
            .into_iter()
            .map(|dependent| Break {
                package: package.clone(),
                to: to.clone(),
                cited: cited_import(&self.citations, &dependent),
                dependent,
                how: BreakKind::ImportChain,
            })
            .collect()
    }
}

/// What the chain is followed over.
pub(crate) struct ChainWorld<'a> {
    pub inventory: &'a Inventory,
    pub planned: &'a PlannedEnvironment,
    pub oracle: &'a dyn Oracle,
    pub index: &'a ImportIndex,
}

impl ChainWorld<'_> {
    /// Whether the plan keeps `name` as installed.
    fn kept(&self, name: &PackageName) -> bool {
        self.inventory.get(name).is_some_and(|d| {
            self.planned
                .dists
                .get(name)
                .is_some_and(|p| &p.version == d.version())
        })
    }

    /// The files of the dist a failing statement is in, and its top-level modules.
    fn files(&self, f: &Failing) -> Option<(Vec<String>, BTreeSet<String>)> {
        if f.planned {
            let files = self.oracle.wheel_files(&f.dist, &f.version)?;
            let tops = top_level_of(&files);
            return Some((files, tops));
        }
        let dist = self.inventory.get(&f.dist)?;
        let files = self.oracle.installed_files(&f.dist)?;
        let tops = dist.top_level.iter().cloned().collect();
        Some((files, tops))
    }

    /// The text of one file of the dist a failing statement is in.
    fn text(&self, f: &Failing, path: &str) -> Option<String> {
        if f.planned {
            return self.oracle.wheel_text(&f.dist, &f.version, path);
        }
        let bytes = read_installed(self.inventory.get(&f.dist)?, path)?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// The kept dependents that `failing` takes down through their imports, link by link.
pub(crate) fn chained_breaks(failing: Vec<Failing>, world: &ChainWorld<'_>) -> Chained {
    let mut out = Chained::default();
    let mut done: BTreeSet<PackageName> = failing.iter().map(|f| f.dist.clone()).collect();
    let mut chained = BTreeSet::new();
    let mut found = Vec::new();
    let mut level = failing;
    for _ in 0..DEPTH {
        let mut next = Vec::new();
        let mut tried = BTreeSet::new();
        for f in &level {
            if !tried.insert((f.dist.clone(), f.file.clone(), f.line)) {
                continue;
            }
            for (sentence, citation, dependent) in
                dependents_of(f, world, (&mut done, &mut chained))
            {
                next.push(Failing {
                    dist: dependent.clone(),
                    version: citation
                        .version
                        .parse()
                        .unwrap_or_else(|_| f.version.clone()),
                    planned: false,
                    file: citation.file.clone(),
                    line: citation.line,
                    what: format!(
                        "imports `{}`, which {} {} fails to import",
                        citation.module, f.dist, f.version
                    ),
                    top_level: true,
                    reached_only: f.reached_only,
                });
                found.push(sentence);
                out.citations.push(citation);
                out.dependents.push(dependent);
            }
        }
        level = next;
    }
    let more = found.len().saturating_sub(NAMED);
    found.truncate(NAMED);
    if more > 0 {
        found.push(format!("and {more} more that import them"));
    }
    out.sentences = found;
    out
}

/// The kept dists that import, at import time, the top-level package through which `f`'s
/// file is imported; each with its sentence and citation. `done` holds the dists already
/// named (or broken by themselves) and gains those found; `chained` the (dist, top-level
/// module) pairs already followed, which are not followed again for another failing statement.
fn dependents_of(
    f: &Failing,
    world: &ChainWorld<'_>,
    (done, chained): (
        &mut BTreeSet<PackageName>,
        &mut BTreeSet<(PackageName, String)>,
    ),
) -> Vec<(String, Citation, PackageName)> {
    let mut out = Vec::new();
    let Some((files, tops)) = world.files(f) else {
        return out;
    };
    if !f.top_level && !runs_at_top_level(f, world) {
        return out;
    }
    let text = |path: &str| world.text(f, path);
    for top in &tops {
        if chained.contains(&(f.dist.clone(), top.clone())) {
            continue;
        }
        let Some(path) = reach(&files, &text, top, &f.file) else {
            continue;
        };
        chained.insert((f.dist.clone(), top.clone()));
        let wanted: BTreeMap<String, PackageName> = [(top.clone(), f.dist.clone())].into();
        for evidence in world.index.importers(world.inventory, &wanted) {
            if evidence.line == 0 || done.contains(&evidence.dist) || !world.kept(&evidence.dist) {
                continue;
            }
            let Some(dist) = world.inventory.get(&evidence.dist) else {
                continue;
            };
            if f.reached_only && !imported_with_its_package(dist, &evidence.file, world) {
                continue;
            }
            done.insert(evidence.dist.clone());
            let via: String = path
                .iter()
                .map(|(file, line)| format!(", imported by {file}, line {line}"))
                .rev()
                .collect();
            let sentence = format!(
                "{} {} ({}) imports `{}`, which fails on import: {} {} ({}, line {}{via}) {}",
                evidence.dist,
                dist.version(),
                evidence.cite(),
                evidence.module,
                f.dist,
                f.version,
                f.file,
                f.line,
                f.what
            );
            let citation = Citation {
                dist: evidence.dist.to_string(),
                version: dist.version().to_string(),
                file: evidence.file.clone(),
                line: evidence.line,
                module: evidence.module.clone(),
                name: None,
                attribute: false,
                function: None,
            };
            out.push((sentence, citation, evidence.dist));
        }
    }
    out
}

/// Whether importing one of `dist`'s top-level packages imports `file` ([`reach`] over its
/// installed files).
fn imported_with_its_package(dist: &InstalledDist, file: &str, world: &ChainWorld<'_>) -> bool {
    let Some(files) = world.oracle.installed_files(dist.name()) else {
        return false;
    };
    let text =
        |path: &str| read_installed(dist, path).map(|b| String::from_utf8_lossy(&b).into_owned());
    dist.top_level
        .iter()
        .any(|top| reach(&files, &text, top, file).is_some())
}

/// Whether the failing statement is a top-level import of its file (one under a `def`, an
/// `if` or a `try` may not run when the file is imported).
fn runs_at_top_level(f: &Failing, world: &ChainWorld<'_>) -> bool {
    world.text(f, &f.file).is_some_and(|text| {
        unconditional_imports(&text, &package_of(&f.file))
            .iter()
            .any(|s| s.line == f.line)
    })
}

/// How importing the top-level module `top` reaches the file `target`: the top-level imports of
/// the dist's own modules from `top`'s file to it, each as (importing file, line), in order
/// (empty when `target` is `top`'s own file); `None` when it is not reached within [`READ`]
/// files or a file on the way cannot be read.
pub(crate) fn reach(
    files: &[String],
    text: &dyn Fn(&str) -> Option<String>,
    top: &str,
    target: &str,
) -> Option<Vec<(String, usize)>> {
    let start = module_file(files, top)?;
    let mut parent: BTreeMap<String, Option<(String, usize)>> = BTreeMap::new();
    parent.insert(start.clone(), None);
    let mut queue = VecDeque::from([start]);
    let mut read = 0;
    while let Some(path) = queue.pop_front() {
        if path == target {
            let mut links = Vec::new();
            let mut at = path;
            while let Some(Some((from, line))) = parent.get(&at) {
                links.push((from.clone(), *line));
                at = from.clone();
            }
            links.reverse();
            return Some(links);
        }
        if read == READ {
            return None;
        }
        read += 1;
        let Some(source) = text(&path) else {
            continue;
        };
        for statement in unconditional_imports(&source, &package_of(&path)) {
            if statement.module.split('.').next() != Some(top) {
                continue;
            }
            let names = statement
                .names
                .iter()
                .map(|n| format!("{}.{n}", statement.module));
            for module in std::iter::once(statement.module.clone()).chain(names) {
                for file in ancestors(&module).flat_map(|m| source_files(files, &m)) {
                    if !parent.contains_key(&file) {
                        parent.insert(file.clone(), Some((path.clone(), statement.line)));
                        queue.push_back(file);
                    }
                }
            }
        }
    }
    None
}

/// The sources of the module `a.b` in a file list: its Python file ([`module_file`]) and its
/// Cython source `a/b.pyx` (shipped beside the extension built from it: pyarrow's `lib.pyx`).
fn source_files(files: &[String], module: &str) -> Vec<String> {
    let pyx = format!("{}.pyx", module.replace('.', "/"));
    module_file(files, module)
        .into_iter()
        .chain(files.contains(&pyx).then_some(pyx))
        .collect()
}

/// The dotted package a module file is in: `a/b/__init__.py` and `a/b/c.py` are in `a.b`.
pub(super) fn package_of(path: &str) -> String {
    let dir = path.rsplit_once('/').map_or("", |(dir, _)| dir);
    dir.replace('/', ".")
}

/// `a`, `a.b`, `a.b.c` for `a.b.c`: the modules importing it runs.
fn ancestors(module: &str) -> impl Iterator<Item = String> + '_ {
    module
        .match_indices('.')
        .map(|(at, _)| module[..at].to_string())
        .chain(std::iter::once(module.to_string()))
}

#[cfg(test)]
mod tests {
    use super::reach;

    /// Jinja2 2.11.3: `jinja2/__init__.py` line 1 imports `.filters`, whose line 13 fails; a
    /// module only a function imports is not reached.
    #[test]
    fn a_file_is_reached_from_its_package_by_top_level_imports() {
        let files: Vec<String> = [
            "jinja2/__init__.py",
            "jinja2/filters.py",
            "jinja2/utils.py",
            "jinja2/lazy.py",
            "jinja2-2.11.3.dist-info/RECORD",
        ]
        .map(String::from)
        .to_vec();
        let text = |path: &str| -> Option<String> {
            Some(
                match path {
                    "jinja2/__init__.py" => {
                        "from .utils import x\nfrom .filters import do_escape\n"
                    }
                    "jinja2/utils.py" => "x = 1\n\n\ndef later():\n    from . import lazy\n",
                    _ => "",
                }
                .to_string(),
            )
        };
        assert_eq!(
            reach(&files, &text, "jinja2", "jinja2/filters.py"),
            Some(vec![("jinja2/__init__.py".to_string(), 2)])
        );
        assert_eq!(
            reach(&files, &text, "jinja2", "jinja2/__init__.py"),
            Some(vec![])
        );
        assert_eq!(reach(&files, &text, "jinja2", "jinja2/lazy.py"), None);
    }

    /// pyarrow 26.0.1 ships `pyarrow/lib.pyx` beside the extension built from it; its
    /// `__init__.py` imports `pyarrow.lib` at module level, so the `.pyx` is reached.
    #[test]
    fn a_cython_source_is_reached_through_its_module() {
        let files: Vec<String> = [
            "pyarrow/__init__.py",
            "pyarrow/lib.cpython-311-x86_64-linux-gnu.so",
            "pyarrow/lib.pyx",
        ]
        .map(String::from)
        .to_vec();
        let text = |path: &str| -> Option<String> {
            (path == "pyarrow/__init__.py")
                .then(|| "import os\n\nimport pyarrow.lib as _lib\n".to_string())
        };
        assert_eq!(
            reach(&files, &text, "pyarrow", "pyarrow/lib.pyx"),
            Some(vec![("pyarrow/__init__.py".to_string(), 3)])
        );
    }
}
