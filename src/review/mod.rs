//! `planner review`: the forced and pinned versions a change adds, each with what it breaks,
//! its risk and the safer plan.
//!
//! In: a git repository and two revisions, read with `git` itself ([`git`]; no checkout, nothing
//! written), and the targets to judge for. The finders ([`scan`]: [`pyproject`],
//! [`requirements`], [`lock`], [`shell`]) list every pin of each revision with file and line;
//! the pins the head adds or changes are judged by [`analysis`] through the plan stage. Out: a
//! [`Review`], findings worst first; `render::review` prints it.

pub mod analysis;
pub mod git;
pub mod lock;
pub mod pins;
pub mod pyproject;
pub mod requirements;
pub mod scan;
pub mod shell;

use std::collections::BTreeMap;

use serde::Serialize;

use self::analysis::{Analyzer, Target, TargetVerdict};
use self::git::{GitError, Repo, Revision};
use self::pins::{ParseProblem, Pin};
use crate::risk::RiskLevel;

/// `schema` of `planner review --format json`.
pub const REVIEW_SCHEMA: &str = "planner-review/1";

/// A revision as reported.
#[derive(Debug, Clone, Serialize)]
pub struct RevisionInfo {
    /// The name given (or how the default base was found).
    pub name: String,
    /// The commit.
    pub commit: String,
}

impl From<&Revision> for RevisionInfo {
    fn from(rev: &Revision) -> Self {
        RevisionInfo {
            name: rev.name.clone(),
            commit: rev.commit.clone(),
        }
    }
}

/// One pin the head adds or changes, judged on every target.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The pin, with file and line.
    pub pin: Pin,
    /// The base's requirement at the same place, when the head changed it (`None`: added).
    pub was: Option<String>,
    /// The worst level over the targets (`None`: it could not be judged anywhere).
    pub level: Option<RiskLevel>,
    /// The worst score over the targets.
    pub score: Option<u8>,
    /// One verdict per target.
    pub targets: Vec<TargetVerdict>,
}

impl Finding {
    /// Whether it breaks a requirement on any target.
    pub fn breaks(&self) -> bool {
        self.targets.iter().any(|t| !t.breaks.is_empty())
    }
}

/// Everything `planner review` found.
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    /// Always [`REVIEW_SCHEMA`].
    pub schema: &'static str,
    /// The base revision.
    pub base: RevisionInfo,
    /// The head revision.
    pub head: RevisionInfo,
    /// The targets judged for.
    pub targets: Vec<String>,
    /// Pins the head adds or changes, worst first.
    pub findings: Vec<Finding>,
    /// Files (or lines) of the head that could not be parsed; the rest was still reviewed.
    pub problems: Vec<ParseProblem>,
}

/// Pins of `head` that `base` does not have (same file, kind and requirement), each with the
/// base's requirement on the same name in the same file and kind when there was one.
pub fn changed_pins(base: &[Pin], head: &[Pin]) -> Vec<(Pin, Option<String>)> {
    let old: BTreeMap<_, _> = base.iter().map(|p| (p.key(), p)).collect();
    head.iter()
        .filter(|pin| !old.contains_key(&pin.key()))
        .map(|pin| {
            let was = base
                .iter()
                .find(|b| b.file == pin.file && b.kind == pin.kind && b.name() == pin.name())
                .map(|b| b.requirement.to_string());
            (pin.clone(), was)
        })
        .collect()
}

/// Review `head` against `base`.
pub fn review(
    repo: &Repo,
    base: &Revision,
    head: &Revision,
    analyzer: &mut Analyzer<'_>,
    targets: &[Target],
) -> Result<Review, GitError> {
    let old = scan::scan(repo, base)?;
    let new = scan::scan(repo, head)?;
    let mut findings: Vec<Finding> = changed_pins(&old.pins, &new.pins)
        .into_iter()
        .map(|(pin, was)| {
            let verdicts: Vec<TargetVerdict> =
                targets.iter().map(|t| analyzer.judge(&pin, t)).collect();
            let worst = verdicts
                .iter()
                .filter_map(|v| v.risk.as_ref())
                .max_by_key(|r| (r.level, r.score));
            Finding {
                level: worst.map(|r| r.level),
                score: worst.map(|r| r.score),
                pin,
                was,
                targets: verdicts,
            }
        })
        .collect();
    findings.sort_by(|a, b| {
        (b.level, b.score, b.breaks())
            .cmp(&(a.level, a.score, a.breaks()))
            .then_with(|| (&a.pin.file, a.pin.line).cmp(&(&b.pin.file, b.pin.line)))
    });
    Ok(Review {
        schema: REVIEW_SCHEMA,
        base: base.into(),
        head: head.into(),
        targets: targets.iter().map(|t| t.label().to_string()).collect(),
        findings,
        problems: new.problems,
    })
}

impl Review {
    /// Whether a finding reaches `level`.
    pub fn reaches(&self, level: RiskLevel) -> bool {
        self.findings
            .iter()
            .any(|f| f.level.is_some_and(|l| l >= level))
    }
}
