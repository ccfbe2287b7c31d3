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

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};
use serde::Serialize;

use super::pins::{Context, Pin, Role};
use crate::index::IndexSource;
use crate::inventory::{DistFormat, Environment, InstalledDist, Inventory};
use crate::metadata::{CoreMetadata, requirement};
use crate::plan::{self, Blocker, Plan, PlanKind, ProposeRequest};
use crate::risk::{FactorKind, Policy, RiskFactor, RiskScore};
use crate::solve::{self, Override, SolveRequest, Via};

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
    /// the pinned release its dependent, the remark naming the line's requirement.
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
                "the same install line requires {mate}; {} {} requires {wanted}",
                pin.name(),
                release.version
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
    /// broken requirement; score and level recomputed.
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
                    "{} {version} requires {wanted}; {why}: breaks `{clause}`",
                    pin.name()
                ),
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
    /// dependent, and the remark names the version left and where the file declares it.
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
                "{} {} stays{declared} ({} {} requires {wanted})",
                wanted.name,
                installed.version(),
                pin.name(),
                release.version
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

    /// The installed set the pin is judged against, with a remark when it is not the head's
    /// file without the pin.
    fn baseline_for(
        &mut self,
        label: &str,
        environment: &Environment,
        (pin, was): (&Pin, Option<&Requirement>),
        siblings: &[Sibling],
    ) -> Result<(Arc<Inventory>, Option<String>), NotResolved> {
        let head = pin.context.without_pin(pin);
        if let Some(was) = was {
            let before = head.clone().with(pin.role(), was.clone());
            if let Ok(baseline) = self.baseline(label, environment, &before) {
                return Ok((baseline.inventory.clone(), baseline.remark()));
            }
        }
        let err = match self.baseline(label, environment, &head) {
            Ok(baseline) => return Ok((baseline.inventory.clone(), baseline.remark())),
            Err(err) => err,
        };
        if siblings.is_empty() {
            return Err(err);
        }
        let mut base = head;
        for sibling in siblings {
            base = base.without(sibling.pin.name());
            if let Some(was) = &sibling.was {
                base = base.with(sibling.pin.role(), was.clone());
            }
        }
        let baseline = self
            .baseline(label, environment, &base)
            .map_err(|_| err.clone())?;
        let mut remark = format!(
            "judged against the base's pins of {} with this one applied (with all the head's pins it does not resolve: {})",
            pin.context.root, err.reason
        );
        if let Some(skipped) = baseline.remark() {
            remark = format!("{remark}; {skipped}");
        }
        Ok((baseline.inventory.clone(), Some(remark)))
    }

    /// Whether `context` resolves on this target as a whole (`Err`: why not).
    pub(crate) fn resolves(
        &mut self,
        label: &str,
        environment: &Environment,
        context: &Context,
    ) -> Result<(), NotResolved> {
        self.baseline(label, environment, context).map(|_| ())
    }

    /// The environment `context` makes on this target (cached per environment).
    fn baseline(
        &mut self,
        label: &str,
        environment: &Environment,
        context: &Context,
    ) -> Result<Baseline, NotResolved> {
        let entry = (label.to_string(), context.key());
        if let Some(found) = self.baselines.get(&entry) {
            return found.clone();
        }
        let made = resolve_baseline(self.index, environment, context, &self.request);
        self.baselines.insert(entry, made.clone());
        made
    }
}

/// Risk factors whose evidence is an environment's own files: which modules installed files
/// import, which modules each dist ships, which compiled extensions use a C API.
const FILE_EVIDENCE: [FactorKind; 4] = [
    FactorKind::ImportTargetMissing,
    FactorKind::PlannedImportMissing,
    FactorKind::ModuleClash,
    FactorKind::AbiBreak,
];

