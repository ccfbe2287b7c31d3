//! The environment broken before the plan.
//!
//! In: the inventory (the `check` findings pip reports). Out: the broken edges the proposal
//! lists and the plans repair, and the plan that leaves them as broken as they were (what pip
//! does), offered beside an as-asked plan that repairs them.

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::{ProposeError, Proposer, join};
use crate::inventory::check::{self, Finding};
use crate::metadata::requirement::pin;
use crate::plan::proposal::{BrokenEdge, Plan, PlanKind};
use crate::solve::{Override, SolveError};

impl Proposer<'_> {
    /// The installed requirements the installed set does not meet (what `pip check` reports),
    /// each once: the plans repair them.
    pub(super) fn already_broken(&self) -> Vec<BrokenEdge> {
        let report = check::check(self.inventory);
        let mut edges: Vec<BrokenEdge> = report
            .findings
            .iter()
            .filter(|finding| finding.pip_reports())
            .filter_map(|finding| {
                let (dependent, requirement, installed) = match finding {
                    Finding::MissingDependency {
                        dependent,
                        requirement,
                        ..
                    } => (dependent, requirement, None),
                    Finding::VersionMismatch {
                        dependent,
                        requirement,
                        installed,
                        ..
                    } => (dependent, requirement, Some(installed.version.clone())),
                    _ => return None,
                };
                Some(BrokenEdge {
                    dependent: dependent.name.clone(),
                    dependent_version: dependent.version.clone(),
                    requirement: crate::metadata::parse_requirement(requirement).ok()?,
                    installed,
                })
            })
            .collect();
        edges.dedup();
        edges
    }

    /// The request as asked, leaving the edges broken before the plan as they are (what pip
    /// does): each broken requirement is overridden, on its dependent's edge only, by the
    /// installed version. Offered beside an as-asked plan that repairs them. `None` when no edge
    /// is broken by a version (a missing dependency cannot be kept missing by an override) or
    /// there is no such plan.
    pub(super) fn keep_broken(
        &self,
        as_asked: &[Requirement],
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        broken: &[BrokenEdge],
    ) -> Result<Option<Plan>, ProposeError> {
        let mut kept: BTreeMap<PackageName, (Version, BTreeSet<PackageName>)> = BTreeMap::new();
        for edge in broken {
            if let Some(installed) = &edge.installed {
                kept.entry(edge.requirement.name.clone())
                    .or_insert_with(|| (installed.clone(), BTreeSet::new()))
                    .1
                    .insert(edge.dependent.clone());
            }
        }
        if kept.is_empty() {
            return Ok(None);
        }
        let overrides = kept
            .iter()
            .map(|(name, (version, from))| Override {
                requirement: pin(name, version),
                only_from: Some(from.clone()),
            })
            .collect();
        let resolution = match self.solve(as_asked, upgrade, overrides) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let planned = self.planned(&resolution);
        let title = format!(
            "As asked: {}, leaving the environment as broken as it was",
            join(targets)
        );
        self.plan(PlanKind::Upgrade, title, targets, &planned, &[])
            .map(Some)
    }
}
