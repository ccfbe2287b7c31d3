//! Why each change of a plan happens: the installed and planned environments and the plan's
//! request in, the [`Reason`]s of one change out (asked for, unblocking a target, overridden,
//! following a moved requirement, a coupled-group rule, required by a planned dist, a repair of
//! an edge broken before the plan).

use std::collections::BTreeSet;

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::{PlanBuilder, PlanSpec};
use crate::metadata::requirement::excludes;
use crate::plan::planned::{PlannedEnvironment, applies_with};
use crate::plan::proposal::{Change, Reason};

/// Mark the changes that serve only edges broken before the plan: a [`Reason::Repairs`], or
/// required by (or following) another repair, and nothing else.
pub(super) fn mark_repairs(changes: &mut [Change]) {
    loop {
        let repaired: BTreeSet<PackageName> = changes
            .iter()
            .filter(|c| c.repair)
            .map(|c| c.name.clone())
            .collect();
        let mut more = false;
        for change in changes.iter_mut().filter(|c| !c.repair) {
            let repair = !change.reasons.is_empty()
                && change.reasons.iter().all(|reason| match reason {
                    Reason::Repairs { .. } => true,
                    Reason::RequiredBy { dependent, .. } => repaired.contains(dependent),
                    Reason::Follows { package, .. } => repaired.contains(package),
                    _ => false,
                });
            if repair {
                change.repair = true;
                more = true;
            }
        }
        if !more {
            return;
        }
    }
}

/// A plan's title, saying which changes repair edges broken before the plan.
pub(super) fn title_with_repairs(title: &str, changes: &[Change]) -> String {
    let repairs: Vec<&str> = changes
        .iter()
        .filter(|c| c.repair)
        .map(|c| c.name.as_ref())
        .collect();
    if repairs.is_empty() {
        return title.to_string();
    }
    format!(
        "{title}; also repairs the already broken environment: {}",
        repairs.join(", ")
    )
}

