//! The import statements of some modules in Python source, with what each imports and how
//! it is guarded.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::blocks::{caught_by, walk_blocks};
use super::guards::Block;
use super::lines::{Logical, logical_lines};
use super::runs::running_defs;
use super::{ImportGuard, ImportStatement};

/// The absolute import statements of `modules` (top-level names) in Python source, leaving
/// out those that run only sometimes (under `if`/`elif`/`else`/`match`, in `except`).
#[cfg(test)]
pub(crate) fn import_statements(source: &str, modules: &BTreeSet<String>) -> Vec<ImportStatement> {
    statements(source, modules, false, &[])
}

/// [`import_statements`] of a file some of whose functions (`entry`) the dist's console or GUI
/// scripts call: their imports, and those of what they call in the file, are not
/// [`ImportStatement::deferred`].
pub(crate) fn import_statements_run_by(
    source: &str,
    modules: &BTreeSet<String>,
    entry: &[String],
) -> Vec<ImportStatement> {
    statements(source, modules, false, entry)
}

/// The absolute import statements of `modules` that run when their module is imported, its
/// conditions holding: at module level (or in a class body), under an `if` whose test may hold
/// here (`if is_jinja_available(): import jinja2` in transformers' `chat_template_utils.py`
/// runs wherever Jinja2 is installed), not in a function, not under a typing-only or platform
/// test, and not in a `try:` that catches `ImportError`. Evidence that a dist uses another at
/// import time, whether or not it declares it.
pub(crate) fn import_time_statements(
    source: &str,
    modules: &BTreeSet<String>,
) -> Vec<ImportStatement> {
    statements(source, modules, true, &[])
        .into_iter()
        .filter(|s| s.guard != ImportGuard::Any && !s.dead)
        .collect()
}

/// [`import_statements`]; with `import_time`, those under an `if` that may hold here too, and
/// none in a function (not marked: left out). `entry`: the functions of the file the dist's
/// scripts call ([`running_defs`]).
fn statements(
    source: &str,
    modules: &BTreeSet<String>,
    import_time: bool,
    entry: &[String],
) -> Vec<ImportStatement> {
    let lines = logical_lines(source);
    let running = running_defs(&lines, entry);
    let raw: Vec<&str> = source.lines().collect();
    let mut out = Vec::new();
    let mut aliases = BTreeMap::new();
    // The names imports in a function body bind, by the `def` header's index.
    let mut local: BTreeMap<usize, BTreeMap<String, String>> = BTreeMap::new();
    walk_blocks(&lines, |_, logical, open| {
        let at = open.iter().rposition(|o| matches!(o.block, Block::Def(_)));
        let def = at.map(|i| &open[i]);
        let function = at.map(|i| function_name(&lines, &open[..=i]));
        if open.is_empty() {
            out.extend(attribute_uses(logical, &mut aliases, modules));
        }
        let sometimes = open.iter().any(|o| match o.block {
            Block::Sometimes(may) => !(import_time && may),
            Block::Def(_) => import_time,
            _ => false,
        });
        let dead = open.iter().any(|o| matches!(o.block, Block::Def(true)));
        // Inside a function that runs neither at import nor when a script starts.
        let deferred = open
            .iter()
            .any(|o| matches!(o.block, Block::Def(_)) && !running.contains(&o.at));
        if let (Some(def), false) = (def, import_time) {
            let scope = Scope {
                aliases: &aliases,
                open,
                raw: &raw,
                dead,
                function: function.clone(),
            };
            let uses = function_uses(logical, def.at, &mut local, modules, &scope);
            out.extend(uses.into_iter().filter(|_| !sometimes));
        }
        if !sometimes {
            let guard = caught_by(open);
            out.extend(
                parse_import(&logical.text, &|top| modules.contains(top))
                    .into_iter()
                    .map(|(module, names)| ImportStatement {
                        line: logical.line,
                        module,
                        names,
                        guard,
                        dead,
                        deferred,
                        attribute: false,
                        function: function.clone(),
                        fallback: None,
                    }),
            );
        }
    });
    out
}

