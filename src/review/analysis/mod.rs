//! Judging one pin: what it breaks or narrows, how risky forcing it is, and the safer plan.
//!
//! In: a [`Pin`] (with the requirements its file resolves with), the targets to judge it for
//! (each a synthesized interpreter, or the inventory of a real environment's snapshot), an index
//! and a risk [`Policy`]. Out: one [`TargetVerdict`] per target.
//!
//! The pin is judged exactly as `propose` would plan it: the environment the rest of the file
//! makes (its other requirements resolved against the index for the target, or the snapshot)
//! is the installed set, and the pin is the target of [`plan::propose`] with forced overrides
//! allowed. Its conflict's blockers are the requirements it breaks; the forced plan's risk is
//! what forcing costs (the plan as asked when nothing breaks); "move the blockers" (forward, or
//! failing that back) is the safer alternative. Nothing is re-implemented here: the plan stage
//! does the solving and scoring.
//!
//! Its parts: `baseline` (the installed set a pin is judged against, resolved once per target)
//! and `verdict` (what a verdict says: breaks, file evidence, the safer plan, the pin's own risk).

mod baseline;
mod verdict;

use baseline::one_line;
pub(crate) use baseline::{Baseline, NotResolved};
use verdict::{
    empty_verdict, focus, judged_from_breaks, narrows, pin_has_no_deps, safer_plan,
    with_joint_remark, without_file_evidence,
};

use std::collections::BTreeMap;
use std::sync::Arc;

use pep508_rs::Requirement;
use serde::Serialize;

use super::pins::{Pin, Role};
use crate::index::IndexSource;
use crate::inventory::{Environment, Inventory};
use crate::metadata::requirement;
use crate::plan::{self, Blocker, Plan, PlanKind, ProposeRequest, Unchecked};
use crate::risk::{Policy, RiskFactor, RiskScore};
use crate::solve::{self, SolveRequest};

/// One target a pin is judged for.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A synthesized interpreter (`--python-version` / `--python-platform`).
    Synthesized {
        /// `3.12 x86_64-manylinux_2_28`.
        label: String,
        /// Its markers and tags.
        environment: Box<Environment>,
    },
    /// The installed set of a real environment (`--from-snapshot`, or `--venv` with its files).
    Snapshot {
        /// The snapshot file or the venv.
        label: String,
        /// What is installed there.
        inventory: Box<Inventory>,
    },
}

impl Target {
    /// How the target is named in reports.
    pub(crate) fn label(&self) -> &str {
        match self {
            Target::Synthesized { label, .. } | Target::Snapshot { label, .. } => label,
        }
    }
}

/// What a pin does on one target.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetVerdict {
    /// The target's label.
    pub target: String,
    /// Installed (or resolved) requirements the pin violates.
    pub breaks: Vec<Blocker>,
    /// Requirements on the same name the pin still satisfies but narrows to one version.
    pub narrows: Vec<Blocker>,
    /// Requirements of the same environment on the pin's name that no version meets together
    /// with it (a held `==` pin of a `-r` file under a new constraint): it does not resolve.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub excludes: Vec<Held>,
    /// For a range: whether the version its environment had without it is one it rules out
    /// (it moves something); a range that moves, breaks and excludes nothing is no finding.
    #[serde(skip)]
    pub moves: bool,
    /// The risk of the plan the pin amounts to: the forced override when it breaks
    /// something, the plan as asked otherwise (`None` when it could not be judged).
    pub risk: Option<RiskScore>,
    /// The safer alternative, when one exists: move the blockers forward, or move the
    /// dependents the pin breaks along; failing both, move the blockers back ([`safer_plan`]).
    pub safer: Option<Plan>,
    /// The plan the pin makes as pinned: the forced override when it breaks something, the
    /// plan as asked otherwise (what `review --try` applies; not in the JSON: `risk` is its
    /// score, focused on the pin).
    #[serde(skip)]
    pub pinned: Option<Plan>,
    /// `review --try`: what the pinned and the safer plan measured in copies of the venv.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tried: Option<Box<super::Measured>>,
    /// Why the pin could not be judged on this target, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The note is that index data is missing (a range is then never dropped as idle).
    #[serde(skip)]
    pub missing_data: bool,
    /// The checks the pinned plan made without their data (its `unchecked`: a release's wheel
    /// files could not be read): the verdict's risk does not weigh what they would have found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unchecked: Vec<Unchecked>,
    /// The risk rests on what the pin breaks alone: no release it allows installs here, so
    /// there is no plan to score ([`judged_from_breaks`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub judged_from_breaks: bool,
    /// What the verdict rests on when that is not the whole file: the pin has no effect on this
    /// target, or it was judged against the base's pins (the head's others do not resolve).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
}

