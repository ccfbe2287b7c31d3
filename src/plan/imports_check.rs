//! Imports a change takes away: an installed dist's file imports a module or a name of the
//! changed dist that the planned release no longer has (click 8.1 dropping `click._unicodefun`,
//! which black 22.1 imports; jinja2 3.1 dropping `Markup` and `escape`, which Flask 1.1.2
//! imports).
//!
//! In: the import statements of the changed dist's modules in the other installed dists' files
//! (and their module-level attribute uses in class bases and decorators: flax 0.12.1's
//! `class VariableEffect(jax.core.Effect):`, gone from jax 0.12's `jax.core`)
//! ([`crate::inventory::imports`], through the [`Oracle`]), the installed release's files
//! (`RECORD`) and the planned release's (its wheel's file list, [`Oracle::wheel_files`]), and what the imported module's
//! module binds in each ([`crate::inventory::module_names`]: the installed file; one member of
//! the planned wheel, read by range requests). Out: one sentence per import that will fail,
//! naming the importing file.
//!
//! It flags only what is certain: a module the installed release has and the planned one does
//! not; a name the installed module binds (or may hand out) while the planned module neither
//! binds it (defines, imports or lists in `__all__`: a mention in a string or a comment does
//! not count) nor can hand it out otherwise (a star import, a module `__getattr__`) and has no
//! submodule of that name. An import under `if`/`else` (`if TYPE_CHECKING:`), in an `except`
//! handler, inside a `try:` that catches what it would raise, or inside a private function
//! that nothing in its file names (it never runs) is left out. An import inside a function that
//! is called counts: black 22.1's `patch_click()` fails when `black` starts. Unknown (a release whose files
//! cannot be had, a snapshot without files) is silent.

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::oracle::Oracle;
use crate::inventory::imports::{ImportGuard, ImportUse};
use crate::inventory::module_names::ModuleNames;

/// At most this many failing imports are named per change.
const LISTED: usize = 3;

/// The import statements in `uses` that `name` `from` -> `to` breaks, as sentences (first
/// [`LISTED`], then how many more), and the dists whose statements they are (every one, sorted).
pub(crate) fn missing_imports(
    name: &PackageName,
    from: &Version,
    to: &Version,
    uses: &[&ImportUse],
    oracle: &dyn Oracle,
) -> (Vec<String>, Vec<PackageName>) {
    if uses.is_empty() {
        return Default::default();
    }
    let (Some(old), Some(new)) = (oracle.installed_files(name), oracle.wheel_files(name, to))
    else {
        return Default::default();
    };
    let mut importers = BTreeSet::new();
    let mut names = Names {
        name,
        oracle,
        seen: BTreeMap::new(),
    };
    let mut found = Vec::new();
    for import in uses {
        let statement = &import.statement;
        if statement.guard == ImportGuard::Any || statement.dead {
            continue;
        }
        let module = &statement.module;
        let what = if has_module(&old, module) && !has_module(&new, module) {
            (statement.guard == ImportGuard::None).then(|| format!("the module `{module}`"))
        } else if has_module(&new, module) && !statement.names.is_empty() {
            let asked: BTreeSet<String> = statement.names.iter().cloned().collect();
            let gone: Vec<&String> = statement
                .names
                .iter()
                .filter(|n| name_gone(&old, &new, module, n, &asked, (from, to), &mut names))
                .collect();
            (!gone.is_empty()).then(|| {
                if statement.attribute {
                    let used: Vec<String> =
                        gone.iter().map(|n| format!("`{module}.{n}`")).collect();
                    return used.join(", ");
                }
                format!(
                    "{} from `{module}`",
                    gone.iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        } else {
            None
        };
        if let Some(what) = what {
            importers.insert(import.dist.clone());
            let verb = if statement.attribute {
                "uses"
            } else {
                "imports"
            };
            found.push(format!(
                "{} {} ({}, line {}) {verb} {what}, which {name} {to} does not have",
                import.dist, import.version, import.file, statement.line
            ));
        }
    }
    let more = found.len().saturating_sub(LISTED);
    found.truncate(LISTED);
    if more > 0 {
        found.push(format!("and {more} more"));
    }
    (found, importers.into_iter().collect())
}

/// Which names a release's module files bind, asked once per (version, file, names).
struct Names<'a> {
    name: &'a PackageName,
    oracle: &'a dyn Oracle,
    seen: BTreeMap<(Version, String, BTreeSet<String>), Option<ModuleNames>>,
}

impl Names<'_> {
    fn of(
        &mut self,
        version: &Version,
        path: &str,
        asked: &BTreeSet<String>,
    ) -> Option<&ModuleNames> {
        let key = (version.clone(), path.to_string(), asked.clone());
        let (name, oracle) = (self.name, self.oracle);
        self.seen
            .entry(key)
            .or_insert_with(|| oracle.module_names(name, version, path, asked))
            .as_ref()
    }
}

/// Whether `from module import name` works with the old files and surely fails with the new.
fn name_gone(
    old: &[String],
    new: &[String],
    module: &str,
    name: &str,
    asked: &BTreeSet<String>,
    (from, to): (&Version, &Version),
    names: &mut Names<'_>,
) -> bool {
    let submodule = format!("{module}.{name}");
    if has_module(new, &submodule) {
        return false;
    }
    if has_module(old, &submodule) {
        return true;
    }
    let (Some(old_file), Some(new_file)) = (module_file(old, module), module_file(new, module))
    else {
        return false;
    };
    let defined_before = names
        .of(from, &old_file, asked)
        .is_some_and(|w| w.defined.contains(name));
    defined_before
        && names
            .of(to, &new_file, asked)
            .is_some_and(|w| !w.open && !w.defined.contains(name))
}

/// Whether a file list has the module `a.b`: `a/b.py`, `a/b/...` (a package, namespace or not),
/// or an extension `a/b.cpython-311-x86_64-linux-gnu.so`.
pub(crate) fn has_module(files: &[String], module: &str) -> bool {
    let path = module.replace('.', "/");
    let folder = format!("{path}/");
    let stem = format!("{path}.");
    files.iter().any(|f| {
        f.starts_with(&folder)
            || f.strip_prefix(&stem).is_some_and(|rest| {
                rest == "py"
                    || (!rest.contains('/')
                        && (rest.ends_with(".so")
                            || rest == "so"
                            || rest.ends_with(".pyd")
                            || rest == "pyd"))
            })
    })
}

/// The source file of the module `a.b` in a file list: `a/b/__init__.py` or `a/b.py`.
pub(crate) fn module_file(files: &[String], module: &str) -> Option<String> {
    let path = module.replace('.', "/");
    [format!("{path}/__init__.py"), format!("{path}.py")]
        .into_iter()
        .find(|candidate| files.contains(candidate))
}

#[cfg(test)]
mod tests {
    use super::has_module;

    #[test]
    fn modules_in_a_file_list() {
        let files: Vec<String> = [
            "click/__init__.py",
            "click/core.py",
            "ns/sub/x.py",
            "numpy/core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for yes in [
            "click",
            "click.core",
            "ns",
            "ns.sub",
            "numpy.core._multiarray_umath",
        ] {
            assert!(has_module(&files, yes), "{yes}");
        }
        for no in [
            "click._unicodefun",
            "click.cor",
            "clic",
            "numpy.core.multiarray",
        ] {
            assert!(!has_module(&files, no), "{no}");
        }
    }
}
