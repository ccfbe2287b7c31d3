//! Adjusting a verdict: the file evidence a synthesized target lacks, the breaks a pin's
//! plan shows, the safer plan, and the risk counted for the pin alone.

use pep508_rs::{PackageName, Requirement};

use super::{Sibling, Target, TargetVerdict};
use crate::inventory::Inventory;
use crate::metadata::requirement;
use crate::plan::{Blocker, Plan, PlanKind, said_once};
use crate::review::pins::Pin;
use crate::risk::{FactorKind, Policy, RiskFactor, RiskScore};

/// Risk factors whose evidence is an environment's own files: which modules installed files
/// import, which modules each dist ships, which compiled extensions use a C API.
const FILE_EVIDENCE: [FactorKind; 4] = [
    FactorKind::ImportTargetMissing,
    FactorKind::PlannedImportMissing,
    FactorKind::ModuleClash,
    FactorKind::AbiBreak,
];

/// A verdict with no plan to score (no release the pin allows installs on the target, so there
/// is no forced override to measure) that still names what the pin breaks or leaves no version
/// is judged from those: one factor per broken requirement, at the policy's weight for the
/// strictest clause of it the pin's versions all fall outside, the detail saying the broken
/// requirement in words ([`said`]: without its marker). The note becomes a remark that
/// says the level rests on the breaks alone.
pub(super) fn judged_from_breaks(
    mut verdict: TargetVerdict,
    pin: &Pin,
    policy: &Policy,
) -> TargetVerdict {
    if verdict.risk.is_some() || (verdict.breaks.is_empty() && verdict.excludes.is_empty()) {
        return verdict;
    }
    let mut factors: Vec<RiskFactor> = Vec::new();
    let mut add = |broken: &Requirement, what: String| {
        let (kind, clause) = broken_clause(broken, &pin.requirement, policy);
        let breaks = clause.map_or_else(String::new, |c| format!(": breaks `{c}`"));
        factors.push(RiskFactor {
            kind,
            points: policy.weight(kind),
            package: pin.name().to_string(),
            detail: format!("{what}, and {} allows none of it{breaks}", pin.requirement),
            citations: Vec::new(),
        });
    };
    // A requirement reached through two extras is one break: said once, counted once.
    let keyed: Vec<_> = (verdict.breaks.iter())
        .map(|b| ((&b.dependent, &b.dependent_version), &b.requirement))
        .collect();
    for (b, words) in verdict.breaks.iter().zip(said_once(&keyed)) {
        if let Some(words) = words {
            let what = format!("{} {} requires {words}", b.dependent, b.dependent_version);
            add(&b.requirement, what);
        }
    }
    for held in &verdict.excludes {
        if let Ok(r) = crate::metadata::parse_requirement(&held.requirement) {
            add(
                &r,
                format!("{} holds {}", held.environment, held.requirement),
            );
        }
    }
    let total: i32 = factors.iter().map(|f| f.points).sum();
    let score = total.clamp(0, 100) as u8;
    verdict.risk = Some(RiskScore {
        score,
        level: policy.level(score),
        policy: policy.name.clone(),
        factors,
    });
    verdict.judged_from_breaks = true;
    let why = verdict.note.take().unwrap_or_default();
    let text = format!("judged from what it breaks alone: no plan could be scored ({why})",);
    verdict.remark = Some(match verdict.remark.take() {
        Some(remark) => format!("{text}; {remark}"),
        None => text,
    });
    verdict
}

/// The kind and text of the strictest clause (the policy weighs it most, as for any broken edge) of
/// `broken` that no version `pin` allows meets (of all its clauses where each alone overlaps
/// the pin: they only conflict together).
fn broken_clause(
    broken: &Requirement,
    pin: &Requirement,
    policy: &Policy,
) -> (FactorKind, Option<String>) {
    use crate::solve::ranges::{specifier_to_ranges, specifiers_to_ranges};
    let allowed = requirement::specifiers(pin).map(specifiers_to_ranges);
    let clauses: Vec<&pep440_rs::VersionSpecifier> = requirement::specifiers(broken)
        .map(|s| s.iter().collect())
        .unwrap_or_default();
    let outside: Vec<&pep440_rs::VersionSpecifier> = (clauses.iter().copied())
        .filter(|c| {
            allowed
                .as_ref()
                .is_some_and(|a| a.intersection(&specifier_to_ranges(c)).is_empty())
        })
        .collect();
    let pool = if outside.is_empty() { clauses } else { outside };
    pool.into_iter()
        .map(|c| {
            (
                crate::risk::pin_strictness(c, c.version()).0,
                Some(c.to_string()),
            )
        })
        .max_by_key(|(kind, _)| policy.weight(*kind))
        .unwrap_or((FactorKind::PinExact, None))
}

/// On a synthesized target (no `--venv`) there are no installed files: factors that rest on them
/// are dropped (a resolution knows no dist's modules, so every import would look missing), the
/// score and level recomputed, and the remark says which evidence was not available.
pub(super) fn without_file_evidence(mut verdict: TargetVerdict, policy: &Policy) -> TargetVerdict {
    let Some(risk) = verdict.risk.as_mut() else {
        return verdict;
    };
    let mut dropped: Vec<&str> = Vec::new();
    risk.factors.retain(|factor| {
        let needs_files = FILE_EVIDENCE.contains(&factor.kind);
        if needs_files && !dropped.contains(&factor.kind.key()) {
            dropped.push(factor.kind.key());
        }
        !needs_files
    });
    if dropped.is_empty() {
        return verdict;
    }
    let total: i32 = risk.factors.iter().map(|f| f.points).sum();
    risk.score = total.clamp(0, 100) as u8;
    risk.level = policy.level(risk.score);
    let text = format!(
        "not weighed: {} (that evidence is read from an environment's installed files, not available without --venv)",
        dropped.join(", ")
    );
    verdict.remark = Some(match verdict.remark.take() {
        Some(remark) => format!("{remark}; {text}"),
        None => text,
    });
    verdict
}

