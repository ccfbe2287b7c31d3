//! Layered `propose --all`: plans a team can review and roll back one at a time.
//!
//! In: the inventory, the policy's coupled groups and the request's `--layer`. Out: the plans of
//! a layered `--all`, each a complete [`Plan`] with its [`Layer`]:
//!
//! - **safe**: every index-managed dist moves to the newest release inside its major line (for
//!   `0.x`, the first non-zero segment: [`super::builder::line_floor`]); every *heavy* dist (an installed member
//!   of a coupled group of the policy) stays where it is. A light dist whose newest release would
//!   drag a heavy one along is held back, with the heavy move it needs ([`NeededMove`]);
//! - **group**, one per *stack*: the safe layer's bounds, with one stack's members free (the
//!   torch stack: torch, every member of a coupled group with torch, triton, the CUDA libraries
//!   under `ml-cuda`; the jax stack). The solver keeps each group's version correspondence, so a
//!   stack moves together or not at all;
//! - **major**, one per light dist whose newest release is in a newer major line: the safe
//!   layer's bounds with that one dist's line bound lifted;
//! - **everything**: the unlayered `--all` (every dist, every line, at once).
//!
//! A group or major plan is built *on top of* the safe layer: its pins and commands hold the safe
//! layer's versions too, its [`Layer::own`] names what it adds, and its risk scores only those.
//! A layer that changes nothing beyond its base is not offered; the safe layer's held-back lines
//! say why (and name the plan where a held-back dist moves).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use pep440_rs::{Operator, Version, VersionSpecifier};
use pep508_rs::{PackageName, Requirement};
use pubgrub::Ranges;

use super::alternatives::{ProposeError, Proposer, bounded, pin};
use super::builder::next_line;
use super::clash::{self, Clash};
use super::must_move::{fixing_requirement, moves_with_reasons};
use super::planned::PlannedEnvironment;
use super::proposal::{
    Blocker, HeldBack, Layer, LayerChoice, LayerKind, NeededMove, Plan, PlanKind, Waiting,
};
use crate::inventory::Inventory;
use crate::risk::Policy;
use crate::solve::{AcceptingQuery, Among, PrereleaseMode, SolveError};

/// The heavy dists of an environment and the stacks they move in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Stacks {
    /// Installed members of the policy's coupled groups: never moved by the safe layer.
    pub heavy: BTreeSet<PackageName>,
    /// The stacks, each moved by one group plan.
    pub stacks: Vec<Stack>,
}

/// Installed dists that move together in one group plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stack {
    /// `torch-stack`.
    pub name: String,
    /// Its installed members.
    pub members: BTreeSet<PackageName>,
}

impl Stacks {
    /// The stacks of the `installed` (index-managed) names under `policy`: first one per
    /// anchored group whose anchor is installed (the anchor and every installed member of any
    /// group that contains the anchor), then one per remaining group for its members no earlier
    /// stack holds. Groups of one pattern (numpy's compiled dependents) make nothing heavy: a
    /// numpy patch release is an ordinary upgrade; its new major line is a major plan.
    pub(crate) fn new(policy: &Policy, installed: &BTreeSet<PackageName>) -> Stacks {
        let groups: Vec<_> = policy
            .coupled
            .iter()
            .filter(|g| g.members.len() >= 2 && !g.compiled_dependents)
            .collect();
        let heavy: BTreeSet<PackageName> = installed
            .iter()
            .filter(|n| groups.iter().any(|g| g.contains(n)))
            .cloned()
            .collect();
        let mut stacks = Vec::new();
        let mut covered = BTreeSet::new();
        for group in &groups {
            let Some(anchor) = group
                .anchor
                .as_deref()
                .and_then(|a| installed.iter().find(|n| n.as_ref() == a))
            else {
                continue;
            };
            let members: BTreeSet<PackageName> = heavy
                .iter()
                .filter(|n| groups.iter().any(|g| g.contains(anchor) && g.contains(n)))
                .cloned()
                .collect();
            covered.extend(members.iter().cloned());
            stacks.push(Stack {
                name: format!("{anchor}-stack"),
                members,
            });
        }
        for group in &groups {
            let members: BTreeSet<PackageName> = heavy
                .iter()
                .filter(|n| group.contains(n) && !covered.contains(*n))
                .cloned()
                .collect();
            let Some(first) = members.first() else {
                continue;
            };
            let name = format!("{first}-stack");
            covered.extend(members.iter().cloned());
            stacks.push(Stack { name, members });
        }
        Stacks { heavy, stacks }
    }
}

