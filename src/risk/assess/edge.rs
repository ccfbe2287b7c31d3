//! The factors of one broken `Requires-Dist` edge ([`BrokenEdgeFacts`]) in, pushed onto the
//! plan's [`Factors`] out: how strict the violated clause is and how far outside it the forced
//! version lands, whether the two sides are coupled, whether upstream moved, whether the bound
//! was defensive; or, for an edge broken before the plan, the break it keeps.

use pep508_rs::VersionOrUrl;

use super::super::policy::Policy;
use super::super::risk_score::FactorKind;
use super::Factors;
use super::distance::{Distance, pin_strictness};
use super::facts::{BrokenEdgeFacts, Upstream};
use super::text::requirement_text;

/// A broken edge: how strict the violated clause is (the strictest one decides), and how far
/// outside it the forced version lands.
pub(super) fn pin_factors(edge: &BrokenEdgeFacts, policy: &Policy, factors: &mut Factors) {
    let forced = &edge.requirement.name;
    let mut worst: Option<(i32, FactorKind, Option<Distance>, String)> = None;
    if let Some(VersionOrUrl::VersionSpecifier(specifiers)) = &edge.requirement.version_or_url {
        for clause in specifiers.iter() {
            if clause.contains(&edge.forced_version) {
                continue;
            }
            let (kind, distance) = pin_strictness(clause, &edge.forced_version);
            let points = policy.weight(kind);
            if worst.as_ref().is_none_or(|(p, ..)| points > *p) {
                worst = Some((points, kind, distance, clause.to_string()));
            }
        }
    }
    let Some((points, kind, distance, clause)) = worst else {
        return;
    };
    let edge_text = format!(
        "{} {} requires {}, forced to {}",
        edge.dependent,
        edge.dependent_version,
        requirement_text(&edge.requirement),
        edge.forced_version
    );
    factors.push(
        kind,
        points,
        forced,
        format!("{edge_text}: breaks `{clause}`"),
    );
    if let Some(distance) = distance {
        factors.weighed(
            policy,
            distance.kind(),
            forced,
            format!(
                "{} is a {} step outside `{clause}`",
                edge.forced_version,
                distance.word()
            ),
        );
    }
}

/// A broken edge between coupled packages: declared by the policy, or else both sides ship
/// compiled code.
pub(super) fn coupling_factor(edge: &BrokenEdgeFacts, policy: &Policy, factors: &mut Factors) {
    let forced = &edge.requirement.name;
    let group = policy.coupled_pair(&edge.dependent, forced).or_else(|| {
        policy.coupled.iter().find(|group| {
            group.compiled_dependents && group.contains(forced) && edge.dependent_platform_specific
        })
    });
    if let Some(group) = group {
        let reason = group
            .reason
            .as_deref()
            .unwrap_or("declared coupled by the policy");
        factors.weighed(
            policy,
            FactorKind::CoupledPolicy,
            forced,
            format!("{} and {forced} are coupled: {reason}", edge.dependent),
        );
    } else if edge.dependent_platform_specific && edge.forced_platform_specific {
        factors.weighed(
            policy,
            FactorKind::CoupledBinary,
            forced,
            format!(
                "{} and {forced} both ship platform-specific wheels",
                edge.dependent
            ),
        );
    }
}

/// A broken edge that some release of the dependent accepts (upstream moved), or none does.
pub(super) fn upstream_factor(edge: &BrokenEdgeFacts, policy: &Policy, factors: &mut Factors) {
    let forced = &edge.requirement.name;
    match &edge.upstream {
        Upstream::Accepts { versions } => {
            let list = versions
                .iter()
                .take(3)
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            factors.weighed(
                policy,
                FactorKind::UpstreamAccepts,
                forced,
                format!(
                    "upstream moved: {} {list} accept{} {forced} {}",
                    edge.dependent,
                    if versions.len() == 1 { "s" } else { "" },
                    edge.forced_version
                ),
            );
        }
        Upstream::Never => factors.weighed(
            policy,
            FactorKind::UpstreamNever,
            forced,
            format!(
                "no release of {} on the index accepts {forced} {}",
                edge.dependent, edge.forced_version
            ),
        ),
        Upstream::Unknown => {}
    }
}

/// A broken edge whose violated upper bound was declared before any release it excludes
/// existed (a defensive guess, not a known incompatibility).
pub(super) fn defensive_bound_factor(
    edge: &BrokenEdgeFacts,
    policy: &Policy,
    factors: &mut Factors,
) {
    if !edge.defensive_bound {
        return;
    }
    let forced = &edge.requirement.name;
    factors.weighed(
        policy,
        FactorKind::DefensiveBound,
        forced,
        format!(
            "{} {} declared `{}` before any {forced} release it excludes existed",
            edge.dependent,
            edge.dependent_version,
            requirement_text(&edge.requirement)
        ),
    );
}

/// An edge broken before the plan that the plan keeps: the dependent runs against a release it
/// declares it does not support, now and after the plan. Scored as the break it is, not as an
/// override the plan makes (no discount for a defensive bound, no credit for upstream).
pub(super) fn kept_edge_factor(edge: &BrokenEdgeFacts, policy: &Policy, factors: &mut Factors) {
    factors.weighed(
        policy,
        FactorKind::KeptBrokenEdge,
        &edge.requirement.name,
        format!(
            "{} {} requires {}, but {} {} is installed and the plan keeps it: broken before \
             the plan, still broken after it",
            edge.dependent,
            edge.dependent_version,
            requirement_text(&edge.requirement),
            edge.requirement.name,
            edge.forced_version
        ),
    );
}
