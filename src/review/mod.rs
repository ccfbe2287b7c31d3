//! `planner review`: the forced and pinned versions a change adds, each with what it breaks,
//! its risk and the safer plan.
//!
//! In: a git repository and two revisions, read with `git` itself ([`git`]; no checkout, nothing
//! written), and the targets to judge for. The finders ([`scan`]: [`pyproject`],
//! [`requirements`], [`lock`], [`shell`]) list every pin of each revision with file and line;
//! the pins the head adds or changes are judged by [`analysis`] through the plan stage;
//! [`links`] then adds what a reviewer opens next (the release's age, notes and compare link, a
//! permalink to the line). Out: a [`Review`], findings worst first; `render::review` prints it.

pub(crate) mod advice;
pub(crate) mod analysis;
pub(crate) mod ci;
pub(crate) mod forge;
pub(crate) mod gate;
pub(crate) mod git;
pub(crate) mod links;
pub(crate) mod lock;
pub(crate) mod pins;
pub(crate) mod poetry;
pub(crate) mod pyproject;
pub(crate) mod requirements;
pub(crate) mod scan;
pub(crate) mod shell;
pub(crate) mod vars;

use std::collections::BTreeMap;

use serde::Serialize;

use self::analysis::{Analyzer, Sibling, Target, TargetVerdict};
use self::git::{GitError, Repo, Revision};
use self::pins::{ParseProblem, Pin, PinKind};
use crate::risk::RiskLevel;
use crate::trial::{Tried, Verdict};

/// `schema` of `planner review --format json`.
pub(crate) const REVIEW_SCHEMA: &str = "planner-review/1";

/// A revision as reported.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RevisionInfo {
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
pub(crate) struct Finding {
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
    /// The same pin written elsewhere and merged into this finding (the `uv.lock` entry of a
    /// `pyproject.toml` pin).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<Pin>,
    /// The pinned release's notes, compare link and age ([`links`]), for an exact pin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<links::ReleaseLinks>,
    /// The flagged line at the head commit on the repository's web home, when it is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permalink: Option<String>,
}

impl Finding {
    /// Whether it breaks a requirement (or leaves a requirement of its environment no
    /// version) on any target.
    pub(crate) fn breaks(&self) -> bool {
        (self.targets.iter()).any(|t| !t.breaks.is_empty() || !t.excludes.is_empty())
    }

    /// A range that moves, breaks and excludes nothing on every target is no finding.
    fn is_idle_range(&self) -> bool {
        self.pin.kind == PinKind::Range
            && !self.breaks()
            && !self.targets.iter().any(|t| t.moves || t.missing_data)
    }

    /// `review --try`: the regressions its plan as pinned measured, on every target tried.
    pub(crate) fn measured_regressions(&self) -> Vec<&str> {
        self.targets
            .iter()
            .filter_map(|t| t.tried.as_ref()?.pinned.as_ref())
            .filter(|m| m.regressed())
            .flat_map(|m| m.tried.outcome.regressions.iter().map(String::as_str))
            .collect()
    }
}

/// `review --try`: the plans of one target verdict, each tried in a throw-away copy of the venv.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Measured {
    /// The plan the pin makes, as pinned (`None`: there is none to try).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned: Option<MeasuredPlan>,
    /// The safer plan (`None`: none is offered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safer: Option<MeasuredPlan>,
}

/// One plan tried.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MeasuredPlan {
    /// The plan's title.
    pub title: String,
    /// "0 regression(s) in 41 checks and 2 test(s), 12.3s", or why it was not tried.
    pub summary: String,
    /// The trial, its copy and the original's check (the whole verify report left out).
    #[serde(flatten)]
    pub tried: Tried,
}

impl MeasuredPlan {
    /// `tried` of the plan titled `title`, without the whole verify report.
    pub(crate) fn new(title: &str, mut tried: Tried) -> MeasuredPlan {
        tried.outcome.report = None;
        MeasuredPlan {
            title: title.to_string(),
            summary: tried.summary(),
            tried,
        }
    }

    /// Applied and something regressed.
    pub(crate) fn regressed(&self) -> bool {
        self.tried.outcome.verdict == Verdict::Regressed
    }
}

