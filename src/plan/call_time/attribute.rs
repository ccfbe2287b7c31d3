//! A private attribute used on what an import binds to the changed dist, which the planned
//! release defines nowhere: scrapy 2.8.0's `install_shutdown_handlers` does `from
//! twisted.internet import reactor` and calls `reactor._handleSignals()`. The module
//! `twisted.internet.reactor` replaces itself with the reactor object, whose class is chosen when
//! it is installed, so the object's type is not followed; the claim rests on the whole package
//! instead.
//!
//! How far it goes, and no further (when unsure, no claim):
//! - only a private name (`_handleSignals`: one leading underscore, not a dunder), a dist's own
//!   implementation, which no other dist's base class or proxy is expected to serve; a public
//!   attribute is never claimed;
//! - the installed release defines it (a `def`, an assignment in a class or module body, or
//!   `self.NAME =`) in a `.py` file of the binding's top-level package, cited in the sentence
//!   (`twisted 22.10.0: twisted/internet/base.py, line 1264`), tests left out;
//! - the planned release's files under that package name it nowhere: no `.py` line holds it as a
//!   word outside a comment line (a definition, an assignment, a use, a string naming it for
//!   `getattr`, a docstring all count), no file or folder is named after it, and the package ships
//!   no compiled module (`.so`, `.pyd`) that could define it;
//! - nothing there may serve it through a hook: the planned binding module (`reactor.py`) does
//!   not bind it or may hand it out (a module `__getattr__`, dynamic globals, a star import
//!   read as the dotted-use rule reads it), and no planned file that defines a class the
//!   installed release defined the name in has a `__getattr__` or `__getattribute__`.
//!
//! Not covered: a subclass of those classes that is new in the planned release and serves
//! names through `__getattr__`, and a planned class whose base from another dist defines the
//! same private name; neither is read.

use std::collections::BTreeSet;

use pep440_rs::Version;

use super::super::imports_check::{Names, module_file};
use super::parent_may_bind;

/// The clause of a call-time sentence for the use of `attr` on `binding` (the module or name
/// an import binds, `twisted.internet.reactor`) that `name` `to` defines nowhere (`uses
/// `_handleSignals` of `twisted.internet.reactor`, which twisted 23.8.0 defines nowhere (twisted
/// 22.10.0 defines it in twisted/internet/base.py, line 1264)`); `None` unless every condition of
/// the module's doc holds.
pub(super) fn attribute_gone(
    (binding, attr): (&str, &str),
    (from, to): (&Version, &Version),
    new_files: &[String],
    names: &mut Names<'_>,
) -> Option<String> {
    let name = names.name;
    let private = attr.starts_with('_') && !attr.starts_with("__");
    if !private || !attr.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let top = binding.split('.').next()?;
    let prefix = format!("{top}/");
    let shipped: Vec<&String> = new_files
        .iter()
        .filter(|f| f.starts_with(&prefix))
        .collect();
    let compiled = |f: &&String| f.ends_with(".so") || f.ends_with(".pyd");
    let named_file = |f: &&String| {
        f.split('/')
            .any(|part| part == attr || part.split('.').next() == Some(attr))
    };
    if shipped.is_empty() || shipped.iter().any(|f| compiled(f) || named_file(f)) {
        return None;
    }
    // the installed release's files naming it, kept across the releases `outdated` asks of
    let old = (names.oracle).folder_sources_naming(name, from, &prefix, attr)?;
    let (file, line, classes) = definition(&old, attr)?;
    let new = names.oracle.folder_sources(name, to, &prefix)?;
    if new.is_empty() || new.iter().any(|(_, text)| names_it(text, attr)) {
        return None;
    }
    let hooked = |text: &str| text.contains("__getattr__") || text.contains("__getattribute__");
    if (new.iter()).any(|(_, text)| hooked(text) && defines_any(text, &classes)) {
        return None;
    }
    // the longest part of the binding that is a planned module: it must not hand the name out
    let parts: Vec<&str> = binding.split('.').collect();
    let module = (1..=parts.len())
        .rev()
        .map(|end| parts[..end].join("."))
        .find(|m| module_file(new_files, m).is_some())?;
    if parent_may_bind(new_files, &module, attr, to, names) {
        return None;
    }
    Some(format!(
        "uses `{attr}` of `{binding}`, which {name} {to} defines nowhere ({name} {from} defines it \
         in {file}, line {line})"
    ))
}

