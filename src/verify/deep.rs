//! Modules below the top level that verification imports: the files the static import analysis
//! finds importing a changed dist.
//!
//! In: an installed dist read from disk (its `RECORD` and sources, through
//! [`crate::inventory::imports`]), the top-level module names of the dists that change (each with
//! its dist), and the files a plan's `import-target-missing` factors cite. Out: one
//! [`DeepModule`] per importing file, as an import name (`celery/concurrency/asynpool.py` ->
//! `celery.concurrency.asynpool`), and the changed dists' own modules those files import when
//! they are imported (`billiard.compat`; `from a.b import c` names `a.b` and `a.b.c`, which may
//! be a submodule; not an import in a function that never runs, nor one whose failure a `try:`
//! catches), and those a dependent's compiled extension modules name as strings
//! ([`compiled_importing`]: duckdb's `pyarrow.dataset`).
//!
//! A file becomes a module only when every part of its path is an identifier and its first part
//! is one of the dist's top-level names (scripts, `__main__.py` and `setup.py` are left out;
//! tests and vendored copies are never read). What it cannot see is what
//! [`crate::inventory::imports`] cannot: imports spelled at run time, and names compiled code
//! builds from parts or holds past the bytes read.

use std::collections::{BTreeMap, BTreeSet};
use std::str::FromStr;

use pep508_rs::PackageName;
use serde::Serialize;

use crate::inventory::extensions::extension_module_names;
use crate::inventory::importers::shipped_under;
use crate::inventory::imports::{
    ImportGuard, import_uses_in, imported_modules, read_installed, unconditional_imports,
};
use crate::inventory::{InstalledDist, Inventory};
use crate::risk::{Citation, FactorKind, RiskFactor, RiskScore};

/// One module below the top level to import, and the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct DeepModule {
    /// The import name (`celery.concurrency.asynpool`).
    pub module: String,
    /// The changed dist whose modules it imports (for a changed dist's own module: itself).
    pub imports: PackageName,
    /// The file that says so (its path in `RECORD`): the importing file.
    pub file: String,
    /// A risk factor of the plan (`import-target-missing`) cites this file.
    pub cited: bool,
    /// How many of the dist's other modules to import import this one at module level
    /// ([`rank_by_fan_in`]); verify.py imports the most imported first.
    #[serde(skip_serializing_if = "is_zero")]
    pub fan_in: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The changed dists' top-level module names, each with its dist.
pub(crate) type ChangedTops = BTreeMap<String, PackageName>;

/// For a namespace package that several installed dists share (`google`: protobuf ships
/// `google/protobuf/`, googleapis-common-protos `google/api/`, `google/type/`, ...), the dist
/// that ships each name below it: `google` -> `protobuf` -> protobuf. A name two dists ship
/// (`google/cloud/`) has no owner and is left out.
pub(crate) type Portions = BTreeMap<String, BTreeMap<String, PackageName>>;

/// The [`Portions`] of the top-level names two or more of `dists` share, from their `RECORD`s;
/// a dist that ships the top's `__init__.py` (a regular package, not a namespace portion) owns
/// nothing below it.
pub(crate) fn namespace_portions(dists: &[InstalledDist]) -> Portions {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for top in dists.iter().flat_map(|d| d.top_level.iter()) {
        *count.entry(top.as_str()).or_default() += 1;
    }
    let mut owners: BTreeMap<String, BTreeMap<String, BTreeSet<PackageName>>> = BTreeMap::new();
    for dist in dists {
        let shared: Vec<&String> = dist
            .top_level
            .iter()
            .filter(|t| count[t.as_str()] > 1)
            .collect();
        if shared.is_empty() {
            continue;
        }
        let paths = crate::inventory::record::inside_paths(&dist.path).unwrap_or_default();
        for top in shared {
            if paths.iter().any(|p| *p == format!("{top}/__init__.py")) {
                continue;
            }
            for path in &paths {
                let Some(rest) = path
                    .strip_prefix(top.as_str())
                    .and_then(|r| r.strip_prefix('/'))
                else {
                    continue;
                };
                let first = rest.split('/').next().unwrap_or_default();
                let name = first.split('.').next().unwrap_or_default();
                if !name.is_empty() && name != "__pycache__" {
                    owners
                        .entry(top.clone())
                        .or_default()
                        .entry(name.to_string())
                        .or_default()
                        .insert(dist.name().clone());
                }
            }
        }
    }
    owners
        .into_iter()
        .map(|(top, names)| {
            let owned = names
                .into_iter()
                .filter(|(_, by)| by.len() == 1)
                .filter_map(|(name, by)| Some((name, by.into_iter().next()?)))
                .collect();
            (top, owned)
        })
        .collect()
}

