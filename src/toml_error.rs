//! Where a TOML file went wrong, as a person reads it. In: the file's text and the error of
//! `toml` (or a piece of text to find); out: "line L, column C: message", the line and column
//! counted from 1 (columns in characters), so a user opens the file at the right place.

/// `err` located in `text`: "line L, column C: message" (just the message when the parser
/// gave no position).
pub(crate) fn describe(text: &str, err: &toml::de::Error) -> String {
    let message = err.message().trim_end();
    match err.span() {
        Some(span) => format!("{}: {message}", position(text, span.start)),
        None => message.to_string(),
    }
}

/// "line L, column C" of the byte offset `at` in `text` (clamped to the text).
pub(crate) fn position(text: &str, at: usize) -> String {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    format!("line {line}, column {column}")
}

/// "line L, column C" of the first quoted occurrence of `value` (`"value"` or `'value'`) in
/// `text`, the column pointing at the value itself; `None` when it is not written that way.
pub(crate) fn find_quoted(text: &str, value: &str) -> Option<String> {
    ['"', '\''].iter().find_map(|quote| {
        text.find(&format!("{quote}{value}{quote}"))
            .map(|at| position(text, at + 1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_from_one() {
        let text = "name = 'x'\n[weights]\nmajor-upgrade = = 3\n";
        let err = toml::from_str::<toml::Value>(text).unwrap_err();
        let described = describe(text, &err);
        assert!(described.starts_with("line 3, column 17: "), "{described}");
        assert_eq!(position("é\nab", 5), "line 2, column 3");
        assert_eq!(
            find_quoted("a = ['x', \"nvidia-[cu\"]\n", "nvidia-[cu").as_deref(),
            Some("line 1, column 12")
        );
        assert_eq!(find_quoted("a = 1", "b"), None);
    }
}
