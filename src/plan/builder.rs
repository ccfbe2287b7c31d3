//! [`PlanBuilder`]: a solver's planned environment plus the inventory in, a scored [`Plan`] out.
//!
//! The builder compares the planned environment with the installed one, finds the reason for
//! every change ([`reasons`]), collects the loud warnings (a local or unmanaged build replaced by
//! an index build, a yanked release, an accelerator-line switch: [`warnings`]) and turns it all
//! into [`PlanFacts`] for the risk model ([`evidence`]).

mod built;
mod evidence;
mod fallbacks;
mod gencode;
mod reasons;
mod unchecked;
mod warnings;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::clash;
use super::installed_imports::InstalledImports;
use super::modules::{ImportersMemo, removed_module_warnings};
pub(crate) use super::oracle::Oracle;
pub(crate) use super::planned::PlannedEnvironment;
use super::planned::applies_with;
use super::planned_imports::{PlannedImportsMemo, UnmetName};
use super::proposal::{
    Action, Blocker, Change, HeldBack, PLAN_SCHEMA, Plan, PlanKind, UncheckedEvidence,
};
use super::version_checks::{FailingCheck, VersionChecksMemo, failing_checks};
use crate::inventory::Inventory;
use crate::inventory::graph::DependencyGraph;
use crate::metadata::requirement::excludes;
use crate::risk::{self, DeclaredCoupling, Dependents, PlanFacts, Policy, RiskLevel};
pub(super) use evidence::plan_breaks;
use reasons::{mark_repairs, title_with_repairs};
pub(super) use unchecked::{Gaps, Step};
use warnings::{accelerator_warning, switch_label};

/// What one plan is built from (see [`PlanBuilder::build`]).
#[derive(Debug, Clone)]
pub struct PlanSpec<'p> {
    /// The kind of plan.
    pub kind: PlanKind,
    /// Its one-line title.
    pub title: String,
    /// The requirements the plan serves.
    pub targets: &'p [Requirement],
    /// The environment after the plan.
    pub planned: &'p PlannedEnvironment,
    /// The blockers this plan moves, with the target each one held back (move-blockers plans).
    pub unblocked: &'p [(Blocker, Requirement)],
    /// `--all`: every dist may move.
    pub all: bool,
    /// What holds the targets back.
    pub held_back: Vec<HeldBack>,
    /// The pins of the layer this plan is built on (a layered `--all`): a change to the base's
    /// version is the base's, scored there, not here.
    pub base: Option<&'p BTreeMap<PackageName, Version>>,
    /// Coupled members whose own metadata, not the policy's rule, paired them with the planned
    /// anchor.
    pub declared_couplings: Vec<DeclaredCoupling>,
}

/// Builds plans against one inventory under one policy.
pub struct PlanBuilder<'a> {
    inventory: &'a Inventory,
    policy: &'a Policy,
    now: Option<Timestamp>,
    graph: DependencyGraph<'a>,
    importers: ImportersMemo,
    planned_imports: PlannedImportsMemo,
    version_checks: VersionChecksMemo,
    /// What the installed files import, read once (shared: [`Self::sharing`]).
    imports: Arc<InstalledImports>,
    undeclared: std::sync::Mutex<BTreeMap<PackageName, Vec<(PackageName, String)>>>,
}

impl<'a> PlanBuilder<'a> {
    /// A builder; `now` dates releases for the age factor (`None` skips it).
    pub fn new(inventory: &'a Inventory, policy: &'a Policy, now: Option<Timestamp>) -> Self {
        PlanBuilder {
            inventory,
            policy,
            now,
            graph: DependencyGraph::build(inventory),
            importers: ImportersMemo::default(),
            planned_imports: PlannedImportsMemo::default(),
            version_checks: VersionChecksMemo::default(),
            imports: Arc::default(),
            undeclared: std::sync::Mutex::default(),
        }
    }

    /// The same builder over imports already read of the same inventory.
    pub(crate) fn sharing(mut self, imports: &Arc<InstalledImports>) -> Self {
        self.imports = imports.clone();
        self
    }

