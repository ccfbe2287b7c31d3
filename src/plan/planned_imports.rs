//! Imports a planned release itself makes that the planned environment cannot satisfy (the
//! reverse of `import-target-missing`): a protobuf downgrade moves tensorboard back to 2.20.0,
//! whose `tensorboard/default.py` runs `import pkg_resources`, a module the installed setuptools
//! 84 no longer has; `tensorboard.program` fails after the plan.
//!
//! In: a plan's changes, its planned environment, the inventory and the [`Oracle`] (the planned
//! wheel's file list and a few of its files, read by range requests; what each planned dist
//! installs). Out: per changed dist, one sentence per top-level module it imports that no
//! dist of the planned environment installs, naming the file and line; and, for the proposer,
//! each name imported from a planned dist's module that it lacks ([`UnmetName`]: the dist, the
//! module and the names), for the search for the release that has them.
//!
//! Bounded on purpose: only releases the plan moves backwards or adds (an older release is
//! where imports of removed modules live: `pkg_resources`, `distutils`, `imp`), those the
//! request caps by version (`==0.6.2`, `<3`), and those the request moves up (a target or a
//! dist it drags, never under `--all`) beside a dist they require that the plan keeps as
//! installed (a loose lower bound: a name the kept release lacks); of each, at most
//! [`FILES_READ`] of its own modules: its packages' `__init__.py` and the modules its console
//! scripts run, then the package modules those import; only module-level imports (outside every
//! `def`, `if`, `try`), of modules that are not the release's own and not the standard library
//! (`stdlib_modules.txt`). What a planned dist installs is its installed `top_level.txt` when it
//! stays as installed, else its planned wheel's file list; when some dist's modules cannot be
//! had, nothing is flagged (it might provide the module).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, LazyLock, Mutex};

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::chain::{Failing, package_of};
use super::imports_check::{Names, Place, has_module, module_file};
use super::modules::top_level_of;
use super::oracle::Oracle;
use super::planned::{PlanDist, PlannedEnvironment, applies_with};
use super::proposal::{Action, Change};
use crate::inventory::Inventory;
use crate::inventory::imports::unconditional_imports;

/// At most this many of a release's own module files are read.
const FILES_READ: usize = 12;

/// At most this many failing imports are named per change.
const LISTED: usize = 3;

/// The standard library's top-level modules.
static STDLIB: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| {
    include_str!("stdlib_modules.txt")
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
});

/// One module-level import of a module that is neither the release's own nor the standard
/// library's.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ForeignImport {
    /// The top-level module (`pkg_resources`).
    top: String,
    /// The module as written (`pkg_resources.extern`).
    module: String,
    /// The names a `from` import takes from it (`soft_unicode` of `from markupsafe import
    /// soft_unicode`; empty for `import m`).
    names: Vec<String>,
    /// The file (`tensorboard/default.py`) and line.
    file: String,
    line: usize,
    /// The file is reached only from a console script's module, not from the release's
    /// packages (triton 3.6.0's `triton/profiler/viewer.py`, run by `proton-viewer`).
    script_only: bool,
}

/// Per planned release, its foreign imports.
type ForeignImports = HashMap<(PackageName, Version), Arc<Vec<ForeignImport>>>;

/// The foreign imports of each planned release, read once however many plans ask.
#[derive(Debug, Default)]
pub(crate) struct PlannedImportsMemo {
    found: Mutex<ForeignImports>,
}

impl PlannedImportsMemo {
    fn get(
        &self,
        name: &PackageName,
        version: &Version,
        oracle: &dyn Oracle,
    ) -> Arc<Vec<ForeignImport>> {
        let key = (name.clone(), version.clone());
        let lock = || self.found.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = lock().get(&key) {
            return found.clone();
        }
        let found = Arc::new(foreign_imports(name, version, oracle));
        lock().insert(key, found.clone());
        found
    }
}

/// One `from m import n` of a planned release that the planned environment's `m` surely lacks
/// (see [`missing_names`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnmetName {
    /// The planned release that imports (jinja2 2.11.3).
    pub importer: (PackageName, Version),
    /// The planned dist whose module lacks the names (markupsafe 3.0.4).
    pub provider: (PackageName, Version),
    /// The module imported from (`markupsafe`).
    pub module: String,
    /// The names it lacks (`soft_unicode`).
    pub names: Vec<String>,
    /// The importing file (`jinja2/filters.py`) and line.
    pub file: String,
    pub line: usize,
}

