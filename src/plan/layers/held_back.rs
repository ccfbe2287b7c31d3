//! The safe layer's held-back lines.
//!
//! In: the safe plan, the other layers' plans and the [`Bounds`]. Out: each held-back line with
//! the newest release the solver would take, the heavy move it needs ([`NeededMove`]), the
//! layer where it moves, and the young release it waits for.

use pep440_rs::Version;
use pep508_rs::PackageName;
use pubgrub::Ranges;

use super::{Bounds, Stacks};
use crate::plan::accelerator::{line_of, name_line};
use crate::plan::alternatives::{ProposeError, Proposer, switches_accelerator};
use crate::plan::proposal::{HeldBack, NeededMove, Plan, Waiting};
use crate::solve::{AcceptingQuery, Among, PrereleaseMode};

impl Proposer<'_> {
    /// The safe layer's held-back lines: a light dist held by a heavy dependent gets the heavy
    /// move it needs; one whose newest release in its line is too young says so; a dist that
    /// moves in another layer's plan names it. Pre-releases the solver would not take are not
    /// "newest".
    pub(super) fn explain_held_back(
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
                // A dist of the line a switch leaves is not moved there (the switch keeps it
                // as installed, unrequired): that layer is no place to see it move.
                let left =
                    (held.planned.as_ref()).is_some_and(|v| line_of(&held.name, v).is_some());
                if held.see.is_none() {
                    held.see = held.needs.iter().find_map(|n| {
                        // The layer that takes the heavy dist as far as needed (the CUDA
                        // switch, not the stack layer that stays on the line), else any that
                        // moves it. Where no release of it accepts the held dist, only a layer
                        // that changes the held dist itself (toward its newest) is named.
                        if n.to.is_none() {
                            return others
                                .iter()
                                .filter_map(|p| p.layer.as_ref())
                                .find(|l| l.own.contains(&held.name))
                                .map(|l| l.name.clone());
                        }
                        let movers = || {
                            others
                                .iter()
                                .filter(|p| moves(p, &n.name) && !(left && switches_accelerator(p)))
                        };
                        movers()
                            .find(|p| {
                                let to = n.to.as_ref();
                                to.is_some_and(|to| p.pins.get(&n.name).is_some_and(|v| v >= to))
                            })
                            .or_else(|| movers().next())
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

    /// A layer plan's held-back lines without those whose newest is a pre-release the solver
    /// would not take (as the safe layer's, [`Self::explain_held_back`]).
    pub(super) fn final_held_back(&self, plan: &mut Plan) -> Result<(), ProposeError> {
        let mut kept = Vec::new();
        for mut held in std::mem::take(&mut plan.held_back) {
            if self.newest_final(&mut held)? {
                kept.push(held);
            }
        }
        plan.held_back = kept;
        Ok(())
    }

    /// Make `held.newest` the newest release the solver would take (a pre-release only under
    /// `--prerelease allow` or when the planned version is one); `false` when that is no newer
    /// than the plan's.
    fn newest_final(&self, held: &mut HeldBack) -> Result<bool, ProposeError> {
        let takes_pre = self.request.prerelease == PrereleaseMode::Allow
            || held.planned.as_ref().is_some_and(Version::any_prerelease);
        if held.newest.any_prerelease() && !takes_pre {
            let Some(newest) = self.newest_final_release(&held.name)? else {
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
            // A newer release that drops the requirement unblocks as well as one that accepts
            // the version; but not for a library of an accelerator line (`nvidia-cublas-cu12`):
            // the dependent drops it by leaving the line (torch 2.15.0 on CUDA 13), which leaves
            // it unrequired, never moved (the switch keeps it as installed). An unsuffixed
            // library (`nvidia-cublas 13.1.0.3`) a newer dependent stops naming is still
            // required through its toolkit (`cuda-toolkit[cublas]`): the name decides.
            let silent = if name_line(held.name.as_ref()).is_some() {
                Vec::new()
            } else {
                found.silent
            };
            out.push(NeededMove {
                name: blocker.dependent.clone(),
                from: blocker.dependent_version.clone(),
                to: found
                    .versions
                    .into_iter()
                    .chain(silent)
                    .filter(|v| v > &blocker.dependent_version)
                    .max(),
                requirement: blocker.requirement.clone(),
            });
        }
        Ok(out)
    }
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
