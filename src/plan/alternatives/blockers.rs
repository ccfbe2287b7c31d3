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
    pub(super) fn acceptable_versions(
        &self,
        target: &Requirement,
    ) -> Result<Vec<Version>, ProposeError> {
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
    /// [`PlanKind::DowngradeBlockers`] plan, scored with its real costs). `implied`: what the
    /// targets' imports need (`markupsafe<2.1.0`, see `wheel_only`), solved with but not the
    /// request's (the plan is built and scored with `targets`). With the planned environment of
    /// the plan found.
    pub(super) fn move_blockers_planned(
        &self,
        targets: &[Requirement],
        implied: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
    ) -> Result<Option<(Plan, PlannedEnvironment)>, ProposeError> {
        if blockers.is_empty() {
            return Ok(None);
        }
        let forward = self.blockers_search(targets, implied, upgrade, blockers, true)?;
        if forward.is_some() {
            return Ok(forward);
        }
        self.blockers_search(targets, implied, upgrade, blockers, false)
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
        Ok(self
            .blockers_search(targets, &[], upgrade, blockers, forward)?
            .map(|(plan, _)| plan))
    }

    /// [`Self::move_blockers_within`] solved with `implied` too, with the planned environment
    /// of the plan found.
    fn blockers_search(
        &self,
        targets: &[Requirement],
        implied: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        blockers: &[Blocker],
        forward: bool,
    ) -> Result<Option<(Plan, PlannedEnvironment)>, ProposeError> {
        let mut solved = targets.to_vec();
        solved.extend(implied.iter().cloned());
        let floors = if forward {
            self.floors(&solved)
        } else {
            Vec::new()
        };
        let mut moving = upgrade.clone();
        moving.extend(blockers.iter().map(|b| b.dependent.clone()));
        let Some(resolution) = self.solve_widening(&solved, moving, &floors)? else {
            return Ok(None);
        };
        let planned = self.planned(&resolution);
        let kind = if forward {
            PlanKind::MoveBlockers
        } else {
            PlanKind::DowngradeBlockers
        };
        Ok(self
            .blockers_plan(kind, targets, blockers, &planned)?
            .map(|plan| (plan, planned)))
    }

    /// The plan of a blockers search that solved: `None` when no blocker moved. Its kind and
    /// title come from the versions: a search that let dists go back but moved every blocker up
    /// is a [`PlanKind::MoveBlockers`] plan (tf-keras 2.20.1 -> 2.21.0 is no downgrade), titled
    /// with the other dists it takes back.
    fn blockers_plan(
        &self,
        kind: PlanKind,
        targets: &[Requirement],
        blockers: &[Blocker],
        planned: &PlannedEnvironment,
    ) -> Result<Option<Plan>, ProposeError> {
        // A held-back bare target's own newest release "blocks" it through what it requires
        // (`torch 2.15.0 requires cuda-toolkit==13.2.2`): there, what moves is the required
        // dist; elsewhere the installed dependent whose requirement excluded the target.
        let names: BTreeSet<&PackageName> = blockers
            .iter()
            .map(|b| {
                if targets.iter().any(|t| t.name == b.dependent) {
                    &b.requirement.name
                } else {
                    &b.dependent
                }
            })
            .collect();
        let moved = self.moves(planned, |name| names.contains(name));
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
        let blocker_back = moved.iter().any(|m| m.to < m.from);
        let kind = if kind == PlanKind::DowngradeBlockers && !blocker_back {
            PlanKind::MoveBlockers
        } else {
            kind
        };
        let mut title = self.blockers_title(targets, blockers, &moved, planned, blocker_back);
        let back: Vec<Move> = self
            .moves(planned, |name| {
                !names.contains(name) && !targets.iter().any(|t| &t.name == name)
            })
            .into_iter()
            .filter(|m| m.to < m.from)
            .collect();
        if !back.is_empty() {
            title.push_str(&format!(", taking back {}", join_moves(&back)));
        }
        self.plan(kind, title, targets, planned, &unblocked)
            .map(Some)
    }

    /// "Move the blockers: ..." naming the dependents moved; when a target's own newer release
    /// is what needs them (`torch 2.15.0 requires triton~=3.9.0`), they block nothing
    /// installed: the title names the target's move first, then what its release requires.
    fn blockers_title(
        &self,
        targets: &[Requirement],
        blockers: &[Blocker],
        moved: &[Move],
        planned: &PlannedEnvironment,
        blocker_back: bool,
    ) -> String {
        let verb = if blocker_back { "Downgrade" } else { "Move" };
        let own_release = blockers
            .iter()
            .any(|b| targets.iter().any(|t| t.name == b.dependent));
        let target_moves = self.moves(planned, |name| targets.iter().any(|t| &t.name == name));
        if own_release && !target_moves.is_empty() {
            return format!(
                "{verb} {} with what it requires: {}",
                join_moves(&target_moves),
                join_moves(moved)
            );
        }
        format!(
            "{verb} the blocker{}: {}",
            if moved.len() == 1 { "" } else { "s" },
            join_moves(moved)
        )
    }

    /// The installed dists picked by `which` whose planned version differs from the installed one.
    fn moves(
        &self,
        planned: &PlannedEnvironment,
        which: impl Fn(&PackageName) -> bool,
    ) -> Vec<Move> {
        planned
            .dists
            .iter()
            .filter(|(name, _)| which(name))
            .filter_map(|(name, dist)| {
                let from = self.inventory.get(name)?.version().clone();
                (dist.version != from).then(|| Move {
                    name: name.clone(),
                    from,
                    to: dist.version.clone(),
                })
            })
            .collect()
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

/// One installed dist's move in a plan.
struct Move {
    name: PackageName,
    from: Version,
    to: Version,
}

/// `name from -> to, ...`.
fn join_moves(moves: &[Move]) -> String {
    moves
        .iter()
        .map(|m| format!("{} {} -> {}", m.name, m.from, m.to))
        .collect::<Vec<_>>()
        .join(", ")
}
