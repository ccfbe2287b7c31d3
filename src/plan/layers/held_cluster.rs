//! The layer that moves what the safe layer holds back only because no layer takes a dist back:
//! TF 2.20.0 + tf-keras 2.20.1 move to 2.21.0 together only with h5py 3.16.0 -> 3.14.0
//! (tensorflow 2.21.0 requires `h5py<3.15`); every other layer keeps each dist at or above its
//! installed version, so the safe layer's held-back lines went round in a circle (tf-keras holds
//! tensorflow, tensorflow 2.21.0 needs tf-keras 2.21.0's `tensorflow>=2.21`).
//!
//! In: the safe plan's held-back lines, the [`Bounds`]. Out: per held-back light dist whose
//! newest final release requires an installed light dist *below* its installed version (the
//! blocker: a release below it is accepted, the installed one is not) and is inside its major
//! line, one layer on top of the safe layer: that dist above its installed version, every dist
//! inside its major line as in the safe layer, the blockers' floors lifted to their line's
//! first release (they may go back inside their line). Its title names what goes back and the
//! requirement that takes it there, in words ([`said`]: without the marker that held here). Layers with the same pins are offered once.

use std::collections::BTreeSet;
use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::solve::finish_layer;
use super::{Bounds, LayerSpec, crosses_line};
use crate::metadata::requirement::accepts;
use crate::metadata::version_line::line_floor;
use crate::plan::alternatives::{ProposeError, Proposer};
use crate::plan::planned::applies_with;
use crate::plan::proposal::{LayerKind, Plan, PlanKind};
use crate::plan::said;
use crate::solve::SolveError;

/// A held-back dist's newest release's requirement that takes an installed dist back.
struct GoesBack {
    /// The held-back dist's release that requires it (`tensorflow 2.21.0`).
    by: String,
    name: PackageName,
    installed: Version,
    requirement: Requirement,
}

impl Proposer<'_> {
    /// The layers that move a held-back light dist with the dists its newest release takes back
    /// (see the module docs), on top of `safe`.
    pub(super) fn held_cluster_layers(
        &self,
        safe: &Plan,
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
    ) -> Result<Vec<Plan>, ProposeError> {
        let held: BTreeSet<PackageName> = safe
            .held_back
            .iter()
            .map(|h| h.name.clone())
            .filter(|n| !bounds.stacks.heavy.contains(n) && bounds.installed.contains_key(n))
            .collect();
        let mut plans: Vec<Plan> = Vec::new();
        for anchor in &held {
            let Some(newest) = self.newest_final_release(anchor)? else {
                continue;
            };
            if crosses_line(&bounds.installed[anchor], &newest) {
                continue; // the major layer moves it
            }
            let back = self.goes_back(anchor, &newest, bounds)?;
            if back.is_empty() {
                continue;
            }
            let found = self.held_cluster_layer(anchor, &held, &back, bounds, upgrade, safe)?;
            if let Some(plan) = found
                && plans.iter().all(|p| p.pins != plan.pins)
            {
                plans.push(plan);
            }
        }
        Ok(plans)
    }

    /// `anchor` `newest`'s requirements that exclude an installed light dist's version while
    /// accepting an older usable release of it.
    fn goes_back(
        &self,
        anchor: &PackageName,
        newest: &Version,
        bounds: &Bounds,
    ) -> Result<Vec<GoesBack>, ProposeError> {
        let table = self.evidence.catalog.table(anchor)?;
        let Ok(metadata) = self
            .evidence
            .catalog
            .release_metadata(anchor, &table, newest)?
        else {
            return Ok(Vec::new());
        };
        let markers = &self.inventory.environment.markers;
        let mut out = Vec::new();
        for requirement in &metadata.requires_dist {
            let name = &requirement.name;
            let Some(installed) = bounds.installed.get(name) else {
                continue;
            };
            if bounds.stacks.heavy.contains(name)
                || !applies_with(requirement, markers, &[])
                || accepts(requirement, installed)
            {
                continue;
            }
            let Some(project) = self.evidence.catalog.project(name)? else {
                continue;
            };
            let usable = self.evidence.catalog.usable_versions(&project);
            if usable
                .iter()
                .any(|v| v < installed && !v.any_prerelease() && accepts(requirement, v))
            {
                out.push(GoesBack {
                    by: format!("{anchor} {newest}"),
                    name: name.clone(),
                    installed: installed.clone(),
                    requirement: requirement.clone(),
                });
            }
        }
        Ok(out)
    }

    /// One held-back cluster's layer: `anchor` above its installed version, the held-back dists
    /// and the blockers free, the blockers' floors lifted; `None` when it has no solution or
    /// changes nothing beyond the safe layer.
    fn held_cluster_layer(
        &self,
        anchor: &PackageName,
        held: &BTreeSet<PackageName>,
        back: &[GoesBack],
        bounds: &Bounds,
        upgrade: &BTreeSet<PackageName>,
        safe: &Plan,
    ) -> Result<Option<Plan>, ProposeError> {
        let lifted: BTreeSet<PackageName> = back.iter().map(|b| b.name.clone()).collect();
        let spec = LayerSpec {
            kind: LayerKind::Group,
            name: format!("{anchor}-held-back"),
            free: held.iter().chain(&lifted).cloned().collect(),
        };
        // Every dist stays inside its major line (the anchor's newest is in its own: a newer
        // line is the major layer's); only the blockers' floors are lifted, to their line's.
        let bounded = LayerSpec {
            kind: spec.kind,
            name: spec.name.clone(),
            free: BTreeSet::new(),
        };
        let mut constraints = Self::layer_bounds(&bounded, bounds);
        let installed = &bounds.installed[anchor];
        let requirement = |text: String| {
            Requirement::from_str(&text).expect("a name and a version make a requirement")
        };
        constraints.push(requirement(format!("{anchor}>{installed}")));
        constraints.extend(
            back.iter()
                .map(|b| requirement(format!("{}>={}", b.name, line_floor(&b.installed)))),
        );
        let needed = (None, &lifted);
        let resolution = match self.solve_needing(&[], upgrade, vec![], constraints, needed) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let planned = self.planned(&resolution);
        let plan = self.plan_on(
            PlanKind::Upgrade,
            String::new(),
            &[],
            &planned,
            &[],
            Some(&safe.pins),
        )?;
        let Some(mut plan) = finish_layer(&spec, plan, Some(safe)) else {
            return Ok(None);
        };
        plan.title = cluster_title(anchor, &plan, back);
        Ok(Some(plan))
    }
}

