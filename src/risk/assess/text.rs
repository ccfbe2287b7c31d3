//! Text for factor details: names and items listed at most five at a time, a requirement
//! without its marker, index-supplied text made safe for one terminal line.

use pep508_rs::Requirement;

use crate::metadata::requirement::specifiers;

/// At most five items (names, `dist (file, line N)` citations), then how many more:
/// `a, b, c, d, e and 2 more`.
pub(super) fn short_list<T: std::fmt::Display>(items: &[T]) -> String {
    let shown: Vec<String> = items.iter().take(5).map(ToString::to_string).collect();
    match items.len().saturating_sub(5) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// A requirement without its marker or extras (`triton==3.6.0`), for details and titles.
pub(crate) fn requirement_text(requirement: &Requirement) -> String {
    let mut text = requirement.name.to_string();
    if let Some(specifiers) = specifiers(requirement) {
        text.push_str(&specifiers.to_string());
    }
    text
}

/// Index-supplied text (a yank reason) for a one-line detail: at most 200 characters, its lines
/// joined by spaces, escaped for the terminal by the one sanitizer ([`crate::terminal::escape`]).
pub(super) fn sanitize(text: &str) -> String {
    let short: String = text.chars().take(200).collect();
    let line = short.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::terminal::escape(&line).into_owned()
}
