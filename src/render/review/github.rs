//! `planner review --format github`: GitHub workflow annotations, one per finding on its
//! line; values escaped for workflow-command properties and data.

use std::fmt::Write as _;

use super::{finding_message, level_text, unresolved_text};
use crate::review::Review;
use crate::risk::RiskLevel;

/// Escape workflow-command data (`%`, CR, LF).
fn gh_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a workflow-command property (data escapes plus `:` and `,`).
fn gh_property(text: &str) -> String {
    gh_data(text).replace(':', "%3A").replace(',', "%2C")
}

fn gh_level(level: Option<RiskLevel>) -> &'static str {
    match level {
        Some(RiskLevel::High | RiskLevel::Critical) => "error",
        Some(RiskLevel::Medium) | None => "warning",
        Some(RiskLevel::Low) => "notice",
    }
}

/// GitHub workflow annotations, one per finding, on its line.
pub(crate) fn github(review: &Review) -> String {
    let mut out = String::new();
    for u in &review.unresolved {
        let _ = writeln!(
            out,
            "::{} file={},title={}::{}",
            if u.at_base || u.missing.is_some() {
                "warning"
            } else {
                "error"
            },
            gh_property(&u.file),
            gh_property(match u.missing {
                Some(_) => "planner: not judged",
                None => "planner: does not resolve",
            }),
            gh_data(&unresolved_text(u))
        );
    }
    for f in &review.findings {
        let title = format!("planner: {} ({})", f.pin.requirement, level_text(f));
        let _ = writeln!(
            out,
            "::{} file={},line={},title={}::{}",
            gh_level(f.level),
            gh_property(&f.pin.file),
            f.pin.line,
            gh_property(&title),
            gh_data(&finding_message(f, false))
        );
    }
    for p in &review.problems {
        let line = p.line.map(|l| format!(",line={l}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "::warning file={}{line},title={}::{}",
            gh_property(&p.file),
            gh_property("planner: not reviewed"),
            gh_data(&p.message)
        );
    }
    out
}