/// A verdict with no plan to score (no release the pin allows installs on the target, so there
/// is no forced override to measure) that still names what the pin breaks or leaves no version
/// is judged from those: one factor per broken requirement, at the policy's weight for the
/// strictest clause of it the pin's versions all fall outside. The note becomes a remark that
/// says the level rests on the breaks alone.
fn judged_from_breaks(mut verdict: TargetVerdict, pin: &Pin, policy: &Policy) -> TargetVerdict {
    if verdict.risk.is_some() || (verdict.breaks.is_empty() && verdict.excludes.is_empty()) {
        return verdict;
    }
    let mut factors: Vec<RiskFactor> = Vec::new();
    let mut add = |broken: &Requirement, what: String| {
        let (kind, clause) = broken_clause(broken, &pin.requirement, policy);
        let breaks = clause.map_or_else(String::new, |c| format!(": breaks `{c}`"));
        factors.push(RiskFactor {
            kind,
            points: policy.weight(kind),
            package: pin.name().to_string(),
            detail: format!("{what}, and {} allows none of it{breaks}", pin.requirement),
        });
    };
    for b in &verdict.breaks {
        let what = format!(
            "{} {} requires {}",
            b.dependent, b.dependent_version, b.requirement
        );
        add(&b.requirement, what);
    }
    for held in &verdict.excludes {
        if let Ok(r) = crate::metadata::parse_requirement(&held.requirement) {
            add(
                &r,
                format!("{} holds {}", held.environment, held.requirement),
            );
        }
    }
    let total: i32 = factors.iter().map(|f| f.points).sum();
    let score = total.clamp(0, 100) as u8;
    verdict.risk = Some(RiskScore {
        score,
        level: policy.level(score),
        policy: policy.name.clone(),
        factors,
    });
    verdict.judged_from_breaks = true;
    let why = verdict.note.take().unwrap_or_default();
    let text = format!("judged from what it breaks alone: no plan could be scored ({why})",);
    verdict.remark = Some(match verdict.remark.take() {
        Some(remark) => format!("{text}; {remark}"),
        None => text,
    });
    verdict
}

/// The kind and text of the strictest clause (the policy weighs it most, as for any broken edge) of
/// `broken` that no version `pin` allows meets (of all its clauses where each alone overlaps
/// the pin: they only conflict together).
fn broken_clause(
    broken: &Requirement,
    pin: &Requirement,
    policy: &Policy,
) -> (FactorKind, Option<String>) {
    use crate::solve::ranges::{specifier_to_ranges, specifiers_to_ranges};
    let allowed = requirement::specifiers(pin).map(specifiers_to_ranges);
    let clauses: Vec<&pep440_rs::VersionSpecifier> = requirement::specifiers(broken)
        .map(|s| s.iter().collect())
        .unwrap_or_default();
    let outside: Vec<&pep440_rs::VersionSpecifier> = (clauses.iter().copied())
        .filter(|c| {
            allowed
                .as_ref()
                .is_some_and(|a| a.intersection(&specifier_to_ranges(c)).is_empty())
        })
        .collect();
    let pool = if outside.is_empty() { clauses } else { outside };
    pool.into_iter()
        .map(|c| {
            (
                crate::risk::pin_strictness(c, c.version()).0,
                Some(c.to_string()),
            )
        })
        .max_by_key(|(kind, _)| policy.weight(*kind))
        .unwrap_or((FactorKind::PinExact, None))
}

/// On a synthesized target (no `--venv`) there are no installed files: factors that rest on them
/// are dropped (a resolution knows no dist's modules, so every import would look missing), the
/// score and level recomputed, and the remark says which evidence was not available.
fn without_file_evidence(mut verdict: TargetVerdict, policy: &Policy) -> TargetVerdict {
    let Some(risk) = verdict.risk.as_mut() else {
        return verdict;
    };
    let mut dropped: Vec<&str> = Vec::new();
    risk.factors.retain(|factor| {
        let needs_files = FILE_EVIDENCE.contains(&factor.kind);
        if needs_files && !dropped.contains(&factor.kind.key()) {
            dropped.push(factor.kind.key());
        }
        !needs_files
    });
    if dropped.is_empty() {
        return verdict;
    }
    let total: i32 = risk.factors.iter().map(|f| f.points).sum();
    risk.score = total.clamp(0, 100) as u8;
    risk.level = policy.level(risk.score);
    let text = format!(
        "not weighed: {} (that evidence is read from an environment's installed files, not available without --venv)",
        dropped.join(", ")
    );
    verdict.remark = Some(match verdict.remark.take() {
        Some(remark) => format!("{remark}; {text}"),
        None => text,
    });
    verdict
}