/// The modules of `dist` whose sources import one of `tops`, and the modules of the changed
/// dists those sources import (keyed by the changed dist). A top-level name `dist` shares with
/// a changed dist as namespace packages (`google`, for googleapis-common-protos and protobuf)
/// counts where a statement imports the changed dist's own part of it ([`Portions`]:
/// `from google.protobuf import descriptor`, not `from google.api import http_pb2`).
pub(crate) fn importing_modules(
    dist: &InstalledDist,
    tops: &ChangedTops,
    portions: &Portions,
) -> (Vec<DeepModule>, BTreeMap<PackageName, Vec<DeepModule>>) {
    if tops.is_empty() {
        return (Vec::new(), BTreeMap::new());
    }
    importing_modules_in(dist, imported_modules(dist), tops, portions)
}

/// [`importing_modules`] from `imported`, what [`imported_modules`] answers for `dist` (read
/// already: [`crate::inventory::importers::ImportIndex::read_dist`]).
pub(crate) fn importing_modules_in(
    dist: &InstalledDist,
    imported: Vec<(String, BTreeSet<String>)>,
    tops: &ChangedTops,
    portions: &Portions,
) -> (Vec<DeepModule>, BTreeMap<PackageName, Vec<DeepModule>>) {
    let mut own = Vec::new();
    let mut theirs: BTreeMap<PackageName, Vec<DeepModule>> = BTreeMap::new();
    if tops.is_empty() {
        return (own, theirs);
    }
    let packages = own_tops(dist);
    let shared: BTreeSet<String> = dist
        .top_level
        .iter()
        .filter(|t| tops.contains_key(*t) && portions.contains_key(*t))
        .cloned()
        .collect();
    let mut sharing: Vec<(String, String)> = Vec::new();
    let files: Vec<(String, String, BTreeSet<String>)> = imported
        .into_iter()
        .filter_map(|(path, imported)| {
            let module = module_of_path(&path, &packages)?;
            if imported.iter().any(|top| shared.contains(top)) {
                sharing.push((path.clone(), module.clone()));
            }
            let hit: BTreeSet<String> = imported
                .into_iter()
                .filter(|top| tops.contains_key(top) && !dist.top_level.contains(top))
                .collect();
            (!hit.is_empty()).then_some((path, module, hit))
        })
        .collect();
    shared_namespace_imports(
        dist,
        tops,
        portions,
        (&shared, &sharing),
        (&mut own, &mut theirs),
    );
    for (path, module, hit) in &files {
        for top in hit {
            own.push(DeepModule {
                module: module.clone(),
                imports: tops[top].clone(),
                file: path.clone(),
                cited: false,
                fan_in: 0,
            });
        }
    }
    let paths: Vec<&str> = files.iter().map(|(p, _, _)| p.as_str()).collect();
    let wanted: BTreeSet<String> = files.iter().flat_map(|(_, _, h)| h.clone()).collect();
    for import in import_uses_in(dist, &paths, &wanted) {
        let statement = import.statement;
        if statement.dead || statement.guard == ImportGuard::Any || statement.attribute {
            continue; // it never runs, its failure is caught, or it is no import
        }
        let top = statement.module.split('.').next().unwrap_or_default();
        let changed = tops[top].clone();
        let submodules = statement
            .names
            .iter()
            .map(|n| format!("{}.{n}", statement.module));
        let modules = std::iter::once(statement.module.clone()).chain(submodules);
        for module in modules.filter(|m| m.contains('.')) {
            theirs.entry(changed.clone()).or_default().push(DeepModule {
                imports: changed.clone(),
                module,
                file: import.file.clone(),
                cited: false,
                fan_in: 0,
            });
        }
    }
    dedup(&mut own);
    for list in theirs.values_mut() {
        dedup(list);
    }
    (own, theirs)
}

/// [`importing_modules`] for the files of `sharing` (path, module) that import a name of
/// `shared` (top-level names `dist` shares with a changed dist as namespace packages): those
/// whose import statement names a part of the namespace another dist of `tops` owns, and that
/// dist's modules they import.
fn shared_namespace_imports(
    dist: &InstalledDist,
    tops: &ChangedTops,
    portions: &Portions,
    (shared, sharing): (&BTreeSet<String>, &[(String, String)]),
    (own, theirs): (
        &mut Vec<DeepModule>,
        &mut BTreeMap<PackageName, Vec<DeepModule>>,
    ),
) {
    if sharing.is_empty() {
        return;
    }
    let changed: BTreeSet<&PackageName> = tops.values().collect();
    let owner = |module: &str| {
        let mut parts = module.split('.');
        let (top, name) = (parts.next()?, parts.next()?);
        let by = portions.get(top)?.get(name)?;
        (by != dist.name() && changed.contains(by)).then(|| by.clone())
    };
    // One file at a time: `import_uses_in` keeps one of each statement across the files it
    // reads, and every generated module of googleapis-common-protos has the same imports.
    for (path, module) in sharing {
        for import in import_uses_in(dist, &[path.as_str()], shared) {
            let statement = import.statement;
            let Some(by) = owner(&statement.module) else {
                continue;
            };
            own.push(DeepModule {
                module: module.clone(),
                imports: by.clone(),
                file: path.clone(),
                cited: false,
                fan_in: 0,
            });
            if statement.dead || statement.guard == ImportGuard::Any || statement.attribute {
                continue;
            }
            let submodules = statement
                .names
                .iter()
                .map(|n| format!("{}.{n}", statement.module));
            for imported in std::iter::once(statement.module.clone()).chain(submodules) {
                theirs.entry(by.clone()).or_default().push(DeepModule {
                    imports: by.clone(),
                    module: imported,
                    file: path.clone(),
                    cited: false,
                    fan_in: 0,
                });
            }
        }
    }
}

