//! The one terminal sanitizer: text from package metadata, an index or a file, made safe to show.
//!
//! In: any text. Out: the same text with control characters (except `\n`) and the bidirectional
//! marks and overrides escaped as `\u{..}`, so a hostile `Summary` or yank reason can neither
//! move the cursor nor make a line read differently from what it is (`\u{202e}`). Every stage
//! and every renderer that puts outside text on a terminal uses [`escape`]; a single field from
//! an index or an environment (a page's project name, `meta.api-version`, pyvenv.cfg's
//! `version_info`) set inside a line of planner's own uses [`field`], which escapes newlines too,
//! so it cannot start a line that reads as planner's. Errors are escaped as a whole on their way
//! out ([`clean`], used by `report_error`), warnings and notes by the printer.

use std::borrow::Cow;

/// Whether `c` must never reach a terminal verbatim.
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every unsafe character written as its `\u{..}` escape (borrowed when clean).
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// The longest run of non-blank characters an error shows whole ([`clean`]): a URL or path
/// fits; a 100,000-character name someone pasted is shortened.
const LONGEST_WORD: usize = 300;

/// `text` with each run of non-blank characters longer than `max` characters shortened to its
/// first `max` and a count (`aaa… (100000 characters)`), so an echoed value cannot fill the
/// screen (borrowed when nothing is that long).
pub fn clip_words(text: &str, max: usize) -> Cow<'_, str> {
    let too_long = |word: &str| word.chars().nth(max).is_some();
    if !text.split_whitespace().any(too_long) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len().min(4096));
    let mut rest = text;
    while !rest.is_empty() {
        let blank = rest.len() - rest.trim_start().len();
        out.push_str(&rest[..blank]);
        rest = &rest[blank..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let word = &rest[..end];
        if too_long(word) {
            let cut = word.char_indices().nth(max).map_or(word.len(), |(i, _)| i);
            let count = word.chars().count();
            out.push_str(&format!("{}… ({count} characters)", &word[..cut]));
        } else {
            out.push_str(word);
        }
        rest = &rest[end..];
    }
    Cow::Owned(out)
}

/// One field of outside text inside a line: [`escape`], and `\n` written as `\u{a}` too.
pub fn field(text: &str) -> Cow<'_, str> {
    if !text.contains('\n') {
        return escape(text);
    }
    Cow::Owned(escape(text).replace('\n', "\\u{a}"))
}

/// An error as it will be shown, every text in it escaped: its message, help and code, and each
/// error of its source chain (miette renders this in place of the original, so no error, however
/// it was built, puts a raw control character on the terminal).
pub(crate) fn clean(diagnostic: &dyn miette::Diagnostic) -> Clean {
    let shown = |text: &str| clip_words(&escape(text), LONGEST_WORD).into_owned();
    let mut chain = Vec::new();
    let mut source = diagnostic.source();
    while let Some(err) = source {
        chain.push(shown(&err.to_string()));
        source = err.source();
    }
    let mut clean: Option<Clean> = None;
    for message in chain.into_iter().rev() {
        clean = Some(Clean {
            message,
            code: None,
            help: None,
            source: clean.map(Box::new),
        });
    }
    Clean {
        message: shown(&diagnostic.to_string()),
        code: diagnostic.code().map(|c| shown(&c.to_string())),
        help: diagnostic.help().map(|h| shown(&h.to_string())),
        source: clean.map(Box::new),
    }
}

/// An error with every text escaped ([`clean`]).
#[derive(Debug)]
pub(crate) struct Clean {
    message: String,
    code: Option<String>,
    help: Option<String>,
    source: Option<Box<Clean>>,
}

impl std::fmt::Display for Clean {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Clean {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|s| s as &(dyn std::error::Error + 'static))
    }
}

impl miette::Diagnostic for Clean {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.code
            .as_ref()
            .map(|c| Box::new(c) as Box<dyn std::fmt::Display>)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_bidi_and_keeps_newlines() {
        assert!(matches!(
            escape("plain\ntext"),
            Cow::Borrowed("plain\ntext")
        ));
        assert_eq!(escape("a\u{202e}b\x1b[31m"), "a\\u{202e}b\\u{1b}[31m");
        assert_eq!(escape("tab\there\r"), "tab\\u{9}here\\u{d}");
        assert_eq!(
            escape("\u{200f}\u{2066}x\u{2069}"),
            "\\u{200f}\\u{2066}x\\u{2069}"
        );
        // A field cannot start a line of its own.
        assert_eq!(field("1.1\nerror: fake"), "1.1\\u{a}error: fake");
        assert!(matches!(field("3.12.3"), Cow::Borrowed("3.12.3")));
        // Escaping twice changes nothing more.
        assert_eq!(escape(&escape("a\x1b[31m")), escape("a\x1b[31m"));
    }

    #[test]
    fn long_words_are_clipped() {
        assert!(matches!(clip_words("a b  c", 3), Cow::Borrowed(_)));
        assert_eq!(clip_words("x abcdef\n yz", 3), "x abc… (6 characters)\n yz");
        assert_eq!(clip_words("ééééé", 2), "éé… (5 characters)");
    }

    /// Every text of an error and its sources is escaped, the code and help kept.
    #[test]
    fn errors_are_cleaned_whole() {
        #[derive(Debug, thiserror::Error, miette::Diagnostic)]
        #[error("outer \x1b[2J{0}")]
        #[diagnostic(code(planner::x), help("help \u{202e}"))]
        struct Outer(String, #[source] Inner);
        #[derive(Debug, thiserror::Error)]
        #[error("inner \x1b]0;title\x07")]
        struct Inner;
        let clean = clean(&Outer("name".to_string(), Inner));
        let shown = format!("{:?}", miette::Report::new(clean));
        assert!(
            !shown.contains('\x1b') && !shown.contains('\x07'),
            "{shown}"
        );
        assert!(shown.contains("outer \\u{1b}[2Jname"), "{shown}");
        assert!(shown.contains("inner \\u{1b}]0;title\\u{7}"), "{shown}");
        assert!(shown.contains("help \\u{202e}"), "{shown}");
        assert!(shown.contains("planner::x"), "{shown}");
    }
}
