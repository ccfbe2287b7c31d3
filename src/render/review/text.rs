//! `planner review` for a terminal: every value escaped.

use std::fmt::Write as _;

use super::{
    blockers_text, changes_text, finding_links, header, held_text, level_text, measured_line,
    measured_plans, more_unchecked, release_text, step_text, unchecked_shown, unresolved_text,
};
use crate::review::Review;
use crate::review::advice::safer_steps;
use crate::review::analysis::TargetVerdict;
use crate::terminal::escape;

/// For a terminal.
pub(crate) fn text(review: &Review) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", escape(&header(review)));
    for u in &review.unresolved {
        let _ = writeln!(out, "{}\n", escape(&unresolved_text(u)));
    }
    for finding in &review.findings {
        let pin = &finding.pin;
        let was = finding
            .was
            .as_ref()
            .map(|w| format!(" (was {w})"))
            .unwrap_or_default();
        let line = format!(
            "{:<16} {}:{}  {}  {}{was}",
            level_text(finding).to_uppercase(),
            pin.file,
            pin.line,
            pin.kind.label(),
            pin.requirement
        );
        let _ = writeln!(out, "{}", escape(&line));
        for also in &finding.also {
            let _ = writeln!(
                out,
                "{}",
                escape(&format!(
                    "  also at {}:{} ({})",
                    also.file,
                    also.line,
                    also.kind.label()
                ))
            );
        }
        if let Some(release) = release_text(finding) {
            let _ = writeln!(out, "{}", escape(&format!("  release: {release}")));
        }
        for (label, url) in finding_links(finding) {
            let _ = writeln!(out, "{}", escape(&format!("  {label}: {url}")));
        }
        for verdict in &finding.targets {
            let _ = write!(out, "{}", escape(&verdict_text(verdict)));
            let steps = (verdict.safer.as_ref()).map(|plan| safer_steps(finding, plan, verdict));
            for step in steps.iter().flat_map(|s| s.steps()) {
                let _ = writeln!(out, "{}", escape(&format!("      - {}", step_text(step))));
            }
        }
        out.push('\n');
    }
    for pin in &review.removed {
        let _ = writeln!(
            out,
            "{}",
            escape(&format!(
                "removed: {}:{}  {}  {}",
                pin.file,
                pin.line,
                pin.kind.label(),
                pin.requirement
            ))
        );
    }
    for problem in &review.problems {
        let at = problem.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{}",
            escape(&format!(
                "not reviewed: {}{at}: {}",
                problem.file, problem.message
            ))
        );
    }
    out
}

fn verdict_text(v: &TargetVerdict) -> String {
    let mut out = format!("  on {}:\n", v.target);
    if let Some(note) = &v.note {
        let _ = writeln!(out, "    not judged: {note}");
    }
    if let Some(remark) = &v.remark {
        let _ = writeln!(out, "    {remark}");
    }
    let (shown, more) = unchecked_shown(v);
    for entry in shown {
        let _ = writeln!(out, "    judged without: {}", escape(&entry.sentence()));
    }
    if more > 0 {
        let _ = writeln!(out, "    {}", more_unchecked(more));
    }
    for b in blockers_text(&v.breaks) {
        let _ = writeln!(out, "    breaks: {b}");
    }
    for h in &v.excludes {
        let _ = writeln!(out, "    excludes: {}", held_text(h));
    }
    for b in blockers_text(&v.narrows) {
        let _ = writeln!(out, "    narrows: {b}");
    }
    if let Some(risk) = &v.risk {
        let _ = writeln!(
            out,
            "    risk: {} {}/100 ({} policy)",
            risk.level, risk.score, risk.policy
        );
        for factor in &risk.factors {
            let _ = writeln!(out, "      {:+4}  {}", factor.points, factor.detail);
        }
    }
    if let Some(plan) = &v.safer {
        let _ = writeln!(
            out,
            "    safer: {} (risk {} {}/100): {}",
            plan.title,
            plan.risk.level,
            plan.risk.score,
            changes_text(plan)
        );
    }
    for (what, measured) in measured_plans(v) {
        let _ = writeln!(out, "    tried {what}: {}", measured_line(measured));
        for r in &measured.tried.outcome.regressions {
            let _ = writeln!(out, "      FAIL {r}");
        }
        for r in &measured.tried.outcome.removed {
            let _ = writeln!(
                out,
                "      gone {r} (removed by the plan, not a regression)"
            );
        }
        if let Some(note) = &measured.tried.outcome.installer_note {
            let _ = writeln!(out, "      installer: {note}");
        }
    }
    out
}