/// The changed dists' modules below the top level that `dist`'s compiled extension modules name
/// or build in code (duckdb 0.8.1's extension names `pyarrow.dataset` and builds
/// `pandas.core.arrays.arrow.dtype` from a constant and immediate operands), keyed by the changed
/// dist, each with the extension's file ([`extension_module_names`]).
pub(crate) fn compiled_importing(
    dist: &InstalledDist,
    tops: &ChangedTops,
    inventory: &Inventory,
) -> BTreeMap<PackageName, Vec<DeepModule>> {
    if tops.is_empty() {
        return BTreeMap::new();
    }
    let wanted = |top: &str| tops.contains_key(top) && !dist.top_level.iter().any(|t| t == top);
    let shipped = |head: &str| shipped_under(inventory, head);
    let named = extension_module_names(dist, &wanted, &shipped)
        .into_iter()
        .map(|(file, names, _)| (file, names))
        .collect();
    compiled_importing_in(dist, named, tops)
}

/// [`compiled_importing`] from `named`: each extension module of `dist` with the installed
/// module names it holds or builds, of any dist but `dist` (read already:
/// [`crate::inventory::importers::ImportIndex::read_dist`]); those of `tops` count. The names
/// [`extension_module_names`] finds for a set of top-level names are those it finds for a wider
/// set whose first part is in it: each string and each built name is judged by its own first
/// part alone.
pub(crate) fn compiled_importing_in(
    dist: &InstalledDist,
    named: Vec<(String, BTreeSet<String>)>,
    tops: &ChangedTops,
) -> BTreeMap<PackageName, Vec<DeepModule>> {
    let mut theirs: BTreeMap<PackageName, Vec<DeepModule>> = BTreeMap::new();
    let wanted = |top: &str| tops.contains_key(top) && !dist.top_level.iter().any(|t| t == top);
    for (file, names) in named {
        let names = names
            .into_iter()
            .filter(|n| wanted(n.split('.').next().unwrap_or_default()));
        for module in names.filter(|n| n.contains('.')) {
            let changed = tops[module.split('.').next().unwrap_or_default()].clone();
            theirs.entry(changed.clone()).or_default().push(DeepModule {
                imports: changed,
                module,
                file: file.clone(),
                cited: false,
                fan_in: 0,
            });
        }
    }
    for list in theirs.values_mut() {
        dedup(list);
    }
    theirs
}

/// Sets each module's [`DeepModule::fan_in`]: how many of the other modules in `modules` (all of
/// `dist`) import it at module level, relative imports resolved (`from ..image_utils import x`
/// in `transformers/models/vit/image_processing_vit.py` imports `transformers.image_utils`).
/// verify.py puts the most imported first, so that a dist's first batch, whose imports the warm
/// parent learns before the other batches fork, holds what those import (transformers'
/// `processing_utils`, imported by 225 of the 336 modules a numpy change selects), not the
/// alphabetically first (`exporters.exporter_onnx`, which imports onnx and sympy for itself).
pub(crate) fn rank_by_fan_in(dist: &InstalledDist, modules: &mut [DeepModule]) {
    let selected: BTreeMap<String, usize> = modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.module.clone(), i))
        .collect();
    let mut counts = vec![0; modules.len()];
    let packages = own_tops(dist);
    for deep in modules.iter() {
        for imported in module_level_imports(dist, &packages, deep) {
            match selected.get(&imported) {
                Some(&i) if modules[i].module != deep.module => counts[i] += 1,
                _ => {}
            }
        }
    }
    for (deep, count) in modules.iter_mut().zip(counts) {
        deep.fan_in = count;
    }
}

