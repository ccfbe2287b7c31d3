//! The safe layer.
//!
//! In: the safe [`LayerSpec`] and the [`Bounds`]. Out: the safe layer's plan without module
//! clashes (the dists it keeps out, as constraints every layer keeps), and without the breaks
//! its own evidence predicts: the broken dependents taken along to their fixing releases inside
//! their major lines, else
//! the changes that break them held at their installed versions, else a warning that it is not
//! safe.

use std::collections::BTreeSet;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::solve::finish_layer;
use super::{Bounds, LayerSpec, crosses_line};
use crate::plan::alternatives::{ProposeError, Proposer};
use crate::plan::clash::{self, Clash};
use crate::plan::must_move::moves_with_reasons;
use crate::plan::planned::PlannedEnvironment;
use crate::plan::proposal::{Blocker, Plan};
use crate::risk::FactorKind;

/// A layer's solve and its plan.
type Layered = (PlannedEnvironment, Plan);

impl Proposer<'_> {
    /// The safe layer's solve and plan (`None`: no solution) and the dists it keeps out: a dist
    /// it would add whose modules clash with a kept installed dist's ([`Self::without_clashes`]).
    pub(super) fn safe_layer(
        &self,
        spec: &LayerSpec,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
    ) -> Result<Option<(Layered, Vec<Requirement>)>, ProposeError> {
        let constraints = Self::layer_bounds(spec, bounds);
        let Some(built) = self.layer_build(spec, bounds, upgrade, None, constraints)? else {
            return Ok(None);
        };
        let (kept_out, (planned, plan)) = self.without_clashes(spec, bounds, upgrade, built)?;
        Ok(finish_layer(spec, plan, None).map(|plan| ((planned, plan), kept_out)))
    }

    /// The safe layer, never breaking what its own evidence says it breaks: it takes the broken
    /// dependents along to their fixing releases (every layer then holds them there), else it
    /// keeps the changes that break them at their installed versions (the layer that frees
    /// their line moves them) and says so. When neither solves, it stays as it is.
    pub(super) fn safe_without_breaks(
        &self,
        spec: &LayerSpec,
        bounds: &mut Bounds,
        upgrade: &BTreeSet<PackageName>,
        (first, safe): Layered,
    ) -> Result<Layered, ProposeError> {
        if safe.breaks.is_empty() {
            return Ok((first, safe));
        }
        let mut fixes = self.light_fixes(&safe, bounds)?;
        // A fix in a new major line is a major layer's move, not the safe layer's: duckdb 0.8.1
        // -> 1.5.6 for pandas 2.3.3 would put a major jump in the layer titled "upgrades inside
        // their major line", so pandas is held instead and the major-duckdb layer moves it.
        fixes.retain(|name, fix| {
            bounds
                .installed
                .get(name)
                .is_none_or(|now| !crosses_line(now, fix))
        });
        if !fixes.is_empty() {
            bounds.along = fixes.clone();
            let constraints = Self::layer_bounds(spec, bounds);
            if let Some((planned, mut plan)) =
                self.layer_build(spec, bounds, upgrade, None, constraints)?
                && plan.breaks.is_empty()
            {
                moves_with_reasons(&mut plan, &fixes, &safe.breaks);
                carry_kept_out(&safe, &mut plan);
                return Ok(finish_layer(spec, plan, None).map_or((first, safe), |p| (planned, p)));
            }
            bounds.along.clear();
        }
        for b in &safe.breaks {
            let dependents = bounds.held.entry(b.package.clone()).or_default();
            dependents.insert(b.dependent.clone());
        }
        let constraints = Self::layer_bounds(spec, bounds);
        match self.layer_build(spec, bounds, upgrade, None, constraints)? {
            Some((planned, mut plan)) if plan.breaks.is_empty() => {
                carry_kept_out(&safe, &mut plan);
                plan.warnings.extend(held_warnings(&safe, bounds));
                Ok(finish_layer(spec, plan, None).map_or((first, safe), |p| (planned, p)))
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
                Ok((first, safe))
            }
        }
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
        mut current: Layered,
    ) -> Result<(Vec<Requirement>, Layered), ProposeError> {
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
        Ok((constraints, current))
    }
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
    for name in bounds.held.keys() {
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
             safe layer moves {} to a release made for it in {} major line{}",
            broken.iter().cloned().collect::<Vec<_>>().join(", "),
            if broken.len() == 1 { "it" } else { "them" },
            if broken.len() == 1 { "its" } else { "their" },
            evidence_of(unsafe_plan, name, to),
        ));
    }
    out
}

/// The evidence the first safe solve gave for `name`'s break (its `import-target-missing` or
/// `abi-break` factor), as "; the evidence: ..." (empty when it has none).
fn evidence_of(unsafe_plan: &Plan, name: &PackageName, to: &Version) -> String {
    let release = format!("{name} {to}");
    unsafe_plan
        .risk
        .factors
        .iter()
        .find(|f| {
            matches!(
                f.kind,
                FactorKind::ImportTargetMissing | FactorKind::AbiBreak
            ) && f.detail.contains(&release)
        })
        .map(|f| format!("; the evidence: {}", f.detail))
        .unwrap_or_default()
}