/// A requirement of the pin's environment that the pin leaves no version for, where it is
/// written.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Held {
    /// The requirement as written (re-serialized).
    pub requirement: String,
    /// The file that declares it (the environment's root until the review finds its line).
    pub file: String,
    /// Its 1-based line, when found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The environment that holds it with the pin (`requirements/test.in`).
    pub environment: String,
}

/// Another pin the head changes in the same environment, with the base's requirement on its
/// name there (`None`: the head added it).
#[derive(Debug, Clone)]
pub(crate) struct Sibling {
    /// The head's pin.
    pub pin: Pin,
    /// The base's requirement on the same name, when there was one.
    pub was: Option<Requirement>,
}

/// Judges pins against an index; the environments a file's requirements make are solved once.
pub(crate) struct Analyzer<'a> {
    /// The index.
    pub index: &'a dyn IndexSource,
    /// The risk policy.
    pub policy: &'a Policy,
    /// The request template (binary policy, pre-releases, clock).
    pub request: ProposeRequest,
    baselines: BTreeMap<(String, Vec<String>), Result<Baseline, NotResolved>>,
}

impl<'a> Analyzer<'a> {
    /// An analyzer.
    pub(crate) fn new(
        index: &'a dyn IndexSource,
        policy: &'a Policy,
        request: ProposeRequest,
    ) -> Self {
        Analyzer {
            index,
            policy,
            request,
            baselines: BTreeMap::new(),
        }
    }

    /// Judge `pin` on `target`: against the environment the rest of its file makes (the other
    /// pins applied), with the base's requirement on the same name (`was`) where there was one
    /// and it resolves there, so that the pin is judged as the move from what the base had
    /// (`werkzeug==3.1.3` -> `werkzeug==2.0.3`, not from the newest werkzeug); when that does
    /// not resolve (another new pin breaks it), against the base's pins of the file with this
    /// one applied. `siblings`: the other pins the head changes in the same environment.
    pub(crate) fn judge(
        &mut self,
        pin: &Pin,
        was: Option<&Requirement>,
        siblings: &[Sibling],
        target: &Target,
    ) -> TargetVerdict {
        let mut verdict = self.judge_moves(pin, was, siblings, target);
        let markers = match target {
            Target::Synthesized { environment, .. } => &environment.markers,
            Target::Snapshot { inventory, .. } => &inventory.environment.markers,
        };
        if pin.requirement.evaluate_markers(markers, &[]) {
            // One the base's requirement on the name excluded too is not this change's doing.
            verdict.excludes = (pin.context.excluded_by(pin).into_iter())
                .filter(|r| r.evaluate_markers(markers, &[]))
                .filter(|r| !was.is_some_and(|was| super::pins::disjoint(r, was)))
                .map(|r| Held {
                    requirement: r.to_string(),
                    file: pin.context.root.clone(),
                    line: None,
                    environment: pin.context.root.clone(),
                })
                .collect();
            // The same pin reached through two files of the chain is one requirement.
            let mut seen = std::collections::BTreeSet::new();
            verdict
                .excludes
                .retain(|h| seen.insert(h.requirement.clone()));
        }
        judged_from_breaks(verdict, pin, self.policy)
    }