/// Whether the pin's install line says `--no-deps` (`--no-dependencies`).
pub(super) fn pin_has_no_deps(pin: &Pin) -> bool {
    (pin.flags.iter()).any(|f| f == "--no-deps" || f == "--no-dependencies")
}

/// `judged together with torchvision==0.9.1 (why)`, before any remark the verdict has.
pub(super) fn with_joint_remark(
    mut verdict: TargetVerdict,
    siblings: &[Sibling],
    why: &str,
) -> TargetVerdict {
    let others: Vec<String> = (siblings.iter())
        .map(|s| s.pin.requirement.to_string())
        .collect();
    let joint = format!("judged together with {} ({why})", others.join(", "));
    verdict.remark = Some(match verdict.remark.take() {
        Some(remark) => format!("{joint}; {remark}"),
        None => joint,
    });
    verdict
}

/// A verdict with nothing found yet.
pub(super) fn empty_verdict(target: &Target) -> TargetVerdict {
    TargetVerdict {
        target: target.label().to_string(),
        breaks: Vec::new(),
        narrows: Vec::new(),
        excludes: Vec::new(),
        moves: false,
        risk: None,
        safer: None,
        pinned: None,
        tried: None,
        note: None,
        unchecked: Vec::new(),
        missing_data: false,
        judged_from_breaks: false,
        remark: None,
    }
}

/// The plan that delivers the pin without forcing and without a predicted break (its own
/// evidence, [`Plan::predicts_break`]), in this order:
///
/// 1. a forward plan: the first, in the proposal's ranking, that moves the blockers forward
///    ([`PlanKind::MoveBlockers`]) or moves the dependents the pin breaks along
///    ([`PlanKind::MoveDependents`]);
/// 2. failing that, the plan that moves the blockers back to releases that accept the pin
///    ([`PlanKind::DowngradeBlockers`], which the proposal makes only when no forward move
///    exists: a pin back, `werkzeug==2.0.3` under flask 3.1, takes flask back to 2.1.3). Its
///    risk carries the `downgrade` factor of each dist it takes back.
pub(super) fn safer_plan(plans: &[Plan]) -> Option<&Plan> {
    let fitting = |kinds: &[PlanKind]| {
        plans
            .iter()
            .find(|plan| kinds.contains(&plan.kind) && !plan.predicts_break())
    };
    fitting(&[PlanKind::MoveBlockers, PlanKind::MoveDependents])
        .or_else(|| fitting(&[PlanKind::DowngradeBlockers]))
}

/// The plan's risk, counting only the pin and what it forces: factors about packages the file
/// had already forced out of their dependents' ranges (an override's repair, which the pin does
/// not cause) and the release age of packages the plan newly installs besides the pin (its
/// transitive dependencies, which a plain install takes as the index has them) are dropped, and
/// the score and level recomputed under the same policy.
pub(super) fn focus(
    mut risk: RiskScore,
    pin: &Pin,
    inventory: &Inventory,
    policy: &Policy,
) -> RiskScore {
    let forced_before = violated(inventory);
    let pinned = pin.name().to_string();
    risk.factors.retain(|factor| {
        if factor.package == pinned {
            return true;
        }
        let name = factor.package.as_str();
        let installed = inventory.dists.iter().any(|d| d.name().as_ref() == name);
        let repair = forced_before.iter().any(|n| n.as_ref() == name);
        let young_dependency = !installed && factor.kind == FactorKind::YoungRelease;
        !(repair || young_dependency)
    });
    let total: i32 = risk.factors.iter().map(|f| f.points).sum();
    risk.score = total.clamp(0, 100) as u8;
    risk.level = policy.level(risk.score);
    risk
}

/// Installed packages whose version some installed dependent's requirement excludes.
fn violated(inventory: &Inventory) -> Vec<PackageName> {
    let markers = &inventory.environment.markers;
    let mut out = Vec::new();
    for dist in &inventory.dists {
        for requirement in &dist.metadata.requires_dist {
            if !requirement.evaluate_markers(markers, &[]) {
                continue;
            }
            let Some(specifiers) = inventory
                .get(&requirement.name)
                .and_then(|_| requirement::specifiers(requirement))
            else {
                continue;
            };
            let version = inventory
                .get(&requirement.name)
                .map(|d| d.version().clone());
            if version.is_some_and(|v| !specifiers.contains(&v)) && !out.contains(&requirement.name)
            {
                out.push(requirement.name.clone());
            }
        }
    }
    out
}

/// Requirements on the pinned name that accept the pinned version (exact pins only).
pub(super) fn narrows(inventory: &Inventory, pin: &Pin) -> Vec<Blocker> {
    let Some(version) = requirement::exact_version(&pin.requirement).cloned() else {
        return Vec::new();
    };
    let markers = &inventory.environment.markers;
    let mut out = Vec::new();
    for dist in &inventory.dists {
        for requirement in &dist.metadata.requires_dist {
            if requirement.name != pin.requirement.name
                || !requirement.evaluate_markers(markers, &[])
            {
                continue;
            }
            if requirement::accepts(requirement, &version) {
                out.push(Blocker {
                    dependent: dist.name().clone(),
                    dependent_version: dist.version().clone(),
                    requirement: requirement.clone(),
                });
            }
        }
    }
    out
}