/// Whether `to` is in a newer major line than `from`.
pub(crate) fn crosses_line(from: &Version, to: &Version) -> bool {
    to >= &next_line(from)
}

/// The index-managed installed dists, first copy of each name.
fn managed(inventory: &Inventory) -> BTreeMap<PackageName, Version> {
    let mut out = BTreeMap::new();
    for dist in inventory.dists.iter().filter(|d| !d.is_unmanaged()) {
        out.entry(dist.name().clone())
            .or_insert_with(|| dist.version().clone());
    }
    out
}

/// What every layer starts from: the installed versions, the stacks, and the young releases
/// the safe layer waits for.
struct Bounds {
    installed: BTreeMap<PackageName, Version>,
    stacks: Stacks,
    /// Per light dist, its releases inside its major line younger than `young-release-days`.
    young: BTreeMap<PackageName, Vec<(Version, i64)>>,
    young_days: i64,
    /// What the safe layer keeps out (a dist whose modules clash with a kept installed one's):
    /// every layer on top of it keeps it out too.
    kept_out: Vec<Requirement>,
    /// Dependents the safe layer takes along to their fixing release (a release made for what
    /// the layer moves, [`super::must_move`]): every layer holds them inside that release's line,
    /// at or above it.
    along: BTreeMap<PackageName, Version>,
    /// Dists the safe layer keeps at their installed version because their planned release
    /// breaks a dependent no release fixes inside the layer (another layer moves them).
    held: BTreeSet<PackageName>,
}

/// One layer to solve: what is free of the safe layer's bounds.
struct LayerSpec {
    kind: LayerKind,
    name: String,
    /// Heavy dists freed of their pin, or light dists freed of their line bound.
    free: BTreeSet<PackageName>,
}

