//! The environment broken before the plan.
//!
//! In: the inventory (the `check` findings pip reports). Out: the broken edges the proposal
//! lists and the plans repair, the plan that leaves them as broken as they were (what pip
//! does), offered beside an as-asked plan that repairs them, and for a bare target that a broken
//! edge requires at a newer release, the plan that repairs the edge forward by moving the target
//! (ranked before plans that leave the target where it is).

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::{ProposeError, Proposer, join};
use crate::inventory::check::{self, Finding};
use crate::metadata::requirement::{above, at_least, excludes, pin};
use crate::plan::proposal::{BrokenEdge, Plan, PlanKind, Reason, said_edges};
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

    /// A bare target that a broken edge requires at a newer release than the installed one
    /// (tf-keras 2.21.0 forced in beside tensorflow 2.20.0 requires `tensorflow>=2.21,<2.22`),
    /// while the as-asked `plan` leaves the target below it (taking tf-keras back): the plan
    /// that does what was asked by repairing the edge forward. The target moves above its
    /// installed version into the broken requirement, each dependent of those edges stays at
    /// or above its installed version; nothing else goes back unless no plan keeps it (the
    /// title names what it takes back: h5py 3.16.0 -> 3.14.0, which tensorflow 2.21.0
    /// requires). `None` when no such edge exists or nothing solves.
    pub(super) fn repair_forward(
        &self,
        upgrade: &BTreeSet<PackageName>,
        plan: &Plan,
        broken: &[BrokenEdge],
    ) -> Result<Option<Plan>, ProposeError> {
        let targets = &self.request.targets;
        let edges: Vec<&BrokenEdge> = broken
            .iter()
            .filter(|e| self.left_broken_below(e, plan))
            .collect();
        if edges.is_empty() {
            return Ok(None);
        }
        let mut requirements = targets.clone();
        let mut moving = upgrade.clone();
        for edge in &edges {
            let installed = edge
                .installed
                .as_ref()
                .expect("left_broken_below: installed");
            requirements.push(above(&edge.requirement.name, installed));
            requirements.push(edge.requirement.clone());
            requirements.push(at_least(&edge.dependent, &edge.dependent_version));
            moving.insert(edge.dependent.clone());
        }
        for floors in [self.floors(&requirements), Vec::new()] {
            let Some(resolution) = self.solve_widening(&requirements, moving.clone(), &floors)?
            else {
                continue;
            };
            let planned = self.planned(&resolution);
            let mut plan = self.plan(PlanKind::Upgrade, String::new(), targets, &planned, &[])?;
            plan.title = forward_title(targets, &edges, &plan);
            add_repairs(&mut plan, &edges);
            return Ok(Some(plan));
        }
        Ok(None)
    }

    /// Whether `edge` is broken on a bare target's installed version and `plan` leaves the
    /// target there or still outside it (whether a newer release meets it, the solve says).
    fn left_broken_below(&self, edge: &BrokenEdge, plan: &Plan) -> bool {
        let Some(installed) = &edge.installed else {
            return false;
        };
        let bare = self
            .request
            .targets
            .iter()
            .any(|t| t.name == edge.requirement.name && t.version_or_url.is_none());
        let below = plan
            .pins
            .get(&edge.requirement.name)
            .is_none_or(|v| v == installed || excludes(&edge.requirement, v));
        bare && below && excludes(&edge.requirement, installed)
    }
}

/// "As asked: tensorflow, repairing forward the edge broken before the plan (tf-keras 2.21.0
/// requires tensorflow>=2.21,<2.22); takes back h5py 3.16.0 -> 3.14.0": each edge's
/// requirement in words, once per dependent ([`said_edges`]).
fn forward_title(targets: &[Requirement], edges: &[&BrokenEdge], plan: &Plan) -> String {
    let repaired: Vec<String> = (said_edges(edges).into_iter())
        .map(|(_, requires)| requires)
        .collect();
    let back: Vec<String> = plan
        .changes
        .iter()
        .filter_map(|c| match (&c.from, &c.to) {
            (Some(from), Some(to)) if to < from => Some(format!("{} {from} -> {to}", c.name)),
            _ => None,
        })
        .collect();
    let mut title = format!(
        "As asked: {}, repairing forward the edge broken before the plan ({})",
        join(targets),
        repaired.join("; ")
    );
    if !back.is_empty() {
        title.push_str(&format!("; takes back {}", back.join(", ")));
    }
    title
}

/// The target's change in `plan` also repairs each edge of `edges` it now meets.
fn add_repairs(plan: &mut Plan, edges: &[&BrokenEdge]) {
    for edge in edges {
        let Some(change) = plan
            .changes
            .iter_mut()
            .find(|c| c.name == edge.requirement.name)
        else {
            continue;
        };
        if change
            .to
            .as_ref()
            .is_some_and(|to| !excludes(&edge.requirement, to))
        {
            change.reasons.push(Reason::Repairs {
                dependent: edge.dependent.clone(),
                dependent_version: edge.dependent_version.clone(),
                requirement: edge.requirement.clone(),
                installed: edge.installed.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::test_plans::{forced, n, r, v};

    /// The title of the plan that repairs forward says each edge's requirement without its
    /// marker, the extras it came through named, once per dependent.
    #[test]
    fn the_forward_title_says_the_edges_without_markers() {
        let edge = |dependent: &str, requirement: &str| BrokenEdge {
            dependent: n(dependent),
            dependent_version: v("2.21.0"),
            requirement: r(requirement),
            installed: Some(v("2.20.0")),
        };
        let keras = edge(
            "tf-keras",
            "tensorflow<2.22,>=2.21 ; platform_system == 'Linux'",
        );
        let extra = |name: &str| {
            let marker = format!("python_version >= '3.9' and extra == '{name}'");
            edge("tfx-kit", &format!("tensorflow>=2.21 ; {marker}"))
        };
        let (gpu, tpu) = (extra("gpu"), extra("tpu"));
        let mut plan = forced();
        let mut back = plan.changes[0].clone();
        (back.name, back.from, back.to) = (n("h5py"), Some(v("3.16.0")), Some(v("3.14.0")));
        plan.changes.push(back);
        let title = forward_title(&[r("tensorflow")], &[&keras, &gpu, &tpu], &plan);
        assert_eq!(
            title,
            "As asked: tensorflow, repairing forward the edge broken before the plan (tf-keras \
             2.21.0 requires tensorflow>=2.21,<2.22; tfx-kit 2.21.0 requires tensorflow>=2.21, \
             through its extras gpu, tpu); takes back h5py 3.16.0 -> 3.14.0"
        );
    }
}