/// Everything `planner review` found.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Review {
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
    /// Pins of the base that the head drops.
    pub removed: Vec<Pin>,
    /// Files whose environment the head does not resolve (the gate fails on a new one).
    pub unresolved: Vec<Unresolved>,
    /// Files (or lines) of the head that could not be parsed; the rest was still reviewed.
    pub problems: Vec<ParseProblem>,
}

/// Pins of `head` that `base` does not have (same file, kind and requirement), each with the
/// base's requirement on the same name in the same file and kind when there was one.
pub(crate) fn changed_pins(base: &[Pin], head: &[Pin]) -> Vec<(Pin, Option<String>)> {
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

/// A file's environment that the head cannot resolve on a target: the gate fails on it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Unresolved {
    /// The file that declares it.
    pub file: String,
    /// The environment: the file, or the install line that names the files.
    pub environment: String,
    /// The target.
    pub target: String,
    /// Why it does not resolve (the solver's explanation, first line).
    pub reason: String,
    /// Whether the base did not resolve it either (the change did not cause it); never where
    /// the base's index data is missing (whether it resolved is unknown).
    pub at_base: bool,
    /// The index data that is missing (a page or metadata file `--offline` does not have
    /// cached, each naming its project): the head's environment is then not judged, not "does
    /// not resolve".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// The base's index data is missing: whether the base resolved is unknown.
    #[serde(skip)]
    pub base_unknown: bool,
}

/// Review `head` against `base`.
pub(crate) fn review(
    repo: &Repo,
    base: &Revision,
    head: &Revision,
    analyzer: &mut Analyzer<'_>,
    targets: &[Target],
) -> Result<Review, GitError> {
    let old = scan::scan(repo, base)?;
    let new = scan::scan(repo, head)?;
    let changed = changed_pins(&old.pins, &new.pins);
    let unresolved = unresolved(&changed, &old, analyzer, targets);
    let findings: Vec<Finding> = changed
        .iter()
        .map(|(pin, was)| {
            let siblings = siblings(pin, &changed);
            let before = parsed(was);
            let verdicts: Vec<TargetVerdict> = targets
                .iter()
                .map(|t| analyzer.judge(pin, before.as_ref(), &siblings, t))
                .collect();
            let worst = verdicts
                .iter()
                .filter_map(|v| v.risk.as_ref())
                .max_by_key(|r| (r.level, r.score));
            Finding {
                level: worst.map(|r| r.level),
                score: worst.map(|r| r.score),
                pin: pin.clone(),
                was: was.clone(),
                targets: verdicts,
                also: Vec::new(),
                release: None,
                permalink: None,
            }
        })
        .collect();
    let findings = worst_environment(findings.into_iter().filter(|f| !f.is_idle_range()));
    let mut findings = merge_lock_duplicates(cite_held(findings, &new.pins));
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
        removed: dedup_lines(removed_pins(&old.pins, &new.pins)),
        unresolved,
        problems: new.problems,
    })
}

/// Pins of `base` that `head` drops: no pin of the same file, kind and name is left (a changed
/// version is a finding with `was`, not a removal).
pub(crate) fn removed_pins(base: &[Pin], head: &[Pin]) -> Vec<Pin> {
    base.iter()
        .filter(|b| {
            !head
                .iter()
                .any(|h| h.file == b.file && h.kind == b.kind && h.name() == b.name())
        })
        .cloned()
        .collect()
}

/// One finding per line: a constraint reached from several environments (each `.in` that
/// says `-c constraints.txt`) is judged in each, and the worst verdict stands (it breaks, then
/// level and score), with a remark naming the environment it was judged in; what each
/// environment's own requirements exclude is kept, each naming its environment.
fn worst_environment(findings: impl Iterator<Item = Finding>) -> Vec<Finding> {
    let rank = |f: &Finding| (f.breaks(), f.level, f.score);
    let mut out: Vec<Finding> = Vec::new();
    for finding in findings {
        let same = out
            .iter_mut()
            .find(|f| f.pin.key() == finding.pin.key() && f.pin.line == finding.pin.line);
        match same {
            None => out.push(finding),
            Some(kept) => {
                let (mut worse, better) = if rank(&finding) > rank(kept) {
                    (finding, kept.clone())
                } else {
                    (kept.clone(), finding)
                };
                // What the other environment's own requirements exclude is said too.
                for (verdict, other) in worse.targets.iter_mut().zip(better.targets) {
                    for held in other.excludes {
                        if !verdict
                            .excludes
                            .iter()
                            .any(|h| h.requirement == held.requirement)
                        {
                            verdict.excludes.push(held);
                        }
                    }
                }
                *kept = worse;
                let why = format!(
                    "judged in the environment of {}, the worst of those that reach this line",
                    kept.pin.context.root
                );
                for verdict in &mut kept.targets {
                    if verdict.remark.as_deref().is_some_and(|r| r.contains(&why)) {
                        continue;
                    }
                    verdict.remark = Some(match verdict.remark.take() {
                        Some(remark) => format!("{why}; {remark}"),
                        None => why.clone(),
                    });
                }
            }
        }
    }
    out
}

