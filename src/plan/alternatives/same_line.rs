//! The newest release of a target on the installed accelerator line.
//!
//! In: the targets (bare, or with a version specifier), the plans found so far and the
//! installed CUDA lines. Out: when every plan that moves a target leaves the installed line
//! (`propose torch` on torch 2.9.1 with its `-cu12` libraries finds only CUDA 13 releases newer;
//! `propose triton==3.6.0` solves to torch 2.11.0 on CUDA 13, though torch 2.10.0 pins triton
//! 3.6.0 too), one plan that moves each target to its newest release staying on that line and
//! meeting its specifier (torch 2.10.0, which still requires the `-cu12` libraries), solved with
//! the whole environment like the request as asked. The switch stays offered beside it; the
//! ranking puts the plan that stays first.

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::{Operator, Version, VersionSpecifier};
use pep508_rs::{PackageName, Requirement, VersionOrUrl};

use super::{ProposeError, Proposer, switches_accelerator};
use crate::metadata::requirement::{above, bounded, pin};
use crate::plan::accelerator::{line_of, name_line};
use crate::plan::planned::{PlannedEnvironment, applies_with};
use crate::plan::proposal::{Plan, PlanKind};
use crate::solve::SolveError;

impl Proposer<'_> {
    /// The plan that keeps the installed accelerator line, when every plan in `plans` that
    /// moves a target leaves it; `None` otherwise, or when no release of a bare target newer
    /// than the installed one stays on the line and solves.
    pub(super) fn same_line(
        &self,
        bounds: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        plans: &[Plan],
    ) -> Result<Option<Plan>, ProposeError> {
        let targets = &self.request.targets;
        let moving: Vec<&Plan> = plans.iter().filter(|p| self.moves_a_target(p)).collect();
        let wanted = !self.request.all
            && !targets.is_empty()
            && !targets
                .iter()
                .any(|t| matches!(t.version_or_url, Some(VersionOrUrl::Url(_))))
            && moving.iter().any(|p| switches_accelerator(p))
            && !moving.iter().any(|p| !switches_accelerator(p));
        let lines = self.installed_lines();
        if !wanted || lines.is_empty() {
            return Ok(None);
        }
        let mut candidates = BTreeMap::new();
        for target in targets {
            let found = self.releases_on_lines_meeting(target, &lines)?;
            if !found.is_empty() {
                candidates.insert(target.name.clone(), found);
            }
        }
        if candidates.is_empty() {
            return self.same_line_with_carriers(bounds, upgrade, &lines);
        }
        for round in 0..RELEASES_TRIED {
            let mut asked: Vec<Requirement> = targets
                .iter()
                .map(|t| match candidates.get(&t.name) {
                    Some(found) => pin(&t.name, &found[round.min(found.len() - 1)]),
                    None => t.clone(),
                })
                .collect();
            asked.extend(bounds.iter().cloned());
            if let Some(plan) = self.same_line_plan(&asked, upgrade, &lines, vec![])? {
                return Ok(Some(plan));
            }
            if candidates.values().all(|found| found.len() <= round + 1) {
                break;
            }
        }
        self.same_line_with_carriers(bounds, upgrade, &lines)
    }

    /// The same-line plan for a target with no line of its own (triton, which torch 2.9.1 pins
    /// `==3.5.1`): the installed dists that carry the line (those requiring a `-cuNN` dist,
    /// torch) free to move up to their newest release on the line (torch 2.10.0), never down,
    /// and the targets to their newest release that fits them (triton 3.6.0). `None` when that
    /// moves no target or still leaves the line.
    fn same_line_with_carriers(
        &self,
        bounds: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        lines: &BTreeSet<u32>,
    ) -> Result<Option<Plan>, ProposeError> {
        let targets = &self.request.targets;
        let markers = &self.inventory.environment.markers;
        let mut moving = upgrade.clone();
        let mut extra = self.floors(targets);
        for dist in &self.inventory.dists {
            let carries = line_of(dist.name(), dist.version()).is_none()
                && !dist.is_unmanaged()
                && !targets.iter().any(|t| &t.name == dist.name())
                && (dist.metadata.requires_dist.iter())
                    .filter(|r| applies_with(r, markers, &[]))
                    .any(|r| name_line(r.name.as_ref()).is_some_and(|l| lines.contains(&l)));
            if !carries {
                continue;
            }
            let found = self.releases_on_lines(dist.name(), lines)?;
            let newest = found.first().unwrap_or(dist.version()).clone();
            let clause =
                VersionSpecifier::from_version(Operator::LessThanEqual, newest.without_local())
                    .expect("<= accepts a version without a local label");
            extra.push(bounded(dist.name(), vec![clause]));
            moving.insert(dist.name().clone());
        }
        if moving.len() == upgrade.len() {
            return Ok(None);
        }
        let mut asked = targets.clone();
        asked.extend(bounds.iter().cloned());
        // Each target must move: left to the preferences, the solver keeps the installed set.
        asked.extend(
            (targets.iter())
                .filter_map(|t| self.inventory.get(&t.name))
                .map(|d| above(d.name(), d.version())),
        );
        self.same_line_plan(&asked, &moving, lines, extra)
    }

    /// One same-line solve (under `extra` constraints) and its plan: `None` when it has no
    /// solution, moves no target or still leaves the line. The title names the installed dists
    /// it moves beside the targets.
    fn same_line_plan(
        &self,
        asked: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        lines: &BTreeSet<u32>,
        extra: Vec<Requirement>,
    ) -> Result<Option<Plan>, ProposeError> {
        let resolution = match self.solve_with(asked, upgrade, vec![], extra) {
            Ok(resolution) => resolution,
            Err(SolveError::NoSolution(_)) => return Ok(None),
            Err(err) => return Err(err.into()),
        };
        let planned = self.planned(&resolution);
        let targets = &self.request.targets;
        let moves: Vec<String> = targets
            .iter()
            .filter_map(|t| {
                let from = self.inventory.get(&t.name)?.version();
                let to = &planned.dists.get(&t.name)?.version;
                (to != from).then(|| format!("{} {from} -> {to}", t.name))
            })
            .collect();
        // A solve that leaves the line is no answer here: known from its versions, before the
        // plan's evidence is read.
        if moves.is_empty() || self.leaves_line(&planned) {
            return Ok(None);
        }
        let on = line_names(lines);
        let which = if targets.iter().all(|t| t.version_or_url.is_none()) {
            format!("the newest release on {on}")
        } else {
            format!("as asked, on {on}")
        };
        let mut title = format!("Stay on {on}: {} ({which})", moves.join(", "));
        let carried: Vec<String> = upgrade
            .iter()
            .filter(|name| !targets.iter().any(|t| &t.name == *name))
            .filter_map(|name| {
                let from = self.inventory.get(name)?.version();
                let to = &planned.dists.get(name)?.version;
                (to != from).then(|| format!("{name} {from} -> {to}"))
            })
            .collect();
        if !carried.is_empty() && !self.request.all {
            title.push_str(&format!(", moving {}", carried.join(", ")));
        }
        let mut plan = self.plan(PlanKind::Upgrade, title, targets, &planned, &[])?;
        if switches_accelerator(&plan) {
            return Ok(None);
        }
        super::as_asked::as_requested(&mut plan, targets);
        Ok(Some(plan))
    }

    /// Whether the plan of `planned` would leave the installed accelerator line (its
    /// accelerator-line-switch factor), known from its versions before the plan is built.
    pub(in crate::plan) fn leaves_line(&self, planned: &PlannedEnvironment) -> bool {
        self.builder.leaves_line(planned)
    }

    /// The CUDA lines of the installed dists.
    pub(crate) fn installed_lines(&self) -> BTreeSet<u32> {
        self.inventory
            .dists
            .iter()
            .filter_map(|d| line_of(d.name(), d.version()))
            .collect()
    }

    /// The releases of `name` newer than the installed one whose own line (its local label) and
    /// whose requirements' lines (`nvidia-cudnn-cu12`) are all among `lines`, newest first, a
    /// few at most; releases whose metadata cannot be read are passed over.
    pub(crate) fn releases_on_lines(
        &self,
        name: &PackageName,
        lines: &BTreeSet<u32>,
    ) -> Result<Vec<Version>, ProposeError> {
        self.releases_on_lines_where(name, lines, |_| true)
    }

    /// [`Self::releases_on_lines`] for a target: only the releases its version specifier
    /// allows (`triton==3.6.0`: 3.6.0 or none), all of them for a bare target.
    fn releases_on_lines_meeting(
        &self,
        target: &Requirement,
        lines: &BTreeSet<u32>,
    ) -> Result<Vec<Version>, ProposeError> {
        self.releases_on_lines_where(&target.name, lines, |version| {
            match &target.version_or_url {
                Some(VersionOrUrl::VersionSpecifier(spec)) => spec.contains(version),
                _ => true,
            }
        })
    }

    /// [`Self::releases_on_lines`], passing over the releases `allowed` rejects.
    fn releases_on_lines_where(
        &self,
        name: &PackageName,
        lines: &BTreeSet<u32>,
        allowed: impl Fn(&Version) -> bool,
    ) -> Result<Vec<Version>, ProposeError> {
        let Some(dist) = self.inventory.get(name).filter(|d| !d.is_unmanaged()) else {
            return Ok(Vec::new());
        };
        let Some(project) = self.evidence.catalog.project(name)? else {
            return Ok(Vec::new());
        };
        let table = self.evidence.catalog.table(name)?;
        let markers = &self.inventory.environment.markers;
        let mut found = Vec::new();
        for version in self.evidence.catalog.usable_versions(&project).iter() {
            if version <= dist.version() || found.len() == RELEASES_TRIED {
                break;
            }
            if version.any_prerelease() || !allowed(version) {
                continue;
            }
            let Ok(metadata) = self
                .evidence
                .catalog
                .release_metadata(name, &table, version)?
            else {
                continue;
            };
            let mut own = line_of(name, version).into_iter().chain(
                metadata
                    .requires_dist
                    .iter()
                    .filter(|r| applies_with(r, markers, &[]))
                    .filter_map(|r| name_line(r.name.as_ref())),
            );
            if own.all(|line| lines.contains(&line)) {
                found.push(version.clone());
            }
        }
        Ok(found)
    }
}

/// `CUDA 12`, `CUDA 12 and 13`.
pub(crate) fn line_names(lines: &BTreeSet<u32>) -> String {
    let numbers: Vec<String> = lines.iter().map(ToString::to_string).collect();
    format!("CUDA {}", numbers.join(" and "))
}

/// How many releases of a target on the installed line are tried, newest first.
const RELEASES_TRIED: usize = 3;