impl UnmetName {
    /// "jinja2 2.11.3 imports `soft_unicode` from `markupsafe` (jinja2/filters.py, line 13),
    /// which markupsafe 3.0.4 does not have".
    pub(crate) fn sentence(&self) -> String {
        let listed: Vec<String> = self.names.iter().map(|n| format!("`{n}`")).collect();
        format!(
            "{} {} imports {} from `{}` ({}, line {}), which {} {} does not have",
            self.importer.0,
            self.importer.1,
            listed.join(", "),
            self.module,
            self.file,
            self.line,
            self.provider.0,
            self.provider.1
        )
    }

    /// What fails, without the importer and its file: "imports `soft_unicode` from
    /// `markupsafe`, which markupsafe 3.0.4 does not have".
    pub(crate) fn what(&self) -> String {
        let listed: Vec<String> = self.names.iter().map(|n| format!("`{n}`")).collect();
        format!(
            "imports {} from `{}`, which {} {} does not have",
            listed.join(", "),
            self.module,
            self.provider.0,
            self.provider.1
        )
    }
}

/// The planned releases that may import what the planned environment lacks (those the plan
/// moves back or adds, with module-level foreign imports), with what that environment provides;
/// `None` when there are none or some dist's modules cannot be had.
#[allow(clippy::type_complexity)]
fn candidates<'c>(
    inventory: &Inventory,
    planned: &PlannedEnvironment,
    changes: &'c [Change],
    oracle: &dyn Oracle,
    memo: &PlannedImportsMemo,
) -> Option<(
    Vec<(&'c PackageName, &'c Version, Arc<Vec<ForeignImport>>)>,
    BTreeSet<String>,
)> {
    let mut candidates = Vec::new();
    for change in changes {
        let Some(to) = &change.to else { continue };
        if matches!(change.action, Action::Downgrade | Action::Add)
            || asked_release(change)
            || paired_with_kept(inventory, planned, change)
        {
            let mut found = memo.get(&change.name, to, oracle);
            let optional = optional_here(inventory, planned.dists.get(&change.name));
            if found
                .iter()
                .any(|i| i.script_only && optional.contains(&i.top))
            {
                let kept = found
                    .iter()
                    .filter(|i| !(i.script_only && optional.contains(&i.top)));
                found = Arc::new(kept.cloned().collect());
            }
            if !found.is_empty() {
                candidates.push((&change.name, to, found));
            }
        }
    }
    if candidates.is_empty() {
        return None;
    }
    let provided = provided(inventory, planned, oracle, &candidates)?;
    Some((candidates, provided))
}

/// Whether `change` moves a dist up to a release the request capped by version
/// (`flask-login==0.6.2` from 0.5.0): a release that may be older than the newest, read as a
/// release moved back is (Flask-Login 0.6.2 imports `url_decode`, which Werkzeug 3 lacks).
fn asked_release(change: &Change) -> bool {
    change.action == Action::Upgrade
        && change.reasons.iter().any(|r| {
            matches!(r, super::proposal::Reason::Requested { requirement } if capped(requirement))
        })
}

/// Whether `change` moves a dist up for the request (a target, or a dist the request drags
/// along; never `--all`'s move of every dist) to a release that requires a dist the plan keeps
/// as installed: that pairing rests on the release's declared lower bound alone, which may be
/// older than what its files import (a release that imports a name its dependency added later,
/// beside the older release installed). A release whose every requirement moves too is paired
/// with releases of its own time, and is not read.
fn paired_with_kept(inventory: &Inventory, planned: &PlannedEnvironment, change: &Change) -> bool {
    use super::proposal::Reason;
    if change.action != Action::Upgrade
        || change
            .reasons
            .iter()
            .any(|r| matches!(r, Reason::UpgradeAll))
    {
        return false;
    }
    let Some(dist) = planned.dists.get(&change.name) else {
        return false;
    };
    let markers = &inventory.environment.markers;
    dist.requires_dist.iter().any(|requirement| {
        applies_with(requirement, markers, &dist.extras)
            && planned.dists.get(&requirement.name).is_some_and(|kept| {
                inventory
                    .get(&requirement.name)
                    .is_some_and(|installed| installed.version() == &kept.version)
            })
    })
}

