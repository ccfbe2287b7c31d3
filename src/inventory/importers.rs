//! Which installed dists use another dist's modules when they are imported, declared or not.
//!
//! In: an [`Inventory`] read from disk (each dist's `RECORD` and sources, through
//! [`super::imports`]) and the top-level module names of some dists (each with its dist). Out: one
//! [`ImportEvidence`] per installed dist whose own files import one of those modules at import
//! time ([`import_time_statements`]: at module level or under an `if` that may hold here, not in
//! a function, not under `TYPE_CHECKING` or a platform test, not in a `try:` that catches
//! `ImportError`), with the first such file and line. transformers 5.17 declares Jinja2 only
//! under its `chat-template` extra, yet `transformers/utils/chat_template_utils.py` line 36 runs
//! `import jinja2` whenever Jinja2 is installed, and `import transformers` imports that file: a
//! plan that changes Jinja2 affects transformers. A compiled extension module counts too: the
//! installed top-level module names it holds as whole strings, as its code passes them to
//! `PyImport_ImportModule` (duckdb 0.8.1's extension names `pyarrow.dataset`, though duckdb
//! does not require pyarrow), read up to a size cap ([`super::extensions::module_names_in`]), and
//! the installed modules whose names its code builds from a 16-byte constant and immediate
//! operands ([`super::assembled`]: duckdb 0.8.1's `pandas.core.arrays.arrow.dtype`, which no
//! string holds). A dotted name counts where it is a module the other
//! dist ships; a bare one (`numpy`) only where the dist declares the other in its requirements,
//! extras included: a bare word is as often an attribute or keyword name (`attr` in h5py's
//! `h5o` extension), so duckdb's bare `polars` is not seen.
//!
//! Every dist's files are read once per [`ImportIndex`] (a cheap pass over the lines naming a
//! module, [`imported_modules`]); only the files that name a wanted module are parsed. What it
//! cannot see is what [`super::imports`] cannot: imports spelled at run time or made by compiled
//! code, and dists without a `RECORD` (a snapshot, metadata copied without files).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use pep508_rs::PackageName;

use super::extensions::{Built, extension_module_names};
use super::imports::{ImportStatement, import_time_statements, imported_modules, read_installed};
use super::module_files::has_module;
use super::{InstalledDist, Inventory};

/// A dist that imports a module of another at import time, and where.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ImportEvidence {
    /// The importing dist (`transformers`).
    pub dist: PackageName,
    /// The dist whose module it imports (`jinja2`).
    pub provider: PackageName,
    /// The module imported (`jinja2`).
    pub module: String,
    /// The importing file, as `RECORD` lists it.
    pub file: String,
    /// The statement's first line (1-based); 0: `file` is a compiled extension module holding
    /// the module's name as a string, or building it in code (`built`).
    pub line: usize,
    /// How the extension module's code builds the name, where it holds no string of it.
    pub built: Option<Built>,
}

impl ImportEvidence {
    /// `file, line N`: where a user sees the import; for a compiled extension module, the file
    /// and the name it holds.
    pub(crate) fn cite(&self) -> String {
        if let Some(built) = &self.built {
            return built.cite(&self.file);
        }
        if self.line == 0 {
            return format!(
                "{}, a compiled extension module that names `{}`",
                self.file, self.module
            );
        }
        format!("{}, line {}", self.file, self.line)
    }
}

/// One file of a dist that names other modules.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Source {
    /// A compiled extension module (read for strings), else a `.py` file.
    compiled: bool,
    /// Its path in `RECORD`.
    path: String,
    /// The top-level modules its import lines (or its strings) name.
    tops: BTreeSet<String>,
    /// An extension module's whole module names (`pyarrow.dataset`) and those it builds.
    names: BTreeSet<String>,
    /// How it builds the latter (`pandas.core.arrays.arrow.dtype` in duckdb 0.8.1's).
    built: Vec<Built>,
    /// Its place in what [`imported_modules`] (or [`extension_module_names`]) answered: paths
    /// are unique, so it never decides the order of a sort.
    order: usize,
}