/// What a line in a function body sees of the file.
struct Scope<'a, 'b> {
    /// The names module-level imports bind to modules.
    aliases: &'b BTreeMap<String, String>,
    /// The blocks open around the line.
    open: &'b [super::blocks::Open],
    /// The file's physical lines.
    raw: &'b [&'a str],
    /// The line is in a private function nothing else names.
    dead: bool,
    /// The innermost function.
    function: Option<String>,
}

/// In a function body (its `def` header at `def`): an import statement's bindings are added to
/// `local` (the function's own names); another line yields each dotted use it holds of a name
/// bound to a module of `modules` by the function's imports, an enclosing function's or the
/// module's (`openai.error.Timeout` after `import openai`: module `openai.error`, names
/// `Timeout`), outside strings and outside a `try:` that catches anything, as an
/// [`ImportStatement::attribute`] that is [`ImportStatement::deferred`] (it fails when the
/// function runs, whenever that is), at the physical line the use is on.
fn function_uses(
    logical: &Logical<'_>,
    def: usize,
    local: &mut BTreeMap<usize, BTreeMap<String, String>>,
    modules: &BTreeSet<String>,
    scope: &Scope<'_, '_>,
) -> Vec<ImportStatement> {
    let text = logical.text.as_ref();
    if text.starts_with("import ") || text.starts_with("from ") {
        bind(text, local.entry(def).or_default(), modules);
        return Vec::new();
    }
    if caught_by(scope.open) != ImportGuard::None {
        return Vec::new();
    }
    let bound = |first: &str| {
        (scope.open.iter().rev())
            .filter_map(|o| local.get(&o.at))
            .chain(std::iter::once(scope.aliases))
            .find_map(|names| names.get(first))
    };
    let mut out = Vec::new();
    for chain in dotted_chains(text) {
        let Some((module, name)) = module_and_name(&chain, bound) else {
            continue;
        };
        let line = physical_line(scope.raw, logical.line, &chain);
        out.push(ImportStatement {
            line,
            module,
            names: vec![name.to_string()],
            guard: ImportGuard::None,
            dead: scope.dead,
            deferred: true,
            attribute: true,
            function: scope.function.clone(),
            fallback: None,
        });
    }
    out
}

/// The physical line (1-based) from `first` on whose text holds `chain` as a whole word: the
/// line of a logical line's part (`retry_if_exception_type(openai.error.Timeout)`, line 92 of a
/// call opened on line 86); `first` when none does.
fn physical_line(raw: &[&str], first: usize, chain: &str) -> usize {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let holds = |text: &str| {
        text.match_indices(chain).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + chain.len()..].chars().next();
            !before.is_some_and(|c| ident(c) || c == '.') && !after.is_some_and(ident)
        })
    };
    (first..=raw.len())
        .find(|&n| holds(raw[n - 1].split('#').next().unwrap_or("")))
        .unwrap_or(first)
}

