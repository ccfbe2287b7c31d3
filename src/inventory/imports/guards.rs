//! The block each header line opens (`def`, `if`, `try:`, ...) and what it says of the
//! import statements inside it: whether they run, and what catches their failure.

use super::ImportGuard;
use super::lines::Logical;

/// The block a header line opens, for the statements inside it.
#[derive(Clone, Copy)]
pub(super) enum Block {
    /// Runs when the function is called (`def`); `true`: a private function nothing else in the
    /// file names (it never runs).
    Def(bool),
    /// Runs whenever the enclosing code runs (`class`, `with`, `for`, `while`, `finally`).
    Runs,
    /// Runs only sometimes (`if`, `elif`, `else`, `except`, `match`, `case`); `true`: an `if` or
    /// `elif` whose test may hold whenever the module is imported here (`if is_jinja_available():`,
    /// true wherever the module it imports is installed), not a typing-only or platform test.
    Sometimes(bool),
    /// A `try:` body, guarded by what its handlers catch.
    Try(ImportGuard),
}

/// What a handler line (`except (ImportError, AttributeError) as e:`) catches of an import.
pub(super) fn handler_guard(text: &str) -> ImportGuard {
    let rest = text.trim_start_matches("except").trim_start_matches('*');
    let rest = rest.split(" as ").next().unwrap_or(rest);
    let names: Vec<&str> = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if names.is_empty()
        || names
            .iter()
            .any(|n| matches!(*n, "ImportError" | "Exception" | "BaseException"))
    {
        ImportGuard::Any
    } else if names.contains(&"ModuleNotFoundError") {
        ImportGuard::MissingModule
    } else {
        ImportGuard::None
    }
}

/// The private names (`_x`, not `__x`) that a file's logical lines hold as words, each with the
/// first line holding it and whether another line does too; made at the first private `def`.
pub(super) struct Words<'a> {
    lines: &'a [Logical<'a>],
    seen: std::cell::OnceCell<std::collections::HashMap<&'a str, (usize, bool)>>,
}

impl<'a> Words<'a> {
    pub(super) fn new(lines: &'a [Logical<'a>]) -> Words<'a> {
        Words {
            lines,
            seen: std::cell::OnceCell::new(),
        }
    }

    /// Whether a line other than `at` holds `name` as a word (a whole run of letters, digits
    /// and `_`).
    fn elsewhere(&self, name: &str, at: usize) -> bool {
        let seen = self.seen.get_or_init(|| {
            let mut seen = std::collections::HashMap::new();
            for (i, line) in self.lines.iter().enumerate() {
                let text = line.text.as_ref();
                let ident = |c: char| c.is_alphanumeric() || c == '_';
                for word in text.split(|c: char| !ident(c)) {
                    if word.starts_with('_') && !word.starts_with("__") {
                        let entry = seen.entry(word).or_insert((i, false));
                        entry.1 |= entry.0 != i;
                    }
                }
            }
            seen
        });
        seen.get(name)
            .is_some_and(|&(first, more)| more || first != at)
    }
}

/// The block a logical line opens, if it is a compound statement's header.
pub(super) fn header(lines: &[Logical<'_>], at: usize, words: &Words<'_>) -> Option<Block> {
    let text = &lines[at].text;
    if !text.ends_with(':') {
        return None;
    }
    let word = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    let word = if word == "async" {
        text[5..].trim_start().split(' ').next().unwrap_or("")
    } else {
        word
    };
    match word {
        "if" | "elif" => Some(Block::Sometimes(may_hold_here(text))),
        "else" | "except" | "match" | "case" => Some(Block::Sometimes(false)),
        "def" => Some(Block::Def(uncalled_private(lines, at, words))),
        "class" | "with" | "for" | "while" | "finally" => Some(Block::Runs),
        "try" => {
            let indent = lines[at].indent;
            let guard = lines[at + 1..]
                .iter()
                .filter(|l| l.indent <= indent)
                .take_while(|l| {
                    l.indent == indent
                        && ["except", "else", "finally"]
                            .iter()
                            .any(|k| l.text.starts_with(k))
                })
                .filter(|l| l.text.starts_with("except"))
                .map(|l| handler_guard(&l.text))
                .max()
                .unwrap_or(ImportGuard::None);
            Some(Block::Try(guard))
        }
        _ => None,
    }
}

/// Whether the `def` header at `at` defines a private function (`_name`) whose name no other
/// logical line of the file holds as a word (no call, no reference: it never runs). The words
/// are counted once per file ([`Words`]), not searched for per `def`: a file of thousands of
/// lines and hundreds of private functions took most of `verify --all`'s own time so.
fn uncalled_private(lines: &[Logical<'_>], at: usize, words: &Words<'_>) -> bool {
    let text = lines[at].text.trim_start_matches("async").trim_start();
    let Some(rest) = text.strip_prefix("def ") else {
        return false;
    };
    let name: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if !name.starts_with('_') || name.starts_with("__") {
        return false;
    }
    !words.elsewhere(&name, at)
}

/// Whether an `if`/`elif` test may hold whenever its module is imported on this platform: not a
/// typing-only test (`TYPE_CHECKING`) nor one on the platform or interpreter (`sys.platform`,
/// `os.name`, `platform.system()`, `sys.version_info`), whose other branch is what runs here.
fn may_hold_here(test: &str) -> bool {
    const NOT_HERE: [&str; 6] = [
        "TYPE_CHECKING",
        "sys.platform",
        "os.name",
        "platform.system",
        "sys.version_info",
        "PY2",
    ];
    !NOT_HERE.iter().any(|word| test.contains(word))
}
