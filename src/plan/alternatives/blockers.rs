//! The blockers of a target and the plans around them.
//!
//! In: the targets and, when the request had no solution, the solver's facts. Out: the
//! installed requirements that exclude every acceptable version of a target ([`Blocker`]s), the
//! plan that moves them forward (else back), and under `--allow-override` the plan that forces
//! the target over them, edge-scoped.

use std::collections::BTreeSet;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::{ProposeError, Proposer, join};
use crate::metadata::requirement::specifiers;
use crate::plan::planned::{PlannedEnvironment, applies_with};
use crate::plan::proposal::{Blocker, Plan, PlanKind};
use crate::risk::requirement_text;
use crate::solve::{self, FactPackage, Override, SolveError};

impl Proposer<'_> {
    /// Installed requirements that exclude every acceptable version of a target.
    pub(super) fn blockers(
        &self,
        targets: &[Requirement],
        no_solution: Option<&solve::NoSolution>,
    ) -> Result<Vec<Blocker>, ProposeError> {
        let markers = &self.inventory.environment.markers;
        let from_facts: BTreeSet<(PackageName, PackageName)> = no_solution
            .map(|n| n.facts.as_slice())
            .unwrap_or_default()
            .iter()
            .filter_map(|fact| match fact {
                solve::Fact::Requires {
                    dependent: FactPackage::Dist { name, .. },
                    dependency: FactPackage::Dist { name: dep, .. },
                    ..
                } => Some((name.clone(), dep.clone())),
                _ => None,
            })
            .collect();
        let mut blockers = BTreeSet::new();
        for target in targets {
            let acceptable = self.acceptable_versions(target)?;
            for dist in &self.inventory.dists {
                for requirement in &dist.metadata.requires_dist {
                    if requirement.name != target.name || !applies_with(requirement, markers, &[]) {
                        continue;
                    }
                    let Some(spec) = specifiers(requirement) else {
                        continue;
                    };
                    let excludes_all = !acceptable.iter().any(|v| spec.contains(v));
                    let named = from_facts.contains(&(dist.name().clone(), target.name.clone()));
                    if excludes_all && (named || !acceptable.is_empty()) {
                        blockers.insert(Blocker {
                            dependent: dist.name().clone(),
                            dependent_version: dist.version().clone(),
                            requirement: requirement.clone(),
                        });
                    }
                }
            }
        }
        Ok(blockers.into_iter().collect())
    }

    /// Versions on the index (usable for this environment) that satisfy a target.
    fn acceptable_versions(&self, target: &Requirement) -> Result<Vec<Version>, ProposeError> {
        let Some(project) = self.evidence.catalog.project(&target.name)? else {
            return Ok(vec![]);
        };
        let spec = specifiers(target);
        Ok(self
            .evidence
            .catalog
            .usable_versions(&project)
            .iter()
            .filter(|v| spec.is_none_or(|s| s.contains(v)))
            .cloned()
            .collect())
    }

    /// Move the blockers forward: every index-managed installed dist stays at or above its
    /// installed version. Only when no forward move exists, the blockers may go back (a
    /// [`PlanKind::DowngradeBlockers`] plan, scored with its real costs).
    pub(super) fn move_blockers(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
    ) -> Result<Option<Plan>, ProposeError> {
        if blockers.is_empty() {
            return Ok(None);
        }
        let forward = self.move_blockers_within(targets, upgrade, blockers, true)?;
        if forward.is_some() {
            return Ok(forward);
        }
        self.move_blockers_within(targets, upgrade, blockers, false)
    }

    /// One move-the-blockers search: the blockers (and, a few rounds at most, the dists each
    /// failure involves) are upgraded; `forward` keeps everything installed at or above its
    /// installed version.
    pub(super) fn move_blockers_within(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
        forward: bool,
    ) -> Result<Option<Plan>, ProposeError> {
        let floors = if forward {
            self.floors(targets)
        } else {
            Vec::new()
        };
        let mut moving = upgrade.clone();
        moving.extend(blockers.iter().map(|b| b.dependent.clone()));
        for _round in 0..4 {
            match self.solve_with(targets, &moving, vec![], floors.clone()) {
                Ok(resolution) => {
                    let planned = self.planned(&resolution);
                    let kind = if forward {
                        PlanKind::MoveBlockers
                    } else {
                        PlanKind::DowngradeBlockers
                    };
                    return self.blockers_plan(kind, targets, blockers, &planned);
                }
                Err(SolveError::NoSolution(no_solution)) => {
                    let before = moving.len();
                    moving.extend(
                        no_solution
                            .involved
                            .iter()
                            .filter(|name| {
                                self.inventory
                                    .get(name)
                                    .is_some_and(|dist| !dist.is_unmanaged())
                            })
                            .cloned(),
                    );
                    if moving.len() == before {
                        return Ok(None);
                    }
                }
                Err(err) => return Err(err.into()),
            }
        }
        Ok(None)
    }

    /// The plan of a blockers search that solved: `None` when no blocker moved.
    fn blockers_plan(
        &self,
        kind: PlanKind,
        targets: &[Requirement],
        blockers: &[Blocker],
        planned: &PlannedEnvironment,
    ) -> Result<Option<Plan>, ProposeError> {
        let moved: Vec<String> = blockers
            .iter()
            .filter_map(|b| {
                let to = planned.dists.get(&b.dependent)?;
                (to.version != b.dependent_version)
                    .then(|| format!("{} {} -> {}", b.dependent, b.dependent_version, to.version))
            })
            .collect();
        if moved.is_empty() {
            return Ok(None);
        }
        let unblocked: Vec<(Blocker, Requirement)> = blockers
            .iter()
            .filter_map(|b| {
                targets
                    .iter()
                    .find(|t| t.name == b.requirement.name)
                    .map(|t| (b.clone(), t.clone()))
            })
            .collect();
        let verb = match kind {
            PlanKind::DowngradeBlockers => "Downgrade",
            _ => "Move",
        };
        let title = format!(
            "{verb} the blocker{}: {}",
            if moved.len() == 1 { "" } else { "s" },
            moved.join(", ")
        );
        self.plan(kind, title, targets, planned, &unblocked)
            .map(Some)
    }

    pub(super) fn forced(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
    ) -> Result<Option<Plan>, ProposeError> {
        let overrides: Vec<Override> = targets
            .iter()
            .filter_map(|target| {
                let from: BTreeSet<PackageName> = blockers
                    .iter()
                    .filter(|b| b.requirement.name == target.name)
                    .map(|b| b.dependent.clone())
                    .collect();
                (!from.is_empty()).then(|| Override {
                    requirement: target.clone(),
                    only_from: Some(from),
                })
            })
            .collect();
        if overrides.is_empty() {
            return Ok(None);
        }
        let resolution = match self.solve(targets, upgrade, overrides) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let planned = self.planned(&resolution);
        if planned.overridden.is_empty() {
            // Nothing had to be forced: an honest plan says the same without the override.
            return Ok(None);
        }
        let title = format!(
            "Force {} over {}",
            join(targets),
            planned
                .overridden
                .iter()
                .filter_map(|edge| {
                    let (dependent, version) = edge.dependent.dist()?;
                    Some(format!(
                        "{dependent} {version}'s `{}`",
                        requirement_text(&edge.original)
                    ))
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        self.plan(PlanKind::ForcedOverride, title, targets, &planned, &[])
            .map(Some)
    }
}