/// Whether `requirement` asks for a release at or below a version (`==`, `===`, `<`, `<=`,
/// `~=`): not only the newest (`flask>=3` is not).
pub(crate) fn capped(requirement: &pep508_rs::Requirement) -> bool {
    use pep440_rs::Operator::{Equal, EqualStar, ExactEqual, LessThan, LessThanEqual, TildeEqual};
    crate::metadata::requirement::specifiers(requirement).is_some_and(|s| {
        s.iter().any(|s| {
            matches!(
                s.operator(),
                Equal | EqualStar | ExactEqual | LessThan | LessThanEqual | TildeEqual
            )
        })
    })
}

/// What a changed dist's planned release imports that the planned environment cannot satisfy.
#[derive(Debug, Default)]
pub(crate) struct PlannedMissing {
    /// One sentence per failing import (the first few, then how many more).
    pub sentences: Vec<String>,
    /// Every failing import as a statement (each runs whenever its file is imported).
    pub failing: Vec<Failing>,
}

/// Per changed dist, its imports that the planned environment cannot satisfy.
pub(crate) fn missing_planned_imports(
    inventory: &Inventory,
    planned: &PlannedEnvironment,
    changes: &[Change],
    oracle: &dyn Oracle,
    memo: &PlannedImportsMemo,
) -> BTreeMap<PackageName, PlannedMissing> {
    let Some((candidates, provided)) = candidates(inventory, planned, changes, oracle, memo) else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    let mut providers = Providers {
        inventory,
        planned,
        oracle,
        found: BTreeMap::new(),
    };
    for (name, version, imports) in candidates {
        let mut seen = BTreeSet::new();
        let failing = |file: &str, line: usize, what: String| Failing {
            dist: name.clone(),
            version: version.clone(),
            planned: true,
            file: file.to_string(),
            line,
            what,
            top_level: true,
            reached_only: false,
        };
        let unprovided: Vec<&ForeignImport> = imports
            .iter()
            .filter(|i| !provided.contains(&i.top) && seen.insert(i.top.clone()))
            .collect();
        let mut found: Vec<String> = unprovided
            .iter()
            .map(|i| {
                format!(
                    "{name} {version} imports `{}` ({}, line {}), which no dist of the planned \
                     environment installs",
                    i.module, i.file, i.line
                )
            })
            .collect();
        let mut failed: Vec<Failing> = unprovided
            .iter()
            .map(|i| {
                let what = format!(
                    "imports `{}`, which no dist of the planned environment installs",
                    i.module
                );
                failing(&i.file, i.line, what)
            })
            .collect();
        for unmet in missing_names(name, version, &imports, &provided, &mut providers) {
            found.push(unmet.sentence());
            failed.push(failing(&unmet.file, unmet.line, unmet.what()));
        }
        if found.is_empty() {
            continue;
        }
        let more = found.len().saturating_sub(LISTED);
        found.truncate(LISTED);
        if more > 0 {
            found.push(format!("and {more} more"));
        }
        let missing = PlannedMissing {
            sentences: found,
            failing: failed,
        };
        out.insert(name.clone(), missing);
    }
    out
}

/// The names the plan's moved-back or added releases import that the planned environment's
/// modules surely lack (the `planned-import-missing` sentences that name a dist that lacks them).
pub(crate) fn unmet_names(
    inventory: &Inventory,
    planned: &PlannedEnvironment,
    changes: &[Change],
    oracle: &dyn Oracle,
    memo: &PlannedImportsMemo,
) -> Vec<UnmetName> {
    let Some((candidates, provided)) = candidates(inventory, planned, changes, oracle, memo) else {
        return Vec::new();
    };
    let mut providers = Providers {
        inventory,
        planned,
        oracle,
        found: BTreeMap::new(),
    };
    candidates
        .into_iter()
        .flat_map(|(name, version, imports)| {
            missing_names(name, version, &imports, &provided, &mut providers)
        })
        .collect()
}