/// The name of the function whose `def` header is the last of `open`, with the class that
/// holds it directly (`PackageLoader.__init__`).
fn function_name(lines: &[Logical<'_>], open: &[super::blocks::Open]) -> String {
    let (def, outer) = open.split_last().expect("a def is open");
    let name = def_name(&lines[def.at].text);
    let class = outer
        .last()
        .and_then(|o| lines[o.at].text.strip_prefix("class "))
        .map(|rest| def_name(rest).to_string());
    match class {
        Some(class) if !class.is_empty() => format!("{class}.{name}"),
        _ => name.to_string(),
    }
}

/// The name a `def` header defines (`async def f(`: `f`).
fn def_name(header: &str) -> &str {
    let text = header.strip_prefix("async ").unwrap_or(header).trim_start();
    let text = text.strip_prefix("def ").unwrap_or(text).trim_start();
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// At module level: the names an import statement binds to modules of `modules` (`import
/// jax.core as jc`: `jc` -> `jax.core`; `import jax.core`: `jax` -> `jax`; `from jax import
/// core`: `core` -> `jax.core`) are added to `aliases`; a class header or decorator line yields
/// each attribute chain it holds on such a name (`jax.core.Effect`: module `jax.core`, names
/// `Effect`). Strings are skipped.
fn attribute_uses(
    logical: &Logical<'_>,
    aliases: &mut BTreeMap<String, String>,
    modules: &BTreeSet<String>,
) -> Vec<ImportStatement> {
    let text = logical.text.as_ref();
    if bind(text, aliases, modules) {
        return Vec::new();
    }
    if !(text.starts_with("class ") || text.starts_with('@')) {
        return Vec::new();
    }
    let mut out: Vec<ImportStatement> = Vec::new();
    for chain in dotted_chains(text) {
        let Some((module, name)) = module_and_name(&chain, |first| aliases.get(first)) else {
            continue;
        };
        out.push(ImportStatement {
            line: logical.line,
            module,
            names: vec![name.to_string()],
            guard: ImportGuard::None,
            dead: false,
            deferred: false,
            attribute: true,
            function: None,
            fallback: None,
        });
    }
    out
}

/// A dotted chain on a bound name split into the module it names and the last attribute:
/// `np.core.Effect` with `np` bound to `numpy` -> (`numpy.core`, `Effect`). `None` when its first
/// name is not bound or nothing follows it.
fn module_and_name<'c, 'b>(
    chain: &'c str,
    bound: impl Fn(&str) -> Option<&'b String>,
) -> Option<(String, &'c str)> {
    let mut parts = chain.split('.');
    let base = bound(parts.next()?)?;
    let rest: Vec<&str> = parts.collect();
    let (name, inner) = rest.split_last()?;
    let module = std::iter::once(base.as_str())
        .chain(inner.iter().copied())
        .collect::<Vec<_>>()
        .join(".");
    Some((module, name))
}

/// The dotted names (`a.b.c`) of a line, outside its string literals.
fn dotted_chains(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == '\\' {
                chars.next();
            } else if c == q {
                quote = None;
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' || (c == '.' && !current.is_empty()) {
            current.push(c);
            continue;
        }
        if current.contains('.') && !current.starts_with(|d: char| d.is_ascii_digit()) {
            out.push(current.trim_end_matches('.').to_string());
        }
        current.clear();
        if c == '"' || c == '\'' {
            quote = Some(c);
        } else if c == '.' {
            // `x().y`: what follows a call is no chain on an imported name
            while chars
                .peek()
                .is_some_and(|n| n.is_alphanumeric() || *n == '_')
            {
                chars.next();
            }
        }
    }
    if current.contains('.') && !current.starts_with(|d: char| d.is_ascii_digit()) {
        out.push(current.trim_end_matches('.').to_string());
    }
    out
}

/// The (module, names) an import statement imports of `modules`.
pub(super) fn parse_import(
    text: &str,
    wanted: &dyn Fn(&str) -> bool,
) -> Vec<(String, Vec<String>)> {
    let ours = |module: &str| wanted(module.split('.').next().unwrap_or(""));
    let is_path = |m: &str| {
        !m.is_empty()
            && m.split('.')
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
    };
    if let Some(rest) = text.strip_prefix("from ") {
        let mut parts = rest.splitn(2, " import ");
        let (module, names) = (parts.next().unwrap_or("").trim(), parts.next());
        let Some(names) = names else {
            return Vec::new();
        };
        if !is_path(module) || !ours(module) {
            return Vec::new();
        }
        let names: Vec<String> = names
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .split(',')
            .filter_map(|n| n.split_whitespace().next())
            .filter(|n| *n != "*" && is_path(n))
            .map(str::to_string)
            .collect();
        return vec![(module.to_string(), names)];
    }
    if let Some(rest) = text.strip_prefix("import ") {
        return rest
            .split(',')
            .filter_map(|part| part.split_whitespace().next())
            .filter(|m| is_path(m) && ours(m))
            .map(|m| (m.to_string(), Vec::new()))
            .collect();
    }
    Vec::new()
}

/// The import statements at a module's top level (no indent: outside every `def`, `class`,
/// `if` and `try`), which run whenever the module is imported, of any module. A relative import
/// is resolved against `package`, the dotted package the file is in (`from . import x` in
/// `tb/main.py` is `tb`, names `x`); one that climbs above it is left out.
pub(crate) fn unconditional_imports(source: &str, package: &str) -> Vec<ImportStatement> {
    let mut out = Vec::new();
    for logical in logical_lines(source).iter().filter(|l| l.indent == 0) {
        let text = resolve_relative(&logical.text, package);
        let Some(text) = text.as_deref() else {
            continue;
        };
        out.extend(
            parse_import(text, &|_| true)
                .into_iter()
                .map(|(module, names)| ImportStatement {
                    line: logical.line,
                    module,
                    names,
                    guard: ImportGuard::None,
                    dead: false,
                    deferred: false,
                    attribute: false,
                    function: None,
                    fallback: None,
                }),
        );
    }
    out
}

/// `from .x import y` in `package` as `from package.x import y`; other lines as they are;
/// `None` for a relative import that climbs above `package`.
fn resolve_relative<'a>(text: &'a str, package: &str) -> Option<Cow<'a, str>> {
    let Some(rest) = text.strip_prefix("from .") else {
        return Some(Cow::Borrowed(text));
    };
    let dots = 1 + rest.bytes().take_while(|&b| b == b'.').count();
    let rest = &rest[dots - 1..];
    let parts: Vec<&str> = package.split('.').collect();
    let keep = parts.len().checked_sub(dots - 1).filter(|&k| k > 0)?;
    let base = parts[..keep].join(".");
    let (module, names) = rest.split_once(" import ")?;
    let module = module.trim();
    let full = if module.is_empty() {
        base
    } else {
        format!("{base}.{module}")
    };
    Some(Cow::Owned(format!("from {full} import {names}")))
}

