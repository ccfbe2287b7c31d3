//! Which names a Python module binds: what `from module import name` can find in it.
//!
//! In: a module's source and the names asked about. Out: [`ModuleNames`]: the asked names the
//! module defines, imports or lists in `__all__`, and whether it is open (any name may come from
//! it: a star import, a module `__getattr__`, `globals()` / `exec` / `sys.modules[__name__]`,
//! the module's namespace handed to a call at module scope, as protobuf's generated code does),
//! or, for a module that replaces itself with a lazy loader, where else its names come from
//! ([`Lazy`]: its relative star imports and the folders its import structure is built from).
//!
//! A name counts where a statement binds it at module scope, which includes every `if`/`else`,
//! `try`/`except`, `with`, `for` and `while` block outside a `def` or `class` body (`try: from x
//! import y except ImportError: y = None` binds `y` either way): `def`/`class` names,
//! assignment targets (plain, annotated, augmented, tuple and starred), `import a.b` (`a`) and
//! `import a as b` (`b`), `from x import a as b` (`b`), `for` and `with ... as` targets, walrus
//! targets, `type X = ...`, names declared `global` anywhere (a function may bind them), and the
//! string items of `__all__` assignments, `+=`, `.append` and `.extend`. A name that only
//! occurs in a string, a comment or a longer identifier (`"werkzeug.url_quote"`,
//! `_codec_error_url_quote` in werkzeug 3.1's `urls.py`) does not count.
//!
//! The scan reads logical lines ([`super::imports::logical_lines`]: brackets and backslashes
//! joined, comments and triple-quoted strings left out) and tokenizes each one; it is not a
//! parser. It errs on the side of "present": a false "present" only hides a break, a false
//! "absent" would report one that is not there. Measured against Python's `ast` (the rules of
//! `module_facts` in scripts/risk-corpus) over the 8,594 `.py` files of five real venvs (Flask
//! 2.0, FastAPI 0.95, Django 3.2 + DRF 3.12, pandas 1.5 + scikit-learn 1.2 + matplotlib 3.7 +
//! numpy 1.24 with their dependencies, pip and setuptools): the open flag agreed on every file,
//! the scan found 46 names `ast` does not bind (more "present") and missed none but three `_`s,
//! which the `ast` side read from an `__all__` built inside a function.

use std::collections::BTreeSet;

use super::imports::logical_lines;

/// Which of some names a module binds, and whether any other name may come from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModuleNames {
    /// The asked names the module binds at module scope or lists in `__all__`.
    pub defined: BTreeSet<String>,
    /// A name it does not bind may still be importable from it: a star import, a module-level
    /// `__getattr__`, or module globals written dynamically (`globals()`, `exec`,
    /// `sys.modules[__name__]`, `vars()`).
    pub open: bool,
    /// The module replaces itself with a lazy loader ([`Lazy`]): it may also hand out the names
    /// the places listed there hold.
    pub lazy: Option<Lazy>,
    /// A module that is [`open`](Self::open) only through relative star imports (`from
    /// .lib._old_api import *` in openai 2's `__init__.py`), no lazy loader: those imports
    /// (level, dotted module), for a caller that reads them; empty otherwise.
    pub stars: Vec<(usize, String)>,
}

/// A module that replaces itself with a lazy loader, `sys.modules[__name__] = _LazyModule(...)`
/// (transformers' and diffusers' `__init__.py`): it hands out the names of its import structure,
/// the string items of the dicts it is built from (all of them counted in
/// [`ModuleNames::defined`]), plus the names of the modules below, which the caller reads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lazy {
    /// Its relative star imports (`from .models import *`, under `if TYPE_CHECKING:`, mirroring
    /// the structure): (level, dotted module), `(1, "models")`.
    pub stars: Vec<(usize, String)>,
    /// Folders whose files' `__all__` the structure is built from
    /// (`define_import_structure(Path(__file__).parent / "models")`: `models`; the module's own
    /// folder: the empty string), relative to the module's folder.
    pub folders: Vec<String>,
}

