//! [`assess`]: typed facts about a plan in, an itemized [`RiskScore`] out.
//!
//! [`facts`] holds what comes in ([`PlanFacts`]); [`edge`] scores each broken edge of a forced
//! override, [`change`] each changed dist, [`group`] the plan as a whole (coupled stacks,
//! accelerator switches, lockstep dedup, the corpus evidence each factor cites); [`distance`]
//! measures how far a version lands from a bound; [`text`] words the details.

mod change;
mod distance;
mod edge;
mod facts;
mod group;
#[cfg(test)]
mod tests;
mod text;

pub(crate) use change::abi_citations;
pub(crate) use distance::pin_strictness;
pub use facts::Upstream;
pub(crate) use facts::{
    AcceleratorSwitch, BrokenEdgeFacts, ChangeFacts, DeclaredCoupling, Dependents, LineKind,
    PlanFacts,
};
pub(crate) use text::requirement_text;

use pep508_rs::PackageName;

use super::policy::Policy;
use super::risk_score::{Citation, FactorKind, RiskFactor, RiskScore};
use change::{
    abi_break_factor, call_time_factor, dependents_factors, direction_factor, distance_back_factor,
    missing_import_factor, module_clash_factor, planned_import_factor, predates_major_factor,
    provenance_factor, removal_factor, yanked_factor, young_release_factor, young_requested,
};
use edge::{
    coupling_factor, defensive_bound_factor, kept_edge_factor, pin_factors, upstream_factor,
};
use group::{
    accelerator_factor, cite_evidence, coupled_stack_factors, declared_coupling_factor,
    lockstep_dedup,
};

/// The factors found so far; a factor worth no points is not listed.
#[derive(Default)]
struct Factors(Vec<RiskFactor>);

impl Factors {
    fn push(&mut self, kind: FactorKind, points: i32, package: &PackageName, detail: String) {
        if points != 0 {
            self.0.push(RiskFactor {
                kind,
                points,
                package: package.to_string(),
                detail,
                citations: Vec::new(),
            });
        }
    }

    /// The factor of `kind` at the policy's weight.
    fn weighed(
        &mut self,
        policy: &Policy,
        kind: FactorKind,
        package: &PackageName,
        detail: String,
    ) {
        self.push(kind, policy.weight(kind), package, detail);
    }

    /// [`Factors::weighed`], citing the lines that show it (a file and line a user can open).
    fn weighed_cited(
        &mut self,
        policy: &Policy,
        kind: FactorKind,
        package: &PackageName,
        detail: String,
        citations: &[Citation],
    ) {
        let before = self.0.len();
        self.weighed(policy, kind, package, detail);
        if let Some(factor) = self.0.get_mut(before) {
            factor.citations = citations.to_vec();
        }
    }
}

/// Score a plan: the broken edges (sorted by dependent, then package), then the changes (sorted
/// by name), then the coupled groups that move; each factor itemized in that order.
pub(crate) fn assess(facts: &PlanFacts, policy: &Policy) -> RiskScore {
    let mut factors = Factors::default();
    let mut edges: Vec<&BrokenEdgeFacts> = facts.broken_edges.iter().collect();
    edges.sort_by(|a, b| {
        (&a.dependent, &a.requirement.name).cmp(&(&b.dependent, &b.requirement.name))
    });
    for edge in edges {
        if edge.kept {
            kept_edge_factor(edge, policy, &mut factors);
            continue;
        }
        pin_factors(edge, policy, &mut factors);
        coupling_factor(edge, policy, &mut factors);
        upstream_factor(edge, policy, &mut factors);
        defensive_bound_factor(edge, policy, &mut factors);
    }
    let lockstep = lockstep_dedup(&facts.changes, policy);
    let mut changes: Vec<&ChangeFacts> = lockstep.iter().collect();
    changes.sort_by(|a, b| a.name.cmp(&b.name));
    let young = young_requested(&changes, facts.now, policy);
    let mut major_points = 0;
    let asked_back = changes.iter().any(|c| c.requested && goes_back(c));
    for change in &changes {
        if let Some(to) = &change.to {
            yanked_factor(change, to, policy, &mut factors);
            if young
                .first()
                .is_some_and(|(first, ..)| first.name == change.name)
            {
                young_release_factor(&young, policy, &mut factors);
            }
        }
        let mut risky = change.forced;
        if let (Some(from), Some(to)) = (&change.from, &change.to) {
            risky |= provenance_factor(change, from, to, policy, &mut factors);
            risky |= direction_factor(change, from, to, policy, &mut major_points, &mut factors);
            distance_back_factor(change, (from, to), asked_back, policy, &mut factors);
        }
        risky |= removal_factor(change, policy, &mut factors);
        if let (Some(from), Some(to)) = (&change.from, &change.to) {
            risky |= abi_break_factor(change, from, to, policy, &mut factors);
            risky |= predates_major_factor(change, to, policy, &mut factors);
        }
        risky |= missing_import_factor(change, policy, &mut factors);
        risky |= call_time_factor(change, policy, &mut factors);
        risky |= module_clash_factor(change, policy, &mut factors);
        risky |= planned_import_factor(change, policy, &mut factors);
        // Dependents weigh only where the change is outside what they declared they accept
        // (a forced version, a local/unmanaged switch, a major jump, a downgrade, a removal):
        // an ordinary upgrade inside every dependent's range is what they asked for.
        if risky {
            dependents_factors(change, policy, &mut factors);
        }
    }
    coupled_stack_factors(&changes, policy, &mut factors);
    for switch in &facts.accelerator_switches {
        accelerator_factor(switch, policy, &mut factors);
    }
    for coupling in &facts.declared_couplings {
        declared_coupling_factor(coupling, policy, &mut factors);
    }
    cite_evidence(policy, &mut factors);

    let total: i32 = factors.0.iter().map(|f| f.points).sum();
    let score = total.clamp(0, 100) as u8;
    RiskScore {
        score,
        level: policy.level(score),
        policy: policy.name.clone(),
        factors: factors.0,
    }
}

/// Whether a change moves its dist to an older version.
fn goes_back(change: &ChangeFacts) -> bool {
    matches!((&change.from, &change.to), (Some(from), Some(to)) if to < from)
}