    /// The planned environment as the accelerator-line check reads it.
    fn accelerator_view<'p>(
        &self,
        planned: &'p PlannedEnvironment,
    ) -> super::accelerator::Planned<'p> {
        let markers = &self.inventory.environment.markers;
        super::accelerator::Planned {
            names: planned.dists.keys().collect(),
            requires: planned
                .dists
                .iter()
                .map(|(name, dist)| {
                    let required = dist
                        .requires_dist
                        .iter()
                        .filter(|r| applies_with(r, markers, &dist.extras))
                        .map(|r| &r.name)
                        .collect();
                    (name, required)
                })
                .collect(),
        }
    }

    /// Whether the plan of `planned` leaves the installed accelerator line, as the plan
    /// [`Self::build`] makes would say (its accelerator-line-switch factor), without building
    /// it: the same [`super::accelerator::switches`] over the versions that change.
    pub(crate) fn leaves_line(&self, planned: &PlannedEnvironment) -> bool {
        if self.policy.weight(risk::FactorKind::AcceleratorLineSwitch) == 0 {
            return false;
        }
        let changes: Vec<Change> = planned
            .changed(self.inventory)
            .map(|(name, dist)| {
                let from = self.inventory.get(name).map(|d| d.version().clone());
                Change::asked(name, from, &dist.version, Vec::new())
            })
            .collect();
        !super::accelerator::switches(self.inventory, &self.accelerator_view(planned), &changes)
            .is_empty()
    }

    /// Installed dists that depend on `name`, directly and (counted) transitively.
    pub(crate) fn dependents(&self, name: &PackageName) -> Dependents {
        let direct: BTreeSet<PackageName> = self
            .graph
            .dependents(name)
            .into_iter()
            .map(|(dist, _)| dist.name().clone())
            .filter(|dependent| dependent != name)
            .collect();
        let all = self.graph.transitive_dependents_count(name);
        let importing = self
            .undeclared_importers(name)
            .into_iter()
            .filter(|(dist, _)| !direct.contains(dist))
            .collect();
        Dependents {
            transitive: all.saturating_sub(direct.len()),
            direct: direct.into_iter().collect(),
            importing,
        }
    }

    /// The installed dists whose files import `name`'s modules at import time, each with the
    /// import ([`crate::inventory::importers::ImportIndex::importers`]), looked up once per name.
    fn undeclared_importers(&self, name: &PackageName) -> Vec<(PackageName, String)> {
        let lock = || self.undeclared.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = lock().get(name) {
            return found.clone();
        }
        let tops: BTreeMap<String, PackageName> = self
            .inventory
            .get(name)
            .map(|d| {
                d.top_level
                    .iter()
                    .map(|t| (t.clone(), name.clone()))
                    .collect()
            })
            .unwrap_or_default();
        let found: Vec<(PackageName, String)> = self
            .imports
            .index()
            .importers(self.inventory, &tops)
            .into_iter()
            .map(|e| {
                let cite = e.cite();
                (e.dist, cite)
            })
            .collect();
        lock().insert(name.clone(), found.clone());
        found
    }

    /// [`Self::dependents`] of `name` less those the plan moves to another release without an
    /// override on them: the planned release requires what the plan installs (pydantic-core's
    /// dependent pydantic, moved with it; fastapi moved to a release that accepts pydantic 2), so
    /// it is not a dependent left with a change it did not ask for, and it is not counted again
    /// for every lockstep member it pins.
    fn staying_dependents(&self, name: &PackageName, planned: &PlannedEnvironment) -> Dependents {
        let mut dependents = self.dependents(name);
        let moves = |dependent: &PackageName| {
            let installed = self.inventory.get(dependent).map(|d| d.version());
            let overridden = planned
                .overridden
                .iter()
                .any(|e| e.dependent.dist().is_some_and(|(d, _)| d == dependent));
            !overridden && planned.dists.get(dependent).map(|d| &d.version) != installed
        };
        dependents.direct.retain(|d| !moves(d));
        dependents.importing.retain(|(d, _)| !moves(d));
        dependents
    }

    /// The tests of another dist's version in `name==to`'s own sources that raise on import
    /// beside `planned` ([`failing_checks`]: pyarrow 26.0.1's `pyarrow/lib.pyx` line 42 beside
    /// numpy 1.26.4); nothing for a release installed as it is.
    pub(in crate::plan) fn failing_version_checks(
        &self,
        name: &PackageName,
        to: &Version,
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) -> Vec<FailingCheck> {
        if self.inventory.get(name).is_some_and(|d| d.version() == to) {
            return Vec::new();
        }
        let version_of = |top: &str| {
            let dist = self
                .inventory
                .dists
                .iter()
                .find(|d| d.top_level.iter().any(|t| t == top))?;
            let planned = planned.dists.get(dist.name())?;
            Some((dist.name().clone(), planned.version.clone()))
        };
        failing_checks(name, to, oracle, &self.version_checks, &version_of)
    }

    /// The names `changes`' moved-back or added releases import that `planned` surely lacks
    /// (see [`super::planned_imports::unmet_names`]; read once with the plans' own check).
    pub(crate) fn unmet_names(
        &self,
        planned: &PlannedEnvironment,
        changes: &[Change],
        oracle: &dyn Oracle,
    ) -> Vec<UnmetName> {
        super::planned_imports::unmet_names(
            self.inventory,
            planned,
            changes,
            oracle,
            &self.planned_imports,
        )
    }

    /// Build one plan and score it: the changes with their reasons and warnings, the pins, the
    /// overrides, then the risk. `oracle` answers what the index and the installed files say
    /// (for a broken edge, whether any release of the dependent accepts the forced version;
    /// release dates; which compiled extensions link against a changed dist).
    pub fn build(&self, spec: PlanSpec<'_>, oracle: &dyn Oracle) -> Plan {
        let gaps = Gaps::new(oracle);
        let oracle: &dyn Oracle = &gaps;
        let planned = spec.planned;
        let mut names: BTreeSet<&PackageName> = planned.dists.keys().collect();
        names.extend(self.inventory.dists.iter().map(|d| d.name()));

        let mut changes = Vec::new();
        let mut warnings = Vec::new();
        let mut change_facts = Vec::new();
        let mut breaks = Vec::new();
        for name in names {
            let Some(mut change) = self.change(name, &spec) else {
                continue;
            };
            change.from_source_only = self.rollback_builds(&change, oracle);
            warnings.extend(self.change_warnings(&change));
            let in_base = spec
                .base
                .is_some_and(|base| base.get(&change.name) == change.to.as_ref());
            if !in_base {
                let (mut facts, importers) = self.change_facts(&change, planned, oracle);
                breaks.extend(plan_breaks(&facts, &importers));
                facts.requested = spec.all || spec.targets.iter().any(|t| t.name == change.name);
                change_facts.push(facts);
            }
            changes.push(change);
        }
        mark_repairs(&mut changes);
        let clashes = clash::clashes(
            self.inventory,
            &changes,
            &Step::new(oracle, UncheckedEvidence::ModuleClashes),
        );
        for clash in &clashes {
            let Some(facts) = change_facts.iter_mut().find(|f| f.name == clash.planned) else {
                continue; // the base layer's change, warned of there
            };
            let sentence = clash.sentence();
            warnings.push(sentence.clone());
            facts.module_clashes.push(sentence);
        }
        breaks.extend(self.planned_import_facts(&mut change_facts, &changes, planned, oracle));
        warnings.extend(removed_module_warnings(
            self.inventory,
            &changes,
            (
                &|name, version| oracle.installs(name, version),
                &|name, version, path| oracle.wheel_text(name, version, path),
            ),
            &self.importers,
        ));
        let mut title = title_with_repairs(&spec.title, &changes);
        let (overrides, broken_edges) = self.overrides(&spec, oracle);
        let accelerator_switches =
            super::accelerator::switches(self.inventory, &self.accelerator_view(planned), &changes);
        for switch in &accelerator_switches {
            warnings.push(accelerator_warning(switch, &clashes));
            title.push_str(&switch_label(switch));
        }
        let unchecked = gaps.unchecked(&changes, spec.base);
        let mut risk = risk::assess(
            &PlanFacts {
                changes: change_facts,
                broken_edges,
                now: self.now,
                accelerator_switches,
                declared_couplings: spec.declared_couplings.clone(),
            },
            self.policy,
        );
        // A plan whose deciding check was not made is not "low": the level says so, the
        // score stays what the evidence read gives (docs/risk-model.md).
        if !unchecked.is_empty() {
            risk.level = risk.level.max(RiskLevel::Medium);
        }
        Plan {
            schema: PLAN_SCHEMA.to_string(),
            kind: spec.kind,
            title,
            targets: spec.targets.to_vec(),
            changes,
            overrides,
            held_back: spec.held_back,
            pins: self.pins(planned),
            warnings,
            risk,
            layer: None,
            install: None,
            commands: None,
            breaks,
            unchecked,
        }
    }

    /// Every planned version, except a dist kept as installed from outside the index (not
    /// pinned, never reinstalled).
    fn pins(&self, planned: &PlannedEnvironment) -> BTreeMap<PackageName, Version> {
        planned
            .dists
            .iter()
            .filter(|(name, to)| {
                !self
                    .inventory
                    .get(name)
                    .is_some_and(|dist| dist.is_unmanaged() && dist.version() == &to.version)
            })
            .map(|(name, to)| (name.clone(), to.version.clone()))
            .collect()
    }

    /// The change of one dist (`None` when it stays as it is).
    fn change(&self, name: &PackageName, spec: &PlanSpec<'_>) -> Option<Change> {
        let installed = self.inventory.get(name);
        let from = installed.map(|d| d.version().clone());
        let to = spec.planned.dists.get(name);
        let to_version = to.map(|t| t.version.clone());
        if from == to_version {
            return None;
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
        Some(Change {
            name: name.clone(),
            reasons: self.reasons(name, from.as_ref(), spec),
            from,
            to: to_version,
            action,
            forced: spec.planned.is_forced(name),
            yanked: to.and_then(|t| t.yanked.clone()),
            upload_time: to.and_then(|t| t.upload_time),
            top_level: installed.map(|d| d.top_level.clone()).unwrap_or_default(),
            repair: false,
            from_source_only: false,
        })
    }

    /// Whether putting `change`'s installed release back from the index runs a build: it came
    /// from the index (no `direct_url.json`) and the index lists that release with only an
    /// sdist, which the plan's wheel-only rule does not install.
    fn rollback_builds(&self, change: &Change, oracle: &dyn Oracle) -> bool {
        let from_index = self
            .inventory
            .get(&change.name)
            .is_some_and(|dist| dist.direct_url.is_none());
        from_index
            && change
                .from
                .as_ref()
                .is_some_and(|from| oracle.source_only(&change.name, from))
    }

    /// Planned (or installed) requirements on `name` that exclude `version`: what holds it back.
    pub(crate) fn blockers(
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
                    && excludes(requirement, version)
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