/// What an [`ImportIndex`] read of one dist, in the order its readers answered: each `.py` file
/// with the top-level modules its import lines name ([`imported_modules`]), and each extension
/// module with the other installed dists' module names it holds or builds
/// ([`extension_module_names`] over the index's top-level names, [`ImportIndex::of_modules`],
/// else every installed one, the dist's own left out).
pub(crate) type ReadDist = (
    Vec<(String, BTreeSet<String>)>,
    Vec<(String, BTreeSet<String>)>,
);

/// One dist's files that name modules: its `.py` files in path order, then its extension modules.
type DistFiles = Vec<Source>;

/// The source files of every installed dist that name a module on an import line, read once.
#[derive(Debug, Default)]
pub(crate) struct ImportIndex {
    /// Per dist (by its position in the inventory): each file and the top-level modules its
    /// import lines name.
    files: OnceLock<Vec<DistFiles>>,
    /// The import-time statements parsed so far: (dist folder, file, modules wanted).
    statements: Mutex<StatementsMemo>,
    /// [`ImportIndex::of_modules`]: the top-level modules whose names extension modules are
    /// read for (None: every installed one).
    only: Option<BTreeSet<String>>,
}

/// Per installed file (its dist's folder and `RECORD` path) and set of modules wanted, its
/// import-time statements of them.
type StatementsMemo = HashMap<(PathBuf, String, BTreeSet<String>), Vec<ImportStatement>>;

impl ImportIndex {
    /// An index whose extension modules are read for the names of `tops` only (top-level
    /// module names), not of every installed module: it answers only questions about `tops`
    /// ([`ImportIndex::importers`] of them, [`ImportIndex::read_dist`]). Reading an extension
    /// module's code for the names it builds costs most where many installed names start its
    /// constants; one plan's checks ask about its changed dists alone.
    pub(crate) fn of_modules(tops: BTreeSet<String>) -> ImportIndex {
        ImportIndex {
            only: Some(tops),
            ..ImportIndex::default()
        }
    }

    fn files(&self, inventory: &Inventory) -> &[DistFiles] {
        self.files
            .get_or_init(|| read_all(inventory, self.only.as_ref()))
    }

    /// What this index read of `dist` (of `inventory`), where it has read `inventory` already
    /// (None before: nothing is read here), so that a later reader of the same files needs no
    /// second pass ([`crate::verify::select`]'s deep modules after its importers).
    pub(crate) fn read_dist(
        &self,
        inventory: &Inventory,
        dist: &InstalledDist,
    ) -> Option<ReadDist> {
        let at = inventory.dists.iter().position(|d| std::ptr::eq(d, dist))?;
        let files = self.files.get()?.get(at)?;
        let mut sources: Vec<&Source> = files.iter().filter(|s| !s.compiled).collect();
        let mut compiled: Vec<&Source> = files.iter().filter(|s| s.compiled).collect();
        sources.sort_by_key(|s| s.order);
        compiled.sort_by_key(|s| s.order);
        let pairs = |list: Vec<&Source>, names: bool| -> Vec<(String, BTreeSet<String>)> {
            list.into_iter()
                .map(|s| {
                    let set = if names { &s.names } else { &s.tops };
                    (s.path.clone(), set.clone())
                })
                .collect()
        };
        Some((pairs(sources, false), pairs(compiled, true)))
    }