impl PlanBuilder<'_> {
    /// Why a dist changes: asked for, moved to unblock a target, overridden, following a moved
    /// requirement, required by a planned dist; else the resolution (or `--all`) moved it.
    pub(super) fn reasons(
        &self,
        name: &PackageName,
        from: Option<&Version>,
        spec: &PlanSpec<'_>,
    ) -> Vec<Reason> {
        let mut reasons = Vec::new();
        if let Some(target) = spec.targets.iter().find(|t| &t.name == name) {
            reasons.push(Reason::Requested {
                requirement: target.clone(),
            });
        }
        for (blocker, target) in spec.unblocked {
            if &blocker.dependent == name {
                reasons.push(Reason::Unblocks {
                    target: target.clone(),
                    blocking: blocker.requirement.clone(),
                });
            }
        }
        if reasons.is_empty() {
            reasons = self.unblocks_reasons(name, spec);
        }
        if let Some(edge) = spec
            .planned
            .overridden
            .iter()
            .find(|edge| &edge.original.name == name)
        {
            reasons.push(Reason::Override {
                replacement: edge.replacement.clone(),
            });
        }
        if reasons.is_empty() {
            reasons = self.follows_reasons(name, spec.planned);
            // What forced it, traced from the request: the requirement of the dist nearest to
            // a target (vllm's `numba==0.65.0`, not "follows llvmlite" beside "llvmlite is
            // required by numba"). A repair stays a repair.
            let repairs = reasons.iter().any(|r| matches!(r, Reason::Repairs { .. }));
            if !spec.all && !repairs {
                let derived = self.derived_reasons(name, spec);
                if !derived.is_empty() {
                    reasons = derived;
                }
            }
        }
        if reasons.is_empty() {
            reasons = self.coupled_rule_reasons(name, spec.planned);
        }
        if reasons.is_empty() {
            reasons = self.required_by_reasons(name, from, spec.planned);
        }
        // Under --all every installed dist moves because it was asked to: "billiard is required
        // by celery 5.7.0" and "celery follows billiard 4.3.2" would explain each by the other.
        // A repair stays a repair; a dist the plan adds keeps what requires it, and one it takes
        // back what takes it back (docutils 0.23.1 -> 0.21.2: required by sphinx 7.4.7).
        let back =
            from.is_some_and(|f| spec.planned.dists.get(name).is_some_and(|p| p.version < *f));
        if spec.all
            && from.is_some()
            && !back
            && reasons
                .iter()
                .all(|r| matches!(r, Reason::Follows { .. } | Reason::RequiredBy { .. }))
        {
            reasons.clear();
        }
        if reasons.is_empty() {
            reasons.push(if spec.all {
                Reason::UpgradeAll
            } else {
                Reason::Resolution
            });
        }
        reasons
    }

    /// The installed version excluded a target's planned version: it moved to unblock it (or,
    /// when it excluded the target's installed version too, to repair that broken edge).
    fn unblocks_reasons(&self, name: &PackageName, spec: &PlanSpec<'_>) -> Vec<Reason> {
        let markers = &self.inventory.environment.markers;
        let Some(dist) = self.inventory.get(name) else {
            return Vec::new();
        };
        let mut reasons = Vec::new();
        for requirement in &dist.metadata.requires_dist {
            let Some(target) = spec.targets.iter().find(|t| t.name == requirement.name) else {
                continue;
            };
            let Some(planned_target) = spec.planned.dists.get(&target.name) else {
                continue;
            };
            if !applies_with(requirement, markers, &[])
                || !excludes(requirement, &planned_target.version)
            {
                continue;
            }
            // An edge broken before the plan (the target's installed version is excluded too)
            // blocks nothing: the change repairs it (tf-keras 2.21.0 -> 2.20.1 beside a
            // tensorflow 2.20.0 that stays).
            let installed_target = self.inventory.get(&target.name).map(|d| d.version());
            if let Some(installed) = installed_target.filter(|v| excludes(requirement, v)) {
                reasons.push(Reason::Repairs {
                    dependent: name.clone(),
                    dependent_version: dist.version().clone(),
                    requirement: requirement.clone(),
                    installed: Some(installed.clone()),
                });
            } else {
                reasons.push(Reason::Unblocks {
                    target: target.clone(),
                    blocking: requirement.clone(),
                });
            }
        }
        reasons
    }

    /// Why `name` changes, traced from the request: walking from the targets (and the blockers
    /// moved for them) through the changed dists, each planned requirement that excludes a
    /// changed dist's installed version (or adds it) forced it; the requirements that reach
    /// `name` first are its reasons. Empty when no walk from the request reaches it.
    fn derived_reasons(&self, name: &PackageName, spec: &PlanSpec<'_>) -> Vec<Reason> {
        let markers = &self.inventory.environment.markers;
        let planned = &spec.planned.dists;
        let changed = |n: &PackageName| spec.planned.changes(self.inventory, n);
        let mut frontier: BTreeSet<&PackageName> = spec
            .targets
            .iter()
            .map(|t| &t.name)
            .chain(spec.unblocked.iter().map(|(b, _)| &b.dependent))
            .filter(|n| planned.contains_key(*n))
            .collect();
        let mut reached: BTreeSet<&PackageName> = frontier.clone();
        while !frontier.is_empty() {
            let mut found = Vec::new();
            let mut next = BTreeSet::new();
            for dependent in &frontier {
                let dist = &planned[*dependent];
                for requirement in &dist.requires_dist {
                    let required = &requirement.name;
                    if reached.contains(required)
                        || !changed(required)
                        || !applies_with(requirement, markers, &dist.extras)
                    {
                        continue;
                    }
                    let old = self.inventory.get(required).map(|d| d.version());
                    if old.is_some_and(|v| !excludes(requirement, v)) {
                        continue;
                    }
                    if required == name {
                        found.push(Reason::RequiredBy {
                            dependent: (*dependent).clone(),
                            dependent_version: dist.version.clone(),
                            requirement: requirement.clone(),
                        });
                    }
                    next.insert(required);
                }
            }
            if !found.is_empty() {
                return found;
            }
            reached.extend(next.iter().copied());
            frontier = next;
        }
        Vec::new()
    }

    /// The installed version requires a dist the plan moves outside that requirement.
    fn follows_reasons(&self, name: &PackageName, planned: &PlannedEnvironment) -> Vec<Reason> {
        let markers = &self.inventory.environment.markers;
        let Some(dist) = self.inventory.get(name) else {
            return Vec::new();
        };
        let mut reasons = Vec::new();
        for requirement in &dist.metadata.requires_dist {
            let Some(moved) = planned.dists.get(&requirement.name) else {
                continue;
            };
            if &requirement.name != name
                && applies_with(requirement, markers, &[])
                && excludes(requirement, &moved.version)
            {
                // The required dist does not move: the requirement was broken before the plan.
                if let Some(installed) = self.inventory.get(&requirement.name)
                    && installed.version() == &moved.version
                {
                    reasons.push(Reason::Repairs {
                        dependent: name.clone(),
                        dependent_version: dist.version().clone(),
                        requirement: requirement.clone(),
                        installed: Some(moved.version.clone()),
                    });
                    continue;
                }
                reasons.push(Reason::Follows {
                    package: requirement.name.clone(),
                    version: moved.version.clone(),
                    requirement: requirement.clone(),
                });
            }
        }
        reasons
    }

    /// A coupled-group rule paired the installed version with its anchor's installed line, and
    /// the anchor moves off it.
    fn coupled_rule_reasons(
        &self,
        name: &PackageName,
        planned: &PlannedEnvironment,
    ) -> Vec<Reason> {
        let Some(dist) = self.inventory.get(name) else {
            return Vec::new();
        };
        let names: Vec<&PackageName> = self.inventory.dists.iter().map(|d| d.name()).collect();
        let rules = self
            .policy
            .coupled
            .iter()
            .flat_map(|g| g.correspondences(&self.policy.name, names.iter().copied()));
        let mut reasons = Vec::new();
        for c in rules.filter(|c| &c.member == name) {
            let (Some(anchor), Some(moved)) =
                (self.inventory.get(&c.anchor), planned.dists.get(&c.anchor))
            else {
                continue;
            };
            let paired = c.template.range(anchor.version()).contains(dist.version());
            if paired
                && &moved.version != anchor.version()
                && !c.template.range(&moved.version).contains(dist.version())
            {
                reasons.push(Reason::CoupledRule {
                    anchor: c.anchor.clone(),
                    version: moved.version.clone(),
                    rule: c.rule_text(),
                });
            }
        }
        reasons
    }

    /// A planned dist requires this one outside its installed version (or it is new).
    fn required_by_reasons(
        &self,
        name: &PackageName,
        from: Option<&Version>,
        planned: &PlannedEnvironment,
    ) -> Vec<Reason> {
        let markers = &self.inventory.environment.markers;
        let mut reasons = Vec::new();
        for (dependent, dist) in &planned.dists {
            if dependent == name {
                continue;
            }
            for requirement in &dist.requires_dist {
                if &requirement.name != name || !applies_with(requirement, markers, &dist.extras) {
                    continue;
                }
                let excludes_old = from.is_none_or(|old| excludes(requirement, old));
                // The dependent stays as installed and its requirement already excluded what
                // was installed: the edge was broken before the plan, which repairs it.
                let unchanged = self
                    .inventory
                    .get(dependent)
                    .is_some_and(|d| d.version() == &dist.version);
                if excludes_old && unchanged && applies_with(requirement, markers, &[]) {
                    reasons.push(Reason::Repairs {
                        dependent: dependent.clone(),
                        dependent_version: dist.version.clone(),
                        requirement: requirement.clone(),
                        installed: from.cloned(),
                    });
                } else if excludes_old {
                    reasons.push(Reason::RequiredBy {
                        dependent: dependent.clone(),
                        dependent_version: dist.version.clone(),
                        requirement: requirement.clone(),
                    });
                }
            }
        }
        reasons
    }
}