/// Whether the pin's install line says `--no-deps` (`--no-dependencies`).
fn pin_has_no_deps(pin: &Pin) -> bool {
    (pin.flags.iter()).any(|f| f == "--no-deps" || f == "--no-dependencies")
}

/// `judged together with torchvision==0.9.1 (why)`, before any remark the verdict has.
fn with_joint_remark(mut verdict: TargetVerdict, siblings: &[Sibling], why: &str) -> TargetVerdict {
    let others: Vec<String> = (siblings.iter())
        .map(|s| s.pin.requirement.to_string())
        .collect();
    let joint = format!("judged together with {} ({why})", others.join(", "));
    verdict.remark = Some(match verdict.remark.take() {
        Some(remark) => format!("{joint}; {remark}"),
        None => joint,
    });
    verdict
}

/// A verdict with nothing found yet.
fn empty_verdict(target: &Target) -> TargetVerdict {
    TargetVerdict {
        target: target.label().to_string(),
        breaks: Vec::new(),
        narrows: Vec::new(),
        excludes: Vec::new(),
        moves: false,
        risk: None,
        safer: None,
        pinned: None,
        tried: None,
        note: None,
        missing_data: false,
        judged_from_breaks: false,
        remark: None,
    }
}

/// The plan that delivers the pin without forcing and without a predicted break (its own
/// evidence, [`Plan::predicts_break`]), in this order:
///
/// 1. a forward plan: the first, in the proposal's ranking, that moves the blockers forward
///    ([`PlanKind::MoveBlockers`]) or moves the dependents the pin breaks along
///    ([`PlanKind::MoveDependents`]);
/// 2. failing that, the plan that moves the blockers back to releases that accept the pin
///    ([`PlanKind::DowngradeBlockers`], which the proposal makes only when no forward move
///    exists: a pin back, `werkzeug==2.0.3` under flask 3.1, takes flask back to 2.1.3). Its
///    risk carries the `downgrade` factor of each dist it takes back.
fn safer_plan(plans: &[Plan]) -> Option<&Plan> {
    let fitting = |kinds: &[PlanKind]| {
        plans
            .iter()
            .find(|plan| kinds.contains(&plan.kind) && !plan.predicts_break())
    };
    fitting(&[PlanKind::MoveBlockers, PlanKind::MoveDependents])
        .or_else(|| fitting(&[PlanKind::DowngradeBlockers]))
}

/// Why the environment a file's requirements make cannot be had on a target.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the file's other requirements do not resolve for this target: {reason}")]
pub(crate) struct NotResolved {
    /// The solver's explanation, on one line.
    pub reason: String,
    /// The index data that could not be read (a page or metadata file the cache lacks under
    /// `--offline`, an index that failed), each naming its project: whether it resolves is then
    /// unknown, not "no".
    pub missing: Option<String>,
}

/// The solver's explanation on one line: its lines joined (a derivation's first line alone
/// names what is required, not what it conflicts with), the rest counted past a few.
fn one_line(text: &str) -> String {
    const SHOWN: usize = 4;
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let mut joined = lines[..lines.len().min(SHOWN)].join(" ");
    if lines.len() > SHOWN {
        let more = lines.len() - SHOWN;
        joined.push_str(&format!(
            " ... ({more} more lines: `planner resolve` shows them)"
        ));
    }
    joined
}