/// The first definition of `attr` in `sources` outside tests (public files first, then by path:
/// `twisted/internet/base.py` before `twisted/internet/_glibbase.py`; file, line),
/// with every class the installed files define it in (tests too).
fn definition(
    sources: &[(String, String)],
    attr: &str,
) -> Option<(String, usize, BTreeSet<String>)> {
    // a file that holds the name nowhere defines it nowhere (one fast search, not a walk)
    let mut sorted: Vec<&(String, String)> = sources
        .iter()
        .filter(|(_, text)| text.contains(attr))
        .collect();
    let private = |path: &str| {
        path.split('/')
            .any(|p| p.starts_with('_') && !p.starts_with("__"))
    };
    sorted.sort_by_key(|(path, _)| (private(path), path.clone()));
    let mut first = None;
    let mut classes = BTreeSet::new();
    for (path, text) in sorted {
        let test = path.split('/').any(|p| p == "test" || p == "tests");
        // the classes open around a line: (indent of the header, name)
        let mut open: Vec<(usize, String)> = Vec::new();
        for (at, raw) in text.lines().enumerate() {
            let code = raw.trim_start();
            if code.is_empty() || code.starts_with('#') {
                continue;
            }
            let indent = raw.len() - code.len();
            // a block header closes the classes at its indent or deeper (other lines may be
            // a string's or a bracket's continuation)
            let header = ["class ", "def ", "async def ", "@"];
            if header.iter().any(|h| code.starts_with(h)) {
                open.retain(|(i, _)| *i < indent);
            }
            if let Some(rest) = code.strip_prefix("class ") {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                open.push((indent, rest[..end].to_string()));
                continue;
            }
            if !defines(code, attr) {
                continue;
            }
            classes.extend(open.last().map(|(_, c)| c.clone()));
            if first.is_none() && !test {
                first = Some((path.clone(), at + 1));
            }
        }
    }
    first.map(|(path, line)| (path, line, classes))
}

/// Whether the code of one line defines `attr`: `def attr(`, `async def attr(`, `attr =`,
/// `attr: T =`, `self.attr =`.
fn defines(code: &str, attr: &str) -> bool {
    let def = code.strip_prefix("async ").unwrap_or(code);
    if def
        .strip_prefix("def ")
        .and_then(|rest| rest.trim_start().strip_prefix(attr))
        .is_some_and(|rest| rest.trim_start().starts_with('('))
    {
        return true;
    }
    let target = code.strip_prefix("self.").unwrap_or(code);
    target.strip_prefix(attr).is_some_and(|rest| {
        let rest = rest.trim_start();
        (rest.starts_with('=') && !rest.starts_with("==")) || rest.starts_with(':')
    })
}

/// Whether `text` holds `attr` as a word on a line that is not a comment line.
pub(super) fn names_it(text: &str, attr: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    if !text.contains(attr) {
        return false;
    }
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .any(|line| {
            line.match_indices(attr).any(|(at, _)| {
                !line[..at].chars().next_back().is_some_and(ident)
                    && !line[at + attr.len()..].chars().next().is_some_and(ident)
            })
        })
}

