//! [`PlanBuilder`]: a solver's planned environment plus the inventory in, a scored [`Plan`] out.
//!
//! The builder compares the planned environment with the installed one, finds the reason for
//! every change, collects the loud warnings (a local or unmanaged build replaced by an index
//! build, a yanked release) and turns it all into [`PlanFacts`] for the risk model.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::{ExtraName, MarkerEnvironment, PackageName, Requirement, VersionOrUrl};

use super::proposal::{
    Action, Blocker, Change, HeldBack, Override, PLAN_SCHEMA, Plan, PlanKind, Reason,
};
use crate::inventory::graph::DependencyGraph;
use crate::inventory::{DirectUrl, Inventory};
use crate::risk::{self, BrokenEdgeFacts, ChangeFacts, Dependents, PlanFacts, Policy, Upstream};

/// One dist of a planned environment, as the solver chose it.
#[derive(Debug, Clone)]
pub struct PlanDist {
    /// The chosen version.
    pub version: Version,
    /// `Requires-Dist` of that version (unevaluated; the builder evaluates markers).
    pub requires_dist: Vec<Requirement>,
    /// PEP 592 yank reason, when the chosen release is yanked.
    pub yanked: Option<String>,
    /// Upload time of the chosen release.
    pub upload_time: Option<Timestamp>,
    /// The release ships platform-specific wheels.
    pub platform_specific: bool,
    /// Extras requested of it (their requirements apply).
    pub extras: Vec<ExtraName>,
}

/// The environment after a plan, as a solver resolution describes it.
#[derive(Debug, Clone, Default)]
pub struct PlannedEnvironment {
    /// Every dist after the plan.
    pub dists: BTreeMap<PackageName, PlanDist>,
    /// The edges overridden to get there (forced plans only): (dependent, its version, the
    /// requirement it declares, the replacement).
    pub overridden: Vec<(PackageName, Version, Requirement, Requirement)>,
}

/// What the builder asks beyond the plan itself: the index and the installed files.
pub trait Oracle {
    /// Whether any release of `dependent` accepts `package` at `version`.
    fn upstream(
        &self,
        dependent: &PackageName,
        package: &PackageName,
        version: &Version,
    ) -> Upstream;
    /// Whether the installed `dependent`'s compiled extensions link against `package`.
    fn links(&self, dependent: &PackageName, package: &PackageName) -> bool;
    /// When `name` `version` was first uploaded (`None`: not known).
    fn released(&self, name: &PackageName, version: &Version) -> Option<Timestamp>;
    /// When the first final release of `name` at or above `version` was uploaded.
    fn first_release_from(&self, name: &PackageName, version: &Version) -> Option<Timestamp>;
}

/// The first version of `version`'s major line: its release up to the first non-zero segment
/// (`2.1.3` -> `2`, `0.38.6` -> `0.38`).
pub fn line_floor(version: &Version) -> Version {
    let release = version.release();
    let cut = release
        .iter()
        .position(|&n| n != 0)
        .unwrap_or(release.len().saturating_sub(1));
    Version::new(
        release[..=cut.min(release.len().saturating_sub(1))]
            .iter()
            .copied(),
    )
    .with_epoch(version.epoch())
}

/// Builds plans against one inventory under one policy.
pub struct PlanBuilder<'a> {
    inventory: &'a Inventory,
    policy: &'a Policy,
    now: Option<Timestamp>,
    graph: DependencyGraph<'a>,
}

impl<'a> PlanBuilder<'a> {
    /// A builder; `now` dates releases for the age factor (`None` skips it).
    pub fn new(inventory: &'a Inventory, policy: &'a Policy, now: Option<Timestamp>) -> Self {
        PlanBuilder {
            inventory,
            policy,
            now,
            graph: DependencyGraph::build(inventory),
        }
    }

    /// Installed dists that depend on `name`, directly and (counted) transitively.
    pub fn dependents(&self, name: &PackageName) -> Dependents {
        let direct: BTreeSet<PackageName> = self
            .graph
            .dependents(name)
            .into_iter()
            .map(|(dist, _)| dist.name().clone())
            .filter(|dependent| dependent != name)
            .collect();
        let all = self.graph.transitive_dependents_count(name);
        Dependents {
            transitive: all.saturating_sub(direct.len()),
            direct: direct.into_iter().collect(),
        }
    }