/// The environment a file's requirements make on a target, and the releases in it whose
/// dependencies cannot be read without a build.
#[derive(Debug, Clone)]
pub(crate) struct Baseline {
    /// What `pip install` of the file would leave behind. A release whose metadata cannot be
    /// read is in it, at the version the solver chose, with no requirements of its own (what
    /// requires it is satisfied, what it requires is unknown); where no one version was chosen
    /// it is left out.
    pub inventory: Arc<Inventory>,
    /// `pypika 0.48.9 (why its metadata cannot be read)`, each such release.
    pub skipped: Vec<String>,
}

impl Baseline {
    /// What the verdict rests on when some releases' requirements are unknown.
    fn remark(&self) -> Option<String> {
        (!self.skipped.is_empty()).then(|| {
            format!(
                "judged with {} taken as they are, without their own requirements: what each of these requires is not checked (their metadata cannot be read without a build, which review never runs); the rest of the environment is judged",
                self.skipped.join(", ")
            )
        })
    }
}

/// Resolve `context` for `environment`; a root requirement whose release cannot be read
/// without a build (an sdist with dynamic or pre-2.2 metadata, no PEP 658 file) is left out and
/// named, and the rest resolved again, so one such dependency never leaves the whole file
/// unjudged. A project whose index data is missing is left out the same way, so that a conflict
/// among the rest is still found (leaving requirements out never removes one); where the rest
/// resolves, the answer is `Err` with [`NotResolved::missing`]: not judged, never "resolves".
fn resolve_baseline(
    index: &dyn IndexSource,
    environment: &Environment,
    context: &Context,
    template: &ProposeRequest,
) -> Result<Baseline, NotResolved> {
    let roots: Vec<PackageName> = (context.requirements.iter())
        .map(|r| r.name.clone())
        .collect();
    let mut context = context.clone();
    let (mut skipped, mut missing) = (Vec::new(), Vec::new());
    let mut unknown = Vec::new();
    loop {
        match resolve_inventory(index, environment, &context, template) {
            Ok(_) if !missing.is_empty() => return Err(missing_data(&missing)),
            Ok(mut inventory) => {
                for (name, version) in unknown {
                    let requested = roots.contains(&name);
                    inventory
                        .dists
                        .push(without_requirements(name, version, requested));
                }
                let inventory = Arc::new(inventory);
                return Ok(Baseline { inventory, skipped });
            }
            Err((err, left_out)) => {
                let Some(left_out) =
                    left_out.filter(|_| skipped.len() + missing.len() < MAX_SKIPPED)
                else {
                    // Leaving out projects only takes requirements away: a conflict without
                    // them is one with them too, but a failure to read the index is not an
                    // answer.
                    if missing.is_empty() || err.missing.is_none() {
                        return Err(err);
                    }
                    missing.extend(err.missing);
                    return Err(missing_data(&missing));
                };
                let (name, version, why) = match left_out {
                    LeftOut::Unreadable(unreadable) => unreadable,
                    LeftOut::Missing(name, why) => {
                        missing.push(format!("{name} ({why})"));
                        (name, None, String::new())
                    }
                };
                let written = match &version {
                    Some(version) => format!("{name} {version}"),
                    None => (context.requirements.iter())
                        .find(|r| r.name == name)
                        .map_or_else(|| name.to_string(), ToString::to_string),
                };
                if !why.is_empty() {
                    skipped.push(format!("{written} ({why})"));
                }
                if let Some(version) = version {
                    unknown.push((name.clone(), version));
                }
                // Left out wherever it is required: an override whose marker is never true.
                let Ok(never) =
                    crate::metadata::parse_requirement(&format!("{name} ; python_version < '0'"))
                else {
                    return Err(err);
                };
                context = context.without(&name).with(Role::Override, never);
            }
        }
    }
}

/// A package whose metadata cannot be read without a build, the one version the solver chose
/// where it chose one, and why.
type Unreadable = (PackageName, Option<Version>, String);

/// What a failed solve rests on that can be left out and the rest resolved again.
enum LeftOut {
    /// Metadata that cannot be read without a build.
    Unreadable(Unreadable),
    /// A project whose page or metadata the index did not give (not cached under `--offline`,
    /// an index that failed), and why.
    Missing(PackageName, String),
}

