//! Python source as logical lines: brackets and backslash continuations joined, comments
//! and triple-quoted strings left out.

use std::borrow::Cow;

/// One logical line: its indentation, its text without the comment, its first line (1-based).
pub(in crate::inventory) struct Logical<'a> {
    pub(in crate::inventory) indent: usize,
    pub(in crate::inventory) text: Cow<'a, str>,
    pub(in crate::inventory) line: usize,
}

/// The logical lines of Python source: bracketed and backslash-continued lines joined,
/// triple-quoted strings and comments left out (a line that opens a string is cut there).
pub(in crate::inventory) fn logical_lines(source: &str) -> Vec<Logical<'_>> {
    let mut out: Vec<Logical<'_>> = Vec::new();
    let mut in_string: Option<&str> = None;
    let mut pending: Option<Logical<'_>> = None;
    let mut depth: i32 = 0;
    let mut carried_quote: Option<u8> = None;
    for (i, raw) in source.lines().enumerate() {
        let mut line = raw;
        if let Some(quote) = in_string {
            match find_closing(line, quote) {
                Some(at) => {
                    in_string = None;
                    line = &line[at + 3..];
                    if pending.is_none() {
                        // The rest of the closing line is not a statement start, but it may open
                        // the next string (`''' + TEMPLATE + '''`).
                        in_string = strip_line(line).1;
                        continue;
                    }
                }
                None => continue,
            }
        }
        let (code, opens) = strip_line(line);
        if let Some(quote) = opens {
            in_string = Some(quote);
        }
        let (change, open) = bracket_change(code, carried_quote);
        depth += change;
        carried_quote = open;
        let continued = depth > 0 || code.trim_end().ends_with('\\');
        let text = code.trim_end().trim_end_matches('\\').trim();
        match pending.as_mut() {
            Some(p) => {
                let joined = p.text.to_mut();
                joined.push(' ');
                joined.push_str(text);
            }
            None => {
                pending = Some(Logical {
                    indent: line.len() - line.trim_start().len(),
                    text: Cow::Borrowed(text),
                    line: i + 1,
                });
            }
        }
        if !continued || opens.is_some() {
            depth = 0;
            if let Some(p) = pending.take()
                && !p.text.is_empty()
            {
                out.push(p);
            }
        }
    }
    out.extend(pending.filter(|p| !p.text.is_empty()));
    out
}

/// Where `quote` (a triple quote) first occurs in `line` unescaped (`\"""` inside a `"""`
/// string is a quote, then the two that start the closing).
fn find_closing(line: &str, quote: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
        } else if bytes[i..].starts_with(quote.as_bytes()) {
            return Some(i);
        } else {
            i += 1;
        }
    }
    None
}

/// A line without its comment and without a triple-quoted string it opens (and that string's
/// quote, when it does not close on the line). Single-quoted strings are kept.
fn strip_line(line: &str) -> (&str, Option<&'static str>) {
    let bytes = line.as_bytes();
    if memchr::memchr3(b'#', b'"', b'\'', bytes).is_none() {
        return (line, None);
    }
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'#' => return (&line[..i], None),
            None if b == b'"' || b == b'\'' => {
                let delimiter = if b == b'"' { "\"\"\"" } else { "'''" };
                if line[i..].starts_with(delimiter) {
                    match find_closing(&line[i + 3..], delimiter) {
                        Some(end) => i += 3 + end + 2,
                        None => return (&line[..i], Some(delimiter)),
                    }
                } else {
                    quote = Some(b);
                }
            }
            None => {}
        }
        i += 1;
    }
    (line, None)
}

/// How many brackets a line (without its comment) opens less those it closes, outside its
/// strings (`"("` opens none; triple-quoted ones that close on the line too), and the quote of a
/// single-quoted string it leaves open (continued on the next line by a backslash). `open` is
/// the quote of such a string the previous line left open.
fn bracket_change(code: &str, open: Option<u8>) -> (i32, Option<u8>) {
    let bytes = code.as_bytes();
    let mut depth = 0;
    let mut i = 0;
    let mut inside = open.map(|q| (q, 1));
    loop {
        if let Some((q, width)) = inside {
            while i < bytes.len() {
                if bytes[i] == b'\\' {
                    i += 2;
                } else if bytes[i] == q && (width == 1 || bytes[i..].starts_with(&[q, q, q])) {
                    i += width;
                    inside = None;
                    break;
                } else {
                    i += 1;
                }
            }
            if inside.is_some() {
                return (depth, (width == 1).then_some(q));
            }
        }
        let Some(&b) = bytes.get(i) else {
            return (depth, None);
        };
        match b {
            b'"' | b'\'' => {
                let width = if bytes[i..].starts_with(&[b, b, b]) {
                    3
                } else {
                    1
                };
                inside = Some((b, width));
                i += width;
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
}