impl Proposer<'_> {
    /// The plans of a layered `--all`, safe first (the recommendation), then the group plans
    /// and the major plans, each lowest risk first. `warnings` gets what could not be planned.
    pub(super) fn layered(
        &self,
        policy: &Policy,
        upgrade: &BTreeSet<PackageName>,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<Plan>, ProposeError> {
        let installed = managed(self.inventory);
        let names: BTreeSet<PackageName> = installed.keys().cloned().collect();
        let stacks = Stacks::new(policy, &names);
        let mut bounds = Bounds {
            young: BTreeMap::new(),
            young_days: policy.young_release_days,
            installed,
            stacks,
            kept_out: Vec::new(),
            along: BTreeMap::new(),
            held: BTreeSet::new(),
        };
        bounds.young = self.young_releases(&bounds)?;
        let choice = self.request.layer;
        let safe_spec = LayerSpec {
            kind: LayerKind::Safe,
            name: "safe".into(),
            free: BTreeSet::new(),
        };
        let Some((safe, kept_out)) = self.safe_layer(&safe_spec, &bounds, upgrade)? else {
            warnings.push(
                "the safe layer has no solution: the installed environment does not satisfy its \
                 own requirements (see `planner check`)"
                    .into(),
            );
            return Ok(vec![]);
        };
        bounds.kept_out = kept_out;
        let mut safe = self.safe_without_breaks(&safe_spec, &mut bounds, upgrade, safe)?;
        let mut specs: Vec<LayerSpec> = bounds
            .stacks
            .stacks
            .iter()
            .map(|stack| LayerSpec {
                kind: LayerKind::Group,
                name: stack.name.clone(),
                free: stack.members.clone(),
            })
            .collect();
        specs.extend(
            self.major_candidates(&safe, &bounds)?
                .into_iter()
                .map(|name| LayerSpec {
                    kind: LayerKind::Major,
                    name: format!("major-{name}"),
                    free: BTreeSet::from([name]),
                }),
        );
        let (mut groups, mut majors) = (Vec::new(), Vec::new());
        for (spec, plan) in specs
            .iter()
            .zip(self.layer_plans(&specs, &bounds, upgrade, &safe)?)
        {
            match spec.kind {
                LayerKind::Group => groups.extend(plan),
                _ => majors.extend(plan),
            }
        }
        groups.sort_by_key(|p| p.risk.score);
        majors.sort_by_key(|p| p.risk.score);
        let others: Vec<&Plan> = groups.iter().chain(&majors).collect();
        self.explain_held_back(&mut safe, &others, &bounds)?;
        let mut plans = Vec::new();
        if shows(choice, LayerKind::Safe) {
            plans.push(safe);
        }
        if shows(choice, LayerKind::Group) {
            plans.extend(groups);
        }
        if shows(choice, LayerKind::Major) {
            plans.extend(majors);
        }
        Ok(plans)
    }

    /// Per light dist, its releases above the installed one and inside its major line that are
    /// younger than the policy's `young-release-days` (none when the plan has no clock).
    fn young_releases(
        &self,
        bounds: &Bounds,
    ) -> Result<BTreeMap<PackageName, Vec<(Version, i64)>>, ProposeError> {
        let mut out = BTreeMap::new();
        let Some(now) = self.request.now else {
            return Ok(out);
        };
        for (name, installed) in &bounds.installed {
            if bounds.stacks.heavy.contains(name) {
                continue;
            }
            let Some(project) = self.evidence.catalog.project(name)? else {
                continue;
            };
            let line_end = next_line(installed);
            // Each version's first upload, in one pass over the files.
            let mut uploaded: BTreeMap<&Version, jiff::Timestamp> = BTreeMap::new();
            for file in project.files.heads() {
                if let Some(at) = file.upload_time {
                    let first = uploaded.entry(file.version).or_insert(at);
                    *first = (*first).min(at);
                }
            }
            let mut young = Vec::new();
            for version in self.evidence.catalog.usable_versions(&project).iter() {
                if version <= installed || version >= &line_end {
                    continue;
                }
                let Some(&released) = uploaded.get(version) else {
                    continue;
                };
                let days = (now.as_second() - released.as_second()) / 86_400;
                if days < bounds.young_days {
                    young.push((version.clone(), days));
                }
            }
            if !young.is_empty() {
                out.insert(name.clone(), young);
            }
        }
        Ok(out)
    }

    /// The safe layer's bounds, less what `spec` frees: heavy dists at their installed version,
    /// light ones below their next major line and never on a release younger than the policy's
    /// `young-release-days`.
    fn layer_bounds(spec: &LayerSpec, bounds: &Bounds) -> Vec<Requirement> {
        bounds
            .installed
            .iter()
            .filter(|(name, _)| !spec.free.contains(*name))
            .map(|(name, version)| {
                let held = spec.kind == LayerKind::Safe && bounds.held.contains(name);
                if bounds.stacks.heavy.contains(name) || held {
                    return pin(name, version);
                }
                if let Some(fix) = bounds.along.get(name) {
                    return fixing_requirement(name, fix, true);
                }
                let mut specs = vec![
                    VersionSpecifier::from_version(Operator::LessThan, next_line(version))
                        .expect("< accepts a version without a local label"),
                ];
                specs.extend(bounds.young.get(name).into_iter().flatten().filter_map(
                    |(young, _)| {
                        VersionSpecifier::from_version(Operator::NotEqual, young.clone()).ok()
                    },
                ));
                bounded(name, specs)
            })
            .chain(bounds.kept_out.iter().cloned())
            .collect()
    }

    /// The plans of `specs` on top of `base`, in their order: each [`Self::layer_plan`] is
    /// independent of the others, so they are solved on as many threads as there are cores
    /// (each takes the next spec not yet taken). The first error, in spec order, is returned.
    fn layer_plans(
        &self,
        specs: &[LayerSpec],
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: &Plan,
    ) -> Result<Vec<Option<Plan>>, ProposeError> {
        type Slot = Mutex<Option<Result<Option<Plan>, ProposeError>>>;
        let slots: Vec<Slot> = specs.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let work = || {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(spec) = specs.get(i) else {
                    return;
                };
                let plan = self.layer_plan(spec, bounds, upgrade, base);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(plan);
            }
        };
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(specs.len());
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(work);
            }
            work();
        });
        slots
            .into_iter()
            .map(|slot| {
                slot.into_inner()
                    .unwrap_or_else(|e| e.into_inner())
                    .expect("every spec is taken by a thread that finishes it")
            })
            .collect()
    }

    /// Solve and build one layer's plan on top of `base`; `None` when it has no solution or
    /// changes nothing beyond its base.
    fn layer_plan(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: &Plan,
    ) -> Result<Option<Plan>, ProposeError> {
        let constraints = Self::layer_bounds(spec, bounds);
        let Some((_, plan)) = self.layer_build(spec, bounds, upgrade, Some(base), constraints)?
        else {
            return Ok(None);
        };
        let plan = self.take_along(spec, bounds, upgrade, base, plan)?;
        Ok(finish_layer(spec, plan, Some(base)))
    }

    /// A layer whose own evidence says it breaks installed dependents takes them along to
    /// their fixing releases (freed of their line bound, inside the fixing release's line), when
    /// that solves and breaks nothing; else it stays as it is, its factors saying so.
    fn take_along(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: &Plan,
        plan: Plan,
    ) -> Result<Plan, ProposeError> {
        let fixes = self.light_fixes(&plan, bounds)?;
        if fixes.is_empty() {
            return Ok(plan);
        }
        let wider = LayerSpec {
            kind: spec.kind,
            name: spec.name.clone(),
            free: spec.free.iter().chain(fixes.keys()).cloned().collect(),
        };
        let mut constraints = Self::layer_bounds(&wider, bounds);
        constraints.extend(
            fixes
                .iter()
                .map(|(name, fix)| fixing_requirement(name, fix, true)),
        );
        match self.layer_build(&wider, bounds, upgrade, Some(base), constraints)? {
            Some((_, mut fixed)) if fixed.breaks.is_empty() => {
                moves_with_reasons(&mut fixed, &fixes, &plan.breaks);
                Ok(fixed)
            }
            _ => Ok(plan),
        }
    }

    /// The fixing releases of the light dependents `plan` breaks.
    fn light_fixes(
        &self,
        plan: &Plan,
        bounds: &Bounds,
    ) -> Result<BTreeMap<PackageName, Version>, ProposeError> {
        if plan.breaks.is_empty() {
            return Ok(BTreeMap::new());
        }
        let mut fixes = self.fixing_releases(&plan.breaks)?;
        fixes.retain(|name, _| !bounds.stacks.heavy.contains(name));
        Ok(fixes)
    }

    /// The safe layer, never breaking what its own evidence says it breaks: it takes the broken
    /// dependents along to their fixing releases (every layer then holds them there), else it
    /// keeps the changes that break them at their installed versions (the layer that frees
    /// their line moves them) and says so. When neither solves, it stays as it is.
    fn safe_without_breaks(
        &self,
        spec: &LayerSpec,
        bounds: &mut Bounds,
        upgrade: &BTreeSet<PackageName>,
        safe: Plan,
    ) -> Result<Plan, ProposeError> {
        if safe.breaks.is_empty() {
            return Ok(safe);
        }
        let fixes = self.light_fixes(&safe, bounds)?;
        if !fixes.is_empty() {
            bounds.along = fixes.clone();
            let constraints = Self::layer_bounds(spec, bounds);
            if let Some((_, mut plan)) =
                self.layer_build(spec, bounds, upgrade, None, constraints)?
                && plan.breaks.is_empty()
            {
                moves_with_reasons(&mut plan, &fixes, &safe.breaks);
                carry_kept_out(&safe, &mut plan);
                return Ok(finish_layer(spec, plan, None).unwrap_or(safe));
            }
            bounds.along.clear();
        }
        bounds.held = safe.breaks.iter().map(|b| b.package.clone()).collect();
        let constraints = Self::layer_bounds(spec, bounds);
        match self.layer_build(spec, bounds, upgrade, None, constraints)? {
            Some((_, mut plan)) if plan.breaks.is_empty() => {
                carry_kept_out(&safe, &mut plan);
                plan.warnings.extend(held_warnings(&safe, bounds));
                Ok(finish_layer(spec, plan, None).unwrap_or(safe))
            }
            _ => {
                bounds.held.clear();
                let mut safe = safe;
                let broken: BTreeSet<String> = safe
                    .breaks
                    .iter()
                    .map(|b| b.dependent.to_string())
                    .collect();
                safe.warnings.push(format!(
                    "this layer is NOT safe: its own evidence says it breaks {} (see its risk \
                     factors), and no solution inside it moves them to a fixing release or keeps \
                     the breaking change out",
                    broken.into_iter().collect::<Vec<_>>().join(", ")
                ));
                Ok(safe)
            }
        }
    }

    /// The safe layer's plan (`None`: no solution) and the dists it keeps out: a dist it would
    /// add whose modules clash with a kept installed dist's ([`Self::without_clashes`]).
    fn safe_layer(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
    ) -> Result<Option<(Plan, Vec<Requirement>)>, ProposeError> {
        let constraints = Self::layer_bounds(spec, bounds);
        let Some(built) = self.layer_build(spec, bounds, upgrade, None, constraints)? else {
            return Ok(None);
        };
        let (kept_out, plan) = self.without_clashes(spec, bounds, upgrade, built)?;
        Ok(finish_layer(spec, plan, None).map(|plan| (plan, kept_out)))
    }

    /// One solve of a layer under `constraints` and its plan; `None` when it has no solution.
    fn layer_build(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: Option<&Plan>,
        constraints: Vec<Requirement>,
    ) -> Result<Option<(PlannedEnvironment, Plan)>, ProposeError> {
        let resolution = match self.solve_with(&[], upgrade, vec![], constraints) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let planned = self.planned(&resolution);
        let title = layer_title(spec, &planned.dists, &bounds.installed);
        let plan = self.plan_on(
            PlanKind::Upgrade,
            title,
            &[],
            &planned,
            &[],
            base.map(|b| &b.pins),
        )?;
        Ok(Some((planned, plan)))
    }

    /// The safe layer without module clashes: a dist it adds that would ship a module a kept
    /// installed dist ships (`py-cpuinfo2` next to `py-cpuinfo`) is kept out by a re-solve, so
    /// what pulled it in stays where it is (a few rounds at most). Each dist kept out is a
    /// warning naming the clash and what it holds back, and a blocker of the held-back newest
    /// release that required it. Where no solution keeps it out, the plan keeps the clash and
    /// its `module-clash` factor.
    fn without_clashes(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        mut current: (PlannedEnvironment, Plan),
    ) -> Result<(Vec<Requirement>, Plan), ProposeError> {
        let mut constraints = Vec::new();
        let mut kept_out: Vec<(Clash, Vec<Blocker>)> = Vec::new();
        for _round in 0..3 {
            let newcomers: Vec<Clash> =
                clash::clashes(self.inventory, &current.1.changes, &self.evidence)
                    .into_iter()
                    .filter(|c| c.other_kept && self.inventory.get(&c.planned).is_none())
                    .collect();
            if newcomers.is_empty() {
                break;
            }
            let mut tighter = constraints.clone();
            tighter.extend(newcomers.iter().map(|c| clash::absent(&c.planned)));
            let mut all = Self::layer_bounds(spec, bounds);
            all.extend(tighter.iter().cloned());
            let Some(next) = self.layer_build(spec, bounds, upgrade, None, all)? else {
                break;
            };
            let markers = &self.inventory.environment.markers;
            for clash in newcomers {
                let pullers = clash::pullers(&current.0, &clash.planned, markers);
                kept_out.push((clash, pullers));
            }
            constraints = tighter;
            current = next;
        }
        let plan = &mut current.1;
        for (clash, pullers) in kept_out {
            let held: Vec<String> = pullers
                .iter()
                .map(|b| {
                    let stays = current
                        .0
                        .dists
                        .get(&b.dependent)
                        .map_or_else(|| "out".to_string(), |d| format!("at {}", d.version));
                    format!(
                        "{} {} requires it ({}); {} stays {stays}",
                        b.dependent, b.dependent_version, b.requirement, b.dependent
                    )
                })
                .collect();
            plan.warnings.push(format!(
                "the safe layer keeps {} out: {}; {}",
                clash.planned,
                clash.sentence(),
                if held.is_empty() {
                    "the solver found a plan without it".to_string()
                } else {
                    held.join("; ")
                }
            ));
            for blocker in pullers {
                if let Some(h) = plan
                    .held_back
                    .iter_mut()
                    .find(|h| h.name == blocker.dependent && h.newest == blocker.dependent_version)
                {
                    h.blockers.push(blocker);
                }
            }
        }
        Ok((constraints, current.1))
    }

    /// Light dists whose newest final release is in a newer major line than the safe layer
    /// gives them.
    fn major_candidates(
        &self,
        safe: &Plan,
        bounds: &Bounds,
    ) -> Result<Vec<PackageName>, ProposeError> {
        let mut out = Vec::new();
        for (name, version) in &bounds.installed {
            if bounds.stacks.heavy.contains(name) {
                continue;
            }
            let Some(project) = self.evidence.catalog.project(name)? else {
                continue;
            };
            let now = safe.pins.get(name).unwrap_or(version);
            let newest = self
                .evidence
                .catalog
                .usable_versions(&project)
                .iter()
                .find(|v| !v.any_prerelease())
                .cloned();
            if newest.is_some_and(|newest| crosses_line(now, &newest)) {
                out.push(name.clone());
            }
        }
        Ok(out)
    }

    /// The safe layer's held-back lines: a light dist held by a heavy dependent gets the heavy
    /// move it needs; one whose newest release in its line is too young says so; a dist that
    /// moves in another layer's plan names it. Pre-releases the solver would not take are not
    /// "newest".
    fn explain_held_back(
        &self,
        safe: &mut Plan,
        others: &[&Plan],
        bounds: &Bounds,
    ) -> Result<(), ProposeError> {
        let mut kept = Vec::new();
        for mut held in std::mem::take(&mut safe.held_back) {
            if !self.newest_final(&mut held)? {
                continue;
            }
            held.see = others
                .iter()
                .find(|p| moves(p, &held.name))
                .and_then(|p| p.layer.as_ref())
                .map(|l| l.name.clone());
            if !bounds.stacks.heavy.contains(&held.name) {
                held.needs = self.needed_moves(&held, &bounds.stacks)?;
                if held.see.is_none() {
                    held.see = held.needs.iter().find_map(|n| {
                        others
                            .iter()
                            .find(|p| moves(p, &n.name))
                            .and_then(|p| p.layer.as_ref())
                            .map(|l| l.name.clone())
                    });
                }
                held.waiting = waiting(&held, bounds);
            }
            kept.push(held);
        }
        safe.held_back = kept;
        Ok(())
    }

    /// Make `held.newest` the newest release the solver would take (a pre-release only under
    /// `--prerelease allow` or when the planned version is one); `false` when that is no newer
    /// than the plan's.
    fn newest_final(&self, held: &mut HeldBack) -> Result<bool, ProposeError> {
        let takes_pre = self.request.prerelease == PrereleaseMode::Allow
            || held.planned.as_ref().is_some_and(Version::any_prerelease);
        if held.newest.any_prerelease() && !takes_pre {
            let Some(project) = self.evidence.catalog.project(&held.name)? else {
                return Ok(false);
            };
            let Some(newest) = self
                .evidence
                .catalog
                .usable_versions(&project)
                .iter()
                .find(|v| !v.any_prerelease())
                .cloned()
            else {
                return Ok(false);
            };
            held.newest = newest;
        }
        Ok(held.planned.as_ref().is_none_or(|p| p < &held.newest))
    }

    /// For each heavy dependent whose requirement keeps `held` from its newest release: the
    /// newest release of that dependent that accepts it.
    fn needed_moves(
        &self,
        held: &HeldBack,
        stacks: &Stacks,
    ) -> Result<Vec<NeededMove>, ProposeError> {
        let mut out = Vec::new();
        for blocker in held
            .blockers
            .iter()
            .filter(|b| stacks.heavy.contains(&b.dependent))
        {
            let found = self
                .evidence
                .catalog
                .accepting_releases(&AcceptingQuery {
                    dependent: &blocker.dependent,
                    extras: &[],
                    package: &held.name,
                    wanted: &Ranges::singleton(held.newest.clone()),
                    among: Among::Installable { prereleases: false },
                    read_at_most: NEEDED_SCAN,
                    enough: 1,
                })
                .map_err(|err| ProposeError::Solve(Box::new(err)))?;
            out.push(NeededMove {
                name: blocker.dependent.clone(),
                from: blocker.dependent_version.clone(),
                // A newer release that drops the requirement unblocks as well as one that
                // accepts the version.
                to: found
                    .versions
                    .into_iter()
                    .chain(found.silent)
                    .filter(|v| v > &blocker.dependent_version)
                    .max(),
                requirement: blocker.requirement.clone(),
            });
        }
        Ok(out)
    }
}