/// The environment cannot be judged: the index data named is missing.
fn missing_data(missing: &[String]) -> NotResolved {
    let missing = missing.join(", ");
    NotResolved {
        reason: format!("the index data of {missing} is missing"),
        missing: Some(missing),
    }
}

/// A release in a resolved environment whose metadata could not be read: its name and version,
/// no requirements.
fn without_requirements(name: PackageName, version: Version, requested: bool) -> InstalledDist {
    InstalledDist {
        metadata: CoreMetadata {
            metadata_version: String::new(),
            display_name: name.to_string(),
            version: version.clone(),
            requires_dist: Vec::new(),
            requires_python: None,
            provides_extra: Vec::new(),
            dynamic: Vec::new(),
            summary: None,
            project_urls: Vec::new(),
            name: name.clone(),
        },
        installer: None,
        requested,
        direct_url: None,
        top_level: Vec::new(),
        path: PathBuf::from(format!("<resolved {name}=={version}, its metadata unread>")),
        format: DistFormat::Snapshot,
        files: None,
    }
}

/// Requirements left out of one environment at most before it is called unresolved.
const MAX_SKIPPED: usize = 8;

/// The first package whose metadata the solver could not read, from a failed solve's facts.
fn unreadable_metadata(err: &solve::SolveError) -> Option<Unreadable> {
    let solve::SolveError::NoSolution(no_solution) = err else {
        return None;
    };
    no_solution.facts.iter().find_map(|fact| match fact {
        solve::Fact::Unavailable {
            package: solve::FactPackage::Dist { name, .. },
            reason:
                reason @ (solve::Unavailable::Metadata { .. } | solve::Unavailable::DynamicMetadata),
            range,
        } => Some((
            name.clone(),
            range.as_singleton().cloned(),
            reason.to_string(),
        )),
        _ => None,
    })
}

/// Resolve `context` and turn the resolution into an installed set whose metadata the
/// resolution carries; on failure, the reason and the unreadable package it rests on, if any.
fn resolve_inventory(
    index: &dyn IndexSource,
    environment: &Environment,
    context: &Context,
    template: &ProposeRequest,
) -> Result<Inventory, (NotResolved, Option<LeftOut>)> {
    let request = SolveRequest {
        requirements: context.requirements.clone(),
        constraints: context.constraints.clone(),
        overrides: context
            .overrides
            .iter()
            .map(|requirement| Override {
                requirement: requirement.clone(),
                only_from: None,
            })
            .collect(),
        prerelease: template.prerelease,
        binary: template.binary.clone(),
        ..SolveRequest::default()
    };
    let resolution = solve::solve(index, environment, &request).map_err(|err| {
        let reason = one_line(&err.to_string());
        let (missing, left_out) = match &err {
            solve::SolveError::Index {
                package, source, ..
            } => {
                let why = one_line(&source.to_string());
                let left_out = LeftOut::Missing(package.clone(), why.clone());
                (Some(format!("{package} ({why})")), Some(left_out))
            }
            _ => (None, unreadable_metadata(&err).map(LeftOut::Unreadable)),
        };
        (NotResolved { reason, missing }, left_out)
    })?;
    // The resolution carries each chosen release's metadata: no index IO here.
    let dists = resolution
        .packages
        .iter()
        .map(|(name, resolved)| InstalledDist {
            metadata: (*resolved.metadata).clone(),
            installer: None,
            requested: resolved.via.contains(&Via::Root),
            direct_url: None,
            top_level: Vec::new(),
            path: PathBuf::from(format!("<resolved {name}=={}>", resolved.version)),
            format: DistFormat::Snapshot,
            files: None,
        })
        .collect();
    Ok(Inventory {
        environment: environment.clone(),
        dists,
        unreadable: Vec::new(),
    })
}

