//! The one terminal sanitizer's core: text from package metadata, an index or a file, made safe
//! to show.
//!
//! In: any text. Out: the same text with control characters (except `\n`) and the bidirectional
//! marks and overrides escaped as `\u{..}` ([`escape`]); [`field`] escapes newlines too, for a
//! single field set inside a line of planner's own; [`clip_words`] shortens overlong words.

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
}