/// Each held requirement a finding excludes, cited where the head writes it (the pin of the
/// same requirement read for the environment that holds it, or for any).
fn cite_held(mut findings: Vec<Finding>, pins: &[Pin]) -> Vec<Finding> {
    for finding in &mut findings {
        for held in finding
            .targets
            .iter_mut()
            .flat_map(|t| t.excludes.iter_mut())
        {
            let written = |p: &&Pin| p.requirement.to_string() == held.requirement;
            let found = (pins.iter().filter(written))
                .find(|p| p.context.root == held.environment)
                .or_else(|| pins.iter().find(written));
            if let Some(found) = found {
                held.file = found.file.clone();
                held.line = Some(found.line);
            }
        }
    }
    findings
}

/// Pins listed once per line (a constraint kept once per environment that reaches it).
fn dedup_lines(mut pins: Vec<Pin>) -> Vec<Pin> {
    let mut seen = std::collections::BTreeSet::new();
    pins.retain(|p| seen.insert((p.key(), p.line)));
    pins
}

/// A lock entry that repeats a changed pin of the project file beside it (same folder, same
/// requirement) is merged into that finding (`also`); the worse verdict stands.
fn merge_lock_duplicates(findings: Vec<Finding>) -> Vec<Finding> {
    let folder = |file: &str| file.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
    let is_lock = |f: &Finding| {
        matches!(
            f.pin.kind,
            PinKind::UvLock | PinKind::Pylock | PinKind::PoetryLock | PinKind::PdmLock
        )
    };
    let (locks, mut out): (Vec<Finding>, Vec<Finding>) = findings.into_iter().partition(is_lock);
    for lock in locks {
        let twin = out.iter_mut().find(|f| {
            folder(&f.pin.file) == folder(&lock.pin.file)
                && f.pin.name() == lock.pin.name()
                && same_version(&f.pin, &lock.pin)
        });
        match twin {
            Some(twin) => {
                if (lock.level, lock.score) > (twin.level, twin.score) {
                    twin.level = lock.level;
                    twin.score = lock.score;
                    twin.targets = lock.targets;
                }
                twin.also.push(lock.pin);
            }
            None => out.push(lock),
        }
    }
    out
}

/// Whether two pins name the same version (`==X`, markers aside).
fn same_version(a: &Pin, b: &Pin) -> bool {
    let version = |p: &Pin| {
        crate::metadata::requirement::specifiers(&p.requirement)
            .map(ToString::to_string)
            .unwrap_or_default()
    };
    version(a) == version(b)
}

/// The base's requirement on a changed pin's name, parsed back (it was written from its parsed
/// form by [`changed_pins`]).
fn parsed(was: &Option<String>) -> Option<pep508_rs::Requirement> {
    was.as_deref()
        .and_then(|w| crate::metadata::parse_requirement(w).ok())
}

/// The other changed pins of `pin`'s environment, each with the base's requirement on its name.
fn siblings(pin: &Pin, changed: &[(Pin, Option<String>)]) -> Vec<Sibling> {
    changed
        .iter()
        .filter(|(other, _)| other.context.root == pin.context.root && other.key() != pin.key())
        .map(|(other, was)| Sibling {
            pin: other.clone(),
            was: parsed(was),
        })
        .collect()
}