/// Whether `text` defines a class named one of `classes` (`class Name(` or `class Name:`).
fn defines_any(text: &str, classes: &BTreeSet<String>) -> bool {
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("class "))
        .any(|rest| {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            classes.contains(&rest[..end])
        })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use pep508_rs::PackageName;

    use crate::inventory::imports::{ImportGuard, ImportStatement, ImportUse};
    use crate::plan::call_time::call_time_missing;
    use crate::plan::imports_check::tests::Releases;

    const OLD_BASE: &str =
        include_str!("../../../testdata/imports/twisted-22.10.0/twisted/internet/base.py");
    const NEW_BASE: &str =
        include_str!("../../../testdata/imports/twisted-23.8.0/twisted/internet/base.py");
    const OLD_REACTOR: &str =
        include_str!("../../../testdata/imports/twisted-22.10.0/twisted/internet/reactor.py");
    const NEW_REACTOR: &str =
        include_str!("../../../testdata/imports/twisted-23.8.0/twisted/internet/reactor.py");

    /// scrapy 2.8.0's `install_shutdown_handlers` (line 19) calls `reactor._handleSignals()`
    /// on what `from twisted.internet import reactor` binds: Twisted 22.10.0's real `base.py`
    /// defines it (line 1264), 23.8.0's real files name it nowhere, so the call fails. No
    /// claim where the planned release names it (a string for `getattr`), where a planned file
    /// defining one of the classes that held it has a `__getattr__`, where the planned binding
    /// module has a module `__getattr__`, where a compiled module may define it, nor for a
    /// public attribute.
    #[test]
    fn a_private_attribute_the_planned_release_names_nowhere_is_a_call_time_break() {
        let old: BTreeMap<&str, &str> = [
            ("twisted/__init__.py", ""),
            ("twisted/internet/__init__.py", ""),
            ("twisted/internet/reactor.py", OLD_REACTOR),
            ("twisted/internet/base.py", OLD_BASE),
        ]
        .into();
        let planned = |extra: &[(&'static str, &'static str)]| {
            let mut new: BTreeMap<&str, &str> = [
                ("twisted/__init__.py", ""),
                ("twisted/internet/__init__.py", ""),
                ("twisted/internet/reactor.py", NEW_REACTOR),
                ("twisted/internet/base.py", NEW_BASE),
            ]
            .into();
            new.extend(extra.iter().copied());
            Releases {
                old: old.clone(),
                new,
                folders: None,
            }
        };
        let used = |attr: &str| ImportUse {
            dist: "scrapy".parse().unwrap(),
            version: "2.8.0".parse().unwrap(),
            file: "scrapy/utils/ossignal.py".to_string(),
            statement: ImportStatement {
                line: 19,
                module: "twisted.internet.reactor".to_string(),
                names: vec![attr.to_string()],
                guard: ImportGuard::None,
                dead: false,
                deferred: true,
                attribute: true,
                function: Some("install_shutdown_handlers".to_string()),
                fallback: None,
            },
        };
        let name: PackageName = "twisted".parse().unwrap();
        let (from, to) = ("22.10.0".parse().unwrap(), "23.8.0".parse().unwrap());
        let run = |oracle: &Releases, attr: &str| {
            call_time_missing(&name, (&from, &to), &[&used(attr)], oracle)
        };
        let missing = run(&planned(&[]), "_handleSignals");
        assert_eq!(
            missing.sentences,
            [
                "scrapy 2.8.0 (scrapy/utils/ossignal.py, line 19, in `install_shutdown_handlers`) \
              uses `_handleSignals` of `twisted.internet.reactor`, which twisted 23.8.0 defines \
              nowhere (twisted 22.10.0 defines it in twisted/internet/base.py, line 1264): \
              breaks when that code runs, not on import"
            ]
        );
        let cited: Vec<_> = (missing.citations.iter())
            .map(|c| (c.line, c.module.as_str(), c.name.as_deref(), c.attribute))
            .collect();
        assert_eq!(
            cited,
            [(19, "twisted.internet.reactor", Some("_handleSignals"), true)]
        );
        // a comment line naming it is no definition (as 23.8.0's `wxreactor.py` line 81)
        let comment = [("twisted/internet/wx.py", "# make _handleSignals happy:\n")];
        assert_eq!(run(&planned(&comment), "_handleSignals").sentences.len(), 1);
        let hooks: [&[(&'static str, &'static str)]; 4] = [
            &[("twisted/internet/x.py", "getattr(r, '_handleSignals')()\n")],
            &[(
                "twisted/internet/_signals.py",
                "class _SignalReactorMixin:\n    def __getattr__(self, name):\n        pass\n",
            )],
            &[(
                "twisted/internet/reactor.py",
                "def __getattr__(name):\n    pass\n",
            )],
            &[(
                "twisted/internet/_signals.cpython-311-x86_64-linux-gnu.so",
                "",
            )],
        ];
        for extra in hooks {
            let missing = run(&planned(extra), "_handleSignals");
            assert_eq!(missing.sentences, Vec::<String>::new(), "{extra:?}");
        }
        // a public name (`runUntilCurrent`, 22.10.0's base.py line 955) is never claimed, even
        // where the planned files name it nowhere
        let emptied = [("twisted/internet/base.py", "")];
        assert_eq!(
            run(&planned(&emptied), "runUntilCurrent").sentences.len(),
            0
        );
        assert_eq!(run(&planned(&emptied), "_handleSignals").sentences.len(), 1);
    }
}
