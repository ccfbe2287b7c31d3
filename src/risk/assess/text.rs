//! Text for factor details: names and items listed at most five at a time, a requirement
//! without its marker, index-supplied text made safe for one terminal line.

use pep508_rs::{PackageName, Requirement, VersionOrUrl};

/// At most five items, then how many more.
pub(super) fn short_list(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    match items.len().saturating_sub(5) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

/// Names for a factor detail: the first five, then how many more.
pub(super) fn list(names: &[PackageName]) -> String {
    let mut text = names
        .iter()
        .take(5)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 5 {
        text.push_str(&format!(" and {} more", names.len() - 5));
    }
    text
}

/// A requirement without its marker or extras (`triton==3.6.0`), for details and titles.
pub(crate) fn requirement_text(requirement: &Requirement) -> String {
    let mut text = requirement.name.to_string();
    if let Some(VersionOrUrl::VersionSpecifier(specifiers)) = &requirement.version_or_url {
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