    /// [`Self::judge`] without the environment's held requirements.
    fn judge_moves(
        &mut self,
        pin: &Pin,
        was: Option<&Requirement>,
        siblings: &[Sibling],
        target: &Target,
    ) -> TargetVerdict {
        // Pins one install line changes (`pip install torch==1.8.1 torchvision==0.9.1`) land
        // in one step: judged as one move from the base's versions of all of them.
        let same_line: Vec<Sibling> = (siblings.iter())
            .filter(|s| s.pin.file == pin.file && s.pin.line == pin.line)
            .cloned()
            .collect();
        if !same_line.is_empty()
            && let Some(together) = self.judge_together(pin, was, &same_line, target)
            && together.note.is_none()
        {
            return with_joint_remark(together, &same_line, "on the same install line");
        }
        let alone = self.judge_alone(pin, was, siblings, target);
        if alone.note.is_none() || siblings.is_empty() {
            return alone;
        }
        // Pins a change moves together in one environment may each be uninstallable beside the
        // other's old or free version: judged as one move.
        match self.judge_together(pin, was, siblings, target) {
            Some(together) if together.note.is_none() => {
                let why = format!(
                    "changed with it in {}; alone: {}",
                    pin.context.root,
                    alone.note.as_deref().unwrap_or_default()
                );
                with_joint_remark(together, siblings, &why)
            }
            _ => alone,
        }
    }

    /// The pin and every sibling as one move: against the base's versions of all of them (or,
    /// where those do not resolve, without them), planned as one request.
    fn judge_together(
        &mut self,
        pin: &Pin,
        was: Option<&Requirement>,
        siblings: &[Sibling],
        target: &Target,
    ) -> Option<TargetVerdict> {
        let inventory = match target {
            Target::Snapshot { inventory, .. } => Arc::new((**inventory).clone()),
            Target::Synthesized { label, environment } => {
                let mut without = pin.context.without(pin.name());
                for sibling in siblings {
                    without = without.without(sibling.pin.name());
                }
                let mut before = without.clone();
                let olds = std::iter::once((pin.role(), was))
                    .chain(siblings.iter().map(|s| (s.pin.role(), s.was.as_ref())));
                for (role, old) in olds {
                    if let Some(old) = old {
                        before = before.with(role, old.clone());
                    }
                }
                let baseline = (self.baseline(label, environment, &before))
                    .or_else(|_| self.baseline(label, environment, &without))
                    .ok()?;
                baseline.inventory.clone()
            }
        };
        let targets = std::iter::once(pin)
            .chain(siblings.iter().map(|s| &s.pin))
            .map(|p| p.requirement.clone())
            .collect();
        Some(self.plan(empty_verdict(target), pin, targets, &inventory, target))
    }

    /// Judge `pin` alone (its siblings as the head has them).
    fn judge_alone(
        &mut self,
        pin: &Pin,
        was: Option<&Requirement>,
        siblings: &[Sibling],
        target: &Target,
    ) -> TargetVerdict {
        let mut verdict = empty_verdict(target);
        let inventory = match target {
            Target::Snapshot { inventory, .. } => Arc::new((**inventory).clone()),
            Target::Synthesized { label, environment } => {
                if !pin.requirement.evaluate_markers(&environment.markers, &[]) {
                    return self.no_effect(verdict, "its marker is false on this target");
                }
                match self.baseline_for(label, environment, (pin, was), siblings) {
                    Ok((inventory, remark)) => {
                        verdict.remark = remark;
                        inventory
                    }
                    Err(note) => {
                        verdict.missing_data = note.missing.is_some();
                        verdict.note = Some(match note.missing {
                            Some(_) => note.reason,
                            None => note.to_string(),
                        });
                        return verdict;
                    }
                }
            }
        };
        verdict.moves = (inventory.get(pin.name()))
            .is_some_and(|d| !requirement::accepts(&pin.requirement, d.version()));
        if pin.role() == Role::Constraint && inventory.get(pin.name()).is_none() {
            let why = format!(
                "nothing on this target requires {}: the constraint has no effect",
                pin.name()
            );
            return self.no_effect(verdict, &why);
        }
        self.plan(
            verdict,
            pin,
            vec![pin.requirement.clone()],
            &inventory,
            target,
        )
    }