/// The modules `deep`'s file imports at module level, each once: `from a.b import c` counts
/// `a.b` and `a.b.c` (which may be a submodule). Nothing when the file is not the module's own
/// (a changed dist's module carries the file of the dependent that imports it).
fn module_level_imports(
    dist: &InstalledDist,
    packages: &[String],
    deep: &DeepModule,
) -> BTreeSet<String> {
    let own = module_of_path(&deep.file, packages).is_some_and(|m| m == deep.module);
    let Some(bytes) = own.then(|| read_installed(dist, &deep.file)).flatten() else {
        return BTreeSet::new();
    };
    let package = if deep.file.ends_with("/__init__.py") {
        deep.module.as_str()
    } else {
        deep.module.rsplit_once('.').map_or("", |(head, _)| head)
    };
    let mut out = BTreeSet::new();
    for statement in unconditional_imports(&String::from_utf8_lossy(&bytes), package) {
        for name in &statement.names {
            out.insert(format!("{}.{name}", statement.module));
        }
        out.insert(statement.module);
    }
    out
}

/// One entry per module (the first file found), sorted.
pub(crate) fn dedup(list: &mut Vec<DeepModule>) {
    list.sort();
    list.dedup_by(|b, a| {
        if a.module == b.module {
            a.cited |= b.cited;
            true
        } else {
            false
        }
    });
}

/// Folders a wheel may ship at the top level beside its code (botorch 0.18.1 ships `build/`,
/// `scripts/`, `sphinx/`, `notebooks_community/`, ...): never a namespace package of its own.
const NOT_CODE: [&str; 14] = [
    "build",
    "dist",
    "docs",
    "doc",
    "website",
    "site",
    "tutorials",
    "notebooks",
    "examples",
    "example",
    "scripts",
    "benchmarks",
    "test",
    "tests",
];

/// The top-level names of `dist` that are its own packages and modules, from its `RECORD`: a
/// regular package (`x/__init__.py`), a module (`x.py`, `x.cpython-312-x86_64-linux-gnu.so`), or
/// a namespace portion (`nvidia/cublas/...`) that is not a folder of [`NOT_CODE`], holds no copy
/// of one of the dist's packages (`build/lib/botorch/...`: a build folder botorch 0.18.1's wheel
/// ships, whose modules are stale copies and never what `import botorch` runs) and is not
/// inside another dist's regular package (botorch's `sphinx/source/conf.py` lands in Sphinx's
/// `sphinx/`, whose `__init__.py` botorch does not ship). Without a `RECORD`, `top_level` as it is.
pub(crate) fn own_tops(dist: &InstalledDist) -> Vec<String> {
    let site = dist.path.parent();
    let regular_elsewhere =
        |top: &str| site.is_some_and(|site| site.join(top).join("__init__.py").is_file());
    match crate::inventory::record::inside_paths(&dist.path) {
        Some(paths) if !paths.is_empty() => own_tops_of(&dist.top_level, &paths, regular_elsewhere),
        _ => dist.top_level.clone(),
    }
}

/// [`own_tops`] from the `RECORD` paths; `regular_elsewhere(top)`: `top/__init__.py` exists on
/// disk (for a namespace portion of this dist: another dist's).
fn own_tops_of(
    top_level: &[String],
    paths: &[String],
    regular_elsewhere: impl Fn(&str) -> bool,
) -> Vec<String> {
    let is_regular = |top: &str| {
        paths.iter().any(|p| {
            p.strip_prefix(top).is_some_and(|rest| {
                rest == "/__init__.py"
                    || rest == ".py"
                    || (rest.starts_with('.')
                        && !rest.contains('/')
                        && (rest.ends_with(".so") || rest.ends_with(".pyd")))
            })
        })
    };
    let regular: BTreeSet<&str> = top_level
        .iter()
        .map(String::as_str)
        .filter(|t| is_regular(t))
        .collect();
    let holds_a_copy = |top: &str| {
        paths.iter().any(|p| {
            p.strip_prefix(top)
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(|rest| rest.split('/').any(|part| regular.contains(part)))
        })
    };
    top_level
        .iter()
        .filter(|t| {
            regular.contains(t.as_str())
                || (!NOT_CODE.contains(&t.as_str())
                    && !holds_a_copy(t.as_str())
                    && !regular_elsewhere(t.as_str()))
        })
        .cloned()
        .collect()
}