/// The modules (a requirement's name as a module: `pandas`, `llnl_hatchet`) a planned release
/// declares only where its requirements do not apply here (under an extra: triton 3.6.0's
/// `pandas; extra == "tutorials"`): a console script's import of one is an optional tool's,
/// which the release does not promise, not a failure of the release.
fn optional_here(inventory: &Inventory, dist: Option<&PlanDist>) -> BTreeSet<String> {
    let markers = &inventory.environment.markers;
    dist.into_iter()
        .flat_map(|d| d.requires_dist.iter())
        .filter(|r| !applies_with(r, markers, &[]))
        .map(|r| r.name.as_ref().replace('-', "_"))
        .collect()
}

/// The dist of the planned environment that installs a top-level module, with its version
/// and file list.
struct Provider {
    name: PackageName,
    version: Version,
    files: Vec<String>,
}

/// Which planned dist installs each top-level module asked about, found once.
struct Providers<'a> {
    inventory: &'a Inventory,
    planned: &'a PlannedEnvironment,
    oracle: &'a dyn Oracle,
    found: BTreeMap<String, Option<Provider>>,
}

impl Providers<'_> {
    /// The planned dist that installs `top`: one kept as installed by its `top_level`, one the
    /// plan changes by its planned wheel's file list; `None` when none is known to.
    fn of(&mut self, top: &str) -> Option<&Provider> {
        if !self.found.contains_key(top) {
            let found = self.find(top);
            self.found.insert(top.to_string(), found);
        }
        self.found.get(top)?.as_ref()
    }

    fn find(&self, top: &str) -> Option<Provider> {
        for (name, dist) in &self.planned.dists {
            let version = &dist.version;
            let kept = self.inventory.get(name).filter(|d| d.version() == version);
            let files = match kept {
                Some(installed) if installed.top_level.iter().any(|t| t == top) => self
                    .oracle
                    .installed_files(name)
                    .or_else(|| self.oracle.wheel_files(name, version))?,
                Some(_) => continue,
                None if self.oracle.installs(name, version)?.contains(top) => {
                    self.oracle.wheel_files(name, version)?
                }
                None => continue,
            };
            return Some(Provider {
                name: name.clone(),
                version: version.clone(),
                files,
            });
        }
        None
    }
}

/// The names a planned release's module-level `from m import n` takes that the planned
/// environment's module `m` surely lacks: its dist is known, `m` is a source module there, `n`
/// is no submodule of it, and the module neither binds `n` (defines, imports, lists in
/// `__all__`) nor can hand out others (a star import, a module `__getattr__`, dynamic
/// globals). One per import statement, names of a module said once.
fn missing_names(
    name: &PackageName,
    version: &Version,
    imports: &[ForeignImport],
    provided: &BTreeSet<String>,
    providers: &mut Providers<'_>,
) -> Vec<UnmetName> {
    let mut said: BTreeSet<(String, String)> = BTreeSet::new();
    let mut out = Vec::new();
    for import in imports {
        if import.names.is_empty() || !provided.contains(&import.top) {
            continue;
        }
        let oracle = providers.oracle;
        let Some(provider) = providers.of(&import.top) else {
            continue;
        };
        let module = &import.module;
        let Some(path) = module_file(&provider.files, module) else {
            continue;
        };
        let asked: BTreeSet<String> = import
            .names
            .iter()
            .filter(|n| !has_module(&provider.files, &format!("{module}.{n}")))
            .filter(|n| !said.contains(&(module.clone(), n.to_string())))
            .cloned()
            .collect();
        if asked.is_empty() {
            continue;
        }
        let Some(bound) = oracle.module_names(&provider.name, &provider.version, &path, &asked)
        else {
            continue;
        };
        if bound.open {
            continue;
        }
        // A lazy loader (`sys.modules[__name__] = _LazyModule(...)`: transformers 5's
        // `__init__.py`, whose `AutoModel` comes from `models/auto/modeling_auto.py`'s
        // `__all__`) may hand out a name through its import structure, read as the installed
        // dists' import check reads it.
        let mut names = Names {
            name: &provider.name,
            oracle,
            seen: BTreeMap::new(),
        };
        let place = Place {
            files: &provider.files,
            version: &provider.version,
            module,
            file: &path,
        };
        let lazily = |n: &String, names: &mut Names<'_>| {
            (bound.lazy.as_ref())
                .is_some_and(|lazy| names.lazy_may_have(&place, lazy, n, &asked, 0))
        };
        let gone: Vec<&String> = (asked.iter())
            .filter(|n| !bound.defined.contains(*n) && !lazily(n, &mut names))
            .collect();
        if gone.is_empty() {
            continue;
        }
        said.extend(gone.iter().map(|n| (module.clone(), n.to_string())));
        out.push(UnmetName {
            importer: (name.clone(), version.clone()),
            provider: (provider.name.clone(), provider.version.clone()),
            module: module.clone(),
            names: gone.into_iter().cloned().collect(),
            file: import.file.clone(),
            line: import.line,
        });
    }
    out
}

