//! Uses of a changed dist that fail when a function runs, not on import: the reverse half of
//! the import-time evidence ([`super::imports_check`]), for what it leaves out on purpose.
//!
//! In: the changed dist's import statements and dotted uses inside function bodies of other
//! installed dists' files ([`ImportStatement::deferred`]: a function that runs neither at import
//! nor when the dist's scripts start, and every dotted use in a function body), the installed
//! and planned releases' file lists, and what the planned release's modules bind
//! ([`crate::inventory::module_names`], read by range requests as the import-time evidence
//! reads them). Out: one sentence per use that will fail, naming the file, the line and the
//! function (`langchain 0.0.300 (langchain/llms/openai.py, line 92, in
//! `_create_retry_decorator`) uses `openai.error`, which openai 2.54.0 does not ship: breaks when
//! that code runs, not on import`).
//!
//! Two shapes count. An import statement in a function (`from transformers.integrations.tensor_parallel
//! import ReplicateParallel`, accelerate 1.11.0's `_prepare_tp`): the checks the import-time
//! evidence makes (a module the installed release ships and the planned one does not; a name
//! the installed module binds and the planned one surely does not). A dotted use on a name an
//! import binds to the changed dist (`openai.error.Timeout` after `import openai`, in the
//! function or at module level): its first part that the installed release ships as a module
//! (`openai.error`) and the planned release does not, where the planned parent module
//! (`openai/__init__.py`) does not bind that name either; a parent that may hand it out (a
//! module `__getattr__`, dynamic globals, a lazy loader, a star import of a module that binds
//! it or may) makes no claim, nor does one that cannot be read. Left out as the import-time
//! evidence leaves them out: a use under `if` (`if TYPE_CHECKING:`), in an `except` handler,
//! inside a `try:` that catches it, in a private function nothing names, in tests and vendored
//! copies (not read).

mod attribute;
mod fixed;

pub(in crate::plan) use fixed::still_uses;

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::imports_check::{Missing, Names, Place, guard_of, has_module, module_file, name_gone};
use super::oracle::Oracle;
use crate::inventory::imports::{ImportGuard, ImportUse};
use crate::inventory::module_names::Lazy;
use crate::risk::Citation;

/// The uses in `uses` inside function bodies that `name` `from` -> `to` breaks when they run.
pub(crate) fn call_time_missing(
    name: &PackageName,
    (from, to): (&Version, &Version),
    uses: &[&ImportUse],
    oracle: &dyn Oracle,
) -> Missing {
    let uses: Vec<&&ImportUse> = uses
        .iter()
        .filter(|u| u.statement.deferred && !u.statement.dead && u.statement.fallback.is_none())
        .collect();
    if uses.is_empty() {
        return Missing::default();
    }
    let (Some(old), Some(new)) = (oracle.installed_files(name), oracle.wheel_files(name, to))
    else {
        return Missing::default();
    };
    let mut names = Names {
        name,
        oracle,
        seen: BTreeMap::new(),
    };
    let mut importers = BTreeSet::new();
    let mut found = Vec::new();
    let mut citations = Vec::new();
    let mut said = BTreeSet::new();
    for import in uses {
        let statement = &import.statement;
        let Some(ImportGuard::None) = guard_of(statement, (&old, &new), (from, to), &mut names)
        else {
            continue;
        };
        let module = &statement.module;
        let cite = |module: &str, name: Option<&String>| Citation {
            dist: import.dist.to_string(),
            version: import.version.to_string(),
            file: import.file.clone(),
            line: statement.line,
            module: module.to_string(),
            name: name.cloned(),
            attribute: statement.attribute,
            function: statement.function.clone(),
        };
        let what = if statement.attribute {
            let used = format!("{module}.{}", statement.names.join("."));
            let gone = gone_module(&used, (&old, &new), to, &mut names).map(|gone| {
                citations.push(cite(&gone, None));
                format!("uses `{gone}`, which {name} {to} does not ship")
            });
            gone.or_else(|| {
                let [attr] = statement.names.as_slice() else {
                    return None;
                };
                let what = attribute::attribute_gone((module, attr), (from, to), &new, &mut names);
                citations.extend(what.is_some().then(|| cite(module, Some(attr))));
                what
            })
        } else if has_module(&old, module) && !has_module(&new, module) {
            citations.push(cite(module, None));
            Some(format!(
                "imports the module `{module}`, which {name} {to} does not ship"
            ))
        } else if has_module(&new, module) && !statement.names.is_empty() {
            let asked: BTreeSet<String> = statement.names.iter().cloned().collect();
            let gone: Vec<&String> = (statement.names.iter())
                .filter(|n| name_gone(&old, &new, module, n, &asked, (from, to), &mut names))
                .collect();
            citations.extend(gone.iter().map(|n| cite(module, Some(n))));
            let listed: Vec<String> = gone.iter().map(|n| format!("`{n}`")).collect();
            (!gone.is_empty()).then(|| {
                format!(
                    "imports {} from `{module}`, which {name} {to} does not have",
                    listed.join(", ")
                )
            })
        } else {
            None
        };
        // one sentence per dist and failing use (`openai.error` of `openai.error.Timeout` and
        // of `openai.error.APIError`); every use stays cited
        let Some(what) = what.filter(|w| said.insert((import.dist.clone(), w.clone()))) else {
            continue;
        };
        importers.insert(import.dist.clone());
        let function = (statement.function.as_deref())
            .map(|f| format!(", in `{f}`"))
            .unwrap_or_default();
        found.push(format!(
            "{} {} ({}, line {}{function}) {what}: breaks when that code runs, not on import",
            import.dist, import.version, import.file, statement.line
        ));
    }
    Missing::listed(found, citations, importers)
}