    /// The `.py` files whose import lines name a module of `modules` (top-level names), by
    /// dist (its position in the inventory): the cheap pass's answer ([`imported_modules`]), no
    /// statement parsed.
    pub(crate) fn sources_importing<'s>(
        &'s self,
        inventory: &Inventory,
        modules: &BTreeSet<String>,
    ) -> BTreeMap<usize, BTreeSet<&'s str>> {
        let mut out: BTreeMap<usize, BTreeSet<&str>> = BTreeMap::new();
        for (i, files) in self.files(inventory).iter().enumerate() {
            for source in files {
                if !source.compiled && !source.tops.is_disjoint(modules) {
                    out.entry(i).or_default().insert(&source.path);
                }
            }
        }
        out
    }

    /// The installed dists whose files import a module of `tops` (top-level name -> its dist)
    /// at import time: one [`ImportEvidence`] per (importing dist, provider), the first file in
    /// path order, sorted. A dist is never its own importer, nor one that ships the module.
    pub(crate) fn importers(
        &self,
        inventory: &Inventory,
        tops: &BTreeMap<String, PackageName>,
    ) -> Vec<ImportEvidence> {
        let mut out: BTreeMap<(PackageName, PackageName), ImportEvidence> = BTreeMap::new();
        if tops.is_empty() {
            return Vec::new();
        }
        let mut shipped: BTreeMap<PackageName, Option<Vec<String>>> = BTreeMap::new();
        for (dist, files) in inventory.dists.iter().zip(self.files(inventory)) {
            let wanted: BTreeSet<String> = tops
                .iter()
                .filter(|(top, provider)| *provider != dist.name() && !dist.top_level.contains(top))
                .map(|(top, _)| top.clone())
                .collect();
            for source in files {
                if source.tops.is_disjoint(&wanted) || !importable(&source.path) {
                    continue;
                }
                if source.compiled {
                    for name in &source.names {
                        let top = name.split('.').next().unwrap_or_default();
                        let Some(provider) = tops.get(top).filter(|_| wanted.contains(top)) else {
                            continue;
                        };
                        let paths = shipped.entry(provider.clone()).or_insert_with(|| {
                            inventory
                                .get(provider)
                                .and_then(|d| super::record::inside_paths(&d.path))
                        });
                        if name.contains('.')
                            && !paths.as_deref().is_some_and(|p| has_module(p, name))
                        {
                            continue;
                        }
                        if !name.contains('.') && !declares(dist, provider) {
                            continue;
                        }
                        out.entry((dist.name().clone(), provider.clone()))
                            .or_insert_with(|| ImportEvidence {
                                dist: dist.name().clone(),
                                provider: provider.clone(),
                                module: name.clone(),
                                file: source.path.clone(),
                                line: 0,
                                built: source.built.iter().find(|b| &b.module == name).cloned(),
                            });
                    }
                    continue;
                }
                let path = &source.path;
                for statement in self.statements(dist, path, &wanted) {
                    let top = statement.module.split('.').next().unwrap_or_default();
                    let provider = tops[top].clone();
                    out.entry((dist.name().clone(), provider.clone()))
                        .or_insert_with(|| ImportEvidence {
                            dist: dist.name().clone(),
                            provider,
                            module: statement.module.clone(),
                            file: path.clone(),
                            line: statement.line,
                            built: None,
                        });
                }
            }
        }
        out.into_values().collect()
    }

    /// The module names of `provider` that other installed dists' extension modules build in
    /// code ([`Built`]: duckdb 0.8.1's `pandas.core.arrays.arrow.dtype`), each with the dist and
    /// the extension module's path, in inventory order.
    pub(crate) fn built_modules<'i>(
        &self,
        inventory: &'i Inventory,
        provider: &PackageName,
    ) -> Vec<(&'i InstalledDist, String, Built)> {
        let Some(tops) = inventory.get(provider).map(|d| &d.top_level) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (dist, files) in inventory.dists.iter().zip(self.files(inventory)) {
            if dist.name() == provider {
                continue;
            }
            for source in files.iter().filter(|s| s.compiled && importable(&s.path)) {
                for built in &source.built {
                    let top = built.module.split('.').next().unwrap_or_default();
                    if tops.iter().any(|t| t == top) {
                        out.push((dist, source.path.clone(), built.clone()));
                    }
                }
            }
        }
        out
    }

    /// [`import_time_statements`] of `wanted` in the installed file `path` of `dist`, each file
    /// and set of modules parsed once (the `nvidia-*-cu12` dists all ask for `nvidia`).
    fn statements(
        &self,
        dist: &InstalledDist,
        path: &str,
        wanted: &BTreeSet<String>,
    ) -> Vec<ImportStatement> {
        let lock = || self.statements.lock().unwrap_or_else(|e| e.into_inner());
        let key = (dist.path.clone(), path.to_string(), wanted.clone());
        if let Some(known) = lock().get(&key) {
            return known.clone();
        }
        let found = read_installed(dist, path)
            .map(|bytes| import_time_statements(&String::from_utf8_lossy(&bytes), wanted))
            .unwrap_or_default();
        lock().insert(key, found.clone());
        found
    }
}

