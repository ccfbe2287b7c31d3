//! Fallback imports: an import in an `except ImportError:` handler runs when the `try:` body's
//! import failed, and nothing catches its own failure. It is optional only while the body's
//! import works. requests-toolbelt 0.9.1's `requests_toolbelt/_compat.py`:
//!
//! ```text
//! if requests.__build__ < 0x021000:
//!     gaecontrib = None
//! else:
//!     try:
//!         from requests.packages.urllib3.contrib import appengine as gaecontrib
//!     except ImportError:
//!         from urllib3.contrib import appengine as gaecontrib
//! ```
//!
//! With requests 2.31.0 (`__build__ = 0x023100`) the `else:` runs; `requests.packages.urllib3`
//! is urllib3 itself (requests' `packages.py` aliases it in `sys.modules`), so under urllib3 2,
//! which has no `urllib3.contrib.appengine`, the body fails, the handler's line 50 runs and
//! fails too: `import requests_toolbelt` raises.
//!
//! In: a Python source and the top-level modules wanted. Out: each handler import of a wanted
//! module ([`Fallback`]) at module level, directly in a handler of a `try:` that catches
//! `ImportError`, with what the body imports and, where the `try:` sits under an `if` or its
//! `else:`, the test that decides it. Only one shape of test is read ([`BranchTest`]:
//! `A.__build__` of an imported module against an integer); a `try:` under any other test, in
//! a function or a class, or nested deeper, is not read: no claim. Whether the body fails and
//! the test holds is for the caller to decide with the installed and planned files.

use std::collections::{BTreeSet, HashMap};

use super::ImportGuard;
use super::blocks::walk_blocks_closing;
use super::guards::handler_guard;
use super::lines::logical_lines;
use super::statements::parse_import;

/// A test of an imported module's `__build__` (requests' version as an integer, two hex digits
/// per part: 2.31.0 is `0x023100`), and which way it must go for the branch to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchTest {
    /// The module whose `__build__` it reads (`requests`).
    pub module: String,
    /// The test as written (`requests.__build__ < 0x021000`).
    pub test: String,
    /// The comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`).
    pub op: String,
    /// The integer compared with.
    pub value: u64,
    /// The branch runs when the test holds (`if`) or when it does not (`else`).
    pub runs_when: bool,
}

impl BranchTest {
    /// Whether the branch runs with the module's `__build__` at `build`.
    pub fn runs(&self, build: u64) -> bool {
        let holds = match self.op.as_str() {
            "<" => build < self.value,
            "<=" => build <= self.value,
            ">" => build > self.value,
            ">=" => build >= self.value,
            "==" => build == self.value,
            _ => build != self.value,
        };
        holds == self.runs_when
    }
}

/// What a handler's import falls back from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// The `try:` body's imports, of any module: (module, names).
    pub tried: Vec<(String, Vec<String>)>,
    /// The test of the `if`/`else` branch the `try:` sits in, if any.
    pub branch: Option<BranchTest>,
}

/// A test read: (module, test as written, integer, comparison).
type Test = (String, String, u64, String);

/// What a block's header says to this reader.
enum Read {
    /// An `if` at module level, its test read (or not).
    If(Option<Test>),
    /// The `else:` of such an `if`.
    Else(Option<Test>),
    /// A `try:` body, with the imports seen in it.
    Try(Vec<(String, Vec<String>)>),
    /// An `except` handler that catches `ImportError`, with its `try:` body's imports.
    Handler(Vec<(String, Vec<String>)>),
    /// Anything else (`def`, `class`, another handler, a loop): nothing inside is read.
    Other,
}

/// A handler import of a wanted module: its line, module, names and what it falls back from.
pub(crate) type FallbackImport = (usize, String, Vec<String>, Fallback);

/// The handler imports of `modules` (top-level names) in `source` (see the module's docs).
pub(crate) fn fallback_imports(source: &str, modules: &BTreeSet<String>) -> Vec<FallbackImport> {
    let lines = logical_lines(source);
    // What each header read says, by its index in `lines`.
    let mut reads: HashMap<usize, Read> = HashMap::new();
    let mut bound: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    walk_blocks_closing(&lines, |at, logical, open, closed| {
        let text = logical.text.as_ref();
        if open.is_empty()
            && let Some(rest) = text.strip_prefix("import ")
        {
            bound.extend(rest.split(',').map(|m| m.trim().to_string()));
        }
        let open: Vec<usize> = open.iter().map(|o| o.at).collect();
        if !text.ends_with(':') {
            read_statement(text, &open, &mut reads, modules, logical.line, &mut out);
            return;
        }
        let word = text
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let in_branch = match open.as_slice() {
            [] => true,
            [only] => matches!(reads.get(only), Some(Read::If(_) | Read::Else(_))),
            _ => false,
        };
        // The block this header continues: the one it closed at its own indentation.
        let before = closed
            .filter(|c| c.indent == logical.indent)
            .and_then(|c| reads.get(&c.at));
        let read = match (word, before) {
            ("if", _) if open.is_empty() => Read::If(build_test(text, &bound)),
            ("else", Some(Read::If(test))) if open.is_empty() => Read::Else(test.clone()),
            ("try", _) if in_branch => Read::Try(Vec::new()),
            ("except", Some(Read::Try(tried)))
                if handler_guard(text) == ImportGuard::Any && !tried.is_empty() =>
            {
                Read::Handler(tried.clone())
            }
            _ => Read::Other,
        };
        reads.insert(at, read);
    });
    out
}