/// The solver's reason, with what the file declares on each name the reason finds no version
/// left for (`idna<none>`: a requirement and a constraint that exclude each other).
fn with_declarations(reason: &str, context: &pins::Context) -> String {
    let mut out = reason.to_string();
    let roles = [
        ("requirement", &context.requirements),
        ("constraint", &context.constraints),
        ("override", &context.overrides),
    ];
    let mut names: Vec<&pep508_rs::PackageName> = roles
        .iter()
        .flat_map(|(_, list)| list.iter().map(|r| &r.name))
        .collect();
    names.sort();
    names.dedup();
    for name in names {
        if !reason.contains(&format!("{name}<none>")) {
            continue;
        }
        let declared: Vec<String> = roles
            .iter()
            .flat_map(|(role, list)| {
                list.iter()
                    .filter(|r| &r.name == name)
                    .map(move |r| format!("{role} {r}"))
            })
            .collect();
        out.push_str(&format!(" ({name}: {})", declared.join(", ")));
    }
    out
}

/// The file of an environment's root: `Dockerfile` of `Dockerfile: pip install -r A` and of
/// `Dockerfile:3: one pip install command`.
fn declaring_file(root: &str) -> &str {
    if let Some(command) = root.strip_suffix(": one pip install command") {
        return command.rsplit_once(':').map_or(command, |(file, _)| file);
    }
    root.split(": pip install").next().unwrap_or(root)
}

/// Every environment a changed pin takes part in (and the one `pip install` command a pin of an
/// install line is on) that the head does not resolve as a whole, on each synthesized target (a
/// snapshot is a real environment, judged pin by pin).
fn unresolved(
    changed: &[(Pin, Option<String>)],
    old: &scan::Scan,
    analyzer: &mut Analyzer<'_>,
    targets: &[Target],
) -> Vec<Unresolved> {
    let mut contexts: Vec<(pins::Context, Option<pins::Context>)> = Vec::new();
    for (pin, _) in changed {
        if pin.context.resolves_whole && !contexts.iter().any(|c| c.0.root == pin.context.root) {
            let before = old.context(&pin.context.root).cloned();
            contexts.push((pin.context.clone(), before));
        }
        // The one `pip install` command a pin of an install line is on must resolve too;
        // before, the base's command on the same name in the same file.
        if let Some(command) = pins::Context::one_command(pin) {
            let before = (old.pins.iter())
                .find(|p| p.file == pin.file && p.name() == pin.name())
                .and_then(pins::Context::one_command);
            contexts.push((command, before));
        }
    }
    let mut out = Vec::new();
    for target in targets {
        let Target::Synthesized { label, environment } = target else {
            continue;
        };
        for (context, before) in &contexts {
            let Err(reason) = analyzer.resolves(label, environment, context) else {
                continue;
            };
            let was = (before.as_ref()).map(|c| analyzer.resolves(label, environment, c));
            let at_base =
                (was.as_ref()).is_some_and(|w| w.as_ref().is_err_and(|e| e.missing.is_none()));
            let base_unknown =
                (was.as_ref()).is_some_and(|w| w.as_ref().is_err_and(|e| e.missing.is_some()));
            out.push(Unresolved {
                file: declaring_file(&context.root).to_string(),
                environment: context.root.clone(),
                target: label.clone(),
                reason: with_declarations(&reason.reason, context),
                at_base: at_base && reason.missing.is_none(),
                missing: reason.missing,
                base_unknown,
            });
        }
    }
    out
}

impl Review {
    /// Pins that could not be judged on any target.
    pub(crate) fn unjudged(&self) -> usize {
        self.findings.iter().filter(|f| f.level.is_none()).count()
    }

    /// Environments not judged because their index data is missing.
    pub(crate) fn unjudged_files(&self) -> usize {
        self.unresolved
            .iter()
            .filter(|u| u.missing.is_some())
            .count()
    }

    /// Findings that leave a requirement of their own environment no version on some target.
    pub(crate) fn excluding(&self) -> usize {
        (self.findings.iter())
            .filter(|f| f.targets.iter().any(|t| !t.excludes.is_empty()))
            .count()
    }

    /// Environments the head made unresolvable (the base resolved them).
    pub(crate) fn newly_unresolved(&self) -> usize {
        (self.unresolved.iter())
            .filter(|u| !u.at_base && u.missing.is_none())
            .count()
    }

    /// Whether a finding reaches `level`.
    pub(crate) fn reaches(&self, level: RiskLevel) -> bool {
        self.findings
            .iter()
            .any(|f| f.level.is_some_and(|l| l >= level))
    }
}
