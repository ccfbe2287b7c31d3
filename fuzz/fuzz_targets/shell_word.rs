//! The shell words the generated scripts are written with, over any bytes: `safe::literal_os`
//! (a venv path, UTF-8 or not, as `PYTHON_DEFAULT=...` in install-*.sh and rollback-*.sh) reads
//! back, as bash reads a `'...'` or `$'...'` word, to exactly the bytes given (NUL aside, which
//! no path holds), and stays one line of printable text when the bytes are not UTF-8;
//! `safe::literal` and `safe::quote` read back through a POSIX word splitter to the text given.
#![no_main]
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use libfuzzer_sys::fuzz_target;
use planner::render::safe::{literal, literal_os, quote};

/// One bash word made of `'...'` and `$'...'` parts (the only forms `literal_os` writes), read
/// as bash reads it.
fn bash_word(word: &str) -> Vec<u8> {
    let bytes = word.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            let end = i + 1 + word[i + 1..].find('\'').expect("a quote is closed");
            out.extend_from_slice(&bytes[i + 1..end]);
            i = end + 1;
        } else if word[i..].starts_with("$'") {
            i += 2;
            loop {
                match bytes[i] {
                    b'\'' => break,
                    b'\\' => {
                        match bytes[i + 1] {
                            b'x' => {
                                let hex = &word[i + 2..i + 4];
                                out.push(u8::from_str_radix(hex, 16).expect("two hex digits"));
                                i += 4;
                            }
                            b'\\' | b'\'' => {
                                out.push(bytes[i + 1]);
                                i += 2;
                            }
                            other => panic!("an escape bash would read otherwise: \\{}", other as char),
                        }
                        continue;
                    }
                    b => out.push(b),
                }
                i += 1;
            }
            i += 1;
        } else if bytes[i] == b'\\' {
            out.push(bytes[i + 1]);
            i += 2;
        } else {
            panic!("an unquoted byte in {word:?}");
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let expected: Vec<u8> = data.iter().copied().filter(|b| *b != 0).collect();
    let word = literal_os(OsStr::from_bytes(data));
    assert_eq!(bash_word(&word), expected, "{word:?}");
    if std::str::from_utf8(data).is_err() {
        assert!(word.starts_with("$'"), "{word:?}");
        assert!(word.bytes().all(|b| b.is_ascii_graphic() || b == b' '), "{word:?}");
    }
    let Ok(text) = std::str::from_utf8(&expected) else {
        return;
    };
    assert_eq!(shlex::split(&literal(text)), Some(vec![text.to_string()]));
    assert_eq!(shlex::split(&quote(text)), Some(vec![text.to_string()]));
});
