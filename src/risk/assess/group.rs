//! The factors of the plan as a whole: the changes and the [`Policy`]'s coupled groups in,
//! lockstep groups' dependents counted once ([`lockstep_dedup`]), one factor per coupled stack
//! that moves, per accelerator line switch and per coupled member whose own metadata decided
//! its pairing; last, each factor's detail cites the policy's `[evidence]` ([`cite_evidence`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use pep508_rs::PackageName;

use super::super::policy::Policy;
use super::super::risk_score::FactorKind;
use super::Factors;
use super::facts::{AcceleratorSwitch, ChangeFacts, DeclaredCoupling};
use super::text::short_list;

/// The changes with each lockstep group's dependents counted once (jax 0.11.2 -> 0.12.0.1 moves
/// jaxlib with it: chex, numpyro and optax depend on both, and jax itself on jaxlib). A lockstep
/// group is a coupled group with version correspondences (`versions`): its members move as one.
/// The anchor (else the first moving member by name) keeps its dependents; every other moving
/// member drops those already counted and the group's own members.
pub(super) fn lockstep_dedup(changes: &[ChangeFacts], policy: &Policy) -> Vec<ChangeFacts> {
    let mut out: Vec<ChangeFacts> = changes.to_vec();
    for group in policy
        .coupled
        .iter()
        .filter(|g| !g.versions.is_empty() && !g.compiled_dependents)
    {
        let mut moving: Vec<usize> = (0..out.len())
            .filter(|&i| group.contains(&out[i].name) && out[i].from.is_some())
            .collect();
        if moving.len() < 2 {
            continue;
        }
        moving.sort_by_key(|&i| {
            (
                group.anchor.as_deref() != Some(out[i].name.as_ref()),
                out[i].name.clone(),
            )
        });
        let mut counted: BTreeSet<PackageName> = BTreeSet::new();
        for (n, &i) in moving.iter().enumerate() {
            let change = &mut out[i];
            if n > 0 {
                let keep = |d: &PackageName| !counted.contains(d) && !group.contains(d);
                let direct: Vec<PackageName> = change
                    .dependents
                    .direct
                    .iter()
                    .filter(|d| keep(d))
                    .cloned()
                    .collect();
                if direct.is_empty() {
                    change.dependents.transitive = 0;
                }
                change.dependents.direct = direct;
                change.dependents.importing.retain(|(d, _)| keep(d));
                change.predating_dependents.retain(|d| keep(d));
                change.abi_dependents.retain(|d| keep(d));
            }
            counted.extend(change.dependents.direct.iter().cloned());
            counted.extend(change.dependents.importing.iter().map(|(d, _)| d.clone()));
            counted.extend(change.predating_dependents.iter().cloned());
        }
    }
    out
}

/// A plan that leaves the installed accelerator line for another: the libraries it brings and
/// the ones it leaves behind with nothing requiring them.
pub(super) fn accelerator_factor(
    switch: &AcceleratorSwitch,
    policy: &Policy,
    factors: &mut Factors,
) {
    let Some(first) = switch.brings.first() else {
        return;
    };
    let package = first.split(' ').next().unwrap_or(first);
    let Ok(package) = package.parse::<PackageName>() else {
        return;
    };
    let mut detail = format!(
        "the plan switches the accelerator line from {} to {}: it installs {}",
        switch.from,
        switch.to,
        short_list(&switch.brings)
    );
    if !switch.orphaned.is_empty() {
        let orphaned: Vec<String> = switch.orphaned.iter().map(ToString::to_string).collect();
        let _ = write!(
            detail,
            "; it leaves {} of {} installed that nothing requires any more ({})",
            orphaned.len(),
            switch.from,
            short_list(&orphaned)
        );
    }
    factors.weighed(policy, FactorKind::AcceleratorLineSwitch, &package, detail);
}

/// A coupled member whose own metadata decided its version next to the planned anchor.
pub(super) fn declared_coupling_factor(
    coupling: &DeclaredCoupling,
    policy: &Policy,
    factors: &mut Factors,
) {
    let DeclaredCoupling {
        member,
        version,
        anchor,
        anchor_version,
        declared,
        rule_wants,
        rule_release_exists,
    } = coupling;
    let mut detail = format!(
        "{member} {version} declares `{declared}` and is not built against one CPython, so its own metadata decides its pairing with {anchor} {anchor_version}; the coupled-group rule would want {member}{rule_wants}"
    );
    if !rule_release_exists {
        let _ = write!(detail, ", and {member} has no such release");
    }
    factors.weighed(policy, FactorKind::CoupledMemberDeclared, member, detail);
}

/// One factor per distinct set of moved members of a coupled group (unforced changes only); a
/// set inside another one is the same stack moving (torch in [torch, torchvision] when [torch,
/// triton] both move).
pub(super) fn coupled_stack_factors(
    changes: &[&ChangeFacts],
    policy: &Policy,
    factors: &mut Factors,
) {
    let groups_changed: BTreeSet<usize> = changes
        .iter()
        .filter(|change| !change.forced)
        .flat_map(|change| {
            policy
                .coupled
                .iter()
                .enumerate()
                .filter(|(_, group)| group.contains(&change.name) && !group.compiled_dependents)
                .map(|(i, _)| i)
        })
        .collect();
    let mut moved_sets: Vec<(usize, Vec<&PackageName>)> = groups_changed
        .into_iter()
        .map(|i| {
            let group = &policy.coupled[i];
            let moved = changes
                .iter()
                .filter(|c| !c.forced && group.contains(&c.name))
                .map(|c| &c.name)
                .collect();
            (i, moved)
        })
        .collect();
    let snapshot = moved_sets.clone();
    moved_sets.retain(|(i, set)| {
        !snapshot.iter().any(|(j, other)| {
            j != i && set.iter().all(|n| other.contains(n)) && (other.len() > set.len() || j < i)
        })
    });
    for (i, moved) in moved_sets {
        let group = &policy.coupled[i];
        factors.weighed(
            policy,
            FactorKind::CoupledStackChange,
            moved[0],
            format!(
                "coupled group [{}] changes ({}): {}",
                group.members.join(", "),
                moved
                    .iter()
                    .map(|n| n.as_ref())
                    .collect::<Vec<_>>()
                    .join(", "),
                group
                    .reason
                    .as_deref()
                    .unwrap_or("declared coupled by the policy")
            ),
        );
    }
}

/// Each factor's detail cites how often plans of its shape broke in the risk corpus (the
/// policy's `[evidence]` table): the most specific shape that names the factor and that the
/// factors raised on the same package have.
pub(super) fn cite_evidence(policy: &Policy, factors: &mut Factors) {
    let mut on_package: BTreeMap<String, BTreeSet<FactorKind>> = BTreeMap::new();
    for factor in &factors.0 {
        on_package
            .entry(factor.package.clone())
            .or_default()
            .insert(factor.kind);
    }
    for factor in &mut factors.0 {
        let kinds = &on_package[&factor.package];
        let cited = policy
            .evidence
            .iter()
            .filter(|(shape, _)| shape.with.contains(&factor.kind) && shape.matches(kinds))
            .max_by_key(|(shape, _)| (shape.specificity(), std::cmp::Reverse(*shape)));
        let Some((shape, evidence)) = cited else {
            continue;
        };
        let what = if shape.specificity() == 1 {
            "plans with this factor".to_string()
        } else {
            format!("plans of this shape ({} on one package)", shape.words())
        };
        factor.detail.push_str(&format!(
            "; in the corpus, {what} broke {} of {} times",
            evidence.broke, evidence.of
        ));
    }
}