/// A statement inside the `open` blocks (their headers' indexes): a `try:` body's import is
/// noted; a handler's import of a wanted module is a [`FallbackImport`].
fn read_statement(
    text: &str,
    open: &[usize],
    reads: &mut HashMap<usize, Read>,
    modules: &BTreeSet<String>,
    line: usize,
    out: &mut Vec<FallbackImport>,
) {
    let (branch, last) = match open {
        [last] => (None, last),
        [first, last] => match reads.get(first) {
            Some(Read::If(test)) => (Some(test.clone().map(|t| (t, true))), last),
            Some(Read::Else(test)) => (Some(test.clone().map(|t| (t, false))), last),
            _ => return,
        },
        _ => return,
    };
    match reads.get_mut(last) {
        Some(Read::Try(tried)) => tried.extend(parse_import(text, &|_| true)),
        Some(Read::Handler(tried)) => {
            // Under a branch whose test is not read: no claim.
            let branch = match branch {
                Some(None) => return,
                Some(Some(((module, test, value, op), runs_when))) => Some(BranchTest {
                    module,
                    test,
                    op,
                    value,
                    runs_when,
                }),
                None => None,
            };
            for (module, names) in parse_import(text, &|top| modules.contains(top)) {
                let fallback = Fallback {
                    tried: tried.clone(),
                    branch: branch.clone(),
                };
                out.push((line, module, names, fallback));
            }
        }
        _ => {}
    }
}

/// `if A.__build__ < 0x021000:` with `A` imported (`import A`): its module, test, integer and
/// comparison.
fn build_test(text: &str, bound: &BTreeSet<String>) -> Option<Test> {
    let test = text.strip_prefix("if ")?.strip_suffix(':')?.trim();
    let words: Vec<&str> = test.split_whitespace().collect();
    let [left, op, right] = words.as_slice() else {
        return None;
    };
    let module = left.strip_suffix(".__build__")?;
    if !bound.contains(module) || !["<", "<=", ">", ">=", "==", "!="].contains(op) {
        return None;
    }
    let value = match right
        .strip_prefix("0x")
        .or_else(|| right.strip_prefix("0X"))
    {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => right.parse().ok()?,
    };
    Some((module.to_string(), test.to_string(), value, op.to_string()))
}

/// The `__build__` a module's source assigns at module level (`__build__ = 0x023100`).
pub(crate) fn assigned_build(source: &str) -> Option<u64> {
    source.lines().find_map(|line| {
        let value = line
            .strip_prefix("__build__")?
            .trim_start()
            .strip_prefix('=')?;
        let value = value.split('#').next()?.trim();
        match value
            .strip_prefix("0x")
            .or_else(|| value.strip_prefix("0X"))
        {
            Some(hex) => u64::from_str_radix(hex, 16).ok(),
            None => value.parse().ok(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// requests-toolbelt 0.9.1's real `requests_toolbelt/_compat.py`.
    const TOOLBELT: &str = include_str!(
        "../../../testdata/imports/requests-toolbelt-0.9.1/requests_toolbelt/_compat.py"
    );

    fn urllib3() -> BTreeSet<String> {
        ["urllib3".to_string()].into()
    }

    #[test]
    fn a_handlers_import_is_read_with_its_try_body_and_branch() {
        let found = fallback_imports(TOOLBELT, &urllib3());
        let lines: Vec<(usize, &str)> = found.iter().map(|f| (f.0, f.1.as_str())).collect();
        // Lines 20-22 (no branch), 42 and 50 (under `else:`); the imports in a nested `try:`
        // of a handler (lines 29-30, 60) are caught there: not fallbacks.
        assert_eq!(
            lines,
            [
                (20, "urllib3"),
                (21, "urllib3"),
                (22, "urllib3"),
                (42, "urllib3.util"),
                (50, "urllib3.contrib")
            ]
        );
        let (_, _, names, fallback) = &found[4];
        assert_eq!(names, &["appengine".to_string()]);
        assert_eq!(
            fallback.tried,
            [(
                "requests.packages.urllib3.contrib".to_string(),
                vec!["appengine".to_string()]
            )]
        );
        let branch = fallback.branch.as_ref().unwrap();
        assert_eq!(
            (
                branch.module.as_str(),
                branch.test.as_str(),
                branch.runs_when
            ),
            ("requests", "requests.__build__ < 0x021000", false)
        );
        // requests 2.31.0: `__build__ = 0x023100`, the `else:` runs; requests 2.9 would not.
        assert!(branch.runs(0x023100));
        assert!(!branch.runs(0x020900));
        assert!(found[0].3.branch.is_none());
        assert_eq!(found[0].3.tried.len(), 3);
    }

    #[test]
    fn a_handler_under_an_unread_test_or_in_a_function_is_not_read() {
        let source = "\
import sys
if sys.version_info >= (3, 8):
    try:
        from urllib3 import a
    except ImportError:
        from urllib3 import b
def f():
    try:
        from urllib3 import c
    except ImportError:
        from urllib3 import d
try:
    import json
except ValueError:
    from urllib3 import e
";
        assert_eq!(fallback_imports(source, &urllib3()), []);
    }

    #[test]
    fn the_build_a_module_assigns_is_read() {
        assert_eq!(
            assigned_build("__version__ = '2.31.0'\n__build__ = 0x023100\n"),
            Some(0x023100)
        );
        assert_eq!(assigned_build("__version__ = '2.31.0'\n"), None);
    }
}
