//! `planner check` output: pip check's sentence and the findings by severity for people, and
//! the JSON document of `docs/check-json.md`.
//!
//! In: the [`Inventory`] and its [`CheckReport`]. Out: text ([`render_text`]) or the document
//! ([`to_json`]).

use serde::Serialize;

use crate::inventory::Inventory;
use crate::inventory::check::{CheckReport, Finding, Severity};
use crate::terminal::escape as escape_for_terminal;

/// The `schema` value of `planner check --format json` (`docs/schemas/check.json`).
pub(crate) const SCHEMA: &str = "planner-check/1";

/// One finding in JSON: its fields plus `severity`, `pip_check` and `message`.
#[derive(Debug, Serialize)]
pub(crate) struct FindingJson<'a> {
    /// `error`, `warning` or `info`.
    pub severity: Severity,
    /// Whether `pip check` reports it too.
    pub pip_check: bool,
    /// One line for humans.
    pub message: String,
    /// The typed finding (`kind` and its fields).
    #[serde(flatten)]
    pub finding: &'a Finding,
}

/// The JSON document of `planner check --format json`.
#[derive(Debug, Serialize)]
pub(crate) struct CheckJson<'a> {
    /// Always `planner-check/1`.
    pub schema: &'static str,
    /// Whether the check failed (exit 1).
    pub broken: bool,
    /// How many dists were checked.
    pub dists: usize,
    /// Findings, errors first.
    pub findings: Vec<FindingJson<'a>>,
    /// Findings a plan accepted.
    pub accepted: Vec<FindingJson<'a>>,
}

fn finding_json(finding: &Finding) -> FindingJson<'_> {
    FindingJson {
        severity: finding.severity(),
        pip_check: finding.pip_reports(),
        message: finding.message(),
        finding,
    }
}

/// Build the JSON document.
pub(crate) fn to_json<'a>(inventory: &Inventory, report: &'a CheckReport) -> CheckJson<'a> {
    CheckJson {
        schema: SCHEMA,
        broken: report.broken(),
        dists: inventory.dists.len(),
        findings: report.findings.iter().map(finding_json).collect(),
        accepted: report.accepted.iter().map(finding_json).collect(),
    }
}

/// Human output: pip check's sentence first, then each severity's findings.
pub(crate) fn render_text(report: &CheckReport, color: bool) -> String {
    use anstyle::{AnsiColor, Style};
    let paint = |style: Style, text: &str| crate::printer::paint(color, style, text);
    let (red, yellow) = (AnsiColor::Red.on_default(), AnsiColor::Yellow.on_default());
    let mut out = String::new();
    if report.broken() {
        out.push_str(&paint(red.bold(), "Broken requirements found."));
    } else {
        out.push_str(&paint(
            AnsiColor::Green.on_default(),
            "No broken requirements found.",
        ));
    }
    out.push('\n');
    for (severity, title, style) in [
        (Severity::Error, "errors:", red.bold()),
        (Severity::Warning, "warnings:", yellow.bold()),
        (Severity::Info, "info:", Style::new().bold()),
    ] {
        let findings: Vec<&Finding> = report.of(severity).collect();
        if findings.is_empty() {
            continue;
        }
        out.push_str(&format!("\n{}\n", paint(style, title)));
        for finding in findings {
            out.push_str(&format!(
                "  - {}\n",
                escape_for_terminal(&finding.message())
            ));
        }
    }
    if !report.accepted.is_empty() {
        out.push_str("\naccepted by a plan:\n");
        for finding in &report.accepted {
            out.push_str(&format!(
                "  - {}\n",
                escape_for_terminal(&finding.message())
            ));
        }
    }
    out
}
