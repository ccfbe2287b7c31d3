//! The whole-environment solves every alternative runs.
//!
//! In: the inventory (once, as [`WholeEnvironment`]), then per solve the targets, the names
//! free to move, the overrides and extra constraints (a layer's bounds, the floors). Out: the
//! solver's [`Resolution`], and that resolution as a [`PlannedEnvironment`] for the builder.

use std::collections::{BTreeMap, BTreeSet};

use pep508_rs::{PackageName, Requirement, VersionOrUrl};

use super::{ProposeError, Proposer};
use crate::inventory::Inventory;
use crate::metadata::requirement::{at_least, bare, pin};
use crate::plan::planned::{PlanDist, PlannedEnvironment};
use crate::solve::{
    self, InstalledCandidate, Override, Resolution, ResolvedSource, SolveError, SolveRequest,
};

/// What every whole-environment solve of a proposal starts from, built once: the root
/// requirements (every installed dist: index-managed ones by name, the others pinned), the
/// installed versions as preferences, and under `--all` the floors (each dist at or above its
/// installed version).
pub(super) struct WholeEnvironment {
    pub(super) requirements: Vec<Requirement>,
    pub(super) preferences: BTreeMap<PackageName, InstalledCandidate>,
    pub(super) floors: Vec<Requirement>,
}

impl WholeEnvironment {
    pub(super) fn new(inventory: &Inventory, all: bool) -> Self {
        let mut requirements = Vec::new();
        let mut preferences = BTreeMap::new();
        let mut floors = Vec::new();
        for dist in &inventory.dists {
            if preferences.contains_key(dist.name()) {
                continue; // the first copy of a name wins
            }
            let requirement = if dist.is_unmanaged() {
                pin(dist.name(), dist.version())
            } else {
                bare(dist.name())
            };
            requirements.push(requirement);
            preferences.insert(dist.name().clone(), InstalledCandidate::from(dist));
        }
        // `--all` moves every dist up, never down: each stays at or above its installed
        // version (the installed set itself satisfies that, so the constraint never makes a
        // solvable request unsolvable; it stops the solver from trading a torch downgrade for
        // a newer nvidia-* wheel). A dist an installed requirement already excludes (docutils
        // 0.23.1 forced under sphinx 7.2.6's `docutils<0.21`) has no floor: the installed set
        // is no solution there, and the repair may take it back.
        if all {
            let excluded = excluded_by_installed(inventory);
            floors = preferences
                .keys()
                .filter_map(|name| inventory.get(name))
                .filter(|dist| !dist.is_unmanaged() && !excluded.contains(dist.name()))
                .map(|dist| at_least(dist.name(), dist.version()))
                .collect();
        }
        WholeEnvironment {
            requirements,
            preferences,
            floors,
        }
    }
}

/// The installed dists whose installed version an installed requirement excludes (`planner
/// check`'s version mismatches).
fn excluded_by_installed(inventory: &Inventory) -> BTreeSet<PackageName> {
    crate::inventory::check::check(inventory)
        .findings
        .into_iter()
        .filter_map(|finding| match finding {
            crate::inventory::check::Finding::VersionMismatch { installed, .. } => {
                Some(installed.name)
            }
            _ => None,
        })
        .collect()
}