/// A built layer plan with its [`Layer`]: what it adds beyond `base` (`None` when that is
/// nothing), and only the held-back lines this layer is about (the rest are the safe layer's).
fn finish_layer(spec: &LayerSpec, mut plan: Plan, base: Option<&Plan>) -> Option<Plan> {
    let base_pins = base.map(|b| &b.pins);
    let own: Vec<PackageName> = plan
        .changes
        .iter()
        .filter(|c| base_pins.is_none_or(|pins| pins.get(&c.name) != c.to.as_ref()))
        .map(|c| c.name.clone())
        .collect();
    if base.is_some() {
        if own.is_empty() {
            return None;
        }
        plan.held_back.retain(|h| spec.free.contains(&h.name));
    }
    plan.layer = Some(Layer {
        kind: spec.kind,
        name: spec.name.clone(),
        base: base.and_then(|b| b.layer.as_ref()).map(|l| l.name.clone()),
        own,
        moves: spec.free.iter().cloned().collect(),
    });
    Some(plan)
}

/// What the first safe solve said of the dists it keeps out (the re-solve keeps them out too,
/// through the bounds, and so cannot see them): its warnings and the blockers of the held-back
/// newest releases that required them.
fn carry_kept_out(first: &Plan, plan: &mut Plan) {
    for warning in &first.warnings {
        if warning.starts_with("the safe layer keeps") && !plan.warnings.contains(warning) {
            plan.warnings.push(warning.clone());
        }
    }
    for held in &mut plan.held_back {
        if let Some(before) = first
            .held_back
            .iter()
            .find(|h| h.name == held.name && h.newest == held.newest)
        {
            for blocker in &before.blockers {
                if !held.blockers.contains(blocker) {
                    held.blockers.push(blocker.clone());
                }
            }
        }
    }
}

