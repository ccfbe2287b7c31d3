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
//!
//! Width: [`fit`] wraps text made for a terminal of a known width at word boundaries, with a
//! hanging indent (a table row's continuation goes under its last column, a `# ` comment's stays
//! a comment), and [`shell_lines`] breaks a shell command at its words with ` \` continuations,
//! so a copy still runs it. A renderer that does not know the width marks a command line with
//! [`command_line`]; [`fit`] breaks it when it does not fit.

use std::borrow::Cow;

pub use planner_pypi::terminal::{clip_words, escape, field};

/// The longest run of non-blank characters an error shows whole ([`clean`]): a URL or path
/// fits; a 100,000-character name someone pasted is shortened.
const LONGEST_WORD: usize = 300;

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

/// Starts a line [`fit`] must keep whole (a shell command already broken by [`shell_lines`]):
/// a control character, so it cannot come from outside text, which [`escape`] writes as
/// `\u{1e}`. [`fit`] removes it.
pub(crate) const WHOLE: char = '\u{1e}';

/// Starts a shell command line ([`command_line`]) that [`fit`] breaks with [`shell_lines`]
/// when it is too long: a control character, so it cannot come from outside text. [`fit`]
/// removes it.
const COMMAND: char = '\u{1d}';

/// A shell command (planner's own quoting: words bare or in single quotes) as a line of a text
/// made for [`fit`], indented by `indent`: where it is too long, broken between its words with
/// ` \`, each continuation four columns further in, so that a copy still runs it; without a
/// width, as it is. `command` must be escaped ([`escape`]) already.
pub(crate) fn command_line(indent: usize, command: &str) -> String {
    format!("{COMMAND}{}{command}", " ".repeat(indent))
}

/// The fewest columns a hanging indent leaves for the text after it: below that, a table
/// row's continuation goes under the row's own indent instead of under its last column.
const NARROWEST: usize = 24;

/// `text` for a terminal `width` columns wide: each longer line wrapped at word boundaries
/// (never inside a word: one longer than the width stays whole), the continuation under the
/// line's last column (after its last run of two or more spaces) when that leaves
/// [`NARROWEST`] columns and room for the line's longest word, else two columns in from the
/// line's own indent; a line that starts (after its indent) with `# ` continues as a comment.
/// Lines break at spaces only: a URL or a path is one word. Colour codes have no width. Lines
/// marked [`WHOLE`] are kept as they are, lines marked [`COMMAND`] broken as shell commands.
/// Without a width, `text` as it is.
pub(crate) fn fit(text: &str, width: Option<usize>) -> Cow<'_, str> {
    let Some(width) = width else {
        return unmark(text);
    };
    if !text.contains([WHOLE, COMMAND])
        && text
            .lines()
            .all(|l| textwrap::core::display_width(l) <= width)
    {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (body, end) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        if let Some(whole) = body.strip_prefix(WHOLE) {
            out.push_str(whole);
        } else if let Some(command) = body.strip_prefix(COMMAND) {
            let words = command.trim_start_matches(' ');
            let indent = command.len() - words.len();
            let lines = shell_lines(words, indent, 4, width);
            out.push_str(&unmark(&lines.join("\n")));
        } else if textwrap::core::display_width(body) <= width {
            out.push_str(body);
        } else {
            out.push_str(&wrap_line(body, width));
        }
        out.push_str(end);
    }
    Cow::Owned(out)
}

/// `text` without its [`WHOLE`] and [`COMMAND`] marks.
fn unmark(text: &str) -> Cow<'_, str> {
    if text.contains([WHOLE, COMMAND]) {
        Cow::Owned(text.replace([WHOLE, COMMAND], ""))
    } else {
        Cow::Borrowed(text)
    }
}

/// One line longer than `width`, wrapped with the hanging indent [`fit`] describes.
fn wrap_line(line: &str, width: usize) -> String {
    let body = line.trim_start_matches(' ');
    let indent = line.len() - body.len();
    // Under the last column only when its longest word fits there whole.
    let longest = body
        .split_whitespace()
        .map(textwrap::core::display_width)
        .max()
        .unwrap_or(0);
    let hang = last_column(line)
        .filter(|&column| column > indent && column + longest.max(NARROWEST) <= width)
        .unwrap_or(indent + 2);
    let hang = if hang + NARROWEST > width {
        indent
    } else {
        hang
    };
    let first = " ".repeat(indent);
    // A comment (a resolved requirements file's `# via`) goes on as one.
    let rest = if body.starts_with("# ") {
        format!(
            "{first}#{}",
            " ".repeat(hang.saturating_sub(indent + 1).max(3))
        )
    } else {
        " ".repeat(hang)
    };
    let options = textwrap::Options::new(width)
        .initial_indent(&first)
        .subsequent_indent(&rest)
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::wrap(body, options).join("\n")
}

/// The column (0-based, colour codes not counted) where `line`'s last column starts: the end
/// of its last run of two or more spaces after the indent, when there is one.
fn last_column(line: &str) -> Option<usize> {
    let body_at = line.len() - line.trim_start_matches(' ').len();
    let body = line[body_at..].trim_end_matches(' ');
    let gap = body.rfind("  ")?;
    let end = body_at + gap + body[gap..].len() - body[gap..].trim_start_matches(' ').len();
    Some(textwrap::core::display_width(&line[..end]))
}

