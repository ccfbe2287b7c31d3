//! One layer solved and built.
//!
//! In: a [`LayerSpec`] (what it frees), the [`Bounds`] every layer starts from and the base
//! plan it sits on. Out: the layer's constraints, its [`Plan`] (with its [`Layer`]: what it
//! adds beyond its base), the dependents it takes along to their fixing releases, and the plans
//! of many layers solved on as many threads as there are cores.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use pep440_rs::{Operator, Version, VersionSpecifier};
use pep508_rs::{PackageName, Requirement};

use super::{Bounds, LayerSpec};
use crate::metadata::requirement::{bounded, pin};
use crate::metadata::version_line::next_line;
use crate::plan::alternatives::{ProposeError, Proposer};
use crate::plan::must_move::{fixing_requirement, moves_with_reasons};
use crate::plan::planned::PlannedEnvironment;
use crate::plan::proposal::{Layer, LayerKind, Plan, PlanKind};
use crate::solve::SolveError;

impl Proposer<'_> {
    /// The safe layer's bounds, less what `spec` frees: heavy dists at their installed version,
    /// light ones below their next major line and never on a release younger than the policy's
    /// `young-release-days`.
    pub(super) fn layer_bounds(spec: &LayerSpec, bounds: &Bounds) -> Vec<Requirement> {
        bounds
            .installed
            .iter()
            .filter(|(name, _)| !spec.free.contains(*name))
            .map(|(name, version)| {
                let held = bounds.held.get(name).is_some_and(|dependents| {
                    spec.kind == LayerKind::Safe || spec.free.is_disjoint(dependents)
                });
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
    pub(super) fn layer_plans(
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
        let Some(built) = self.layer_build(spec, bounds, upgrade, Some(base), constraints)? else {
            return Ok(None);
        };
        // A planned release that raises on import beside the layer (see `import_tests`).
        let tested = self.import_tested(spec, bounds, upgrade, Some(base), built)?;
        let plan = self.tested_plan(&tested, bounds, upgrade, Some(base))?;
        Ok(finish_layer(&tested.spec, plan, Some(base)))
    }

    /// One solve of a layer under `constraints` and its plan; `None` when it has no solution.
    pub(super) fn layer_build(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: Option<&Plan>,
        constraints: Vec<Requirement>,
    ) -> Result<Option<(PlannedEnvironment, Plan)>, ProposeError> {
        self.layer_build_where(spec, bounds, upgrade, base, constraints, &|_| true)
    }

    /// [`Self::layer_build`], the plan built only when its solve is `wanted` (`None` when not):
    /// a solve whose versions already say the plan is no answer costs no evidence.
    pub(super) fn layer_build_where(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: Option<&Plan>,
        constraints: Vec<Requirement>,
        wanted: &dyn Fn(&PlannedEnvironment) -> bool,
    ) -> Result<Option<(PlannedEnvironment, Plan)>, ProposeError> {
        let resolution = match self.solve_with(&[], upgrade, vec![], constraints) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let planned = self.planned(&resolution);
        if !wanted(&planned) {
            return Ok(None);
        }
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

    /// A layer whose own evidence says it breaks installed dependents takes them along to
    /// their fixing releases (freed of their line bound, inside the fixing release's line), when
    /// that solves and breaks nothing; else it stays as it is, its factors saying so. `extra`:
    /// what the layer adds to its bounds (what its own import tests imply).
    pub(super) fn take_along(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        base: Option<&Plan>,
        plan: Plan,
        extra: &[Requirement],
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
        constraints.extend(extra.iter().cloned());
        constraints.extend(
            fixes
                .iter()
                .map(|(name, fix)| fixing_requirement(name, fix, true)),
        );
        match self.layer_build(&wider, bounds, upgrade, base, constraints)? {
            Some((_, mut fixed)) if fixed.breaks.is_empty() => {
                moves_with_reasons(&mut fixed, &fixes, &plan.breaks);
                Ok(fixed)
            }
            _ => Ok(plan),
        }
    }

    /// The fixing releases of the light dependents `plan` breaks.
    pub(super) fn light_fixes(
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
}

/// A built layer plan with its [`Layer`]: what it adds beyond `base` (`None` when that is
/// nothing), and only the held-back lines this layer is about (the rest are the safe layer's).
pub(super) fn finish_layer(spec: &LayerSpec, mut plan: Plan, base: Option<&Plan>) -> Option<Plan> {
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

/// "Safe layer: upgrades inside their major line ...", "Move the torch stack: torch 2.11.0 ->
/// 2.12.0, ...", "huggingface-hub 1.33.0 -> 2.4.0 (a new major line)".
fn layer_title(
    spec: &LayerSpec,
    planned: &BTreeMap<PackageName, crate::plan::planned::PlanDist>,
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