/// [`ModuleNames`] of `source` for the `asked` names.
pub(crate) fn module_names(source: &str, asked: &BTreeSet<String>) -> ModuleNames {
    let mut scan = Scan::default();
    // (indent, whether the block is a `def`/`class` body)
    let mut blocks: Vec<(usize, bool)> = Vec::new();
    let mut getattr: Option<Getattr> = None;
    let mut getattr_defs = 0;
    let mut deprecations = Deprecations::default();
    let mut lazy = LazyScan::default();
    for line in logical_lines(source) {
        while blocks
            .last()
            .is_some_and(|(indent, _)| *indent >= line.indent)
        {
            blocks.pop();
        }
        let in_scope = blocks.iter().any(|(_, scope)| *scope);
        let tokens = tokenize(&line.text);
        if let Some(body) = getattr.as_mut().filter(|g| !g.ended) {
            if line.indent > body.indent {
                body.line(line.indent, &tokens);
            } else {
                body.ended = true;
            }
        }
        if in_scope || !lazy.line(&tokens) {
            scan.dynamic(&tokens);
        }
        if !in_scope {
            deprecations.line(&tokens);
            scan.handed_on(&tokens);
        }
        let header = line.text.ends_with(':') && opens_block(&tokens);
        if in_scope {
            scan.globals(&tokens);
        } else {
            scan.line(&tokens);
        }
        if header {
            let scope = matches!(first_keyword(&tokens), Some("def" | "class"));
            if !in_scope && let Some(found) = Getattr::header(line.indent, &tokens) {
                getattr = Some(found);
                getattr_defs += 1;
            }
            blocks.push((line.indent, scope));
        }
    }
    // A module `__getattr__` defined once, that answers only names it compares with string
    // literals and raises AttributeError for the rest, provides exactly those names.
    let closed = getattr.filter(|g| getattr_defs == 1 && g.closed());
    if let Some(getattr) = &closed {
        scan.bound.extend(getattr.names.iter().cloned());
    }
    let table = deprecations.names().filter(|_| getattr_defs == 0);
    if let Some(names) = &table {
        scan.bound.extend(names.iter().cloned());
    }
    let answered = closed.is_some() || table.is_some();
    let getattr_open = scan.bound.contains("__getattr__") && !answered;
    let stars = if lazy.replaced
        || getattr_open
        || scan.open_otherwise
        || scan.stars.iter().any(|(level, _)| *level == 0)
    {
        Vec::new()
    } else {
        scan.stars.clone()
    };
    let lazy = lazy.finish(&mut scan);
    ModuleNames {
        defined: scan.bound.intersection(asked).cloned().collect(),
        open: scan.open || getattr_open,
        lazy,
        stars,
    }
}

/// What a module-scope scan learns of a lazy loader (see [`Lazy`]).
#[derive(Default)]
struct LazyScan {
    /// `sys.modules[__name__] = ..._LazyModule(...)` was seen.
    replaced: bool,
    /// `define_import_structure(...)` with an argument read as a folder.
    folders: Vec<String>,
    /// `define_import_structure(...)` with an argument not understood.
    unread: bool,
    /// Names holding the module's own file (`_file = globals()["__file__"]`).
    files: BTreeSet<String>,
    /// The identifier-like string literals seen at module scope.
    strings: BTreeSet<String>,
}

