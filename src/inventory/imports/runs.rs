//! Which functions of a Python file run when the file is imported, or when the dist's own
//! command starts, as far as the file itself shows.
//!
//! In: a file's logical lines and the names of its functions the dist's console or GUI scripts
//! call (`black = black:patched_main` in black 22.1.0's `entry_points.txt`: `patched_main` of
//! `black/__init__.py`). Out: the `def` header lines whose body runs: a function called at
//! module level (in a class body, a decorator, an `if` there too), one a script calls, and,
//! transitively, one the body of a running function calls (`patched_main()` calls
//! `patch_click()`, whose `from click import _unicodefun` fails at start beside click 8.1); a
//! class called there runs its `__init__`, `__new__` and `__post_init__`. A call is a name
//! followed by `(`, whatever precedes it (`self.f(` and `f(` alike), so a function is taken to
//! run rather than not. What runs only when a user calls it (Jinja2 2.11.3's
//! `PackageLoader.__init__`, whose `from pkg_resources import ...` fails only when a
//! `PackageLoader` is made) is not in the answer: its imports are not import-time breaks.

use std::collections::{BTreeMap, BTreeSet};

use super::lines::Logical;

/// One `def` of a file.
struct Def<'a> {
    /// Its header's index in the logical lines.
    at: usize,
    /// Its name.
    name: &'a str,
    /// The class whose body holds it directly (a method), if any.
    class: Option<&'a str>,
    /// Its body: the logical lines after the header, up to the next at its indentation or less.
    body: std::ops::Range<usize>,
}

/// The indices of the `def` headers in `lines` whose bodies run at import or when one of
/// `entry` (functions of this file the dist's scripts call) runs.
pub(super) fn running_defs(lines: &[Logical<'_>], entry: &[String]) -> BTreeSet<usize> {
    let defs = defs(lines);
    let in_def: BTreeSet<usize> = defs.iter().flat_map(|d| d.body.clone()).collect();
    let mut called: BTreeSet<&str> = entry.iter().map(String::as_str).collect();
    for (at, line) in lines.iter().enumerate() {
        if !in_def.contains(&at) {
            called.extend(calls(&line.text));
        }
    }
    let by_name: BTreeMap<&str, Vec<&Def<'_>>> = defs.iter().fold(BTreeMap::new(), |mut m, d| {
        m.entry(d.name).or_default().push(d);
        m
    });
    let mut running = BTreeSet::new();
    let mut queue: Vec<&str> = called.iter().copied().collect();
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    while let Some(name) = queue.pop() {
        if !seen.insert(name) {
            continue;
        }
        let constructors = defs.iter().filter(|d| {
            d.class == Some(name) && matches!(d.name, "__init__" | "__new__" | "__post_init__")
        });
        let run: Vec<&Def<'_>> = by_name
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .chain(constructors)
            .collect();
        for def in run {
            if running.insert(def.at) {
                for line in &lines[def.body.clone()] {
                    queue.extend(calls(&line.text).into_iter().filter(|c| !seen.contains(c)));
                }
            }
        }
    }
    running
}

/// Every `def` of `lines`, with the class that holds it directly.
fn defs<'a>(lines: &'a [Logical<'a>]) -> Vec<Def<'a>> {
    let mut out = Vec::new();
    // The open `class`/`def` blocks: (indent, class name or None for a def).
    let mut open: Vec<(usize, Option<&'a str>)> = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        while open
            .last()
            .is_some_and(|(indent, _)| *indent >= line.indent)
        {
            open.pop();
        }
        let text = line.text.as_ref();
        let text = text.strip_prefix("async ").unwrap_or(text).trim_start();
        if let Some(name) = text.strip_prefix("def ").map(identifier) {
            let end = lines[at + 1..]
                .iter()
                .position(|l| l.indent <= line.indent)
                .map_or(lines.len(), |p| at + 1 + p);
            out.push(Def {
                at,
                name,
                class: open.last().and_then(|(_, class)| *class),
                body: at + 1..end,
            });
            open.push((line.indent, None));
        } else if let Some(name) = text.strip_prefix("class ").map(identifier) {
            open.push((line.indent, Some(name)));
        }
    }
    out
}

/// The identifier `text` starts with.
fn identifier(text: &str) -> &str {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The names a logical line calls (`f(`, `self.f (`, `@f`), less the name a `def` or `class`
/// header defines.
fn calls(text: &str) -> Vec<&str> {
    let defined = ["def ", "async def ", "class "]
        .iter()
        .find_map(|k| text.strip_prefix(k))
        .map(identifier);
    let mut out = Vec::new();
    if let Some(rest) = text.strip_prefix('@') {
        out.push(identifier(rest.rsplit('.').next().unwrap_or(rest)));
    }
    let bytes = text.as_bytes();
    let mut start = None;
    for (i, &b) in bytes.iter().enumerate() {
        let ident = b.is_ascii_alphanumeric() || b == b'_';
        match (ident, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                start = None;
                let rest = text[i..].trim_start();
                let name = &text[s..i];
                if rest.starts_with('(') && Some(name) != defined {
                    out.push(name);
                }
            }
            _ => {}
        }
    }
    out.retain(|n| !n.is_empty() && !n.starts_with(|c: char| c.is_ascii_digit()));
    out
}

#[cfg(test)]
mod tests {
    use super::super::lines::logical_lines;
    use super::*;

    fn running(source: &str, entry: &[&str]) -> Vec<usize> {
        let lines = logical_lines(source);
        let entry: Vec<String> = entry.iter().map(|e| e.to_string()).collect();
        running_defs(&lines, &entry)
            .into_iter()
            .map(|at| lines[at].line)
            .collect()
    }

    #[test]
    fn a_function_runs_when_called_at_import_or_by_a_script() {
        let source = "\
def setup():
    helper()
def helper():
    pass
def api():
    pass
def main():
    patch()
def patch():
    pass
class Loader:
    def __init__(self):
        pass
    def load(self):
        pass
class Made:
    def __init__(self):
        self.load()
    def load(self):
        pass
setup()
made = Made()
";
        // setup (line 1) and helper (3) at import; Made's __init__ (17) and, through
        // `self.load()`, every `load` (14, 19).
        assert_eq!(running(source, &[]), [1, 3, 14, 17, 19]);
        // main (7) when the script starts, and patch (9) through it.
        assert_eq!(running(source, &["main"]), [1, 3, 7, 9, 14, 17, 19]);
    }

    #[test]
    fn a_header_defines_and_does_not_call() {
        assert_eq!(calls("def f(x=g()):"), ["g"]);
        assert!(calls("class C(Base):").is_empty());
        assert_eq!(calls("@lru_cache(maxsize=1)"), ["lru_cache", "lru_cache"]);
        assert_eq!(calls("@functools.wraps"), ["wraps"]);
        assert_eq!(calls("x = self.load (a) + 1(2)"), ["load"]);
    }
}
