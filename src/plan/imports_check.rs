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
//! submodule of that name. A lazy loader (`sys.modules[__name__] = _LazyModule(...)`,
//! transformers 5's `__init__.py`) binds its import structure and hands out what its relative
//! star imports and its structure's folders hold: those are read too ([`Oracle::folder_sources`]),
//! and one that cannot be read makes no claim. An import under `if`/`else` (`if TYPE_CHECKING:`), in an `except`
//! handler (but for a fallback whose `try:` body's import surely fails with the planned release,
//! [`tried_fails`]), inside a `try:` that catches what it would raise, or inside a private function
//! that nothing in its file names (it never runs) is left out, and so is one inside a function
//! that runs neither at import nor when the dist's scripts start (Jinja2 2.11.3's
//! `PackageLoader.__init__` imports `pkg_resources` only when a user makes one: no import-time
//! break, [`ImportStatement::deferred`](crate::inventory::imports::ImportStatement)). An import
//! inside a function that runs counts: black 22.1's `patch_click()`, which `patched_main()`
//! (the `black` script) calls, fails when `black` starts. Unknown (a release whose files
//! cannot be had, a snapshot without files) is silent.

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::oracle::Oracle;
use crate::inventory::imports::{Fallback, ImportGuard, ImportStatement, ImportUse};
pub(crate) use crate::inventory::module_files::{has_module, module_file};
use crate::inventory::module_names::{Lazy, ModuleNames, module_names};
use crate::risk::Citation;

/// At most this many failing imports are named per change.
const LISTED: usize = 3;

/// What [`missing_imports`] finds.
#[derive(Debug, Default)]
pub(crate) struct Missing {
    /// One sentence per failing statement (the first [`LISTED`], then how many more).
    pub sentences: Vec<String>,
    /// Every failing statement as data, one per missing name (or module).
    pub citations: Vec<Citation>,
    /// The dists whose statements they are (every one, sorted).
    pub importers: Vec<PackageName>,
}

impl Missing {
    /// The first [`LISTED`] sentences of `found`, then how many more, with every citation.
    pub(crate) fn listed(
        mut found: Vec<String>,
        citations: Vec<Citation>,
        importers: BTreeSet<PackageName>,
    ) -> Missing {
        let more = found.len().saturating_sub(LISTED);
        found.truncate(LISTED);
        if more > 0 {
            found.push(format!("and {more} more"));
        }
        Missing {
            sentences: found,
            citations,
            importers: importers.into_iter().collect(),
        }
    }
}

/// The import statements in `uses` that `name` `from` -> `to` breaks.
pub(crate) fn missing_imports(
    name: &PackageName,
    from: &Version,
    to: &Version,
    uses: &[&ImportUse],
    oracle: &dyn Oracle,
) -> Missing {
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
    let mut citations = Vec::new();
    for import in uses {
        let statement = &import.statement;
        let Some(guard) = guard_of(statement, (&old, &new), (from, to), &mut names) else {
            continue;
        };
        if guard == ImportGuard::Any || statement.dead || statement.deferred {
            continue;
        }
        let module = &statement.module;
        let cite = |name: Option<&String>| Citation {
            dist: import.dist.to_string(),
            version: import.version.to_string(),
            file: import.file.clone(),
            line: statement.line,
            module: module.clone(),
            name: name.cloned(),
            attribute: statement.attribute,
            function: None,
        };
        let what = if has_module(&old, module) && !has_module(&new, module) {
            (guard == ImportGuard::None).then(|| {
                citations.push(cite(None));
                format!("the module `{module}`")
            })
        } else if has_module(&new, module) && !statement.names.is_empty() {
            let asked: BTreeSet<String> = statement.names.iter().cloned().collect();
            let gone: Vec<&String> = statement
                .names
                .iter()
                .filter(|n| name_gone(&old, &new, module, n, &asked, (from, to), &mut names))
                .collect();
            citations.extend(gone.iter().map(|n| cite(Some(n))));
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
            found.push(sentence(import, what, (name, to)));
        }
    }
    Missing::listed(found, citations, importers)
}