/// Why the safe layer keeps a dist where it is: its planned release in `unsafe_plan` breaks an
/// installed dependent that no release fixes inside the layer.
fn held_warnings(unsafe_plan: &Plan, bounds: &Bounds) -> Vec<String> {
    let mut out = Vec::new();
    for name in &bounds.held {
        let (Some(installed), Some(to)) = (bounds.installed.get(name), unsafe_plan.pins.get(name))
        else {
            continue;
        };
        let broken: BTreeSet<String> = unsafe_plan
            .breaks
            .iter()
            .filter(|b| &b.package == name)
            .map(|b| {
                let version = bounds.installed.get(&b.dependent);
                format!(
                    "{} {}",
                    b.dependent,
                    version.map(ToString::to_string).unwrap_or_default()
                )
            })
            .collect();
        out.push(format!(
            "the safe layer keeps {name} at {installed}: {name} {to} would break {} (compiled \
             against, or importing, what {name} {to} no longer has), and no solution inside the \
             safe layer moves {} to a release made for it",
            broken.iter().cloned().collect::<Vec<_>>().join(", "),
            if broken.len() == 1 { "it" } else { "them" },
        ));
    }
    out
}

/// The release `held` waits for when nothing else explains it: the newest inside its line, when
/// too young.
fn waiting(held: &HeldBack, bounds: &Bounds) -> Option<Waiting> {
    if !held.blockers.is_empty() || !held.needs.is_empty() || held.see.is_some() {
        return None;
    }
    let (version, days) = bounds.young.get(&held.name)?.first()?.clone();
    Some(Waiting {
        version,
        days,
        min_days: bounds.young_days,
    })
}