/// The top-level modules the planned environment installs, when every dist's can be known
/// enough to rule the candidates' imports in or out; `None` when an import might come from a
/// dist whose modules cannot be had.
fn provided(
    inventory: &Inventory,
    planned: &PlannedEnvironment,
    oracle: &dyn Oracle,
    candidates: &[(&PackageName, &Version, Arc<Vec<ForeignImport>>)],
) -> Option<BTreeSet<String>> {
    let mut provided: BTreeSet<String> = BTreeSet::new();
    let mut unknown = Vec::new();
    for (name, dist) in &planned.dists {
        let kept = inventory
            .get(name)
            .filter(|d| d.version() == &dist.version && !d.top_level.is_empty());
        match kept {
            Some(installed) => provided.extend(installed.top_level.iter().cloned()),
            None => unknown.push((name, &dist.version)),
        }
        if name.as_ref() == "setuptools" {
            provided.insert("distutils".into()); // its `_distutils_hack` provides it
        }
    }
    let python = &inventory.environment.python_version;
    if python
        .release()
        .get(..2)
        .is_some_and(|r| r < [3, 12].as_slice())
    {
        provided.insert("distutils".into());
    }
    let guess = |name: &PackageName| name.as_ref().replace('-', "_");
    let open = |provided: &BTreeSet<String>| {
        candidates
            .iter()
            .flat_map(|(_, _, imports)| imports.iter())
            .any(|i| !provided.contains(&i.top))
    };
    let mut guessed = provided.clone();
    guessed.extend(unknown.iter().map(|(name, _)| guess(name)));
    if !open(&guessed) {
        return Some(guessed);
    }
    // Some import is not provided as far as names go: ask what the other dists install.
    for (name, version) in unknown {
        provided.extend(oracle.installs(name, version)?.iter().cloned());
    }
    Some(provided)
}

/// A release's module-level imports of modules that are not its own and not the standard
/// library's, from at most [`FILES_READ`] of its own files: those its packages import first,
/// then those only its console scripts do (marked [`ForeignImport::script_only`]).
fn foreign_imports(
    name: &PackageName,
    version: &Version,
    oracle: &dyn Oracle,
) -> Vec<ForeignImport> {
    let Some(files) = oracle.wheel_files(name, version) else {
        return Vec::new();
    };
    let own = top_level_of(&files);
    let mut walk = Walk {
        name,
        version,
        oracle,
        files: &files,
        vendored: vendored_modules(&files),
        own: &own,
        seen: BTreeSet::new(),
        read: 0,
        out: Vec::new(),
    };
    walk.from(
        own.iter().filter_map(|m| module_file(&files, m)).collect(),
        false,
    );
    let scripts = script_modules(name, version, &files, oracle);
    walk.from(
        scripts
            .iter()
            .filter_map(|m| module_file(&files, m))
            .collect(),
        true,
    );
    walk.out
}

/// The walk of [`foreign_imports`] over a release's own module files.
struct Walk<'a> {
    name: &'a PackageName,
    version: &'a Version,
    oracle: &'a dyn Oracle,
    files: &'a [String],
    vendored: BTreeSet<String>,
    own: &'a BTreeSet<String>,
    seen: BTreeSet<String>,
    read: usize,
    out: Vec<ForeignImport>,
}