impl LazyScan {
    /// One module-scope logical line; `true` when it is the lazy replacement itself (not a
    /// dynamic write of the module's globals, then).
    fn line(&mut self, tokens: &[Tok<'_>]) -> bool {
        for token in tokens {
            if let Tok::Str(text) = token
                && is_identifier(text)
            {
                self.strings.insert((*text).to_string());
            }
        }
        if let [Tok::Name(alias), Tok::Op("="), value @ ..] = tokens
            && self.is_file(value)
        {
            self.files.insert((*alias).to_string());
        }
        for (at, token) in tokens.iter().enumerate() {
            if *token == Tok::Name("define_import_structure")
                && tokens.get(at + 1) == Some(&Tok::Op("("))
            {
                let args = inside(&tokens[at + 2..]);
                let first = split_top(args, ",").first().copied().unwrap_or(&[]);
                match self.folder(first) {
                    Some(folder) => self.folders.push(folder),
                    None => self.unread = true,
                }
            }
        }
        let replaced = matches!(
            tokens,
            [
                Tok::Name("sys"),
                Tok::Op("."),
                Tok::Name("modules"),
                Tok::Op("["),
                Tok::Name("__name__"),
                Tok::Op("]"),
                Tok::Op("="),
                rest @ ..,
            ] if rest
                .iter()
                .position(|t| *t == Tok::Op("("))
                .and_then(|at| rest[..at].last())
                .is_some_and(|callee| matches!(callee, Tok::Name(n) if n.ends_with("LazyModule")))
        );
        self.replaced |= replaced;
        replaced
    }

    /// `__file__`, `globals()["__file__"]` or a name holding one of them.
    fn is_file(&self, tokens: &[Tok<'_>]) -> bool {
        match tokens {
            [Tok::Name("__file__")] => true,
            [Tok::Name(name)] => self.files.contains(*name),
            [
                Tok::Name("globals"),
                Tok::Op("("),
                Tok::Op(")"),
                Tok::Op("["),
                Tok::Str("__file__"),
                Tok::Op("]"),
            ] => true,
            _ => false,
        }
    }

    /// The folder a `define_import_structure` argument names, relative to the module's own:
    /// its file (the empty string), or `Path(FILE).parent / "sub"` (`sub`).
    fn folder(&self, arg: &[Tok<'_>]) -> Option<String> {
        if self.is_file(arg) {
            return Some(String::new());
        }
        let [
            Tok::Name("Path"),
            Tok::Op("("),
            inner @ ..,
            Tok::Op(")"),
            Tok::Op("."),
            Tok::Name("parent"),
            Tok::Op("/"),
            Tok::Str(sub),
        ] = arg
        else {
            return None;
        };
        (self.is_file(inner) && is_identifier(sub)).then(|| (*sub).to_string())
    }

    /// The [`Lazy`] of a module replaced by a lazy loader, its import structure's strings bound
    /// in `scan` and its relative star imports taken as places to read (not as "open"); `None`
    /// for any other module, or one whose structure is built from what cannot be read.
    fn finish(self, scan: &mut Scan) -> Option<Lazy> {
        if !self.replaced {
            return None;
        }
        if self.unread || scan.stars.iter().any(|(level, _)| *level == 0) {
            // the replacement hands out what cannot be read: any name
            scan.open = true;
            return None;
        }
        scan.bound.extend(self.strings);
        scan.open = scan.open_otherwise;
        Some(Lazy {
            stars: std::mem::take(&mut scan.stars),
            folders: self.folders,
        })
    }
}

/// A module `__getattr__` made by a deprecation helper from a table of names: jax 0.12's
/// `jax/core.py` runs `__getattr__ = _deprecation_getattr(__name__, _deprecations)` with
/// `_deprecations = {"pytype_aval_mappings": (...)}`; it answers the table's keys (warning, or
/// raising for those already removed) and raises AttributeError for every other name.
#[derive(Default)]
struct Deprecations {
    /// Module-level dict literals with string keys, by name.
    tables: std::collections::BTreeMap<String, Vec<String>>,
    /// The table `__getattr__` was made from (`None`: not made so).
    from: Option<String>,
}

impl Deprecations {
    fn line(&mut self, tokens: &[Tok<'_>]) {
        match tokens {
            [Tok::Name("__getattr__"), Tok::Op("="), rest @ ..] => {
                self.from = deprecation_table(rest).map(str::to_string);
            }
            [Tok::Name(name), Tok::Op("="), Tok::Op("{"), rest @ ..] => {
                let mut depth = 0;
                let mut keys = Vec::new();
                for (at, token) in rest.iter().enumerate() {
                    match token {
                        Tok::Op("(" | "[" | "{") => depth += 1,
                        Tok::Op(")" | "]" | "}") => depth -= 1,
                        Tok::Str(key) if depth == 0 && rest.get(at + 1) == Some(&Tok::Op(":")) => {
                            keys.push((*key).to_string());
                        }
                        _ => {}
                    }
                }
                self.tables.insert((*name).to_string(), keys);
            }
            _ => {}
        }
    }

    /// The names `__getattr__` answers, when a deprecation helper made it from a known table.
    fn names(&self) -> Option<&Vec<String>> {
        self.tables.get(self.from.as_deref()?)
    }
}

/// `X.deprecation_getattr(__name__, TABLE)` (any callee whose name ends in
/// `deprecation_getattr`): `TABLE`.
fn deprecation_table<'a>(tokens: &[Tok<'a>]) -> Option<&'a str> {
    let at = tokens.iter().position(|t| matches!(t, Tok::Op("(")))?;
    let callee = tokens[..at].last()?;
    let Tok::Name(callee) = callee else {
        return None;
    };
    if !callee.ends_with("deprecation_getattr") {
        return None;
    }
    match &tokens[at + 1..] {
        [
            Tok::Name("__name__"),
            Tok::Op(","),
            Tok::Name(table),
            Tok::Op(")"),
        ] => Some(table),
        _ => None,
    }
}

/// A module-level `def __getattr__(name)` read statement by statement: whether it is closed
/// (each top-level statement of its body is an `if`/`elif` comparing the parameter with string
/// literals, an import, or a last `raise AttributeError`) and the literals it answers for.
/// Flask 3.1's `__init__.py` answers only `__version__` this way; numpy's and lazy loaders'
/// answer for names kept in tables, and stay open.
struct Getattr {
    indent: usize,
    param: String,
    /// The indent of the body's top-level statements (the first line's).
    body: Option<usize>,
    names: BTreeSet<String>,
    /// Every top-level statement so far fits the closed shape.
    fits: bool,
    /// The last top-level statement is `raise AttributeError ...`.
    raises: bool,
    /// A line at or left of the `def` came: the body is over.
    ended: bool,
}

impl Getattr {
    /// `def __getattr__(param ...):` at `indent`.
    fn header(indent: usize, tokens: &[Tok<'_>]) -> Option<Self> {
        let [
            Tok::Name("def"),
            Tok::Name("__getattr__"),
            Tok::Op("("),
            Tok::Name(param),
            ..,
        ] = tokens
        else {
            return None;
        };
        Some(Getattr {
            indent,
            param: (*param).to_string(),
            body: None,
            names: BTreeSet::new(),
            fits: true,
            raises: false,
            ended: false,
        })
    }

    fn closed(&self) -> bool {
        self.fits && self.raises
    }

    /// One logical line of the body at `indent`.
    fn line(&mut self, indent: usize, tokens: &[Tok<'_>]) {
        let top = *self.body.get_or_insert(indent);
        if indent > top {
            return;
        }
        self.raises = matches!(
            tokens,
            [Tok::Name("raise"), Tok::Name("AttributeError"), ..]
        );
        let fits = match first_keyword(tokens) {
            Some("if" | "elif") => {
                let test = split_top(&tokens[1..], ":").first().copied().unwrap_or(&[]);
                self.test(test)
            }
            Some("import" | "from") => true,
            _ => self.raises,
        };
        self.fits &= fits;
    }

    /// `param == "a"`, `"a" == param` or `param in ("a", "b")`, joined by `or`: the literals
    /// taken; anything else is not closed.
    fn test(&mut self, test: &[Tok<'_>]) -> bool {
        let param = Tok::Name(self.param.as_str());
        let mut parts = test.split(|t| *t == Tok::Name("or"));
        parts.all(|part| match part {
            [p, Tok::Op("=="), Tok::Str(s)] | [Tok::Str(s), Tok::Op("=="), p] if *p == param => {
                self.names.insert((*s).to_string());
                true
            }
            [
                p,
                Tok::Name("in"),
                Tok::Op("(" | "[" | "{"),
                items @ ..,
                Tok::Op(")" | "]" | "}"),
            ] if *p == param => split_top(items, ",")
                .into_iter()
                .filter(|item| !item.is_empty())
                .all(|item| match item {
                    [Tok::Str(s)] => {
                        self.names.insert((*s).to_string());
                        true
                    }
                    _ => false,
                }),
            _ => false,
        })
    }
}

/// One token of a logical line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok<'a> {
    /// An identifier or keyword.
    Name(&'a str),
    /// A string literal's contents (prefix and quotes taken off; escapes kept as written).
    Str(&'a str),
    /// An operator or delimiter (`=`, `+=`, `:=`, `(`, `,`, `*`, `.`, ...).
    Op(&'a str),
    /// A number or anything else.
    Other,
}

/// Operators of more than one character, longest first.
const LONG_OPS: [&str; 24] = [
    "**=", "//=", ">>=", "<<=", "...", "->", ":=", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=",
    "%=", "&=", "|=", "^=", "@=", "**", "//", "<<", ">>",
];

/// The tokens of one logical line (comments and triple-quoted strings already left out).
fn tokenize(text: &str) -> Vec<Tok<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if b == b'"' || b == b'\'' {
            let (contents, end) = string_at(text, i);
            out.push(Tok::Str(contents));
            i = end;
        } else if b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
            {
                i += 1;
            }
            let word = &text[start..i];
            if i < bytes.len() && (bytes[i] == b'"' || bytes[i] == b'\'') && is_prefix(word) {
                let (contents, end) = string_at(text, i);
                out.push(Tok::Str(contents));
                i = end;
            } else {
                out.push(Tok::Name(word));
            }
        } else if b.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Other);
        } else {
            let rest = &text[i..];
            let single = &rest[..rest.chars().next().map_or(1, char::len_utf8)];
            let op = LONG_OPS
                .iter()
                .find(|op| rest.starts_with(**op))
                .map_or(single, |op| op);
            out.push(Tok::Op(op));
            i += op.len();
        }
    }
    out
}

/// Whether `word` is a string prefix (`r`, `b`, `f`, `u`, `rb`, `Rb`, ...).
fn is_prefix(word: &str) -> bool {
    word.len() <= 2
        && word
            .chars()
            .all(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'f' | 'u' | 't'))
}

