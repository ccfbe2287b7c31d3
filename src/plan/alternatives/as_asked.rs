//! The request as asked, and the forward move of what holds a bare target back.
//!
//! In: the targets, the policy's coupled groups and the as-asked plan. Out: the bounds the
//! as-asked solve keeps (coupled groups no bare target is in stay where they are), the installed
//! dists that hold a bare target back, and the plan that moves them forward (newest release
//! line first, a few at most).

use std::collections::{BTreeMap, BTreeSet};

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::{ProposeError, Proposer};
use crate::metadata::requirement::{above, at_least, pin};
use crate::plan::proposal::{Blocker, Plan, PlanKind, Reason};
use crate::risk::Policy;

impl Proposer<'_> {
    /// What the request as asked is solved within, beside the whole environment: for bare
    /// targets (names without a version, "the newest that fits"), the installed members of
    /// coupled groups no target is in stay where they are (`propose setuptools` never moves the
    /// torch stack; `propose torch` may; a dist also in a target's group moves with it, as triton
    /// and the `nvidia-*` libraries do with torch under `ml-cuda`). Other dists may still move either way, as the request
    /// needs (`propose celery` takes python-dateutil back to the version celery pins).
    pub(super) fn as_asked_bounds(
        &self,
        policy: &Policy,
        targets: &[Requirement],
    ) -> Vec<Requirement> {
        if self.request.all || targets.iter().any(|t| t.version_or_url.is_some()) {
            return Vec::new();
        }
        self.stack_members(policy, targets, false)
            .filter(|d| !super::same_group(policy, d.name(), targets))
            .map(|d| pin(d.name(), d.version()))
            .collect()
    }

    /// The installed, index-managed members of the coupled groups (not `compiled-dependents`
    /// ones) that contain a target (`with_target`) or contain none.
    fn stack_members<'s>(
        &'s self,
        policy: &'s Policy,
        targets: &'s [Requirement],
        with_target: bool,
    ) -> impl Iterator<Item = &'s crate::inventory::InstalledDist> + 's {
        policy
            .coupled
            .iter()
            .filter(move |g| {
                !g.compiled_dependents && targets.iter().any(|t| g.contains(&t.name)) == with_target
            })
            .flat_map(move |group| {
                self.inventory
                    .dists
                    .iter()
                    .filter(move |d| !d.is_unmanaged() && group.contains(d.name()))
            })
    }

    /// The installed dists that hold a bare target of `plan` below its newest release (what a
    /// move-the-blockers search can move forward).
    pub(super) fn held_by_installed(&self, targets: &[Requirement], plan: &Plan) -> Vec<Blocker> {
        if self.request.all {
            return Vec::new();
        }
        plan.held_back
            .iter()
            .filter(|h| {
                targets
                    .iter()
                    .any(|t| t.name == h.name && t.version_or_url.is_none())
            })
            .flat_map(|h| h.blockers.iter().cloned())
            .filter(|b| {
                self.inventory
                    .get(&b.dependent)
                    .is_some_and(|d| !d.is_unmanaged())
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// Move forward what holds bare targets back: each bare target above its installed version
    /// (its newest release line first, then older lines, a few at most), the blockers and the
    /// installed members of the target's coupled groups free to move (`propose torch` moves
    /// torch, torchvision and torchaudio together). When nothing moves with everything else
    /// kept at or above its version, the same tiers once more letting other dists go back, as
    /// long as every blocker moves up (tensorflow 2.21.0 takes tf-keras to 2.21.0 and h5py back
    /// to 3.14.0, which its `h5py<3.15` requires); the title names what goes back.
    pub(super) fn move_held_back(
        &self,
        policy: &Policy,
        targets: &[Requirement],
        upgrade: &BTreeSet<PackageName>,
        held: &[Blocker],
    ) -> Result<Option<Plan>, ProposeError> {
        let mut moving = upgrade.clone();
        moving.extend(
            self.stack_members(policy, targets, true)
                .map(|d| d.name().clone()),
        );
        let tiers = self.forward_floors(targets)?;
        for forward in [true, false] {
            for floors in &tiers {
                let Some(mut plan) = self.move_blockers_within(floors, &moving, held, forward)?
                else {
                    continue;
                };
                if plan.kind == PlanKind::DowngradeBlockers {
                    continue;
                }
                plan.targets = targets.to_vec();
                as_requested(&mut plan, targets);
                return Ok(Some(plan));
            }
        }
        Ok(None)
    }

    /// The requirements a held-back search tries, most ambitious first: each bare target at or
    /// above the first release of one of its newer lines (newest line first, three at most),
    /// then only above its installed version.
    fn forward_floors(
        &self,
        targets: &[Requirement],
    ) -> Result<Vec<Vec<Requirement>>, ProposeError> {
        let mut tiers: Vec<Vec<Requirement>> = vec![Vec::new(); LINES_TRIED + 1];
        for target in targets {
            let installed = match (&target.version_or_url, self.inventory.get(&target.name)) {
                (None, Some(dist)) if !dist.is_unmanaged() => {
                    dist.version().clone().without_local()
                }
                _ => {
                    tiers.iter_mut().for_each(|t| t.push(target.clone()));
                    continue;
                }
            };
            let lines = self.newer_lines(&target.name, &installed)?;
            for (i, tier) in tiers.iter_mut().enumerate() {
                tier.push(match lines.get(i) {
                    Some(first) if i < LINES_TRIED => at_least(&target.name, first),
                    _ => above(&target.name, &installed),
                });
            }
        }
        tiers.dedup();
        Ok(tiers)
    }

    /// The first release of each `major.minor` line newer than `installed`, newest line first.
    fn newer_lines(
        &self,
        name: &PackageName,
        installed: &Version,
    ) -> Result<Vec<Version>, ProposeError> {
        let Some(project) = self.evidence.catalog.project(name)? else {
            return Ok(Vec::new());
        };
        let mut lines: BTreeMap<(u64, u64), Version> = BTreeMap::new();
        for v in self
            .evidence
            .catalog
            .usable_versions(&project)
            .iter()
            .filter(|v| *v > installed)
        {
            let key = (
                v.release().first().copied().unwrap_or(0),
                v.release().get(1).copied().unwrap_or(0),
            );
            lines
                .entry(key)
                .and_modify(|first| {
                    if v < first {
                        *first = v.clone();
                    }
                })
                .or_insert_with(|| v.clone());
        }
        Ok(lines.into_values().rev().collect())
    }

    /// Whether `plan` changes the version of a target.
    pub(super) fn moves_a_target(&self, plan: &Plan) -> bool {
        plan.changes
            .iter()
            .any(|c| self.request.targets.iter().any(|t| t.name == c.name) && c.from != c.to)
    }

    /// Whether `plan` installs a target or moves one up.
    pub(in crate::plan) fn moves_a_target_up(&self, plan: &Plan) -> bool {
        plan.changes.iter().any(|c| {
            self.request.targets.iter().any(|t| t.name == c.name)
                && match (&c.from, &c.to) {
                    (None, Some(_)) => true,
                    (Some(from), Some(to)) => to > from,
                    _ => false,
                }
        })
    }
}

/// Word a plan's reasons with the targets as the user wrote them (a search that asked the
/// solver for more, `torch>=2.15.0` for `torch`, never shows its own words as the request).
pub(super) fn as_requested(plan: &mut Plan, targets: &[Requirement]) {
    for reason in plan.changes.iter_mut().flat_map(|c| c.reasons.iter_mut()) {
        let (Reason::Requested { requirement }
        | Reason::Unblocks {
            target: requirement,
            ..
        }) = reason
        else {
            continue;
        };
        if let Some(asked) = targets.iter().find(|t| t.name == requirement.name) {
            *requirement = asked.clone();
        }
    }
}

/// How many newer release lines of a held-back bare target are tried, newest first.
const LINES_TRIED: usize = 3;