    /// Plan `targets` (the pin, and the siblings judged with it) on `inventory` as `propose
    /// --allow-override` would.
    fn plan(
        &mut self,
        mut verdict: TargetVerdict,
        pin: &Pin,
        targets: Vec<Requirement>,
        inventory: &Inventory,
        target: &Target,
    ) -> TargetVerdict {
        let request = ProposeRequest {
            targets,
            allow_override: true,
            all: false,
            layer: None,
            source: target.label().to_string(),
            ..self.request.clone()
        };
        let proposal = match plan::propose(self.index, inventory, self.policy, &request) {
            Ok(proposal) => proposal,
            Err(err) => {
                verdict.note = Some(format!("could not be planned: {err}"));
                return verdict;
            }
        };
        let find = |kind: PlanKind| proposal.plans.iter().find(|p| p.kind == kind);
        verdict.narrows = narrows(inventory, pin);
        match &proposal.conflict {
            Some(conflict) => {
                verdict.breaks = conflict.blockers.clone();
                verdict.pinned = find(PlanKind::ForcedOverride).cloned();
                verdict.risk = verdict.pinned.as_ref().map(|p| p.risk.clone());
                verdict.safer = safer_plan(&proposal.plans)
                    .or_else(|| find(PlanKind::MoveBlockers))
                    .cloned();
                if verdict.risk.is_none() {
                    verdict.note = Some(format!(
                        "{} cannot be installed here even forced: {}",
                        pin.requirement,
                        one_line(&conflict.explanation)
                    ));
                }
            }
            None => {
                let asked = find(PlanKind::Upgrade);
                verdict.pinned = asked.cloned();
                verdict.risk = asked.map(|p| p.risk.clone());
                if asked.is_some_and(Plan::predicts_break) {
                    verdict.safer = safer_plan(&proposal.plans).cloned();
                }
            }
        }
        verdict.risk = verdict
            .risk
            .map(|risk| focus(risk, pin, inventory, self.policy));
        verdict.unchecked = (verdict.pinned.as_ref())
            .map(|p| p.unchecked.clone())
            .unwrap_or_default();
        if matches!(target, Target::Synthesized { .. }) {
            verdict = without_file_evidence(verdict, self.policy);
        }
        let verdict = self.without_its_dependencies(verdict, pin, inventory);
        self.against_its_line(verdict, pin, inventory)
    }

    /// A pin of an install line is installed by one `pip install` command with the line's other
    /// requirements: where the pinned release's own metadata requires another version than an
    /// exact requirement of the line (`torch==1.8.0 torchvision==0.10.0`; torchvision 0.10.0
    /// requires `torch==1.9.0`), pip refuses the line, whatever the plan would move: a break,
    /// the pinned release its dependent, the remark naming the line's requirement and the
    /// release's in words ([`plan::said`]: without the marker that held on the target).
    fn against_its_line(
        &self,
        mut verdict: TargetVerdict,
        pin: &Pin,
        inventory: &Inventory,
    ) -> TargetVerdict {
        let exact: Vec<(&Requirement, &pep440_rs::Version)> = (pin.context.line_mates.iter())
            .filter_map(|m| Some((m, requirement::exact_version(m)?)))
            .collect();
        if exact.is_empty() || pin_has_no_deps(pin) {
            return verdict;
        }
        let Some(release) = self.pinned_release(pin, &inventory.environment) else {
            return verdict;
        };
        let markers = &inventory.environment.markers;
        let mut said = Vec::new();
        for wanted in &release.metadata.requires_dist {
            let Some((mate, version)) = exact.iter().find(|(m, _)| m.name == wanted.name) else {
                continue;
            };
            if !wanted.evaluate_markers(markers, &[]) || requirement::accepts(wanted, version) {
                continue;
            }
            said.push(format!(
                "the same install line requires {mate}; {} {} requires {}",
                pin.name(),
                release.version,
                plan::said(wanted)
            ));
            verdict.breaks.push(Blocker {
                dependent: pin.name().clone(),
                dependent_version: release.version.clone(),
                requirement: wanted.clone(),
            });
            let why = format!("the same install line requires {mate}");
            let at = (*version, why.as_str());
            self.add_unmet_factor(&mut verdict, (pin, &release.version), wanted, at);
        }
        if !said.is_empty() {
            let text = said.join("; ");
            verdict.remark = Some(match verdict.remark.take() {
                Some(remark) => format!("{text}; {remark}"),
                None => text,
            });
        }
        verdict
    }

    /// The pinned release as the solver reads it (its metadata; the plan's index reads are
    /// cached), `None` when it cannot be had.
    fn pinned_release(&self, pin: &Pin, environment: &Environment) -> Option<solve::Resolved> {
        requirement::exact_version(&pin.requirement)?;
        let request = SolveRequest {
            requirements: vec![pin.requirement.clone()],
            prerelease: self.request.prerelease,
            binary: self.request.binary.clone(),
            ..SolveRequest::default()
        };
        let resolution = solve::solve(self.index, environment, &request).ok()?;
        resolution.packages.get(pin.name()).cloned()
    }

