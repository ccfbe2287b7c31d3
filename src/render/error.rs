//! The error document of every command under `--format json` (`planner-error/1`,
//! `docs/schemas/error.json`): what went wrong, on stdout, where a program looks for the data.
//!
//! In: an error (any [`miette::Diagnostic`]) and the exit code. Out: the JSON text. Every text
//! is escaped as it is for the terminal (an error quotes what it read).

use serde::Serialize;

use crate::terminal;

/// The `schema` value of the error document.
pub(crate) const SCHEMA: &str = "planner-error/1";

/// The error document.
#[derive(Debug, Serialize)]
struct ErrorJson {
    /// Always `planner-error/1`.
    schema: &'static str,
    /// The process's exit code (2: the tool failed).
    exit_code: u8,
    /// The error, one line.
    message: String,
    /// Its code (`planner::index::offline`), when it has one.
    code: Option<String>,
    /// What to do about it.
    help: Option<String>,
    /// The errors that caused it, outermost first.
    causes: Vec<String>,
}

/// The document, pretty-printed with a trailing newline.
pub(crate) fn to_json(error: &dyn miette::Diagnostic, exit_code: u8) -> String {
    let mut causes = Vec::new();
    let mut source = error.source();
    while let Some(err) = source {
        causes.push(terminal::escape(&err.to_string()).into_owned());
        source = err.source();
    }
    let document = ErrorJson {
        schema: SCHEMA,
        exit_code,
        message: terminal::escape(&error.to_string()).into_owned(),
        code: error
            .code()
            .map(|c| terminal::escape(&c.to_string()).into_owned()),
        help: error
            .help()
            .map(|h| terminal::escape(&h.to_string()).into_owned()),
        causes,
    };
    // Strings and numbers only: serializing cannot fail.
    super::json::to_json(&document).unwrap_or_default()
}

/// A command-line error clap refused (exit 2), as the same document.
pub(crate) fn usage_to_json(message: &str) -> String {
    let message = message.trim();
    let (first, rest) = message.split_once('\n').unwrap_or((message, ""));
    let document = ErrorJson {
        schema: SCHEMA,
        exit_code: 2,
        message: terminal::escape(first.trim_start_matches("error: ")).into_owned(),
        code: Some("planner::usage".to_string()),
        help: Some(terminal::escape(rest.trim()).into_owned()).filter(|h| !h.is_empty()),
        causes: Vec::new(),
    };
    super::json::to_json(&document).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_document_carries_message_code_help_and_causes_escaped() {
        #[derive(Debug, thiserror::Error, miette::Diagnostic)]
        #[error("outer \u{1b}[2J")]
        #[diagnostic(code(planner::x), help("do this"))]
        struct Outer(#[source] std::io::Error);
        let err = Outer(std::io::Error::other("inner"));
        let doc: serde_json::Value = serde_json::from_str(&to_json(&err, 2)).unwrap();
        assert_eq!(doc["schema"], SCHEMA);
        assert_eq!(doc["exit_code"], 2);
        assert_eq!(doc["message"], "outer \\u{1b}[2J");
        assert_eq!(doc["code"], "planner::x");
        assert_eq!(doc["help"], "do this");
        assert_eq!(doc["causes"], serde_json::json!(["inner"]));
        let usage = usage_to_json("error: invalid value 'x'\n  hint: write y\n");
        let doc: serde_json::Value = serde_json::from_str(&usage).unwrap();
        assert_eq!(doc["message"], "invalid value 'x'");
        assert_eq!(doc["help"], "hint: write y");
        assert_eq!(doc["code"], "planner::usage");
    }
}