/// `celery/concurrency/asynpool.py` -> `celery.concurrency.asynpool`, `a/b/__init__.py` ->
/// `a.b`, when the path is a module of a dist with these top-level names (not a build folder's
/// copy: `build/lib/...`).
pub(crate) fn module_of_path(path: &str, top_level: &[String]) -> Option<String> {
    if crate::inventory::imports::is_build_copy(path) {
        return None;
    }
    let stem = path.strip_suffix(".py")?;
    let mut parts: Vec<&str> = stem.split('/').collect();
    if parts.last() == Some(&"__init__") {
        parts.pop();
    }
    let first = *parts.first()?;
    let identifier = |p: &&str| {
        !p.is_empty()
            && !p.starts_with(|c: char| c.is_ascii_digit())
            && p.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    let bad_leaf = matches!(
        *parts.last()?,
        "__main__" | "setup" | "conftest" | "__init__"
    );
    (top_level.iter().any(|t| t == first) && parts.iter().all(identifier) && !bad_leaf)
        .then(|| parts.join("."))
}

/// The files the plan's `import-target-missing` factors cite ([`RiskFactor::citations`]), as
/// (importing dist, file, the changed dist the factor is about): `celery 5.2.7
/// (celery/concurrency/asynpool.py, line 29) imports ...` under the billiard factor.
pub(crate) fn cited_files(risk: &RiskScore) -> Vec<(String, String, String)> {
    cited(risk)
        .map(|(factor, c)| (c.dist.clone(), c.file.clone(), factor.package.clone()))
        .collect()
}

/// Each citation of the plan's import factors, with the dist its factor is about.
pub(crate) fn citations(risk: &RiskScore) -> Vec<(String, &Citation)> {
    cited(risk).map(|(f, c)| (f.package.clone(), c)).collect()
}

/// Each citation of the plan's `import-target-missing` factors (and of its
/// `planned-import-missing` ones: the kept dists that import a planned release failing on
/// import), with its factor.
fn cited(risk: &RiskScore) -> impl Iterator<Item = (&RiskFactor, &Citation)> {
    risk.factors
        .iter()
        .filter(|f| {
            matches!(
                f.kind,
                FactorKind::ImportTargetMissing | FactorKind::PlannedImportMissing
            )
        })
        .flat_map(|f| f.citations.iter().map(move |c| (f, c)))
}

/// The submodules a plan's `import-target-missing` factors name as missing, each as (importing
/// dist, module): black 22.1.0's `black/__init__.py` line 1409 imports `_unicodefun` from
/// `click`, which click 8.1.7 does not have, and the installed click ships
/// `click/_unicodefun.py`: (black, `click._unicodefun`). The import may sit in a function
/// (black's `patch_click()`), which importing the importer's modules never runs; importing the
/// submodule itself passes before the plan and fails after it. A name that is no submodule of
/// the installed release (a function, a class) is [`cited_names`]'s.
pub(crate) fn cited_submodules(
    risk: &RiskScore,
    installed: impl Fn(&PackageName) -> Option<Vec<String>>,
) -> Vec<(PackageName, DeepModule)> {
    cited_imports(risk, installed)
        .into_iter()
        .filter(|found| found.submodule)
        .map(|found| {
            (
                found.importer,
                DeepModule {
                    module: format!("{}.{}", found.citation.module, found.name),
                    imports: found.provider,
                    file: found.citation.file.clone(),
                    cited: true,
                    fan_in: 0,
                },
            )
        })
        .collect()
}

/// A name a plan's `import-target-missing` factor cites as missing that is no submodule of the
/// installed release (a function, a class: `from markupsafe import soft_unicode`): verify.py
/// imports `module` in a fresh interpreter and looks `name` up with `getattr`, under the
/// importer. The import may sit in a function that importing the importer never runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub(crate) struct CitedName {
    /// The module the name is imported from (`markupsafe`).
    pub module: String,
    /// The name (`soft_unicode`).
    pub name: String,
    /// The changed dist the module belongs to.
    pub imports: PackageName,
    /// The importing file, its path in `RECORD`.
    pub file: String,
    /// The import statement's first line (1-based).
    pub line: usize,
}

/// The names a plan's `import-target-missing` factors cite as missing that the installed
/// release of the changed dist does not ship as a module ([`CitedName`]), each with its
/// importing dist, sorted, each once.
pub(crate) fn cited_names(
    risk: &RiskScore,
    installed: impl Fn(&PackageName) -> Option<Vec<String>>,
) -> Vec<(PackageName, CitedName)> {
    let mut out: Vec<(PackageName, CitedName)> = cited_imports(risk, installed)
        .into_iter()
        .filter(|found| !found.submodule)
        .map(|found| {
            (
                found.importer,
                CitedName {
                    module: found.citation.module.clone(),
                    name: found.name.to_string(),
                    imports: found.provider,
                    file: found.citation.file.clone(),
                    line: found.citation.line,
                },
            )
        })
        .collect();
    out.sort();
    out.dedup_by(|b, a| a.0 == b.0 && a.1.module == b.1.module && a.1.name == b.1.name);
    out
}

/// The cited import statement runs when its file is imported: it sits at module level, unguarded,
/// in one of `dist`'s modules, whose import check (the file is cited, so it is among the deep
/// modules) fails on it already; a name check would say the same twice.
pub(crate) fn imported_at_module_level(dist: &InstalledDist, cited: &CitedName) -> bool {
    let Some(module) = module_of_path(&cited.file, &own_tops(dist)) else {
        return false;
    };
    let Some(bytes) = read_installed(dist, &cited.file) else {
        return false;
    };
    let package = if cited.file.ends_with("/__init__.py") {
        module.as_str()
    } else {
        module.rsplit_once('.').map_or("", |(head, _)| head)
    };
    unconditional_imports(&String::from_utf8_lossy(&bytes), package)
        .iter()
        .any(|s| s.line == cited.line && s.names.contains(&cited.name))
}