/// A shell command line for a terminal `width` columns wide: broken between its words (never
/// inside a quoted one) into lines ending in ` \`, each continuation indented by `hang` more
/// than `indent`, each line marked [`WHOLE`]. A word longer than the width stays whole.
pub(crate) fn shell_lines(command: &str, indent: usize, hang: usize, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = format!("{WHOLE}{}", " ".repeat(indent));
    let mut empty = true;
    let continued = indent + hang;
    let words = shell_words(command);
    let last = words.len().saturating_sub(1);
    for (i, word) in words.into_iter().enumerate() {
        // Room for the word and, when more follow, ` \`.
        let used = line.chars().count() - 1;
        let tail = if i == last { 0 } else { 2 };
        if !empty && used + 1 + word.chars().count() + tail > width {
            line.push_str(" \\");
            lines.push(std::mem::replace(
                &mut line,
                format!("{WHOLE}{}", " ".repeat(continued)),
            ));
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line);
    lines
}

/// The words of a shell line as planner writes them (tokens bare or in single quotes, one
/// space apart), each with its quotes.
fn shell_words(command: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let (mut start, mut quoted) = (None, false);
    for (i, c) in command.char_indices() {
        match c {
            '\'' => {
                quoted = !quoted;
                start.get_or_insert(i);
            }
            ' ' if !quoted => {
                if let Some(s) = start.take() {
                    words.push(&command[s..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        words.push(&command[s..]);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// Without a width nothing moves; with one, lines wrap at words with a hanging indent
    /// under the last column, and marked lines stay whole.
    #[test]
    fn fit_wraps_at_words_under_the_last_column() {
        let row = "    torch  2.11.0 -> 2.12.0  needed to unblock triton==3.7.0 (it required triton==3.6.0)";
        assert_eq!(fit(row, None), row);
        let fitted = fit(row, Some(60));
        assert_eq!(
            fitted,
            "    torch  2.11.0 -> 2.12.0  needed to unblock triton==3.7.0\n                             (it required triton==3.6.0)"
        );
        assert!(fitted.lines().all(|l| l.chars().count() <= 60));
        // Prose: two columns in from its indent; a word longer than the width stays whole.
        let prose = "  hint: the newest release that fits is 3.6.0, already installed";
        assert_eq!(
            fit(prose, Some(40)),
            "  hint: the newest release that fits is\n    3.6.0, already installed"
        );
        assert_eq!(fit("a bcdefghij", Some(5)), "a\nbcdefghij");
        // Colour codes have no width; a marked line is kept and unmarked.
        let painted = "\u{1b}[1mPlan 1\u{1b}[0m move the blocker";
        assert_eq!(fit(painted, Some(25)), painted);
        let marked = format!("{WHOLE}{}\nshort\n", "x ".repeat(40));
        assert_eq!(
            fit(&marked, Some(20)),
            format!("{}\nshort\n", "x ".repeat(40))
        );
        assert_eq!(fit(&marked, None), format!("{}\nshort\n", "x ".repeat(40)));
    }

    /// A marked command line is broken as a command where it does not fit, kept whole and
    /// unmarked without a width; a comment wraps into more comment lines.
    #[test]
    fn fit_breaks_marked_commands_and_keeps_comments_comments() {
        let command = "pip install --force-reinstall --no-deps 'demo==1.0' 'other==2.0'";
        let text = format!("edited in place:\n{}\n", command_line(2, command));
        assert_eq!(fit(&text, None), format!("edited in place:\n  {command}\n"));
        assert_eq!(
            fit(&text, Some(40)),
            "edited in place:\n  pip install --force-reinstall \\\n      --no-deps 'demo==1.0' 'other==2.0'\n"
        );
        assert_eq!(fit(&text, Some(100)), fit(&text, None));
        let comment = "    # override: your requirement `triton==3.7.0`, replaced by `triton>=3.6`";
        assert_eq!(
            fit(comment, Some(50)),
            "    # override: your requirement `triton==3.7.0`,\n    #   replaced by `triton>=3.6`"
        );
    }

    /// A command is broken between its words, quoted words kept whole, with ` \`.
    #[test]
    fn shell_lines_break_between_words() {
        let command = "uv pip install --python '/a b/python' -- 'torch==2.12.0' 'triton==3.7.0'";
        let lines = shell_lines(command, 4, 4, 40);
        let shown: Vec<&str> = lines.iter().map(|l| l.trim_start_matches(WHOLE)).collect();
        assert_eq!(
            shown,
            [
                "    uv pip install --python \\",
                "        '/a b/python' -- \\",
                "        'torch==2.12.0' 'triton==3.7.0'",
            ]
        );
        // Joined again, the lines are the command.
        let joined = shown.join("\n").replace(" \\\n        ", " ");
        assert_eq!(joined.trim_start(), command);
        assert_eq!(shell_words(command)[4], "'/a b/python'");
    }
}