/// "Move tensorflow with what holds it back: tensorflow 2.20.0 -> 2.21.0, tf-keras 2.20.1 ->
/// 2.21.0; takes h5py back 3.16.0 -> 3.14.0 (tensorflow 2.21.0 requires h5py<3.15)".
fn cluster_title(anchor: &PackageName, plan: &Plan, back: &[GoesBack]) -> String {
    let own = |name: &PackageName| plan.layer.as_ref().is_some_and(|l| l.own.contains(name));
    let mut forward = Vec::new();
    let mut backward = Vec::new();
    let mut changes: Vec<_> = plan.changes.iter().filter(|c| own(&c.name)).collect();
    changes.sort_by_key(|c| (&c.name != anchor, c.name.clone()));
    for change in changes {
        let (Some(from), Some(to)) = (&change.from, &change.to) else {
            continue;
        };
        match back.iter().find(|b| b.name == change.name && to < from) {
            Some(b) => backward.push(format!(
                "takes {} back {} -> {to} ({} requires {})",
                b.name,
                b.installed,
                b.by,
                said(&b.requirement)
            )),
            None => forward.push(format!("{} {from} -> {to}", change.name)),
        }
    }
    let mut title = format!(
        "Move {anchor} with what holds it back: {}",
        forward.join(", ")
    );
    for part in backward {
        title.push_str("; ");
        title.push_str(&part);
    }
    title
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::proposal::{Layer, LayerKind};
    use crate::plan::test_plans::{forced, n, r, v};

    /// The title names the requirement that takes a dist back without its marker, which held.
    #[test]
    fn the_title_says_what_takes_a_dist_back_without_its_marker() {
        let mut plan = forced();
        let change = |name: &str, from: &str, to: &str| {
            let mut change = plan.changes[0].clone();
            (change.name, change.from, change.to) = (n(name), Some(v(from)), Some(v(to)));
            change
        };
        plan.changes = vec![
            change("h5py", "3.16.0", "3.14.0"),
            change("tensorflow", "2.20.0", "2.21.0"),
        ];
        plan.layer = Some(Layer {
            kind: LayerKind::Group,
            name: "tensorflow-held-back".to_string(),
            base: Some("safe".to_string()),
            own: vec![n("tensorflow"), n("h5py")],
            moves: vec![n("tensorflow")],
        });
        let back = [GoesBack {
            by: "tensorflow 2.21.0".to_string(),
            name: n("h5py"),
            installed: v("3.16.0"),
            requirement: r("h5py<3.15,>=3.11.0 ; platform_system == 'Linux'"),
        }];
        assert_eq!(
            cluster_title(&n("tensorflow"), &plan, &back),
            "Move tensorflow with what holds it back: tensorflow 2.20.0 -> 2.21.0; takes h5py \
             back 3.16.0 -> 3.14.0 (tensorflow 2.21.0 requires h5py>=3.11.0,<3.15)"
        );
    }
}