    /// A change that crosses into a newer major line: which direct dependents were released
    /// before that line began, and which of those link against it from compiled extensions.
    fn line_crossing(&self, change: &mut ChangeFacts, oracle: &dyn Oracle) {
        let (Some(from), Some(to)) = (&change.from, &change.to) else {
            return;
        };
        let floor = line_floor(to);
        if line_floor(from) >= floor {
            return;
        }
        let Some(line_start) = oracle.first_release_from(&change.name, &floor) else {
            return;
        };
        for dependent in &change.dependents.direct {
            let Some(dist) = self.inventory.get(dependent) else {
                continue;
            };
            if !oracle
                .released(dependent, dist.version())
                .is_some_and(|released| released < line_start)
            {
                continue;
            }
            if oracle.links(dependent, &change.name) {
                change.abi_dependents.push(dependent.clone());
            }
            if !change.forced {
                change.predating_dependents.push(dependent.clone());
            }
        }
    }

    /// Whether the clause `forced_version` violates is an upper bound declared before any
    /// release it excludes existed.
    fn defensive_bound(
        &self,
        dependent: &PackageName,
        dependent_version: &Version,
        requirement: &Requirement,
        forced_version: &Version,
        oracle: &dyn Oracle,
    ) -> bool {
        let Some(VersionOrUrl::VersionSpecifier(specifiers)) = &requirement.version_or_url else {
            return false;
        };
        let Some(bound) = specifiers.iter().find(|clause| {
            matches!(
                clause.operator(),
                pep440_rs::Operator::LessThan | pep440_rs::Operator::LessThanEqual
            ) && !clause.contains(forced_version)
        }) else {
            return false;
        };
        let excluded_since = oracle.first_release_from(&requirement.name, bound.version());
        let released = oracle.released(dependent, dependent_version);
        matches!((released, excluded_since), (Some(r), Some(e)) if r < e)
    }