impl Proposer<'_> {
    /// One whole-environment solve.
    pub(super) fn solve(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        overrides: Vec<Override>,
    ) -> Result<Resolution, SolveError> {
        self.solve_with(targets, upgrade, overrides, vec![])
    }

    /// One whole-environment solve with `extra` constraints (a layer's bounds).
    pub(in crate::plan) fn solve_with(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        overrides: Vec<Override>,
        extra: Vec<Requirement>,
    ) -> Result<Resolution, SolveError> {
        self.solve_needing(targets, upgrade, overrides, extra, (None, &BTreeSet::new()))
    }

    /// [`Self::solve_with`] where `needed`'s requirement among `targets` is the request's own
    /// (one it implies, not one the installed environment makes), in the solver's words too,
    /// and the `lifted` dists may go below their installed version (`--all`'s floors lifted).
    pub(in crate::plan) fn solve_needing(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        overrides: Vec<Override>,
        extra: Vec<Requirement>,
        needed: (Option<&PackageName>, &BTreeSet<PackageName>),
    ) -> Result<Resolution, SolveError> {
        let request = self.whole_request(targets, upgrade, overrides, extra, needed);
        solve::solve_on(self.core, &request)
    }

    /// [`Self::solve_with`] with `implied` among the targets: requirements neither the user nor
    /// the index makes but a release's own file (what its version test needs on import), each
    /// worded in the solver's explanation by its clause, never "you require".
    pub(in crate::plan) fn solve_implied(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        extra: Vec<Requirement>,
        implied: &[(Requirement, String)],
    ) -> Result<Resolution, SolveError> {
        let mut all = targets.to_vec();
        all.extend(implied.iter().map(|(r, _)| r.clone()));
        let mut request =
            self.whole_request(&all, upgrade, vec![], extra, (None, &BTreeSet::new()));
        // Not "installed" either: the implied names are the request's own.
        request
            .installed_roots
            .retain(|name| !implied.iter().any(|(r, _)| &r.name == name));
        request.root_origins.extend(implied.iter().cloned());
        solve::solve_on(self.core, &request)
    }

    /// The whole-environment request of [`Self::solve_needing`].
    fn whole_request(
        &self,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        overrides: Vec<Override>,
        extra: Vec<Requirement>,
        (needed, lifted): (Option<&PackageName>, &BTreeSet<PackageName>),
    ) -> SolveRequest {
        let mut requirements = self.whole.requirements.clone();
        requirements.extend(targets.iter().cloned());
        let mut constraints: Vec<Requirement> = self
            .whole
            .floors
            .iter()
            .filter(|f| !lifted.contains(&f.name))
            .cloned()
            .collect();
        constraints.extend(extra);
        let mut asked: BTreeSet<&PackageName> =
            self.request.targets.iter().map(|t| &t.name).collect();
        asked.extend(needed);
        let installed_roots = requirements
            .iter()
            .map(|r| &r.name)
            .filter(|name| !asked.contains(name))
            .cloned()
            .collect();
        SolveRequest {
            requirements,
            constraints,
            overrides,
            preferences: self.whole.preferences.clone(),
            upgrade: upgrade.clone(),
            prerelease: self.request.prerelease,
            binary: self.request.binary.clone(),
            limits: Default::default(),
            correspondences: self.correspondences.clone(),
            installed_roots,
            root_origins: Vec::new(),
        }
    }

    /// A solve that widens what moves: on "no solution", the index-managed installed dists the
    /// failure involves join `moving` and the request is solved again, a few rounds at most.
    /// `None` when a failure involves nothing more to move, or the rounds run out.
    pub(in crate::plan) fn solve_widening(
        &self,
        targets: &[Requirement],
        mut moving: BTreeSet<PackageName>,
        floors: &[Requirement],
    ) -> Result<Option<Resolution>, ProposeError> {
        for _round in 0..WIDENING_ROUNDS {
            match self.solve_with(targets, &moving, vec![], floors.to_vec()) {
                Ok(resolution) => return Ok(Some(resolution)),
                Err(SolveError::NoSolution(no_solution)) => {
                    let before = moving.len();
                    moving.extend(
                        no_solution
                            .involved
                            .iter()
                            .filter(|name| {
                                self.inventory
                                    .get(name)
                                    .is_some_and(|dist| !dist.is_unmanaged())
                            })
                            .cloned(),
                    );
                    if moving.len() == before {
                        return Ok(None);
                    }
                }
                Err(err) => return Err(err.into()),
            }
        }
        Ok(None)
    }

    /// Every index-managed installed dist at or above its installed version, but the targets
    /// (a target may ask for less).
    pub(in crate::plan) fn floors(&self, targets: &[Requirement]) -> Vec<Requirement> {
        let asked: BTreeSet<&PackageName> = targets.iter().map(|t| &t.name).collect();
        self.whole
            .preferences
            .keys()
            .filter(|name| !asked.contains(name))
            .filter_map(|name| self.inventory.get(name))
            .filter(|dist| !dist.is_unmanaged())
            .map(|dist| at_least(dist.name(), dist.version()))
            .collect()
    }

    /// A resolution as a planned environment: each release's requirements, file facts and wheel
    /// kind come with the resolution (no index reads here).
    pub(in crate::plan) fn planned(&self, resolution: &Resolution) -> PlannedEnvironment {
        let dists: BTreeMap<PackageName, PlanDist> = resolution
            .packages
            .iter()
            .map(|(name, resolved)| {
                let file = match &resolved.source {
                    ResolvedSource::Index { file } => file.as_deref(),
                    ResolvedSource::Installed => None,
                };
                let dist = PlanDist {
                    version: resolved.version.clone(),
                    requires_dist: resolved.metadata.requires_dist.clone(),
                    yanked: file.and_then(|f| f.yanked.clone()),
                    upload_time: file.and_then(|f| f.upload_time),
                    platform_specific: resolved.platform_specific,
                    extras: resolved.extras.iter().cloned().collect(),
                };
                (name.clone(), dist)
            })
            .collect();
        // Only edges between dists break an installed dist's requirement; a replaced root
        // requirement (the plan's own target) is not a broken edge, and neither is an edge the
        // chosen version satisfies anyway (forcing urllib3 2.2.3 over `urllib3>=1.26,<3`).
        let overridden = resolution
            .overridden
            .iter()
            .filter(|edge| {
                let chosen = dists
                    .get(&edge.original.name)
                    .map(|d: &PlanDist| &d.version);
                let satisfied = match (&edge.original.version_or_url, chosen) {
                    (_, None) => false,
                    (None, Some(_)) => true,
                    (Some(VersionOrUrl::VersionSpecifier(spec)), Some(v)) => spec.contains(v),
                    (Some(VersionOrUrl::Url(_)), Some(_)) => false,
                };
                edge.dependent.dist().is_some() && !satisfied
            })
            .cloned()
            .collect();
        PlannedEnvironment { dists, overridden }
    }
}

/// How many solves a widening search tries at most.
const WIDENING_ROUNDS: usize = 4;