/// The string literal whose opening quote is at `start`: its contents and the index after it
/// (the end of the text for one left open).
fn string_at(text: &str, start: usize) -> (&str, usize) {
    let bytes = text.as_bytes();
    let quote = bytes[start];
    let triple = bytes.len() >= start + 3 && bytes[start + 1] == quote && bytes[start + 2] == quote;
    let open = if triple { 3 } else { 1 };
    let mut i = start + open;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if bytes[i] == quote && (!triple || bytes[i..].starts_with(&[quote, quote, quote])) {
            return (&text[start + open..i], i + open);
        }
        i += 1;
    }
    (&text[(start + open).min(bytes.len())..], bytes.len())
}

/// The statement's first keyword, past `async`.
fn first_keyword<'a>(tokens: &[Tok<'a>]) -> Option<&'a str> {
    match tokens {
        [Tok::Name("async"), Tok::Name(word), ..] | [Tok::Name(word), ..] => Some(word),
        _ => None,
    }
}

/// Whether a line ending in `:` is a compound statement's header (not a dict or slice).
fn opens_block(tokens: &[Tok<'_>]) -> bool {
    matches!(
        first_keyword(tokens),
        Some(
            "def"
                | "class"
                | "if"
                | "elif"
                | "else"
                | "try"
                | "except"
                | "finally"
                | "with"
                | "for"
                | "while"
                | "match"
                | "case"
        )
    )
}

/// What the scan has found so far.
#[derive(Default)]
struct Scan {
    bound: BTreeSet<String>,
    open: bool,
    /// `open`, star imports aside.
    open_otherwise: bool,
    /// The star imports: (level, dotted module), `from ..x import *` is `(2, "x")`.
    stars: Vec<(usize, String)>,
    /// Module-scope names bound to the module's namespace (`_globals = globals()`).
    namespaces: BTreeSet<String>,
}

impl Scan {
    fn bind(&mut self, name: &str) {
        self.bound.insert(name.to_string());
    }

    /// A logical line at module scope: each simple statement on it, and the body of a
    /// one-line compound statement (`if x: y = 1`, `try: import z`).
    fn line(&mut self, tokens: &[Tok<'_>]) {
        for statement in split_top(tokens, ";") {
            self.statement(statement);
        }
    }

    fn statement(&mut self, tokens: &[Tok<'_>]) {
        match first_keyword(tokens) {
            Some("def" | "class") => {
                let at = tokens
                    .iter()
                    .position(|t| matches!(t, Tok::Name("def" | "class")));
                if let Some(Tok::Name(name)) = at.and_then(|at| tokens.get(at + 1)) {
                    self.bind(name);
                }
            }
            Some("import") => self.import(&tokens[1..]),
            Some("from") => self.import_from(&tokens[1..]),
            Some("global" | "nonlocal") => self.globals(tokens),
            Some("type") if matches!(tokens.get(1), Some(Tok::Name(_))) => {
                if let Some(Tok::Name(name)) = tokens.get(1) {
                    self.bind(name);
                }
            }
            Some("match" | "case") => {
                // soft keywords: `match = re.match(...)` is an assignment
                self.assignment(tokens);
                self.compound(tokens);
            }
            Some(
                "if" | "elif" | "else" | "try" | "except" | "finally" | "while" | "for" | "with",
            ) => self.compound(tokens),
            _ => self.assignment(tokens),
        }
        self.walrus(tokens);
    }

    /// A compound statement's header and, on the same line, its body.
    fn compound(&mut self, tokens: &[Tok<'_>]) {
        let mut parts = split_top(tokens, ":").into_iter();
        let header = parts.next().unwrap_or(&[]);
        match first_keyword(header) {
            Some("for") => {
                let start = usize::from(matches!(header.first(), Some(Tok::Name("async")))) + 1;
                let end = header
                    .iter()
                    .position(|t| *t == Tok::Name("in"))
                    .unwrap_or(header.len());
                if start <= end {
                    self.targets(&header[start..end]);
                }
            }
            Some("with" | "except") => {
                for (at, token) in header.iter().enumerate() {
                    if *token == Tok::Name("as")
                        && let Some(Tok::Name(name)) = header.get(at + 1)
                    {
                        self.bind(name);
                    }
                }
            }
            _ => {}
        }
        if parts.next().is_some() {
            // `else: x = 1`: the body after the header's `:`
            self.line(&tokens[header.len() + 1..]);
        }
    }

    /// `import a.b.c` binds `a`; `import a.b as c` binds `c`.
    fn import(&mut self, tokens: &[Tok<'_>]) {
        for item in split_top(tokens, ",") {
            match item {
                [.., Tok::Name("as"), Tok::Name(alias)] => self.bind(alias),
                [Tok::Name(first), ..] => self.bind(first),
                _ => {}
            }
        }
    }

    /// `from x import a, b as c` binds `a` and `c`; `from x import *` opens the module.
    fn import_from(&mut self, tokens: &[Tok<'_>]) {
        let Some(at) = tokens.iter().position(|t| *t == Tok::Name("import")) else {
            return;
        };
        let names: Vec<Tok<'_>> = tokens[at + 1..]
            .iter()
            .filter(|t| !matches!(t, Tok::Op("(" | ")")))
            .cloned()
            .collect();
        let from = &tokens[..at];
        for item in split_top(&names, ",") {
            match item {
                [Tok::Op("*")] => {
                    self.open = true;
                    self.stars.push(relative_module(from));
                }
                [.., Tok::Name("as"), Tok::Name(alias)] => self.bind(alias),
                [Tok::Name(name), ..] => self.bind(name),
                _ => {}
            }
        }
    }

    /// `global a, b` (anywhere: a function may bind them at module scope).
    fn globals(&mut self, tokens: &[Tok<'_>]) {
        for statement in split_top(tokens, ";") {
            if let [Tok::Name("global"), rest @ ..] = statement {
                for name in rest {
                    if let Tok::Name(name) = name {
                        self.bind(name);
                    }
                }
            }
        }
    }

    /// `a = b = 1`, `a, *b = ...`, `x: int = 1`, `x += 1`, and the string items of `__all__`.
    fn assignment(&mut self, tokens: &[Tok<'_>]) {
        if let [
            Tok::Name("__all__"),
            Tok::Op("." | "=" | "+=" | "|=" | ":"),
            ..,
        ] = tokens
        {
            for token in tokens {
                if let Tok::Str(item) = token
                    && is_identifier(item)
                {
                    self.bind(item);
                }
            }
        }
        let pieces = split_top(tokens, "=");
        if pieces.len() > 1 {
            for target in &pieces[..pieces.len() - 1] {
                // `x: int = 1`: the annotation is not a target
                let target = split_top(target, ":").into_iter().next().unwrap_or(&[]);
                self.targets(target);
            }
            return;
        }
        match tokens {
            [Tok::Name(name), Tok::Op(op), ..]
                if (op.ends_with('=') || *op == ":")
                    && !matches!(*op, "==" | "!=" | "<=" | ">=") =>
            {
                self.bind(name);
            }
            _ => {}
        }
    }

    /// The names an assignment target list binds (`a`, `a, b`, `(a, [b, *c])`); attributes and
    /// subscripts (`x.y`, `x[0]`) bind nothing.
    fn targets(&mut self, tokens: &[Tok<'_>]) {
        for item in split_top(tokens, ",") {
            let item = match item {
                [Tok::Op("*"), rest @ ..] => rest,
                _ => item,
            };
            match item {
                [Tok::Name(name)] => self.bind(name),
                [Tok::Op("(" | "["), inner @ .., Tok::Op(")" | "]")] => self.targets(inner),
                _ => {}
            }
        }
    }

    /// `(name := value)` anywhere in a module-scope statement.
    fn walrus(&mut self, tokens: &[Tok<'_>]) {
        for pair in tokens.windows(2) {
            if let [Tok::Name(name), Tok::Op(":=")] = pair {
                self.bind(name);
            }
        }
    }

    /// Module globals written by name at run time: `globals()[...]`, `globals().update(...)`
    /// (and `vars()`), `exec(...)` in the module's own namespace (no namespace argument, or
    /// `globals()`), `sys.modules[__name__]` (anywhere in the module, functions included).
    /// Reading them (`globals().values()`, `__import__(name, globals())`) is not writing.
    fn dynamic(&mut self, tokens: &[Tok<'_>]) {
        for (at, token) in tokens.iter().enumerate() {
            let rest = &tokens[at + 1..];
            // a method (`obj.exec()`) is not the builtin
            let method = at > 0 && tokens[at - 1] == Tok::Op(".");
            let writes = match token {
                Tok::Name("globals" | "vars" | "exec") if method => false,
                Tok::Name("globals" | "vars") => {
                    matches!(
                        rest,
                        [Tok::Op("("), Tok::Op(")"), Tok::Op("["), item @ ..] if subscript_written(item)
                    ) || matches!(
                        rest,
                        [
                            Tok::Op("("),
                            Tok::Op(")"),
                            Tok::Op("."),
                            Tok::Name("update" | "setdefault" | "__setitem__" | "pop" | "clear"),
                            ..
                        ]
                    )
                }
                Tok::Name("exec") => exec_in_module(rest),
                Tok::Name("modules") => matches!(
                    rest,
                    [Tok::Op("["), Tok::Name("__name__"), Tok::Op("]"), ..]
                ),
                _ => false,
            };
            self.open |= writes;
            self.open_otherwise |= writes;
        }
    }

    /// A module-scope line that hands the module's namespace to other code, which may bind any
    /// name in it: `globals()` (or `vars()`), or a module-scope name bound to it, given whole
    /// as a call's argument (`__import__` only reads it), or written through such a name.
    /// protobuf's generated code since 3.20 binds its messages so: `_globals = globals()`, then
    /// `_builder.BuildTopDescriptorsAndMessages(DESCRIPTOR, '...', _globals)` (tensorboard
    /// 2.21.0's `projector_config_pb2.py` defines `EmbeddingInfo` that way).
    fn handed_on(&mut self, tokens: &[Tok<'_>]) {
        if let [
            Tok::Name(alias),
            Tok::Op("="),
            Tok::Name("globals" | "vars"),
            Tok::Op("("),
            Tok::Op(")"),
        ] = tokens
        {
            self.namespaces.insert((*alias).to_string());
            return;
        }
        for (at, token) in tokens.iter().enumerate() {
            let rest = &tokens[at + 1..];
            let method = at > 0 && tokens[at - 1] == Tok::Op(".");
            let after = match token {
                Tok::Name("globals" | "vars") if !method => match rest {
                    [Tok::Op("("), Tok::Op(")"), after @ ..] => after,
                    _ => continue,
                },
                Tok::Name(name) if !method && self.namespaces.contains(*name) => {
                    let written = matches!(rest, [Tok::Op("["), item @ ..] if subscript_written(item))
                        || matches!(
                            rest,
                            [
                                Tok::Op("."),
                                Tok::Name(
                                    "update" | "setdefault" | "__setitem__" | "pop" | "clear"
                                ),
                                ..
                            ]
                        );
                    if written {
                        self.open = true;
                        self.open_otherwise = true;
                        continue;
                    }
                    rest
                }
                _ => continue,
            };
            // where the argument starts: after `(` or `,`, or after `name=` of a keyword
            let start = match tokens[..at] {
                [.., Tok::Op("(" | ","), Tok::Name(_), Tok::Op("=")] => at - 2,
                _ => at,
            };
            let whole = start > 0
                && matches!(tokens[start - 1], Tok::Op("(" | ","))
                && matches!(after.first(), Some(Tok::Op(")" | ",")));
            if whole && callee(&tokens[..start]).is_some_and(|c| c != "__import__") {
                self.open = true;
                self.open_otherwise = true;
            }
        }
    }
}

/// The name called by the call whose argument list is open at the end of `before` (`f` of
/// `f(a, `; `mod.f` gives `f`), or `None` where the open bracket is no call's.
fn callee<'a>(before: &[Tok<'a>]) -> Option<&'a str> {
    let mut depth = 0i32;
    for (at, token) in before.iter().enumerate().rev() {
        match token {
            Tok::Op(")" | "]" | "}") => depth += 1,
            Tok::Op("(") if depth == 0 => {
                return match at.checked_sub(1).map(|p| &before[p]) {
                    Some(Tok::Name(name)) => Some(name),
                    _ => None,
                };
            }
            Tok::Op("(" | "[" | "{") if depth == 0 => return None,
            Tok::Op("(" | "[" | "{") => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The tokens of a bracket's contents, from those after its opening bracket: up to the
/// matching close (all of them, for a bracket left open).
fn inside<'t, 'a>(after: &'t [Tok<'a>]) -> &'t [Tok<'a>] {
    let mut depth = 1;
    let end = after.iter().position(|t| {
        match t {
            Tok::Op("(" | "[" | "{") => depth += 1,
            Tok::Op(")" | "]" | "}") => depth -= 1,
            _ => {}
        }
        depth == 0
    });
    &after[..end.unwrap_or(after.len())]
}

/// Whether the subscript whose tokens after `[` are `item` is assigned to (`globals()["x"] = 1`)
/// rather than read (`globals()["__file__"]`).
fn subscript_written(item: &[Tok<'_>]) -> bool {
    let key = inside(item);
    if key.len() == item.len() {
        // a subscript left open (a cut line): as before, written
        return true;
    }
    // `globals()[k] = v`, `globals()[k] += v`; not `==`
    matches!(item.get(key.len() + 1), Some(Tok::Op(op))
        if op.ends_with('=') && !matches!(*op, "==" | "!=" | "<=" | ">="))
}

/// `..a.b` of `from ..a.b import ...`: (2, "a.b").
fn relative_module(tokens: &[Tok<'_>]) -> (usize, String) {
    let mut level = 0;
    let mut module = String::new();
    for token in tokens {
        match token {
            Tok::Op(".") if module.is_empty() => level += 1,
            Tok::Op("...") if module.is_empty() => level += 3,
            Tok::Op(".") => module.push('.'),
            Tok::Name(name) => module.push_str(name),
            _ => {}
        }
    }
    (level, module)
}

/// Whether `exec(...)` (its tokens after `exec`) runs in the module's own namespace: a call with
/// one argument, or with `globals()` as its second.
fn exec_in_module(rest: &[Tok<'_>]) -> bool {
    let [Tok::Op("("), inner @ ..] = rest else {
        return false;
    };
    let mut depth = 1;
    let end = inner
        .iter()
        .position(|t| {
            match t {
                Tok::Op("(" | "[" | "{") => depth += 1,
                Tok::Op(")" | "]" | "}") => depth -= 1,
                _ => {}
            }
            depth == 0
        })
        .unwrap_or(inner.len());
    let args = split_top(&inner[..end], ",");
    match args.as_slice() {
        [only] => !only.is_empty(),
        [_, second, ..] => matches!(second, [Tok::Name("globals"), Tok::Op("("), Tok::Op(")")]),
        _ => false,
    }
}

/// Whether `text` is a Python identifier (ASCII letters, digits, `_`, or any non-ASCII).
fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// `tokens` split at the operator `at` outside brackets (and, for `:`, outside `lambda`).
fn split_top<'t, 'a>(tokens: &'t [Tok<'a>], at: &str) -> Vec<&'t [Tok<'a>]> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut lambdas = 0usize;
    let mut start = 0;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Tok::Op("(" | "[" | "{") => depth += 1,
            Tok::Op(")" | "]" | "}") => depth -= 1,
            Tok::Name("lambda") if depth == 0 => lambdas += 1,
            Tok::Op(op) if depth == 0 && *op == at => {
                if at == ":" && lambdas > 0 {
                    lambdas -= 1;
                    continue;
                }
                out.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&tokens[start..]);
    out
}

#[cfg(test)]
mod tests;