/// The plan's risk, counting only the pin and what it forces: factors about packages the file
/// had already forced out of their dependents' ranges (an override's repair, which the pin does
/// not cause) and the release age of packages the plan newly installs besides the pin (its
/// transitive dependencies, which a plain install takes as the index has them) are dropped, and
/// the score and level recomputed under the same policy.
fn focus(mut risk: RiskScore, pin: &Pin, inventory: &Inventory, policy: &Policy) -> RiskScore {
    let forced_before = violated(inventory);
    let pinned = pin.name().to_string();
    risk.factors.retain(|factor| {
        if factor.package == pinned {
            return true;
        }
        let name = factor.package.as_str();
        let installed = inventory.dists.iter().any(|d| d.name().as_ref() == name);
        let repair = forced_before.iter().any(|n| n.as_ref() == name);
        let young_dependency = !installed && factor.kind == FactorKind::YoungRelease;
        !(repair || young_dependency)
    });
    let total: i32 = risk.factors.iter().map(|f| f.points).sum();
    risk.score = total.clamp(0, 100) as u8;
    risk.level = policy.level(risk.score);
    risk
}

/// Installed packages whose version some installed dependent's requirement excludes.
fn violated(inventory: &Inventory) -> Vec<PackageName> {
    let markers = &inventory.environment.markers;
    let mut out = Vec::new();
    for dist in &inventory.dists {
        for requirement in &dist.metadata.requires_dist {
            if !requirement.evaluate_markers(markers, &[]) {
                continue;
            }
            let Some(specifiers) = inventory
                .get(&requirement.name)
                .and_then(|_| requirement::specifiers(requirement))
            else {
                continue;
            };
            let version = inventory
                .get(&requirement.name)
                .map(|d| d.version().clone());
            if version.is_some_and(|v| !specifiers.contains(&v)) && !out.contains(&requirement.name)
            {
                out.push(requirement.name.clone());
            }
        }
    }
    out
}

/// Requirements on the pinned name that accept the pinned version (exact pins only).
fn narrows(inventory: &Inventory, pin: &Pin) -> Vec<Blocker> {
    let Some(version) = requirement::exact_version(&pin.requirement).cloned() else {
        return Vec::new();
    };
    let markers = &inventory.environment.markers;
    let mut out = Vec::new();
    for dist in &inventory.dists {
        for requirement in &dist.metadata.requires_dist {
            if requirement.name != pin.requirement.name
                || !requirement.evaluate_markers(markers, &[])
            {
                continue;
            }
            if requirement::accepts(requirement, &version) {
                out.push(Blocker {
                    dependent: dist.name().clone(),
                    dependent_version: dist.version().clone(),
                    requirement: requirement.clone(),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn factor(kind: FactorKind, points: i32) -> RiskFactor {
        RiskFactor {
            kind,
            points,
            package: "triton".to_string(),
            detail: String::new(),
        }
    }

    /// Factors whose evidence is installed files are not weighed on a synthesized target; the
    /// score and level are recomputed and the remark says which evidence was missing.
    #[test]
    fn file_evidence_is_dropped_without_a_venv() {
        let policy = Policy::builtin();
        let mut verdict = empty_verdict(&Target::Synthesized {
            label: "3.12".to_string(),
            environment: Box::new(
                Environment::synthesize("3.12", Some("x86_64-manylinux_2_28")).unwrap(),
            ),
        });
        verdict.risk = Some(RiskScore {
            score: 46,
            level: policy.level(46),
            policy: policy.name.clone(),
            factors: vec![
                factor(FactorKind::PlannedImportMissing, 30),
                factor(FactorKind::Downgrade, 6),
                factor(FactorKind::ImportTargetMissing, 10),
            ],
        });
        let verdict = without_file_evidence(verdict, &policy);
        let risk = verdict.risk.unwrap();
        assert_eq!(risk.score, 6);
        assert_eq!(risk.level, policy.level(6));
        assert_eq!(risk.factors.len(), 1);
        assert_eq!(
            verdict.remark.as_deref(),
            Some(
                "not weighed: planned-import-missing, import-target-missing (that evidence is read from an environment's installed files, not available without --venv)"
            )
        );
    }
}