/// What catches a statement's failure: its own guard; for a handler's fallback import, nothing
/// where its `try:` body's import surely fails ([`tried_fails`]), else `None` (it does not run).
pub(super) fn guard_of(
    statement: &ImportStatement,
    files: (&[String], &[String]),
    versions: (&Version, &Version),
    names: &mut Names<'_>,
) -> Option<ImportGuard> {
    match &statement.fallback {
        None => Some(statement.guard),
        Some(fallback) => tried_fails(fallback, &statement.module, files, versions, names)
            .then_some(ImportGuard::None),
    }
}

/// "black 22.1.0 (black/__init__.py, line 5) imports `_unicodefun` from `click`, which click
/// 8.1.7 does not have".
fn sentence(import: &ImportUse, what: String, (name, to): (&PackageName, &Version)) -> String {
    let statement = &import.statement;
    let verb = if statement.attribute {
        "uses"
    } else {
        "imports"
    };
    let handler = if statement.fallback.is_some() {
        " (in the `except ImportError:` of a `try:` whose own import fails with it too)"
    } else {
        ""
    };
    format!(
        "{} {} ({}, line {}) {verb} {what}, which {name} {to} does not have{handler}",
        import.dist, import.version, import.file, statement.line
    )
}

/// Whether some import of a fallback's `try:` body surely fails with the new release: an
/// import of the changed dist's module (`changed`'s top-level name), directly or through another
/// dist's path to it (`requests.packages.urllib3.contrib` is `urllib3.contrib`, as requests'
/// `packages.py` aliases it; [`crate::plan::builder`] checks that no dist ships such a path as
/// files), that the new release lacks (the module, or a name the old one had).
fn tried_fails(
    fallback: &Fallback,
    changed: &str,
    (old, new): (&[String], &[String]),
    versions: (&Version, &Version),
    names: &mut Names<'_>,
) -> bool {
    let top = changed.split('.').next().unwrap_or(changed);
    fallback.tried.iter().any(|(module, imported)| {
        let Some(module) = through_path(module, top) else {
            return false;
        };
        if !has_module(new, &module) {
            return has_module(old, &module);
        }
        let asked: BTreeSet<String> = imported.iter().cloned().collect();
        imported
            .iter()
            .any(|n| name_gone(old, new, &module, n, &asked, versions, names))
    })
}

/// `module` as a module of the top-level `top`: itself when it is one, its tail from the part
/// named `top` when another package's path leads to it (`requests.packages.urllib3.contrib` ->
/// `urllib3.contrib`), else `None`.
pub(crate) fn through_path(module: &str, top: &str) -> Option<String> {
    let parts: Vec<&str> = module.split('.').collect();
    let at = parts.iter().position(|p| *p == top)?;
    Some(parts[at..].join("."))
}

/// Which names a release's module files bind, asked once per (version, file, names).
pub(super) struct Names<'a> {
    pub(super) name: &'a PackageName,
    pub(super) oracle: &'a dyn Oracle,
    pub(super) seen: BTreeMap<(Version, String, BTreeSet<String>), Option<ModuleNames>>,
}

impl Names<'_> {
    pub(super) fn of(
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
pub(super) fn name_gone(
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
    if !defined_before {
        return false;
    }
    let Some(after) = names.of(to, &new_file, asked).cloned() else {
        return false;
    };
    if after.open || after.defined.contains(name) {
        return false;
    }
    let place = Place {
        files: new,
        version: to,
        module,
        file: &new_file,
    };
    after
        .lazy
        .is_none_or(|lazy| !names.lazy_may_have(&place, &lazy, name, asked, 0))
}

/// A module of the planned release, for [`Names::lazy_may_have`].
pub(super) struct Place<'a> {
    /// The release's file list.
    pub(super) files: &'a [String],
    pub(super) version: &'a Version,
    /// The module (`transformers`) and its file (`transformers/__init__.py`).
    pub(super) module: &'a str,
    pub(super) file: &'a str,
}

/// How deep star imports of lazy modules are followed before "may have" is answered.
const LAZY_DEPTH: usize = 4;