/// How many releases of a heavy dependent are read for "the release that accepts it".
const NEEDED_SCAN: usize = 30;

/// Whether `plan` is the layer that moves `name` (its stack, or its major line).
fn moves(plan: &Plan, name: &PackageName) -> bool {
    plan.layer
        .as_ref()
        .is_some_and(|l| l.moves.contains(name) && l.own.contains(name))
}

/// "Safe layer: upgrades inside their major line ...", "Move the torch stack: torch 2.11.0 ->
/// 2.12.0, ...", "huggingface-hub 1.33.0 -> 2.4.0 (a new major line)".
fn layer_title(
    spec: &LayerSpec,
    planned: &BTreeMap<PackageName, super::planned::PlanDist>,
    installed: &BTreeMap<PackageName, Version>,
) -> String {
    // The anchor (`torch` of `torch-stack`) first, then the other members by name.
    let anchor = spec.name.trim_end_matches("-stack");
    let mut names: Vec<&PackageName> = spec.free.iter().collect();
    names.sort_by_key(|n| (n.as_ref() != anchor, (*n).clone()));
    let moved: Vec<String> = names
        .into_iter()
        .filter_map(|name| {
            let from = installed.get(name)?;
            let to = &planned.get(name)?.version;
            (to != from).then(|| format!("{name} {from} -> {to}"))
        })
        .collect();
    match spec.kind {
        LayerKind::Safe => "Safe layer: upgrades inside their major line; no coupled group moves, \
                            nothing heavy is dragged along"
            .to_string(),
        LayerKind::Group => {
            let shown: Vec<&str> = moved.iter().take(4).map(String::as_str).collect();
            let more = moved.len().saturating_sub(shown.len());
            let stack = spec.name.trim_end_matches("-stack");
            match more {
                0 => format!("Move the {stack} stack: {}", shown.join(", ")),
                n => format!("Move the {stack} stack: {} and {n} more", shown.join(", ")),
            }
        }
        LayerKind::Major => format!("{} (a new major line)", moved.join(", ")),
        LayerKind::Everything => "Upgrade everything that can move".to_string(),
    }
}

