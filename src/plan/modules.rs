//! Modules a plan takes away: a changed dist whose new release no longer installs a top-level
//! module that installed dists import (setuptools 81+ dropping `pkg_resources`).
//!
//! In: the inventory, a plan's changes and what a planned release's wheel installs (its zip's
//! file list, as the plan builder's oracle reads it). Out: one warning per dropped module that some
//! installed dist imports, naming the importers.
//!
//! The installed side is the dist's `top_level.txt`, else the first path components of its
//! `RECORD`; the new side is the planned wheel's file list (read by range requests, cached). A
//! module still provided after the plan by another dist (a namespace package, a module moved
//! into a dist the plan adds) is not dropped. What it can miss: a release whose file list cannot
//! be had (an sdist, `--offline` with nothing cached, an index that serves no wheel files), a
//! module dropped inside a package (`setuptools.extern`), and the imports
//! [`crate::inventory::imports`] cannot see (spelled at run time, compiled code).

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use pep508_rs::PackageName;

use pep440_rs::Version;

use super::proposal::Change;
use crate::inventory::Inventory;
use crate::inventory::imports::{imports_module, source_imports_module};

/// How many importers a warning names.
const IMPORTERS_LISTED: usize = 5;

/// The top-level modules a planned release installs (`name`, `version` -> [`top_level_of`] its
/// wheel's paths), when known.
pub(crate) type Installs<'a> = &'a dyn Fn(&PackageName, &Version) -> Option<Arc<BTreeSet<String>>>;

/// The text of a file of a planned release (`name`, `version`, path in its wheel), when known.
pub(crate) type WheelText<'a> = &'a dyn Fn(&PackageName, &Version, &str) -> Option<String>;

/// An installed dist that imports a module, and the first of its files that does.
#[derive(Debug, Clone)]
struct Importer {
    name: PackageName,
    version: Version,
    file: String,
}

/// Which installed dists import a module, looked up once per (dropping dist, module) however
/// many plans ask (each lookup reads installed source files).
#[derive(Debug, Default)]
pub(crate) struct ImportersMemo {
    found: Mutex<HashMap<(PackageName, String), Vec<Importer>>>,
}

impl ImportersMemo {
    /// [`importers`], remembered.
    fn get(&self, inventory: &Inventory, dropping: &PackageName, module: &str) -> Vec<Importer> {
        let key = (dropping.clone(), module.to_string());
        let lock = || self.found.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = lock().get(&key) {
            return found.clone();
        }
        let found = importers(inventory, dropping, module);
        lock().insert(key, found.clone());
        found
    }
}

/// One warning per top-level module a changed dist stops installing while dists of the planned
/// environment import it: an importer the plan keeps, by its installed file; one the plan moves,
/// by the same file of its planned release (named at its planned version; left out when that
/// file no longer imports it; named as not read when it cannot be had).
pub(crate) fn removed_module_warnings(
    inventory: &Inventory,
    changes: &[Change],
    (installs, wheel_text): (Installs<'_>, WheelText<'_>),
    memo: &ImportersMemo,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for change in changes {
        let (Some(from), Some(to)) = (&change.from, &change.to) else {
            continue;
        };
        let Some(installed) = inventory.get(&change.name) else {
            continue;
        };
        if installed.top_level.is_empty() {
            continue;
        }
        let Some(after) = installs(&change.name, to) else {
            continue;
        };
        for module in &installed.top_level {
            if after.contains(module)
                || provided_elsewhere(inventory, changes, installs, &change.name, module)
            {
                continue;
            }
            let importers: Vec<String> = memo
                .get(inventory, &change.name, module)
                .into_iter()
                .filter_map(|importer| after_plan(importer, changes, wheel_text, module))
                .collect();
            if importers.is_empty() {
                continue;
            }
            let more = importers.len().saturating_sub(IMPORTERS_LISTED);
            warnings.push(format!(
                "{} {to} no longer installs the module `{module}` ({from} did), which installed \
                 dists import: {}{}",
                change.name,
                importers
                    .iter()
                    .take(IMPORTERS_LISTED)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
    }
    warnings
}

/// The top-level import names a wheel installs: its folders (less `*.dist-info` and `*.data`)
/// and its top-level modules (`six.py`, `_cffi_backend.cpython-312-x86_64-linux-gnu.so`).
pub(crate) fn top_level_of(members: &[String]) -> BTreeSet<String> {
    members
        .iter()
        .filter_map(|path| match path.split_once('/') {
            Some((dir, _)) if dir.ends_with(".dist-info") || dir.ends_with(".data") => None,
            Some((dir, _)) => Some(dir.to_string()),
            None if path.ends_with(".py") => Some(path.trim_end_matches(".py").to_string()),
            None if path.ends_with(".so") || path.ends_with(".pyd") => {
                path.split('.').next().map(str::to_string)
            }
            None => None,
        })
        .collect()
}

/// Whether another dist provides `module` after the plan: one the plan leaves as installed, or
/// one it adds or changes whose planned wheel installs it.
fn provided_elsewhere(
    inventory: &Inventory,
    changes: &[Change],
    installs: Installs<'_>,
    dropping: &PackageName,
    module: &str,
) -> bool {
    let kept = inventory.dists.iter().any(|d| {
        d.name() != dropping
            && changes.iter().all(|c| &c.name != d.name())
            && d.top_level.iter().any(|m| m == module)
    });
    kept || changes.iter().any(|c| {
        &c.name != dropping
            && c.to.as_ref().is_some_and(|to| {
                installs(&c.name, to).is_some_and(|modules| modules.contains(module))
            })
    })
}

/// The installed dists (other than `dropping`) that import `module`.
fn importers(inventory: &Inventory, dropping: &PackageName, module: &str) -> Vec<Importer> {
    inventory
        .dists
        .iter()
        .filter(|d| d.name() != dropping)
        .filter_map(|d| {
            imports_module(d, module).map(|file| Importer {
                name: d.name().clone(),
                version: d.version().clone(),
                file,
            })
        })
        .collect()
}

/// An installed importer as the plan leaves it: `name version (file)` at the version the plan
/// gives it; `None` when the plan removes it or its planned release's same file no longer
/// imports `module`.
fn after_plan(
    importer: Importer,
    changes: &[Change],
    wheel_text: WheelText<'_>,
    module: &str,
) -> Option<String> {
    let Importer {
        name,
        version,
        file,
    } = importer;
    let Some(change) = changes.iter().find(|c| c.name == name) else {
        return Some(format!("{name} {version} ({file})"));
    };
    let to = change.to.as_ref()?;
    match wheel_text(&name, to, &file) {
        Some(text) if source_imports_module(&text, module) => Some(format!("{name} {to} ({file})")),
        Some(_) => None,
        None => Some(format!(
            "{name} {to} (its installed {version}'s {file} does; the planned release's files \
             could not be read)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::top_level_of;

    #[test]
    fn a_wheels_top_level_names() {
        let members: Vec<String> = [
            "setuptools/__init__.py",
            "_distutils_hack/__init__.py",
            "distutils-precedence.pth",
            "six.py",
            "_cffi_backend.cpython-312-x86_64-linux-gnu.so",
            "setuptools-80.0.0.dist-info/RECORD",
            "foo-1.0.data/scripts/foo",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let names: Vec<String> = top_level_of(&members).into_iter().collect();
        assert_eq!(
            names,
            ["_cffi_backend", "_distutils_hack", "setuptools", "six"]
        );
    }
}