impl Names<'_> {
    /// Whether the lazy module at `place` may hand out `name` through what its [`Lazy`] lists:
    /// a folder's `.py` file that binds it (the import structure is built from their
    /// `__all__`), a star-imported module that binds it or may hand it out; also when any of
    /// them cannot be read.
    pub(super) fn lazy_may_have(
        &mut self,
        place: &Place<'_>,
        lazy: &Lazy,
        name: &str,
        asked: &BTreeSet<String>,
        depth: usize,
    ) -> bool {
        if depth >= LAZY_DEPTH {
            return true;
        }
        let package = if place.file.ends_with("/__init__.py") {
            place.module.to_string()
        } else {
            place
                .module
                .rsplit_once('.')
                .map_or("", |(p, _)| p)
                .to_string()
        };
        let folder = package.replace('.', "/");
        let prefixes: Vec<String> = lazy
            .folders
            .iter()
            .map(|sub| match sub.as_str() {
                "" => format!("{folder}/"),
                sub => format!("{folder}/{sub}/"),
            })
            .collect();
        for prefix in &prefixes {
            let Some(sources) = self.oracle.folder_sources(self.name, place.version, prefix) else {
                return true;
            };
            let binds = sources.iter().any(|(_, text)| {
                // `__all__` is read from the text: a file without the name cannot list it
                text.contains(name) && {
                    let found = module_names(text, asked);
                    found.open || found.defined.contains(name)
                }
            });
            if binds {
                return true;
            }
        }
        for (level, star) in &lazy.stars {
            let Some(target) = resolve(&package, *level, star) else {
                return true;
            };
            let path = format!("{}/", target.replace('.', "/"));
            if prefixes.iter().any(|p| path.starts_with(p.as_str())) {
                continue;
            }
            let Some(file) = module_file(place.files, &target) else {
                return true;
            };
            let Some(found) = self.of(place.version, &file, asked).cloned() else {
                return true;
            };
            if found.open || found.defined.contains(name) {
                return true;
            }
            let inner = Place {
                module: &target,
                file: &file,
                ..*place
            };
            if let Some(lazy) = &found.lazy
                && self.lazy_may_have(&inner, lazy, name, asked, depth + 1)
            {
                return true;
            }
        }
        false
    }
}

