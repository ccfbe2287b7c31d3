//! [`PlanBuilder`]: a solver's planned environment plus the inventory in, a scored [`Plan`] out.
//!
//! The builder compares the planned environment with the installed one, finds the reason for
//! every change, collects the loud warnings (a local or unmanaged build replaced by an index
//! build, a yanked release) and turns it all into [`PlanFacts`] for the risk model.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::clash;
use super::imports_check;
use super::modules::{ImportersMemo, removed_module_warnings};
pub(crate) use super::oracle::Oracle;
pub(crate) use super::planned::PlannedEnvironment;
use super::planned::applies_with;
use super::planned_imports::{PlannedImportsMemo, missing_planned_imports};
use super::proposal::{
    Action, Blocker, Break, BreakKind, Change, HeldBack, Override, PLAN_SCHEMA, Plan, PlanKind,
    Reason,
};
use crate::inventory::graph::DependencyGraph;
use crate::inventory::importers::ImportIndex;
use crate::inventory::imports::ImportUse;
use crate::inventory::{DirectUrl, InstalledDist, Inventory};
use crate::metadata::requirement::{excludes, specifiers};
pub(crate) use crate::risk::line_floor;
use crate::risk::{
    self, AcceleratorSwitch, BrokenEdgeFacts, ChangeFacts, DeclaredCoupling, Dependents, PlanFacts,
    Policy,
};

