//! "Can move to" for a dist on an accelerator line that cannot move alone: what `propose`
//! recommends for it as a bare target.
//!
//! In: the report after the alone scan ([`super::check_own_requirements`]), the inventory, the
//! index and its binary policy. Out: for each dist built for a CUDA line (its name, its local
//! label or its toolkit version, or an installed requirement on a dist of a line: `-cuNN`, or
//! `cuda-toolkit[cublas]==13.0.2`) that a newer release exists for but that
//! no release of moves alone (torch 2.9.1 pins `triton==3.5.1`; every newer torch pins another
//! triton), `newest_allowed` becomes the target's version in `propose`'s first plan for the bare
//! name (torch 2.10.0, on the installed CUDA line, with triton 3.6.0), and `moves_with` the
//! other dists that plan changes. The plan is `propose`'s own, not a second copy of its rules.

use std::str::FromStr;
use std::sync::Arc;

use pep440_rs::Operator;
use pep508_rs::{PackageName, Requirement, VersionOrUrl};

use crate::index::{BinaryPolicy, IndexSource};
use crate::inventory::{InstalledDist, Inventory};
use crate::plan::{
    InstalledImports, ProposeRequest, error_chain, line_of, propose_sharing, requirement_line,
    switches_accelerator,
};
use crate::risk::Policy;
use crate::solve::PrereleaseMode;

use super::report::{MovesWith, OutdatedReport};

/// Fill `newest_allowed` and `moves_with` from `propose` for the dists on an accelerator line
/// that the alone scan left without a move. A proposal that fails (a read it needed: the
/// network, a cache `--offline` lacks) claims no move and says why in `not_checked`: never a
/// move that was not planned, and never a "-" that was not checked.
pub(crate) fn check_line_moves(
    report: &mut OutdatedReport,
    inventory: &Inventory,
    index: &dyn IndexSource,
    binary: &BinaryPolicy,
    imports: &Arc<InstalledImports>,
) {
    // The builtin policy, as the alone evidence uses: `outdated` takes no `--policy`.
    let policy = Policy::builtin();
    for status in &mut report.packages {
        let stuck = status.outdated
            && status.not_checked.is_none()
            && status
                .newest_allowed
                .as_ref()
                .is_none_or(|v| *v <= status.installed);
        let Some(dist) = inventory
            .get(&status.name)
            .filter(|d| stuck && on_line(inventory, d))
        else {
            continue;
        };
        let request = ProposeRequest {
            targets: bare(dist.name()).into_iter().collect(),
            all: false,
            layer: None,
            allow_override: false,
            prerelease: PrereleaseMode::default(),
            binary: binary.clone(),
            allow_build: false,
            now: None,
            source: String::new(),
        };
        let proposal = match propose_sharing(index, inventory, &policy, &request, imports) {
            Ok(proposal) => proposal,
            Err(err) => {
                let why = error_chain(&err);
                log::debug!(
                    "{}: the move on its line could not be checked: {why}",
                    dist.name()
                );
                status.not_checked = Some(why);
                continue;
            }
        };
        // A move that leaves the installed accelerator line is never "Can move to".
        let Some(plan) = proposal.plans.first().filter(|p| !switches_accelerator(p)) else {
            continue;
        };
        let Some(to) = plan
            .change(dist.name())
            .and_then(|c| c.to.clone())
            .filter(|to| to > dist.version())
        else {
            continue;
        };
        status.newest_allowed = Some(to);
        status.moves_with = plan
            .changes
            .iter()
            .filter(|c| &c.name != dist.name())
            .map(|c| MovesWith {
                name: c.name.clone(),
                from: c.from.clone(),
                to: c.to.clone(),
            })
            .collect();
    }
}

/// Whether `dist` is built for a CUDA line or requires (markers true here) a dist that is, or
/// such a dist pins it exactly (torch 2.9.1's `triton==3.5.1`: triton moves only with torch).
fn on_line(inventory: &Inventory, dist: &InstalledDist) -> bool {
    carries_line(inventory, dist)
        || inventory.dists.iter().any(|other| {
            carries_line(inventory, other)
                && (other.metadata.requires_dist.iter()).any(|r| {
                    &r.name == dist.name()
                        && r.marker.evaluate(&inventory.environment.markers, &[])
                        && pins_exactly(r)
                })
        })
}

/// Whether `dist` is built for a CUDA line or requires (markers true here) a dist that is
/// ([`requirement_line`]).
fn carries_line(inventory: &Inventory, dist: &InstalledDist) -> bool {
    let markers = &inventory.environment.markers;
    line_of(dist.name(), dist.version()).is_some()
        || (dist.metadata.requires_dist.iter())
            .any(|r| requirement_line(r).is_some() && r.marker.evaluate(markers, &[]))
}

/// Whether `requirement` is `==VERSION` (one clause, no wildcard).
fn pins_exactly(requirement: &Requirement) -> bool {
    match &requirement.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(specs)) => {
            specs.len() == 1 && specs.iter().all(|s| *s.operator() == Operator::Equal)
        }
        _ => false,
    }
}

/// The bare requirement on `name`.
fn bare(name: &PackageName) -> Option<Requirement> {
    Requirement::from_str(name.as_ref()).ok()
}