/// The names an import statement `text` binds to modules of `modules` (`import jax.core as
/// jc`: `jc` -> `jax.core`; `import jax.core`: `jax` -> `jax`; `from jax import core`: `core`
/// -> `jax.core`), added to `aliases`. Whether `text` is an import statement.
fn bind(text: &str, aliases: &mut BTreeMap<String, String>, modules: &BTreeSet<String>) -> bool {
    let wanted = |m: &str| modules.contains(m.split('.').next().unwrap_or(""));
    if let Some(rest) = text.strip_prefix("import ") {
        for part in rest.split(',') {
            let words: Vec<&str> = part.split_whitespace().collect();
            match words.as_slice() {
                [m, "as", alias] if wanted(m) => aliases.insert(alias.to_string(), m.to_string()),
                [m] if wanted(m) => {
                    let top = m.split('.').next().unwrap_or(m);
                    aliases.insert(top.to_string(), top.to_string())
                }
                _ => None,
            };
        }
        return true;
    }
    let Some((module, names)) = text
        .strip_prefix("from ")
        .and_then(|rest| rest.split_once(" import "))
    else {
        return text.starts_with("from ");
    };
    let module = module.trim();
    if wanted(module) {
        let names = names.trim().trim_start_matches('(').trim_end_matches(')');
        for part in names.split(',') {
            let words: Vec<&str> = part.split_whitespace().collect();
            let (name, alias) = match words.as_slice() {
                [n, "as", a] => (*n, *a),
                [n] => (*n, *n),
                _ => continue,
            };
            aliases.insert(alias.to_string(), format!("{module}.{name}"));
        }
    }
    true
}