/// [`dist_files`] of every dist, in inventory order (extension modules read for the names of
/// `only`, else of every installed top-level module); read on a few threads (the files of a
/// large venv are tens of thousands).
fn read_all(inventory: &Inventory, only: Option<&BTreeSet<String>>) -> Vec<DistFiles> {
    let all_tops: &BTreeSet<String> = &inventory
        .dists
        .iter()
        .flat_map(|d| d.top_level.iter().cloned())
        .filter(|top| only.is_none_or(|only| only.contains(top)))
        .collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    let chunk = inventory.dists.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = inventory
            .dists
            .chunks(chunk)
            .map(|dists| {
                let handle = scope.spawn(move || {
                    dists
                        .iter()
                        .map(|dist| dist_files(dist, all_tops, inventory))
                        .collect::<Vec<_>>()
                });
                (handle, dists.len())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(h, n)| h.join().unwrap_or_else(|_| vec![Vec::new(); n]))
            .collect()
    })
}

/// The files of `dist` that name modules: its `.py` files' import lines ([`imported_modules`]),
/// then the installed modules its extension modules name or build ([`extension_module_names`]).
fn dist_files(
    dist: &InstalledDist,
    all_tops: &BTreeSet<String>,
    inventory: &Inventory,
) -> DistFiles {
    let mut files: DistFiles = imported_modules(dist)
        .into_iter()
        .enumerate()
        .map(|(order, (path, tops))| Source {
            compiled: false,
            path,
            tops,
            names: BTreeSet::new(),
            built: Vec::new(),
            order,
        })
        .collect();
    let installed = |top: &str| all_tops.contains(top) && !dist.top_level.iter().any(|t| t == top);
    let shipped = |head: &str| shipped_under(inventory, head);
    for (order, (path, names, built)) in extension_module_names(dist, &installed, &shipped)
        .into_iter()
        .enumerate()
    {
        files.push(Source {
            order,
            compiled: true,
            path,
            tops: names
                .iter()
                .map(|n| n.split('.').next().unwrap_or_default().to_string())
                .collect(),
            names,
            built,
        });
    }
    files.sort();
    files
}

/// The modules the installed dists that ship `head`'s top-level module hold whose names start
/// with `head` ([`super::assembled::modules_starting`] over their `RECORD`s).
pub(crate) fn shipped_under(inventory: &Inventory, head: &str) -> Vec<String> {
    let top = head.split('.').next().unwrap_or(head);
    inventory
        .dists
        .iter()
        .filter(|d| d.top_level.iter().any(|t| t == top))
        .filter_map(|d| super::record::inside_paths(&d.path))
        .flat_map(|paths| super::assembled::modules_starting(&paths, head))
        .collect()
}

/// Whether `dist` declares `provider` among its requirements, under any marker or extra. A bare
/// (undotted) string in a compiled extension is an import only then: a Cython module keeps its
/// imported names, attribute names and keyword names alike as whole C strings in one table, so
/// `attr` in h5py 3.16.0's `h5o` extension (the `attr` field of `_ObjMetaInfo`), in pandas
/// 2.3.3's `offsets` and `attrs` in pyarrow 15.0.2's `_dataset_parquet` (keyword and attribute
/// names) name attrs' module without importing it, and none of the three requires attrs; the
/// `numpy` those extensions do import is a requirement of each. A dotted name is specific
/// enough alone: it counts where the other dist's `RECORD` holds that module ([`has_module`]: a
/// dotted string in a binary that is no module of the dist it starts with, grpcio's
/// `google.protobuf.Any`, a message type, names no import).
fn declares(dist: &InstalledDist, provider: &PackageName) -> bool {
    dist.metadata
        .requires_dist
        .iter()
        .any(|r| &r.name == provider)
}

/// Whether `path` can be a module: every folder an identifier and the file's name one before its
/// first dot (`sympy/parsing/autolev/test-examples/.../chaos_pendulum.py` cannot be imported).
fn importable(path: &str) -> bool {
    let ident = |part: &str| {
        part.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && part.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    let mut parts: Vec<&str> = path.split('/').collect();
    let file = parts.pop().unwrap_or_default();
    parts.into_iter().all(ident) && ident(file.split('.').next().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::importable;

    #[test]
    fn only_a_path_python_can_import_is_a_module() {
        assert!(importable("transformers/utils/chat_template_utils.py"));
        assert!(importable("_duckdb.cpython-311-x86_64-linux-gnu.so"));
        assert!(!importable(
            "sympy/parsing/autolev/test-examples/pydy-example-repo/chaos_pendulum.py"
        ));
        assert!(!importable("bin/run-me.py"));
    }
}