/// The module `from <level dots><module> import *` names inside `package`; `None` past the top.
fn resolve(package: &str, level: usize, module: &str) -> Option<String> {
    let mut parts: Vec<&str> = package.split('.').filter(|p| !p.is_empty()).collect();
    for _ in 1..level {
        parts.pop()?;
    }
    if !module.is_empty() {
        parts.push(module);
    }
    (!parts.is_empty()).then(|| parts.join("."))
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::sync::Arc;

    use jiff::Timestamp;
    use pep440_rs::Version;
    use pep508_rs::PackageName;

    use super::{Oracle, missing_imports};
    use crate::inventory::imports::{ImportGuard, ImportStatement, ImportUse};
    use crate::inventory::module_names::{ModuleNames, module_names};
    use crate::risk::Upstream;

    /// Two releases of one dist as files: the installed one's and the planned one's, and the
    /// folders [`Oracle::folder_sources`] hands out (`None`: cannot be read).
    pub(crate) struct Releases {
        pub(crate) old: BTreeMap<&'static str, &'static str>,
        pub(crate) new: BTreeMap<&'static str, &'static str>,
        pub(crate) folders: Option<Vec<(String, String)>>,
    }

    impl Oracle for Releases {
        fn upstream(&self, _: &PackageName, _: &PackageName, _: &Version) -> Upstream {
            Upstream::Unknown
        }
        fn abi_link(
            &self,
            _: &PackageName,
            _: &PackageName,
            _: &Version,
            _: &Version,
        ) -> Option<crate::inventory::extensions::AbiLink> {
            None
        }
        fn released(&self, _: &PackageName, _: &Version) -> Option<Timestamp> {
            None
        }
        fn first_release_from(&self, _: &PackageName, _: &Version) -> Option<Timestamp> {
            None
        }
        fn installed_files(&self, _: &PackageName) -> Option<Vec<String>> {
            Some(self.old.keys().map(|k| k.to_string()).collect())
        }
        fn wheel_files(&self, _: &PackageName, _: &Version) -> Option<Vec<String>> {
            Some(self.new.keys().map(|k| k.to_string()).collect())
        }
        fn module_names(
            &self,
            _: &PackageName,
            version: &Version,
            path: &str,
            asked: &BTreeSet<String>,
        ) -> Option<ModuleNames> {
            Some(module_names(self.files(version).get(path)?, asked))
        }
        fn folder_sources(
            &self,
            _: &PackageName,
            version: &Version,
            prefix: &str,
        ) -> Option<Arc<Vec<(String, String)>>> {
            if prefix == "transformers/models/" {
                return self.folders.clone().map(Arc::new);
            }
            let files = self.files(version).iter();
            let sources = (files.filter(|(path, _)| path.starts_with(prefix)))
                .map(|(path, text)| (path.to_string(), text.to_string()));
            Some(Arc::new(sources.collect()))
        }
    }

    impl Releases {
        /// The installed release's files for the installed versions the tests use (transformers
        /// 4.57.6, twisted 22.10.0), else the planned one's.
        fn files(&self, version: &Version) -> &BTreeMap<&'static str, &'static str> {
            if ["4.57.6", "22.10.0"].contains(&version.to_string().as_str()) {
                &self.old
            } else {
                &self.new
            }
        }
    }

    /// peft 0.17.1's `peft_model.py` line 37 imports `HybridCache` from transformers, whose
    /// 5.25.0 `__init__.py` (a `_LazyModule`) no longer lists it; a name 5.25.0 hands out only
    /// through a file under `models/` (`Gemma2Config`) is no claim, and nothing is claimed when
    /// that folder cannot be read.
    #[test]
    fn a_name_a_lazy_module_no_longer_lists_is_missing_once_its_folders_are_read() {
        let lazy_old = "import sys\nfrom typing import TYPE_CHECKING\nfrom .utils import _LazyModule\n\
                        if TYPE_CHECKING:\n    from .cache_utils import HybridCache\n    \
                        from .models.gemma2 import Gemma2Config\nelse:\n    \
                        sys.modules[__name__] = _LazyModule(__name__, __file__, {})\n";
        let real_new =
            include_str!("../../testdata/imports/transformers-5.25.0/transformers/__init__.py");
        let oracle = |folders| Releases {
            old: [("transformers/__init__.py", lazy_old)].into(),
            new: [
                ("transformers/__init__.py", real_new),
                ("transformers/models/__init__.py", ""),
            ]
            .into(),
            folders,
        };
        let statement = ImportStatement {
            line: 37,
            module: "transformers".to_string(),
            names: vec!["HybridCache".to_string(), "Gemma2Config".to_string()],
            guard: ImportGuard::None,
            dead: false,
            deferred: false,
            attribute: false,
            function: None,
            fallback: None,
        };
        let import = ImportUse {
            dist: "peft".parse().unwrap(),
            version: "0.17.1".parse().unwrap(),
            file: "peft/peft_model.py".to_string(),
            statement,
        };
        let name: PackageName = "transformers".parse().unwrap();
        let (from, to) = ("4.57.6".parse().unwrap(), "5.25.0".parse().unwrap());
        let models = vec![
            (
                "transformers/models/gemma2/configuration_gemma2.py".to_string(),
                "class Gemma2Config:\n    pass\n\n\n__all__ = [\"Gemma2Config\"]\n".to_string(),
            ),
            (
                "transformers/models/gemma2/modeling_gemma2.py".to_string(),
                "# no HybridCache here any more\n__all__ = [\"Gemma2Model\"]\n".to_string(),
            ),
        ];
        let missing = missing_imports(&name, &from, &to, &[&import], &oracle(Some(models)));
        assert_eq!(
            missing.sentences,
            [
                "peft 0.17.1 (peft/peft_model.py, line 37) imports `HybridCache` from \
              `transformers`, which transformers 5.25.0 does not have"
            ]
        );
        assert_eq!(missing.importers, ["peft".parse::<PackageName>().unwrap()]);
        let cited: Vec<_> = missing
            .citations
            .iter()
            .map(|c| {
                (
                    c.file.as_str(),
                    c.line,
                    c.module.as_str(),
                    c.name.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            cited,
            [(
                "peft/peft_model.py",
                37,
                "transformers",
                Some("HybridCache")
            )]
        );
        let missing = missing_imports(&name, &from, &to, &[&import], &oracle(None));
        assert!(
            missing.sentences.is_empty() && missing.citations.is_empty(),
            "{missing:?}"
        );
    }
}