/// The first module along the dotted use `used` (`openai.error.Timeout`: `openai.error`) that
/// the installed release ships and the planned one does not, where the planned parent module
/// surely does not bind its last part; `None` when every part up to the first that is no
/// installed module is there, or the parent may bind it.
fn gone_module(
    used: &str,
    (old, new): (&[String], &[String]),
    to: &Version,
    names: &mut Names<'_>,
) -> Option<String> {
    let parts: Vec<&str> = used.split('.').collect();
    for end in 2..=parts.len() {
        let module = parts[..end].join(".");
        if !has_module(old, &module) {
            return None;
        }
        if has_module(new, &module) {
            continue;
        }
        let parent = parts[..end - 1].join(".");
        let last = parts[end - 1];
        return (!parent_may_bind(new, &parent, last, to, names)).then_some(module);
    }
    None
}

/// Whether the planned release's module `parent` binds `name` or may hand it out (read
/// conservatively: a module that cannot be read, or is open, may).
fn parent_may_bind(
    new: &[String],
    parent: &str,
    name: &str,
    to: &Version,
    names: &mut Names<'_>,
) -> bool {
    let Some(file) = module_file(new, parent) else {
        return true;
    };
    let asked: BTreeSet<String> = [name.to_string()].into();
    let Some(after) = names.of(to, &file, &asked).cloned() else {
        return true;
    };
    if after.defined.contains(name) || (after.open && after.stars.is_empty()) {
        return true;
    }
    let place = Place {
        files: new,
        version: to,
        module: parent,
        file: &file,
    };
    let lazy = after.lazy.clone().or_else(|| {
        (!after.stars.is_empty()).then(|| Lazy {
            stars: after.stars.clone(),
            folders: Vec::new(),
        })
    });
    lazy.is_some_and(|lazy| names.lazy_may_have(&place, &lazy, name, &asked, 0))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use pep508_rs::PackageName;

    use super::call_time_missing;
    use crate::inventory::imports::{ImportGuard, ImportStatement, ImportUse};
    use crate::plan::imports_check::tests::Releases;

    /// langchain 0.0.300's `llms/openai.py` line 92 uses `openai.error.Timeout` in
    /// `_create_retry_decorator`: openai 2.54.0's real `__init__.py` binds no `error` (its star
    /// import of `lib/_old_api.py` is read: the old API's class names only), so the call fails.
    /// A planned `__init__.py` that binds `error`, answers any name (`__getattr__`) or
    /// star-imports a module binding it makes no claim.
    #[test]
    fn a_dotted_use_in_a_function_of_a_module_the_planned_release_dropped_is_a_call_time_break() {
        let old: BTreeMap<&str, &str> = [
            ("openai/__init__.py", ""),
            ("openai/error.py", "class Timeout(Exception):\n    pass\n"),
        ]
        .into();
        let real_init = include_str!("../../testdata/imports/openai-2.54.0/openai/__init__.py");
        let real_old_api =
            include_str!("../../testdata/imports/openai-2.54.0/openai/lib/_old_api.py");
        let planned = |init: &'static str, old_api: &'static str| Releases {
            old: old.clone(),
            new: [
                ("openai/__init__.py", init),
                ("openai/lib/__init__.py", ""),
                ("openai/lib/_old_api.py", old_api),
            ]
            .into(),
            folders: None,
        };
        let import = ImportUse {
            dist: "langchain".parse().unwrap(),
            version: "0.0.300".parse().unwrap(),
            file: "langchain/llms/openai.py".to_string(),
            statement: ImportStatement {
                line: 92,
                module: "openai.error".to_string(),
                names: vec!["Timeout".to_string()],
                guard: ImportGuard::None,
                dead: false,
                deferred: true,
                attribute: true,
                function: Some("_create_retry_decorator".to_string()),
                fallback: None,
            },
        };
        let name: PackageName = "openai".parse().unwrap();
        let (from, to) = ("0.28.1".parse().unwrap(), "2.54.0".parse().unwrap());
        let run = |oracle: &Releases| call_time_missing(&name, (&from, &to), &[&import], oracle);
        let missing = run(&planned(real_init, real_old_api));
        assert_eq!(
            missing.sentences,
            ["langchain 0.0.300 (langchain/llms/openai.py, line 92, in \
                 `_create_retry_decorator`) uses `openai.error`, which openai 2.54.0 does not \
                 ship: breaks when that code runs, not on import"]
        );
        let cited: Vec<_> = (missing.citations.iter())
            .map(|c| (c.line, c.module.as_str(), c.name.as_deref(), c.attribute))
            .collect();
        assert_eq!(cited, [(92, "openai.error", None, true)]);
        for (init, old_api) in [
            ("from . import _exceptions as error\n", ""),
            ("def __getattr__(name):\n    return name\n", ""),
            ("from .lib._old_api import *\n", "error = None\n"),
        ] {
            let missing = run(&planned(init, old_api));
            assert_eq!(missing.sentences, Vec::<String>::new(), "{init}");
        }
    }
}
