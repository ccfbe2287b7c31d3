//! The verification script (`verify.py`, standard library only) and its report as text.
//!
//! In: a [`VerifySpec`] (what to check, selected by [`crate::verify::select`]). Out: the script.
//! The template is four Python files beside this one, concatenated (`header.py`: usage and the
//! SPEC literal; `imports.py`: dists, modules, RECORD ownership, one import per child process;
//! `checks.py`: versions, imports in parallel, `pip check`, smoke tests; `main.py`: baseline
//! comparison and the report). It holds no plan data: the spec is inserted as ONE JSON string
//! literal, the spec's JSON text made ASCII-only (every non-ASCII character, `\u2028` and bidi
//! controls included, escaped as `\uXXXX`), then encoded again as a JSON string, which is also a
//! valid Python string literal. Nothing from the plan or the policy reaches code or comments:
//! smoke checks travel as strings inside the spec and are written to files when they run.
//! [`report_text`] renders a report for `planner verify`.

use std::fmt::Write as _;

use crate::terminal::escape;
use crate::verify::{VerifyMode, VerifyReport, VerifySpec};

const TEMPLATE: &str = concat!(
    include_str!("header.py"),
    include_str!("imports.py"),
    include_str!("forks.py"),
    include_str!("checks.py"),
    include_str!("main.py"),
);
const PLACEHOLDER: &str = "__SPEC_JSON__";

/// The script for one spec.
pub(crate) fn script(spec: &VerifySpec) -> String {
    let json = serde_json::to_string(spec).expect("specs always serialize");
    let literal = python_string_literal(&json);
    let (head, tail) = TEMPLATE
        .split_once(PLACEHOLDER)
        .expect("the template has one placeholder");
    debug_assert!(!tail.contains(PLACEHOLDER));
    format!("{head}{literal}{tail}")
}