/// Mark the changes that serve only edges broken before the plan: a [`Reason::Repairs`], or
/// required by (or following) another repair, and nothing else.
fn mark_repairs(changes: &mut [Change]) {
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
    import_index: ImportIndex,
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
            import_index: ImportIndex::default(),
            undeclared: std::sync::Mutex::default(),
        }
    }

    /// The planned environment as the accelerator-line check reads it.
    fn accelerator_view<'p>(
        &self,
        planned: &'p PlannedEnvironment,
    ) -> super::accelerator::Planned<'p> {
        let markers = &self.inventory.environment.markers;
        super::accelerator::Planned {
            names: planned.dists.keys().collect(),
            required: planned
                .dists
                .values()
                .flat_map(|dist| {
                    dist.requires_dist
                        .iter()
                        .filter(|r| applies_with(r, markers, &dist.extras))
                        .map(|r| &r.name)
                })
                .collect(),
        }
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
    /// import ([`ImportIndex::importers`]), looked up once per name.
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
            .import_index
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

    /// Build one plan and score it: the changes with their reasons and warnings, the pins, the
    /// overrides, then the risk. `oracle` answers what the index and the installed files say
    /// (for a broken edge, whether any release of the dependent accepts the forced version;
    /// release dates; which compiled extensions link against a changed dist).
    pub fn build(&self, spec: PlanSpec<'_>, oracle: &dyn Oracle) -> Plan {
        let planned = spec.planned;
        let mut names: BTreeSet<&PackageName> = planned.dists.keys().collect();
        names.extend(self.inventory.dists.iter().map(|d| d.name()));

        let mut changes = Vec::new();
        let mut warnings = Vec::new();
        let mut change_facts = Vec::new();
        let mut breaks = Vec::new();
        for name in names {
            let Some(change) = self.change(name, &spec) else {
                continue;
            };
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
        for clash in clash::clashes(self.inventory, &changes, oracle) {
            let Some(facts) = change_facts.iter_mut().find(|f| f.name == clash.planned) else {
                continue; // the base layer's change, warned of there
            };
            let sentence = clash.sentence();
            warnings.push(sentence.clone());
            facts.module_clashes.push(sentence);
        }
        let missing = missing_planned_imports(
            self.inventory,
            planned,
            &changes,
            oracle,
            &self.planned_imports,
        );
        for facts in &mut change_facts {
            if let Some(found) = missing.get(&facts.name) {
                facts.planned_imports_missing = found.clone();
            }
        }
        warnings.extend(removed_module_warnings(
            self.inventory,
            &changes,
            (
                &|name, version| oracle.installs(name, version),
                &|name, version, path| oracle.wheel_text(name, version, path),
            ),
            &self.importers,
        ));
        let mut title = spec.title.clone();
        let repairs: Vec<&str> = changes
            .iter()
            .filter(|c| c.repair)
            .map(|c| c.name.as_ref())
            .collect();
        if !repairs.is_empty() {
            title = format!(
                "{title}; also repairs the already broken environment: {}",
                repairs.join(", ")
            );
        }
        let (overrides, broken_edges) = self.overrides(&spec, oracle);
        let accelerator_switches =
            super::accelerator::switches(self.inventory, &self.accelerator_view(planned), &changes);
        for switch in &accelerator_switches {
            warnings.push(accelerator_warning(switch));
            title.push_str(&switch_label(switch));
        }
        let risk = risk::assess(
            &PlanFacts {
                changes: change_facts,
                broken_edges,
                now: self.now,
                accelerator_switches,
                declared_couplings: spec.declared_couplings.clone(),
            },
            self.policy,
        );
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
            commands: None,
            breaks,
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
        })
    }

    /// Why a dist changes: asked for, moved to unblock a target, overridden, following a moved
    /// requirement, required by a planned dist; else the resolution (or `--all`) moved it.
    fn reasons(
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
        let changed = |n: &PackageName| {
            planned.get(n).is_some_and(|d| {
                self.inventory
                    .get(n)
                    .is_none_or(|i| i.version() != &d.version)
            })
        };
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

    /// How an unmanaged installed dist was installed (`None` for index installs).
    fn unmanaged_source(&self, name: &PackageName) -> Option<String> {
        let url = self.inventory.get(name)?.direct_url.as_ref()?;
        Some(match url {
            DirectUrl::Archive { .. } => "direct URL archive".to_string(),
            DirectUrl::Directory { editable: true, .. } => "editable checkout".to_string(),
            DirectUrl::Directory { .. } => "local directory".to_string(),
            DirectUrl::Vcs { vcs, .. } => format!("{vcs} checkout"),
        })
    }

    /// The loud warnings of one change: an unmanaged or local build replaced by an index
    /// build, a yanked release.
    fn change_warnings(&self, change: &Change) -> Vec<String> {
        let name = &change.name;
        let mut warnings = Vec::new();
        if let (Some(old), Some(new)) = (&change.from, &change.to) {
            if let Some(source) = self.unmanaged_source(name) {
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
        if let (Some(new), Some(reason)) = (&change.to, &change.yanked) {
            warnings.push(format!(
                "{name} {new} is yanked{}",
                if reason.is_empty() {
                    String::new()
                } else {
                    format!(": {}", reason.escape_default())
                }
            ));
        }
        warnings
    }

    /// What the risk model needs of one change, and the installed dists whose imports of it
    /// the planned release breaks.
    pub(super) fn change_facts(
        &self,
        change: &Change,
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) -> (ChangeFacts, Vec<PackageName>) {
        let name = &change.name;
        let to = planned.dists.get(name);
        let mut facts = ChangeFacts {
            name: name.clone(),
            from: change.from.clone(),
            to: change.to.clone(),
            forced: change.forced,
            requested: false,
            unmanaged_source: self.unmanaged_source(name),
            released: to.and_then(|t| t.upload_time),
            installed_released: None,
            releases_back: None,
            yanked: to.and_then(|t| t.yanked.clone()),
            dependents: self.staying_dependents(name, planned),
            abi_dependents: Vec::new(),
            abi_mechanism: None,
            predating_dependents: Vec::new(),
            missing_imports: Vec::new(),
            module_clashes: Vec::new(),
            planned_imports_missing: Vec::new(),
        };
        let mut importers = Vec::new();
        if let (Some(from), Some(to)) = (&change.from, &change.to) {
            importers = self.missing_imports(&mut facts, (from, to), planned, oracle);
            if to < from {
                facts.installed_released = oracle.released(name, from);
                facts.releases_back = oracle.releases_back(name, to, from);
            }
        }
        self.line_crossing(&mut facts, planned, oracle);
        (facts, importers)
    }

    /// The imports of a changed dist in the installed files that the planned release breaks.
    /// An importer the plan moves too is left out (its planned files are not known). Importers
    /// that do not declare the dist are not counted as its dependents: on the corpus's training
    /// part that lowered the AUC (docs/risk-model.md). Returns the importers it breaks.
    fn missing_imports(
        &self,
        facts: &mut ChangeFacts,
        (from, to): (&Version, &Version),
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) -> Vec<PackageName> {
        let uses = oracle.import_uses(&facts.name);
        let kept: Vec<&ImportUse> = uses
            .iter()
            .filter(|u| {
                u.dist != facts.name
                    && self.inventory.get(&u.dist).is_some_and(|d| {
                        planned
                            .dists
                            .get(&u.dist)
                            .is_some_and(|p| &p.version == d.version())
                    })
            })
            .collect();
        let (sentences, importers) =
            imports_check::missing_imports(&facts.name, from, to, &kept, oracle);
        facts.missing_imports = sentences;
        importers
    }

    /// A change that crosses into a newer major line: which direct dependents were released
    /// before that line began, and which of those link against it from compiled extensions.
    /// A dependent the plan moves too is judged by the release it moves to (jax moving with
    /// jaxlib is a jax released for the new line), not by the installed one.
    fn line_crossing(
        &self,
        change: &mut ChangeFacts,
        planned: &PlannedEnvironment,
        oracle: &dyn Oracle,
    ) {
        let (Some(from), Some(to)) = (change.from.clone(), change.to.clone()) else {
            return;
        };
        let floor = line_floor(&to);
        if line_floor(&from) >= floor {
            return;
        }
        let Some(line_start) = oracle.first_release_from(&change.name, &floor) else {
            return;
        };
        for dependent in &change.dependents.direct {
            let Some(dist) = self.inventory.get(dependent) else {
                continue;
            };
            let version = planned
                .dists
                .get(dependent)
                .map_or(dist.version(), |d| &d.version);
            if oracle
                .released(dependent, version)
                .is_none_or(|released| released >= line_start)
                || self.declares_line(dist, &change.name, &floor)
            {
                continue;
            }
            if let Some(mechanism) = oracle.abi_link(dependent, &change.name, &from, &to) {
                change.abi_dependents.push(dependent.clone());
                change.abi_mechanism = Some(mechanism.to_string());
            }
            if !change.forced {
                change.predating_dependents.push(dependent.clone());
            }
        }
    }

    /// Whether `dist` declares an upper bound on `package` above the floor of a major line
    /// (scipy 1.13.1's `numpy<2.3` reaches into numpy's 2 line): it was built knowing that line,
    /// even though released before the line's first final release.
    fn declares_line(&self, dist: &InstalledDist, package: &PackageName, floor: &Version) -> bool {
        let markers = &self.inventory.environment.markers;
        dist.metadata.requires_dist.iter().any(|requirement| {
            &requirement.name == package
                && applies_with(requirement, markers, &[])
                && specifiers(requirement).is_some_and(|specifiers| {
                    specifiers.iter().any(|c| {
                        matches!(
                            c.operator(),
                            pep440_rs::Operator::LessThan | pep440_rs::Operator::LessThanEqual
                        ) && c.version() > floor
                    })
                })
        })
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
        let Some(specifiers) = specifiers(requirement) else {
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

    /// The overrides a plan records (sorted) and the broken edges the risk model weighs.
    fn overrides(
        &self,
        spec: &PlanSpec<'_>,
        oracle: &dyn Oracle,
    ) -> (Vec<Override>, Vec<BrokenEdgeFacts>) {
        let planned = spec.planned;
        let reason = format!(
            "forced by `planner propose --allow-override` for {}",
            spec.targets
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        let platform_specific =
            |name: &PackageName| planned.dists.get(name).is_some_and(|d| d.platform_specific);
        let mut overrides = Vec::new();
        let mut broken_edges = Vec::new();
        for edge in &planned.overridden {
            let Some((dependent, dependent_version)) = edge.dependent.dist() else {
                continue;
            };
            let package = &edge.original.name;
            let Some(forced_version) = planned.dists.get(package).map(|d| d.version.clone()) else {
                continue;
            };
            // An edge broken before the plan, which the plan keeps as installed.
            let kept = self
                .inventory
                .get(package)
                .is_some_and(|d| d.version() == &forced_version)
                && self
                    .inventory
                    .get(dependent)
                    .is_some_and(|d| d.version() == dependent_version);
            overrides.push(Override {
                dependent: dependent.clone(),
                dependent_version: dependent_version.clone(),
                requirement: edge.original.clone(),
                package: package.clone(),
                version: forced_version.clone(),
                replacement: edge.replacement.clone(),
                reason: if kept {
                    "broken before the plan; kept as installed".to_string()
                } else {
                    reason.clone()
                },
            });
            broken_edges.push(BrokenEdgeFacts {
                dependent: dependent.clone(),
                dependent_version: dependent_version.clone(),
                requirement: edge.original.clone(),
                forced_version: forced_version.clone(),
                dependent_platform_specific: platform_specific(dependent),
                forced_platform_specific: platform_specific(package),
                upstream: oracle.upstream(dependent, package, &forced_version),
                defensive_bound: self.defensive_bound(
                    dependent,
                    dependent_version,
                    &edge.original,
                    &forced_version,
                    oracle,
                ),
                kept,
            });
        }
        overrides.sort();
        (overrides, broken_edges)
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

/// Whether a requirement applies in this environment with these extras active.
/// The warning a plan that switches accelerator lines carries beside its risk factor.
/// The dependents one change breaks, as its facts say: the compiled dependents across its ABI
/// boundary and the `importers` of what its planned release no longer has.
pub(super) fn plan_breaks(facts: &ChangeFacts, importers: &[PackageName]) -> Vec<Break> {
    let Some(to) = &facts.to else {
        return Vec::new();
    };
    let abi = facts.abi_dependents.iter().map(|d| (d, BreakKind::Abi));
    let import = importers.iter().map(|d| (d, BreakKind::Import));
    abi.chain(import)
        .map(|(dependent, how)| Break {
            package: facts.name.clone(),
            to: to.clone(),
            dependent: dependent.clone(),
            how,
        })
        .collect()
}

/// The first version of the major line after `version`'s (`2.1.3` -> `3`, `0.38.6` -> `0.39`).
pub(crate) fn next_line(version: &Version) -> Version {
    let floor = line_floor(version);
    let mut release = floor.release().to_vec();
    if let Some(last) = release.last_mut() {
        *last += 1;
    }
    Version::new(release).with_epoch(version.epoch())
}

/// What a plan's title says of its accelerator-line switch: the lines, what it installs of the
/// new one and how many of the old one it leaves with nothing requiring them.
fn switch_label(switch: &AcceleratorSwitch) -> String {
    let mut text = format!(
        "; switches {} -> {} (installs {} of {}",
        switch.from,
        switch.to,
        switch.brings.len(),
        switch.to
    );
    if !switch.orphaned.is_empty() {
        text.push_str(&format!(
            ", leaves {} of {} unrequired",
            switch.orphaned.len(),
            switch.from
        ));
    }
    text.push(')');
    text
}

fn accelerator_warning(switch: &AcceleratorSwitch) -> String {
    let mut text = format!(
        "this plan leaves {} for {} (it installs {} of {}): GPU nodes built for {} may not run it",
        switch.from,
        switch.to,
        switch.brings.len(),
        switch.to,
        switch.from
    );
    if !switch.orphaned.is_empty() {
        let names: Vec<&str> = switch.orphaned.iter().map(|n| n.as_ref()).collect();
        text.push_str(&format!(
            "; afterwards nothing requires {} (left installed; remove them with `pip uninstall`)",
            names.join(", ")
        ));
    }
    text
}