/// One cited import statement's missing name, where the changed dist is installed.
struct CitedImport<'a> {
    importer: PackageName,
    provider: PackageName,
    citation: &'a Citation,
    name: &'a str,
    /// The installed release ships `module.name` as a module.
    submodule: bool,
}

/// Each import statement (not an attribute use) the plan's `import-target-missing` factors
/// cite with a missing name, where `installed(provider)` gives the installed release's `RECORD`
/// paths.
fn cited_imports(
    risk: &RiskScore,
    installed: impl Fn(&PackageName) -> Option<Vec<String>>,
) -> Vec<CitedImport<'_>> {
    let mut out = Vec::new();
    for (factor, citation) in cited(risk) {
        let (Ok(provider), Ok(importer), Some(name)) = (
            PackageName::from_str(&factor.package),
            PackageName::from_str(&citation.dist),
            citation.name.as_deref().filter(|_| !citation.attribute),
        ) else {
            continue;
        };
        let Some(paths) = installed(&provider) else {
            continue;
        };
        let folder = citation.module.replace('.', "/");
        let ships = |tail: &str| paths.iter().any(|p| *p == format!("{folder}/{name}{tail}"));
        out.push(CitedImport {
            submodule: ships(".py") || ships("/__init__.py"),
            importer,
            provider,
            citation,
            name,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use super::*;

    #[test]
    fn paths_become_module_names_of_the_dists_packages_only() {
        let tops = vec!["celery".to_string()];
        for (path, want) in [
            (
                "celery/concurrency/asynpool.py",
                Some("celery.concurrency.asynpool"),
            ),
            ("celery/concurrency/__init__.py", Some("celery.concurrency")),
            ("celery/__init__.py", Some("celery")),
            ("celery/__main__.py", None),
            ("celery/bin/celery-x.py", None),
            ("celery/static/app.js", None),
            ("other/x.py", None),
            ("celery/3rd/x.py", None),
        ] {
            assert_eq!(module_of_path(path, &tops).as_deref(), want, "{path}");
        }
        // botorch 0.18.1 ships `build/lib/botorch/...` and lists `build` in `top_level.txt`.
        let botorch = vec!["botorch".to_string(), "build".to_string()];
        assert_eq!(
            module_of_path("build/lib/botorch/models/gp.py", &botorch),
            None
        );
        assert_eq!(
            module_of_path("botorch/models/gp.py", &botorch).as_deref(),
            Some("botorch.models.gp")
        );
    }

    /// botorch 0.18.1's wheel (its top_level.txt and the shape of its RECORD): only `botorch`
    /// and `botorch_community` are its own; `build/lib/botorch/...` is a stale copy, `scripts/`,
    /// and the notebooks are not code to import, nor `sphinx/source/conf.py` inside Sphinx's package. A namespace portion
    /// (`nvidia/cublas/...`) and a module (`six.py`, an extension) are.
    #[test]
    fn only_a_dists_own_packages_are_its_top_level_modules() {
        let tops: Vec<String> = [
            "botorch",
            "botorch_community",
            "build",
            "dist",
            "docs",
            "notebooks_community",
            "scripts",
            "sphinx",
            "test_community",
            "tutorials",
            "website",
            "nvidia",
            "six",
            "_ext",
        ]
        .map(String::from)
        .to_vec();
        let paths: Vec<String> = [
            "botorch/__init__.py",
            "botorch/models/gp.py",
            "botorch_community/__init__.py",
            "build/lib/botorch/__init__.py",
            "build/lib/botorch/models/gp.py",
            "build/lib/scripts/run_tutorials.py",
            "notebooks_community/README.md",
            "scripts/run_tutorials.py",
            "sphinx/source/conf.py",
            "test_community/__init__.py",
            "nvidia/cublas/__init__.py",
            "six.py",
            "_ext.cpython-312-x86_64-linux-gnu.so",
        ]
        .map(String::from)
        .to_vec();
        let sphinx_installed = |top: &str| top == "sphinx";
        let own = own_tops_of(&tops, &paths, sphinx_installed);
        assert_eq!(
            own,
            [
                "botorch",
                "botorch_community",
                "notebooks_community",
                "test_community",
                "nvidia",
                "six",
                "_ext"
            ]
        );
        assert_eq!(module_of_path("build/lib/botorch/models/gp.py", &own), None);
        assert_eq!(module_of_path("sphinx/source/conf.py", &own), None);
        // Without Sphinx installed, `sphinx/` is botorch's namespace portion.
        assert!(own_tops_of(&tops, &paths, |_| false).contains(&"sphinx".to_string()));
    }

    /// What a dist's selected modules import at module level ranks them: `pkg.core` is imported
    /// by `pkg.a` (relatively) and `pkg.sub.b` (two levels up); `pkg.a` by `pkg.sub.b` (`from pkg
    /// import a`); an import inside a function does not count, nor a module importing itself.
    #[test]
    fn modules_rank_by_how_many_of_the_others_import_them_at_module_level() {
        let dir = tempfile::tempdir().unwrap();
        let sp = dir.path();
        let files = [
            ("pkg/__init__.py", ""),
            ("pkg/core.py", "import numpy\nfrom pkg import core\n"),
            ("pkg/a.py", "import numpy\nfrom .core import x\n"),
            ("pkg/sub/__init__.py", ""),
            (
                "pkg/sub/b.py",
                "import numpy\nfrom ..core import y\nfrom pkg import a\n",
            ),
            (
                "pkg/c.py",
                "import numpy\ndef f():\n    from .core import z\n",
            ),
        ];
        let dist = crate::inventory::test_sources::installed_dist(sp, ("pkg", "1.0"), &files);
        let n = |name: &str| PackageName::from_str(name).unwrap();
        let tops = ChangedTops::from([("numpy".to_string(), n("numpy"))]);
        let (mut own, _) = importing_modules(&dist, &tops, &Portions::new());
        // A module whose file is another's (a changed dist's module carries its importer's):
        // that file's imports are not its own and count for nothing.
        own.push(DeepModule {
            module: "pkg.zz".to_string(),
            imports: n("pkg"),
            file: "pkg/sub/b.py".to_string(),
            cited: false,
            fan_in: 0,
        });
        rank_by_fan_in(&dist, &mut own);
        let ranks: Vec<(&str, usize)> = own.iter().map(|m| (m.module.as_str(), m.fan_in)).collect();
        assert_eq!(
            ranks,
            [
                ("pkg.a", 1),
                ("pkg.c", 0),
                ("pkg.core", 2),
                ("pkg.sub.b", 0),
                ("pkg.zz", 0)
            ]
        );
    }

    /// googleapis-common-protos and protobuf share the namespace `google`: a file of the first
    /// that imports `google.protobuf` imports the changed protobuf (and its module joins), one
    /// that imports only its own `google.api` does not; a name both ship has no owner.
    #[test]
    fn a_shared_namespace_counts_the_changed_dists_part_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let sp = dir.path();
        let date = include_str!(
            "../../testdata/imports/googleapis-common-protos-1.56.0/google/type/date_pb2.py"
        );
        let protobuf = crate::inventory::test_sources::installed_dist(
            sp,
            ("protobuf", "3.20.3"),
            &[
                ("google/protobuf/__init__.py", ""),
                ("google/protobuf/descriptor.py", ""),
                ("google/cloud/__init__.py", ""),
            ],
        );
        let apis = crate::inventory::test_sources::installed_dist(
            sp,
            ("googleapis-common-protos", "1.56.0"),
            &[
                ("google/type/__init__.py", ""),
                ("google/type/date_pb2.py", date),
                ("google/api/__init__.py", ""),
                ("google/api/http_pb2.py", ""),
                (
                    "google/api/annotations_pb2.py",
                    "from google.api import http_pb2\n",
                ),
                ("google/cloud/extended_operations_pb2.py", ""),
            ],
        );
        let portions = namespace_portions(&[protobuf.clone(), apis.clone()]);
        let n = |name: &str| PackageName::from_str(name).unwrap();
        let google = &portions["google"];
        assert_eq!(google.get("protobuf"), Some(&n("protobuf")));
        assert_eq!(google.get("api"), Some(&n("googleapis-common-protos")));
        assert_eq!(google.get("cloud"), None);
        let tops = ChangedTops::from([("google".to_string(), n("protobuf"))]);
        let (own, theirs) = importing_modules(&apis, &tops, &portions);
        let own: Vec<(&str, &str)> = own
            .iter()
            .map(|m| (m.module.as_str(), m.imports.as_ref()))
            .collect();
        assert_eq!(own, [("google.type.date_pb2", "protobuf")]);
        let theirs: Vec<&str> = theirs[&n("protobuf")]
            .iter()
            .map(|m| m.module.as_str())
            .collect();
        assert!(theirs.contains(&"google.protobuf.descriptor"), "{theirs:?}");
        assert!(
            !theirs.iter().any(|m| m.starts_with("google.api")),
            "{theirs:?}"
        );
        // Without the portions (main before): the shared top counted for nothing.
        let (own, _) = importing_modules(&apis, &tops, &Portions::new());
        assert_eq!(own, []);
    }

    /// The factor's citations, not its sentence: every cited statement counts, also those
    /// the sentence only counts ("and 2 more"); another factor's text naming a file does not.
    #[test]
    fn cited_files_are_the_import_target_missing_citations() {
        let risk: RiskScore = serde_json::from_value(serde_json::json!({
            "score": 100, "level": "critical", "policy": "default",
            "factors": [
                {"kind": "import-target-missing", "points": 60, "package": "billiard",
                 "detail": "celery 5.2.7 (celery/concurrency/asynpool.py, line 29) imports `buf_t` from `billiard.compat`, which billiard 4.3.2 does not have; and 1 more",
                 "citations": [
                    {"dist": "celery", "version": "5.2.7", "file": "celery/concurrency/asynpool.py",
                     "line": 29, "module": "billiard.compat", "name": "buf_t"},
                    {"dist": "kombu", "version": "5.3.0", "file": "kombu/asynchronous/x.py",
                     "line": 4, "module": "billiard.einfo"}
                 ]},
                {"kind": "direct-dependent", "points": 3, "package": "billiard",
                 "detail": "1 installed dist requires billiard: celery (x.py, line 3)"}
            ]
        }))
        .unwrap();
        let row = |a: &str, b: &str| (a.to_string(), b.to_string(), "billiard".to_string());
        assert_eq!(
            cited_files(&risk),
            [
                row("celery", "celery/concurrency/asynpool.py"),
                row("kombu", "kombu/asynchronous/x.py"),
            ]
        );
    }

    /// black 22.1.0 under click 8.1 (the real factor's words): `_unicodefun` is a module of the
    /// installed click 8.0.4, so it is imported under black; jinja2 2.11.3's `soft_unicode` is a
    /// function of markupsafe, which is checked by name; a subpackage (`pkg/sub/__init__.py`) counts.
    #[test]
    fn a_missing_name_that_the_installed_release_ships_as_a_module_is_imported() {
        let risk: RiskScore = serde_json::from_value(serde_json::json!({
            "score": 100, "level": "critical", "policy": "default",
            "factors": [
                {"kind": "import-target-missing", "points": 50, "package": "click",
                 "detail": "black 22.1.0 (black/__init__.py, line 1409) imports `_unicodefun` from `click`, which click 8.1.7 does not have",
                 "citations": [{"dist": "black", "version": "22.1.0", "file": "black/__init__.py",
                                "line": 1409, "module": "click", "name": "_unicodefun"}]},
                {"kind": "import-target-missing", "points": 50, "package": "markupsafe",
                 "detail": "jinja2 2.11.3 (jinja2/filters.py, line 13) imports `soft_unicode` from `markupsafe`, which markupsafe 3.0.4 does not have",
                 "citations": [{"dist": "jinja2", "version": "2.11.3", "file": "jinja2/filters.py",
                                "line": 13, "module": "markupsafe", "name": "soft_unicode"}]},
                {"kind": "import-target-missing", "points": 50, "package": "pkg",
                 "detail": "app 1.0 (app/x.py, line 2) imports `sub` from `pkg.inner`, which pkg 2.0 does not have",
                 "citations": [{"dist": "app", "version": "1.0", "file": "app/x.py",
                                "line": 2, "module": "pkg.inner", "name": "sub"},
                               {"dist": "app", "version": "1.0", "file": "app/y.py",
                                "line": 5, "module": "pkg", "name": "inner", "attribute": true}]}
            ]
        }))
        .unwrap();
        let installed = |name: &PackageName| {
            let paths: &[&str] = match name.as_ref() {
                "click" => &["click/__init__.py", "click/_unicodefun.py"],
                "markupsafe" => &["markupsafe/__init__.py", "markupsafe/_native.py"],
                "pkg" => &[
                    "pkg/__init__.py",
                    "pkg/inner/__init__.py",
                    "pkg/inner/sub/__init__.py",
                ],
                _ => return None,
            };
            Some(paths.iter().map(|p| p.to_string()).collect())
        };
        let found: Vec<(String, String, String, String)> = cited_submodules(&risk, installed)
            .into_iter()
            .map(|(importer, m)| {
                (
                    importer.to_string(),
                    m.module,
                    m.imports.to_string(),
                    m.file,
                )
            })
            .collect();
        let row = |a: &str, b: &str, c: &str, d: &str| (a.into(), b.into(), c.into(), d.into());
        assert_eq!(
            found,
            [
                row("black", "click._unicodefun", "click", "black/__init__.py"),
                row("app", "pkg.inner.sub", "pkg", "app/x.py"),
            ]
        );
        // The function is checked by name instead, at its citation's line; the attribute use
        // (checked by importing its file) is not.
        let names: Vec<(String, String, String, String, usize)> = cited_names(&risk, installed)
            .into_iter()
            .map(|(importer, n)| (importer.to_string(), n.module, n.name, n.file, n.line))
            .collect();
        assert_eq!(
            names,
            [(
                "jinja2".to_string(),
                "markupsafe".to_string(),
                "soft_unicode".to_string(),
                "jinja2/filters.py".to_string(),
                13
            )]
        );
    }
}
