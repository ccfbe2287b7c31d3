//! The one terminal sanitizer (`terminal::escape`, `terminal::field`) over any text: what comes
//! out holds no control character but `\n` (and `field` not even that) and no bidirectional
//! mark or override, clean text comes out unchanged, and every escape reads back to the
//! character it replaced.
#![no_main]
use libfuzzer_sys::fuzz_target;
use planner_pypi::terminal::{escape, field};

/// What may never reach a terminal verbatim (the sanitizer's own rule, restated).
fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with each `\u{..}` escape read back (the inverse of the sanitizer on its own output).
fn unescape(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\\u{") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 3..];
        let end = tail.find('}').expect("an escape is closed");
        let code = u32::from_str_radix(&tail[..end], 16).expect("an escape is hex");
        out.push(char::from_u32(code).expect("an escape is a character"));
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // A literal `\u{` in the input would read back as an escape; leave it out of the
    // round-trip check.
    let literal_escapes = text.contains("\\u{");
    let escaped = escape(&text);
    assert!(!escaped.chars().any(is_unsafe), "{escaped:?}");
    if !text.chars().any(is_unsafe) {
        assert_eq!(escaped, text);
    }
    if !literal_escapes {
        assert_eq!(unescape(&escaped), text);
    }
    let one = field(&text);
    assert!(!one.chars().any(|c| is_unsafe(c) || c == '\n'), "{one:?}");
    if !literal_escapes {
        assert_eq!(unescape(&one), text);
    }
});