/// A JSON text as a double-quoted string literal that Python and JSON both read back exactly:
/// the inner text is made ASCII-only first, so the literal holds only printable ASCII.
pub(crate) fn python_string_literal(json: &str) -> String {
    let mut ascii = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() && !c.is_ascii_control() {
            ascii.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                ascii.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    // Outer encoding: only `"` and `\` need escaping in printable ASCII.
    serde_json::to_string(&ascii).expect("strings always serialize")
}

/// A report for a terminal: a headline, each failed check with its package and the last line
/// of its error (regressions apart from what failed before), each skip with why, and the counts.
pub(crate) fn report_text(report: &VerifyReport) -> String {
    let mut out = headline(report);
    write_failures(&mut out, report);
    write_skips(&mut out, report);
    write_notes(&mut out, report);
    write_counts(&mut out, report);
    out
}

/// `verify WHAT with PYTHON (Python X) [MODE]`, one line.
fn headline(report: &VerifyReport) -> String {
    let what = match &report.plan {
        Some(plan) => format!("plan {} ({})", plan.kind, plan.title),
        None => "the environment".to_string(),
    };
    let mode = match report.mode {
        VerifyMode::Baseline => " [baseline]",
        VerifyMode::Compare => " [after, compared with the baseline]",
        VerifyMode::Check => "",
    };
    format!(
        "verify {what}{} with {} (Python {}){mode}\n",
        if report.all { ", --all" } else { "" },
        report.executable,
        report.python
    )
}

/// The failed checks: regressions (or every failure outside a comparison), then those that
/// failed before too.
fn write_failures(out: &mut String, report: &VerifyReport) {
    let failed_line = |out: &mut String, f: &crate::verify::report::Failed| {
        let package = f
            .package
            .as_deref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default();
        let _ = writeln!(out, "  FAIL {}{package}: {}", f.check, f.error);
    };
    let (before, regressions): (Vec<_>, Vec<_>) = report
        .failed
        .iter()
        .partition(|f| f.regression == Some(false));
    if !regressions.is_empty() {
        let _ = writeln!(
            out,
            "{}:",
            if report.mode == VerifyMode::Compare {
                "regressions (passed before)"
            } else {
                "failed"
            }
        );
        for f in regressions {
            failed_line(out, f);
        }
    }
    if !before.is_empty() {
        let _ = writeln!(out, "failing before too (not blamed on the plan):");
        for f in before {
            failed_line(out, f);
        }
    }
}

/// The smoke and version checks that were skipped, with why (import skips are only counted).
fn write_skips(out: &mut String, report: &VerifyReport) {
    let skipped: Vec<_> = report
        .skipped()
        .filter(|c| c.kind == "smoke" || c.kind == "version")
        .collect();
    if skipped.is_empty() {
        return;
    }
    let _ = writeln!(out, "skipped (not run here, not passed):");
    for check in skipped {
        let _ = writeln!(
            out,
            "  skip {}: {}",
            check.name,
            check.detail.as_deref().unwrap_or("")
        );
    }
}

/// What the baseline did (recorded, compared), the failures no baseline covered, and what the
/// `--all` budget reached.
fn write_notes(out: &mut String, report: &VerifyReport) {
    if let Some(baseline) = &report.baseline {
        if baseline.recorded {
            let _ = writeln!(
                out,
                "the plan's changes are not installed yet: this run is recorded as the baseline in {}; \
                 apply the plan, then verify again to compare",
                baseline.file
            );
        } else if baseline.automatic && baseline.compared {
            let _ = writeln!(
                out,
                "compared with the baseline recorded before the change ({})",
                baseline.file
            );
        }
    }
    if let Some(libs) = &report.cuda_libraries {
        for path in &libs.outside {
            let _ = writeln!(
                out,
                "warning: {} was loaded by import torch from outside the venv's nvidia-* wheels \
                 and the driver's folder (another CUDA toolkit on LD_LIBRARY_PATH?)",
                escape(path)
            );
        }
    }
    if !report.uncompared.is_empty() {
        let _ = writeln!(
            out,
            "{} failure(s) could not be compared with a baseline (none was recorded before the \
             change): they may have failed before too",
            report.uncompared.len()
        );
    }
    if let Some(caches) = &report.caches {
        let _ = writeln!(
            out,
            "compile caches: {}",
            crate::verify::caches::CacheMode::new(!caches.private).describe()
        );
    }
    if let Some(budget) = &report.budget {
        let _ = writeln!(
            out,
            "below the top level: {} module(s) imported within the {} s budget{}",
            budget.deep_imported,
            budget.seconds,
            if budget.deep_left > 0 {
                format!(
                    ", {} left unchecked when it was spent{} (--budget S for more)",
                    budget.deep_left,
                    if budget.deep_stopped > 0 {
                        format!(", {} of them stopped while importing", budget.deep_stopped)
                    } else {
                        String::new()
                    }
                )
            } else {
                String::new()
            }
        );
    }
}

/// The last line: the counts, the seconds and the verdict.
fn write_counts(out: &mut String, report: &VerifyReport) {
    let s = &report.summary;
    let imports_skipped = report.skipped().filter(|c| c.kind == "import").count();
    let _ = write!(
        out,
        "{} checks: {} passed, {} failed, {} skipped",
        s.checks, s.passed, s.failed, s.skipped
    );
    if imports_skipped > 0 {
        let _ = write!(
            out,
            " ({imports_skipped} imports skipped: optional dependencies or nothing to import)"
        );
    }
    if let (Some(r), Some(p)) = (s.regressions, s.pre_existing) {
        let _ = write!(out, "; {r} regression(s), {p} failing before");
    }
    let verdict = match (report.ok, report.mode) {
        (_, VerifyMode::Baseline) => "baseline recorded",
        (true, _) => "ok",
        (false, _) => "FAILED",
    };
    let _ = writeln!(out, " in {:.1}s: {verdict}", report.seconds);
}

#[cfg(test)]
mod tests;