/// Which layers `choice` shows (`None`: all but `everything`).
pub(super) fn shows(choice: Option<LayerChoice>, kind: LayerKind) -> bool {
    match choice {
        None => kind != LayerKind::Everything,
        Some(c) => c == kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn v(s: &str) -> Version {
        Version::from_str(s).unwrap()
    }

    #[test]
    fn next_lines() {
        assert_eq!(next_line(&v("2.1.3")), v("3"));
        assert_eq!(next_line(&v("0.38.6")), v("0.39"));
        assert_eq!(next_line(&v("0.0.5")), v("0.0.6"));
        assert_eq!(next_line(&v("2.11.0+cu130")), v("3"));
        assert!(crosses_line(&v("81.0.0"), &v("84.2.1")));
        assert!(!crosses_line(&v("1.33.0"), &v("1.99")));
        assert!(crosses_line(&v("0.11.2"), &v("0.12.0.1")));
    }

    fn names(list: &[&str]) -> BTreeSet<PackageName> {
        list.iter()
            .map(|n| PackageName::from_str(n).unwrap())
            .collect()
    }

    #[test]
    fn stacks_follow_the_policy() {
        let installed = names(&[
            "torch",
            "torchvision",
            "triton",
            "nvidia-cublas",
            "jax",
            "jaxlib",
            "jax-cuda13-plugin",
            "cupy-cuda13x",
            "numpy",
            "setuptools",
        ]);
        let ml = Policy::load(Some(std::path::Path::new("ml-cuda"))).unwrap();
        let stacks = Stacks::new(&ml, &installed);
        let by_name: BTreeMap<&str, Vec<&str>> = stacks
            .stacks
            .iter()
            .map(|s| {
                (
                    s.name.as_str(),
                    s.members.iter().map(|n| n.as_ref()).collect(),
                )
            })
            .collect();
        assert_eq!(
            by_name["torch-stack"],
            ["nvidia-cublas", "torch", "torchvision", "triton"]
        );
        assert_eq!(by_name["jax-stack"], ["jax", "jax-cuda13-plugin", "jaxlib"]);
        assert_eq!(by_name["cupy-cuda13x-stack"], ["cupy-cuda13x"]);
        assert!(
            !stacks
                .heavy
                .contains(&PackageName::from_str("numpy").unwrap())
        );
        assert!(
            !stacks
                .heavy
                .contains(&PackageName::from_str("setuptools").unwrap())
        );
        // The default policy couples torch with its domain libraries and triton only.
        let default = Policy::builtin();
        let stacks = Stacks::new(&default, &installed);
        assert_eq!(stacks.stacks[0].name, "torch-stack");
        assert!(
            !stacks
                .heavy
                .contains(&PackageName::from_str("nvidia-cublas").unwrap())
        );
    }
}