    /// Build one plan.
    ///
    /// `targets` are the requirements the plan serves; `unblocked` are the blockers this plan
    /// moves (move-blockers plans); `upstream` says, for a broken edge (dependent, package,
    /// forced version), whether any release of the dependent accepts the forced version;
    /// `oracle` answers what the index and the installed files say.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        &self,
        kind: PlanKind,
        title: String,
        targets: &[Requirement],
        planned: &PlannedEnvironment,
        unblocked: &[(Blocker, Requirement)],
        all: bool,
        held_back: Vec<HeldBack>,
        oracle: &dyn Oracle,
    ) -> Plan {
        let markers = &self.inventory.environment.markers;
        let forced: BTreeSet<&PackageName> = planned
            .overridden
            .iter()
            .map(|(_, _, requirement, _)| &requirement.name)
            .collect();

        let mut names: BTreeSet<&PackageName> = planned.dists.keys().collect();
        names.extend(self.inventory.dists.iter().map(|d| d.name()));

        let mut changes = Vec::new();
        let mut warnings = Vec::new();
        let mut pins = BTreeMap::new();
        let mut change_facts = Vec::new();
        for name in names {
            let installed = self.inventory.get(name);
            let from = installed.map(|d| d.version().clone());
            let to = planned.dists.get(name);
            let unmanaged = installed.and_then(|d| d.direct_url.as_ref());
            match (installed, to) {
                (Some(dist), Some(to)) if dist.is_unmanaged() && dist.version() == &to.version => {
                    // Kept as installed from outside the index: not pinned, never reinstalled.
                }
                (_, Some(to)) => {
                    pins.insert(name.clone(), to.version.clone());
                }
                _ => {}
            }
            let to_version = to.map(|t| t.version.clone());
            if from == to_version {
                continue;
            }
            let action = match (&from, &to_version) {
                (None, Some(_)) => Action::Add,
                (Some(_), None) => Action::Remove,
                (Some(a), Some(b)) if a.clone().without_local() == b.clone().without_local() => {
                    Action::Reinstall
                }
                (Some(a), Some(b)) if b < a => Action::Downgrade,
                _ => Action::Upgrade,
            };
            let mut reasons = Vec::new();
            if let Some(target) = targets.iter().find(|t| &t.name == name) {
                reasons.push(Reason::Requested {
                    requirement: target.clone(),
                });
            }
            for (blocker, target) in unblocked {
                if &blocker.dependent == name {
                    reasons.push(Reason::Unblocks {
                        target: target.clone(),
                        blocking: blocker.requirement.clone(),
                    });
                }
            }
            // The installed version excluded a target's planned version: it moved to unblock it.
            if reasons.is_empty()
                && let Some(dist) = installed
            {
                for requirement in &dist.metadata.requires_dist {
                    let Some(target) = targets.iter().find(|t| t.name == requirement.name) else {
                        continue;
                    };
                    let Some(planned_target) = planned.dists.get(&target.name) else {
                        continue;
                    };
                    if applies_with(requirement, markers, &[])
                        && matches!(&requirement.version_or_url,
                            Some(VersionOrUrl::VersionSpecifier(spec))
                                if !spec.contains(&planned_target.version))
                    {
                        reasons.push(Reason::Unblocks {
                            target: target.clone(),
                            blocking: requirement.clone(),
                        });
                    }
                }
            }
            let is_forced = forced.contains(name);
            if let Some((_, _, _, replacement)) = planned
                .overridden
                .iter()
                .find(|(_, _, requirement, _)| &requirement.name == name)
            {
                reasons.push(Reason::Override {
                    replacement: replacement.clone(),
                });
            }
            if reasons.is_empty()
                && let Some(dist) = installed
            {
                for requirement in &dist.metadata.requires_dist {
                    let Some(moved) = planned.dists.get(&requirement.name) else {
                        continue;
                    };
                    if &requirement.name != name
                        && applies_with(requirement, markers, &[])
                        && matches!(&requirement.version_or_url,
                            Some(VersionOrUrl::VersionSpecifier(spec))
                                if !spec.contains(&moved.version))
                    {
                        reasons.push(Reason::Follows {
                            package: requirement.name.clone(),
                            version: moved.version.clone(),
                            requirement: requirement.clone(),
                        });
                    }
                }
            }
            if reasons.is_empty() {
                for (dependent, dist) in &planned.dists {
                    if dependent == name {
                        continue;
                    }
                    for requirement in &dist.requires_dist {
                        if &requirement.name != name
                            || !applies_with(requirement, markers, &dist.extras)
                        {
                            continue;
                        }
                        let excludes_old = match (&from, &requirement.version_or_url) {
                            (None, _) => true,
                            (Some(old), Some(VersionOrUrl::VersionSpecifier(spec))) => {
                                !spec.contains(old)
                            }
                            _ => false,
                        };
                        if excludes_old {
                            reasons.push(Reason::RequiredBy {
                                dependent: dependent.clone(),
                                dependent_version: dist.version.clone(),
                                requirement: requirement.clone(),
                            });
                        }
                    }
                }
            }
            if reasons.is_empty() {
                reasons.push(if all {
                    Reason::UpgradeAll
                } else {
                    Reason::Resolution
                });
            }
            let unmanaged_source = unmanaged.map(|url| match url {
                DirectUrl::Archive { .. } => "direct URL archive".to_string(),
                DirectUrl::Directory { editable: true, .. } => "editable checkout".to_string(),
                DirectUrl::Directory { .. } => "local directory".to_string(),
                DirectUrl::Vcs { vcs, .. } => format!("{vcs} checkout"),
            });
            if let (Some(old), Some(new)) = (&from, &to_version) {
                if let Some(source) = &unmanaged_source {
                    warnings.push(format!(
                        "{name} {old} was installed from a {source}, not from the index: this plan \
                         REPLACES it with the index build {new}"
                    ));
                } else if old.is_local() && old.local() != new.local() {
                    warnings.push(format!(
                        "{name} {old} is a local build: this plan REPLACES it with the index build \
                         {new}; make sure the index serves the variant you need"
                    ));
                }
            }
            if let (Some(new), Some(reason)) = (&to_version, to.and_then(|t| t.yanked.as_ref())) {
                warnings.push(format!(
                    "{name} {new} is yanked{}",
                    if reason.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", reason.escape_default())
                    }
                ));
            }
            change_facts.push(ChangeFacts {
                name: name.clone(),
                from: from.clone(),
                to: to_version.clone(),
                forced: is_forced,
                unmanaged_source,
                released: to.and_then(|t| t.upload_time),
                yanked: to.and_then(|t| t.yanked.clone()),
                platform_specific: to.is_some_and(|t| t.platform_specific),
                dependents: self.dependents(name),
                abi_dependents: Vec::new(),
                predating_dependents: Vec::new(),
            });
            self.line_crossing(change_facts.last_mut().expect("just pushed"), oracle);
            changes.push(Change {
                name: name.clone(),
                from,
                to: to_version,
                action,
                reasons,
                forced: is_forced,
                yanked: to.and_then(|t| t.yanked.clone()),
                upload_time: to.and_then(|t| t.upload_time),
                top_level: installed.map(|d| d.top_level.clone()).unwrap_or_default(),
            });
        }

        let mut overrides = Vec::new();
        let mut broken_edges = Vec::new();
        for (dependent, dependent_version, requirement, replacement) in &planned.overridden {
            let package = &requirement.name;
            let Some(forced_version) = planned.dists.get(package).map(|d| d.version.clone()) else {
                continue;
            };
            overrides.push(Override {
                dependent: dependent.clone(),
                dependent_version: dependent_version.clone(),
                requirement: requirement.clone(),
                package: package.clone(),
                version: forced_version.clone(),
                replacement: replacement.clone(),
                reason: format!(
                    "forced by `planner propose --allow-override` for {}",
                    targets
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
            broken_edges.push(BrokenEdgeFacts {
                dependent: dependent.clone(),
                dependent_version: dependent_version.clone(),
                requirement: requirement.clone(),
                forced_version: forced_version.clone(),
                dependent_platform_specific: planned
                    .dists
                    .get(dependent)
                    .is_some_and(|d| d.platform_specific),
                forced_platform_specific: planned
                    .dists
                    .get(package)
                    .is_some_and(|d| d.platform_specific),
                upstream: oracle.upstream(dependent, package, &forced_version),
                defensive_bound: self.defensive_bound(
                    dependent,
                    dependent_version,
                    requirement,
                    &forced_version,
                    oracle,
                ),
            });
        }
        overrides.sort();

        let risk = risk::assess(
            &PlanFacts {
                changes: change_facts,
                broken_edges,
                now: self.now,
            },
            self.policy,
        );
        Plan {
            schema: PLAN_SCHEMA.to_string(),
            kind,
            title,
            targets: targets.to_vec(),
            changes,
            overrides,
            held_back,
            pins,
            warnings,
            risk,
        }
    }

    /// Planned (or installed) requirements on `name` that exclude `version`: what holds it back.
    pub fn blockers(
        &self,
        name: &PackageName,
        version: &Version,
        planned: &PlannedEnvironment,
    ) -> Vec<Blocker> {
        let markers = &self.inventory.environment.markers;
        let mut blockers = Vec::new();
        for (dependent, dist) in &planned.dists {
            for requirement in &dist.requires_dist {
                if &requirement.name == name
                    && applies_with(requirement, markers, &dist.extras)
                    && matches!(&requirement.version_or_url,
                        Some(VersionOrUrl::VersionSpecifier(spec)) if !spec.contains(version))
                {
                    blockers.push(Blocker {
                        dependent: dependent.clone(),
                        dependent_version: dist.version.clone(),
                        requirement: requirement.clone(),
                    });
                }
            }
        }
        blockers.sort();
        blockers
    }
}

/// Whether a requirement applies in this environment with these extras active.
pub(crate) fn applies_with(
    requirement: &Requirement,
    markers: &MarkerEnvironment,
    extras: &[ExtraName],
) -> bool {
    requirement.marker.evaluate(markers, extras)
}
