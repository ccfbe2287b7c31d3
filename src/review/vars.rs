//! Variables in install lines: Dockerfile `ARG` defaults and `ENV` values, shell and Makefile
//! assignments, expanded the way the shell (or make) would before the line runs.
//!
//! In: the assignments seen so far and a command's text. Out: the text with every variable that
//! has a value replaced (`$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME-default}`, and make's
//! `$(NAME)`); a variable without a value is left as written, for the caller to report.

use std::collections::BTreeMap;

/// Names and values, in the order they were assigned (a later one replaces an earlier one).
pub(crate) type Vars = BTreeMap<String, String>;

/// `text` with the variables of `vars` expanded.
pub(crate) fn expand(text: &str, vars: &Vars) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        match reference(after) {
            Some((name, default, used)) => {
                match vars.get(name).map(String::as_str).or(default) {
                    Some(value) => out.push_str(value),
                    None => out.push_str(&rest[at..at + 1 + used]),
                }
                rest = &after[used..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The variable a `$` starts: its name, its inline default, and how many bytes after the `$`
/// it takes.
fn reference(after: &str) -> Option<(&str, Option<&str>, usize)> {
    let close = match after.chars().next()? {
        '{' => '}',
        '(' => ')',
        _ => {
            let len = name_len(after);
            return (len > 0).then(|| (&after[..len], None, len));
        }
    };
    let end = after.find(close)?;
    let inner = &after[1..end];
    let len = name_len(inner);
    if len == 0 {
        return None;
    }
    let tail = &inner[len..];
    let default = tail
        .strip_prefix(":-")
        .or_else(|| tail.strip_prefix('-'))
        .or_else(|| (tail.is_empty()).then_some(""))?;
    let default = (!tail.is_empty()).then_some(default);
    Some((&inner[..len], default, end + 1))
}

fn name_len(text: &str) -> usize {
    text.char_indices()
        .take_while(|(i, c)| {
            c.is_ascii_alphanumeric() && !(*i == 0 && c.is_ascii_digit()) || *c == '_'
        })
        .count()
}

/// `NAME=value` (quotes removed), or `None` when `word` is not an assignment.
pub(crate) fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let valid = !name.is_empty()
        && name_len(name) == name.len()
        && !name.starts_with(|c: char| c.is_ascii_digit());
    valid.then(|| (name.to_string(), unquote(value.trim()).to_string()))
}

/// `"x"` / `'x'` -> `x`.
pub(crate) fn unquote(value: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner;
        }
    }
    value
}

/// Whether `text` still holds a variable reference (after [`expand`]).
pub(crate) fn has_variable(text: &str) -> bool {
    text.find('$')
        .is_some_and(|at| reference(&text[at + 1..]).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_shell_and_make_references() {
        let vars = Vars::from([("TRITON_VERSION".to_string(), "3.7.0".to_string())]);
        assert_eq!(
            expand(
                "triton==${TRITON_VERSION} triton==$TRITON_VERSION x==$(TRITON_VERSION)",
                &vars
            ),
            "triton==3.7.0 triton==3.7.0 x==3.7.0"
        );
        assert_eq!(expand("t==${MISSING:-3.6.0}", &vars), "t==3.6.0");
        assert_eq!(expand("t==${MISSING}", &vars), "t==${MISSING}");
        assert!(has_variable("t==${MISSING}"));
        assert!(!has_variable("cost $5"));
        assert_eq!(expand("a $ b $5", &vars), "a $ b $5");
        assert_eq!(
            assignment("TORCH=\"2.11.0\""),
            Some(("TORCH".to_string(), "2.11.0".to_string()))
        );
        assert_eq!(assignment("--flag=x"), None);
    }
}