impl Walk<'_> {
    /// Read `queue` and the own modules its files import, breadth first, up to [`FILES_READ`]
    /// files in all; the foreign imports found are marked `script_only` as given.
    fn from(&mut self, mut queue: VecDeque<String>, script_only: bool) {
        while let Some(path) = queue.pop_front() {
            if self.read == FILES_READ {
                return;
            }
            if !self.seen.insert(path.clone()) {
                continue;
            }
            self.read += 1;
            let Some(text) = self.oracle.wheel_text(self.name, self.version, &path) else {
                continue;
            };
            for statement in unconditional_imports(&text, &package_of(&path)) {
                let top = statement.module.split('.').next().unwrap_or("").to_string();
                if self.own.contains(&top) {
                    let submodules = statement
                        .names
                        .iter()
                        .map(|n| format!("{}.{n}", statement.module));
                    for module in std::iter::once(statement.module.clone()).chain(submodules) {
                        if let Some(file) = module_file(self.files, &module)
                            && !self.seen.contains(&file)
                        {
                            queue.push_back(file);
                        }
                    }
                } else if !STDLIB.contains(top.as_str())
                    && !top.is_empty()
                    && !self.vendored.contains(&top)
                {
                    self.out.push(ForeignImport {
                        top,
                        module: statement.module,
                        names: statement.names,
                        file: path.clone(),
                        line: statement.line,
                        script_only,
                    });
                }
            }
        }
    }
}

/// The top-level modules a wheel ships inside a `_vendor` folder of its own
/// (`setuptools/_vendor/more_itertools/__init__.py`, namespace packages such as
/// `setuptools/_vendor/jaraco/text/__init__.py` too): setuptools puts that folder on `sys.path`,
/// so its `from more_itertools import ...` needs no dist of the environment.
fn vendored_modules(files: &[String]) -> BTreeSet<String> {
    files
        .iter()
        .filter_map(|f| {
            let (_, inside) = f.split_once("/_vendor/")?;
            match inside.split_once('/') {
                None => inside.strip_suffix(".py").map(str::to_string),
                // A package, or a namespace package (`jaraco/text/__init__.py`).
                Some((dir, rest)) if !dir.contains('.') && rest.ends_with(".py") => {
                    Some(dir.to_string())
                }
                Some(_) => None,
            }
        })
        .collect()
}

/// The modules a wheel's console and GUI scripts run (`tensorboard = tensorboard.main:run_main`
/// in its `entry_points.txt`).
fn script_modules(
    name: &PackageName,
    version: &Version,
    files: &[String],
    oracle: &dyn Oracle,
) -> Vec<String> {
    let Some(path) = files.iter().find(|f| {
        f.ends_with("/entry_points.txt")
            && f.split('/')
                .next()
                .is_some_and(|d| d.ends_with(".dist-info"))
    }) else {
        return Vec::new();
    };
    let Some(text) = oracle.wheel_text(name, version, path) else {
        return Vec::new();
    };
    let mut section = "";
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = s;
        } else if matches!(section, "console_scripts" | "gui_scripts")
            && let Some((_, target)) = line.split_once('=')
        {
            let module = target.split(':').next().unwrap_or("").trim();
            if !module.is_empty() {
                out.push(module.to_string());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_and_the_standard_library() {
        assert_eq!(package_of("tb/plugins/base.py"), "tb.plugins");
        assert_eq!(package_of("tb/__init__.py"), "tb");
        assert_eq!(package_of("six.py"), "");
        for stdlib in [
            "os",
            "sys",
            "abc",
            "__future__",
            "tomllib",
            "_ctypes",
            "asyncore",
        ] {
            assert!(STDLIB.contains(stdlib), "{stdlib}");
        }
        for not in ["pkg_resources", "numpy", "setuptools", "distutils"] {
            assert!(!STDLIB.contains(not), "{not}");
        }
    }

    /// setuptools 84.2.1's wheel: `setuptools/dist.py` line 15 runs `from more_itertools import
    /// partition`, which its `setuptools/_vendor/more_itertools/` answers.
    #[test]
    fn modules_shipped_in_a_vendor_folder_are_the_release_s_own() {
        let files: Vec<String> = [
            "setuptools/_vendor/more_itertools/__init__.py",
            "setuptools/_vendor/more_itertools/more.py",
            "setuptools/_vendor/typing_extensions.py",
            "setuptools/_vendor/jaraco/text/__init__.py",
            "setuptools/_vendor/more_itertools-10.3.0.dist-info/RECORD",
            "setuptools/dist.py",
        ]
        .map(String::from)
        .to_vec();
        let found: Vec<String> = vendored_modules(&files).into_iter().collect();
        assert_eq!(found, ["jaraco", "more_itertools", "typing_extensions"]);
    }
}