    /// The risk of a requirement the pinned release declares and the environment does not meet
    /// (`--no-deps`): the factor of the violated clause, at the policy's weight, as for any
    /// broken requirement (the detail says it in words, [`plan::said`]); score and level
    /// recomputed.
    fn add_unmet_factor(
        &self,
        verdict: &mut TargetVerdict,
        (pin, version): (&Pin, &pep440_rs::Version),
        wanted: &Requirement,
        (installed, why): (&pep440_rs::Version, &str),
    ) {
        let Some(risk) = verdict.risk.as_mut() else {
            return;
        };
        let Some(clause) = requirement::specifiers(wanted)
            .and_then(|specs| specs.iter().find(|c| !c.contains(installed)).cloned())
        else {
            return;
        };
        let (kind, _) = crate::risk::pin_strictness(&clause, installed);
        risk.factors.insert(
            0,
            RiskFactor {
                kind,
                points: self.policy.weight(kind),
                package: wanted.name.to_string(),
                detail: format!(
                    "{} {version} requires {}; {why}: breaks `{clause}`",
                    pin.name(),
                    plan::said(wanted)
                ),
                citations: Vec::new(),
            },
        );
        let total: i32 = risk.factors.iter().map(|f| f.points).sum();
        risk.score = total.clamp(0, 100) as u8;
        risk.level = self.policy.level(risk.score);
    }

    /// A pin installed with `--no-deps` (`--no-dependencies`) moves nothing else: each
    /// requirement of the pinned release (its own metadata, under the target's markers) that the
    /// installed version of that name does not meet stays broken (xformers 0.0.28.post3 requires
    /// `torch==2.5.1`; the image keeps torch 2.1.0). Each is a break, the pinned release its
    /// dependent, and the remark names the version left, where the file declares it, and the
    /// release's requirement in words ([`plan::said`]).
    fn without_its_dependencies(
        &self,
        mut verdict: TargetVerdict,
        pin: &Pin,
        inventory: &Inventory,
    ) -> TargetVerdict {
        if !pin_has_no_deps(pin) {
            return verdict;
        }
        let environment = &inventory.environment;
        // Nothing is claimed when the pinned release's metadata cannot be had.
        let Some(release) = self.pinned_release(pin, environment) else {
            return verdict;
        };
        let mut left = Vec::new();
        for wanted in &release.metadata.requires_dist {
            let installed = inventory.get(&wanted.name);
            let Some(installed) =
                installed.filter(|_| wanted.evaluate_markers(&environment.markers, &[]))
            else {
                continue;
            };
            if requirement::accepts(wanted, installed.version()) {
                continue;
            }
            let declared = (pin.context.requirements.iter())
                .chain(&pin.context.constraints)
                .find(|r| r.name == wanted.name)
                .map_or_else(String::new, |r| format!(", as `{r}` declares"));
            left.push(format!(
                "{} {} stays{declared} ({} {} requires {})",
                wanted.name,
                installed.version(),
                pin.name(),
                release.version,
                plan::said(wanted)
            ));
            verdict.breaks.push(Blocker {
                dependent: pin.name().clone(),
                dependent_version: release.version.clone(),
                requirement: wanted.clone(),
            });
            let why = format!("--no-deps leaves {} {}", wanted.name, installed.version());
            let at = (installed.version(), why.as_str());
            self.add_unmet_factor(&mut verdict, (pin, &release.version), wanted, at);
        }
        if !left.is_empty() {
            let text = format!(
                "installed with --no-deps, which moves nothing else: {}",
                left.join("; ")
            );
            verdict.remark = Some(match verdict.remark.take() {
                Some(remark) => format!("{text}; {remark}"),
                None => text,
            });
        }
        verdict
    }

    /// Judged, with nothing to weigh: the pin changes nothing on this target.
    fn no_effect(&self, mut verdict: TargetVerdict, why: &str) -> TargetVerdict {
        verdict.risk = Some(RiskScore {
            score: 0,
            level: self.policy.level(0),
            policy: self.policy.name.clone(),
            factors: Vec::new(),
        });
        verdict.remark = Some(format!("no effect: {why}"));
        verdict
    }
}

#[cfg(test)]
mod tests;
