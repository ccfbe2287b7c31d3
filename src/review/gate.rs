//! What a review asks of its reader beyond its findings: the warnings it prints on stderr and
//! the reasons it exits 1 (`--fail-on`, `--fail-on-unjudged`, a regression `--try` measured).
//!
//! In: a [`Review`] and the gate's settings. Out: sentences; `commands::review` prints them.

use super::Review;
use crate::risk::RiskLevel;

impl Review {
    /// Exit 1's reasons: a finding at or above `fail_on`, a pin that leaves a requirement of its
    /// environment no version or a file the head made unresolvable (with `fail_on`), a regression
    /// measured as pinned, a pin not judged anywhere (`fail_on_unjudged`). Empty: exit 0.
    pub(crate) fn gate_reasons(
        &self,
        fail_on: Option<RiskLevel>,
        fail_on_unjudged: bool,
    ) -> Vec<String> {
        let mut reasons = Vec::new();
        if let Some(level) = fail_on {
            if self.reaches(level) {
                reasons.push(format!("a finding's risk is at or above --fail-on {level}"));
            }
            let excluding = self.excluding();
            if excluding > 0 {
                reasons.push(format!(
                    "{excluding} pin(s) leave a requirement of their own environment no version"
                ));
            }
            let unresolved = self.newly_unresolved();
            if unresolved > 0 {
                reasons.push(format!(
                    "{unresolved} file(s) no longer resolve with the head's pins"
                ));
            }
        }
        for finding in &self.findings {
            let regressions = finding.measured_regressions();
            if !regressions.is_empty() {
                let more = match regressions.len() {
                    n @ 6.. => format!("; and {} more", n - 5),
                    _ => String::new(),
                };
                reasons.push(format!(
                    "`{}` ({}:{}) measured {} regression(s) as pinned (--try): {}{more}",
                    finding.pin.requirement,
                    finding.pin.file,
                    finding.pin.line,
                    regressions.len(),
                    regressions[..regressions.len().min(5)].join("; ")
                ));
            }
        }
        let (unjudged, files) = (self.unjudged(), self.unjudged_files());
        if fail_on_unjudged && unjudged + files > 0 {
            let files = match files {
                0 => String::new(),
                n => format!(" and {n} file(s)"),
            };
            reasons.push(format!(
                "{unjudged} changed pin(s){files} could not be judged (--fail-on-unjudged)"
            ));
        }
        reasons
    }

    /// A warning for each file not reviewed and each environment that does not resolve (or
    /// could not be judged) on a target.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        for problem in &self.problems {
            let at = problem
                .line
                .map(|l| format!(" line {l}"))
                .unwrap_or_default();
            warnings.push(format!(
                "`{}`{at} was not reviewed: {}",
                problem.file, problem.message
            ));
        }
        for unresolved in &self.unresolved {
            if unresolved.missing.is_some() {
                warnings.push(format!(
                    "`{}` could not be judged on {}: {}",
                    unresolved.file, unresolved.target, unresolved.reason
                ));
                continue;
            }
            let when = if unresolved.at_base {
                " (nor at the base)"
            } else {
                ""
            };
            warnings.push(format!(
                "`{}` does not resolve on {}{when}: {}",
                unresolved.file, unresolved.target, unresolved.reason
            ));
        }
        warnings
    }
}
