//! The one terminal sanitizer: text from package metadata, an index or a file, made safe to show.
//!
//! In: any text. Out: the same text with control characters (except `\n`) and the bidirectional
//! marks and overrides escaped as `\u{..}`, so a hostile `Summary` or yank reason can neither
//! move the cursor nor make a line read differently from what it is (`\u{202e}`). Every stage
//! and every renderer that puts outside text on a terminal uses [`escape`].

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
    }
}
