//! Layered `propose --all`: plans a team can review and roll back one at a time.
//!
//! In: the inventory, the policy's coupled groups and the request's `--layer`. Out: the plans of
//! a layered `--all`, each a complete [`Plan`] with its [`Layer`]:
//!
//! - **safe**: every index-managed dist moves to the newest release inside its major line (for
//!   `0.x`, the first non-zero segment: [`line_floor`](crate::metadata::version_line::line_floor));
//!   every *heavy* dist (an installed member of a coupled group of the policy) stays where it
//!   is. A light dist whose newest release would drag a heavy one along is held back, with the
//!   heavy move it needs ([`NeededMove`]);
//! - **group**, one per *stack*: the safe layer's bounds, with one stack's members free (the
//!   torch stack: torch, every member of a coupled group with torch, triton, the CUDA libraries
//!   under `ml-cuda`; the jax stack). The solver keeps each group's version correspondence, so a
//!   stack moves together or not at all;
//! - **held back**, one per light dist the safe layer holds back only because its newest release
//!   takes another light dist back (tensorflow 2.21.0's `h5py<3.15` under h5py 3.16.0): that
//!   dist moved with the held-back ones, the other taken back, as a group plan
//!   (`tensorflow-held-back`, [`held_cluster`]);
//! - **major**, one per light dist whose newest release is in a newer major line: the safe
//!   layer's bounds with that one dist's line bound lifted;
//! - **everything**: the unlayered `--all` (every dist, every line, at once).
//!
//! A group or major plan is built *on top of* the safe layer: its pins and commands hold the safe
//! layer's versions too, its [`Layer::own`] names what it adds, and its risk scores only those.
//! A layer that changes nothing beyond its base is not offered; the safe layer's held-back lines
//! say why (and name the plan where a held-back dist moves).
//!
//! Here: the stacks, what every layer starts from and the order of the layers. The parts, each
//! an `impl` of the proposer: one layer's bounds, solve and plan (`solve`), the safe layer kept
//! free of module clashes and of the breaks its own evidence predicts (`safe`), the group layer
//! that keeps the installed CUDA line beside one that leaves it (`same_line`), and the safe
//! layer's held-back lines (`held_back`), and a layer (any, `everything` included) whose planned
//! release raises on import beside it solved again with what its own test implies
//! (`import_tests`).

mod held_back;
mod held_cluster;
mod import_tests;
mod safe;
mod same_line;
mod solve;

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::alternatives::{ProposeError, Proposer};
use super::proposal::{LayerChoice, LayerKind, Plan};
use crate::inventory::Inventory;
use crate::metadata::version_line::next_line;
use crate::risk::Policy;

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
    /// breaks a dependent no release fixes inside the layer, each with those dependents: every
    /// layer that frees neither keeps them there too (the layer that frees one moves them).
    held: BTreeMap<PackageName, BTreeSet<PackageName>>,
}

/// One layer to solve: what is free of the safe layer's bounds.
#[derive(Clone)]
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
            held: BTreeMap::new(),
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
        let safe = self.safe_without_breaks(&safe_spec, &mut bounds, upgrade, safe)?;
        // A planned release that raises on import beside the layer (see `import_tests`).
        let mut safe = self.safe_tested(&safe_spec, &bounds, upgrade, safe)?;
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
                LayerKind::Group => {
                    groups.extend(self.with_same_line(spec, plan, &bounds, upgrade, &safe)?);
                }
                _ => majors.extend(plan),
            }
        }
        groups.extend(self.held_cluster_layers(&safe, &bounds, upgrade)?);
        for plan in groups.iter_mut().chain(&mut majors) {
            self.final_held_back(plan)?;
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

    /// `name`'s newest usable final release (`None`: not on the index, or only pre-releases).
    pub(super) fn newest_final_release(
        &self,
        name: &PackageName,
    ) -> Result<Option<Version>, ProposeError> {
        let Some(project) = self.evidence.catalog.project(name)? else {
            return Ok(None);
        };
        Ok(self
            .evidence
            .catalog
            .usable_versions(&project)
            .iter()
            .find(|v| !v.any_prerelease())
            .cloned())
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
            let now = safe.pins.get(name).unwrap_or(version);
            let newest = self.newest_final_release(name)?;
            if newest.is_some_and(|newest| crosses_line(now, &newest)) {
                out.push(name.clone());
            }
        }
        Ok(out)
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
