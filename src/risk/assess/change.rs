//! The factors of one changed dist ([`ChangeFacts`]) in, pushed onto the plan's [`Factors`]
//! out: yanked or young releases, provenance, direction, removal, ABI and major-line breaks,
//! imports the change breaks, module clashes, and the dependents a risky change carries. Each
//! `*_factor` says whether it applied (a risky change weighs its dependents).

use std::fmt::Write as _;

use jiff::Timestamp;
use pep440_rs::Version;
use pep508_rs::PackageName;

use super::super::policy::Policy;
use super::super::risk_score::{FactorKind, RiskFactor};
use super::Factors;
use super::distance::{Distance, version_distance};
use super::facts::{ChangeFacts, Dependents};
use super::text::{sanitize, short_list};
use crate::metadata::version_line::line_floor;

/// The new release is yanked.
pub(super) fn yanked_factor(
    change: &ChangeFacts,
    to: &Version,
    policy: &Policy,
    factors: &mut Factors,
) {
    let Some(reason) = &change.yanked else {
        return;
    };
    let name = &change.name;
    let why = if reason.is_empty() {
        String::new()
    } else {
        format!(" ({})", sanitize(reason))
    };
    factors.weighed(
        policy,
        FactorKind::Yanked,
        name,
        format!("{name} {to} is yanked{why}"),
    );
}

/// The requested changes whose new release is younger than the policy's `young-release-days`,
/// with its age in days (by name). What the resolution brings along is not counted: it comes
/// with what was asked for.
pub(super) fn young_requested<'c>(
    changes: &[&'c ChangeFacts],
    now: Option<Timestamp>,
    policy: &Policy,
) -> Vec<(&'c ChangeFacts, &'c Version, i64)> {
    let Some(now) = now else {
        return Vec::new();
    };
    changes
        .iter()
        .filter(|c| c.requested)
        .filter_map(|c| Some((*c, c.to.as_ref()?, c.released?)))
        .map(|(c, to, released)| (c, to, (now.as_second() - released.as_second()) / 86_400))
        .filter(|(.., days)| *days < policy.young_release_days)
        .collect()
}

/// What the request asked for is younger than the policy's `young-release-days`: one factor
/// per plan, however many requested releases are young.
pub(super) fn young_release_factor(
    young: &[(&ChangeFacts, &Version, i64)],
    policy: &Policy,
    factors: &mut Factors,
) {
    let Some((first, ..)) = young.first() else {
        return;
    };
    let days = |d: i64| format!("{d} day{}", if d == 1 { "" } else { "s" });
    let detail = match young {
        [(c, to, d)] => format!("{} {to} was released {} before this plan", c.name, days(*d)),
        _ => format!(
            "{} were released fewer than {} before this plan",
            young
                .iter()
                .map(|(c, to, d)| format!("{} {to} ({})", c.name, days(*d)))
                .collect::<Vec<_>>()
                .join(", "),
            days(policy.young_release_days)
        ),
    };
    factors.weighed(policy, FactorKind::YoungRelease, &first.name, detail);
}

/// An unmanaged install or a local build replaced by another build. Whether it applied.
pub(super) fn provenance_factor(
    change: &ChangeFacts,
    from: &Version,
    to: &Version,
    policy: &Policy,
    factors: &mut Factors,
) -> bool {
    let name = &change.name;
    if let Some(source) = &change.unmanaged_source {
        factors.weighed(
            policy,
            FactorKind::UnmanagedReplaced,
            name,
            format!(
                "{name} {from} was installed from a {source}, not the index; {to} comes from the index"
            ),
        );
        true
    } else if from.is_local() && from.local() != to.local() {
        factors.weighed(
            policy,
            FactorKind::LocalVariantSwitch,
            name,
            format!("{name} {from} is a local build; {to} is a different build"),
        );
        true
    } else {
        false
    }
}

/// A downgrade, or an unforced major upgrade (all of them together capped at
/// `major-upgrade-cap`; `major_points` is what was given so far). Whether it applied.
pub(super) fn direction_factor(
    change: &ChangeFacts,
    from: &Version,
    to: &Version,
    policy: &Policy,
    major_points: &mut i32,
    factors: &mut Factors,
) -> bool {
    let name = &change.name;
    if to < from {
        factors.weighed(
            policy,
            FactorKind::Downgrade,
            name,
            format!("{name} goes back from {from} to {to}"),
        );
        true
    } else if version_distance(from, to) == Distance::Major && !change.forced {
        let points = policy
            .weight(FactorKind::MajorUpgrade)
            .min(policy.major_upgrade_cap - *major_points)
            .max(0);
        *major_points += points;
        let mut detail = format!("{name} jumps a major version, {from} to {to}");
        if points < policy.weight(FactorKind::MajorUpgrade) {
            let _ = write!(
                detail,
                " ({points} points: the major upgrades together count at most {})",
                policy.major_upgrade_cap
            );
        }
        // Listed even at 0 points: the cap limits the score, never what the reviewer sees.
        factors.0.push(RiskFactor {
            kind: FactorKind::MajorUpgrade,
            points,
            package: name.to_string(),
            detail,
            citations: Vec::new(),
        });
        true
    } else {
        false
    }
}

/// How far a downgrade goes back, in lines and years: a dist the request did not name going
/// back across a major line (a minor line below 1.0) or to a release uploaded a year or more
/// before the installed one, while nothing requested goes back (`asked_back`: the request is
/// itself a downgrade, and what it takes back with it is its own cost). One unit per line
/// crossed and per whole year, at the policy's weight, at most `DISTANCE_UNITS` per dist.
/// Whether it applied.
pub(super) fn distance_back_factor(
    change: &ChangeFacts,
    (from, to): (&Version, &Version),
    asked_back: bool,
    policy: &Policy,
    factors: &mut Factors,
) -> bool {
    if asked_back || change.requested || to >= from {
        return false;
    }
    let lines = lines_crossed(from, to);
    let years = match (change.installed_released, change.released) {
        (Some(installed), Some(planned)) => {
            (installed.as_second() - planned.as_second()).max(0) / (365 * 86_400)
        }
        _ => 0,
    };
    if lines == 0 && years == 0 {
        return false;
    }
    let units = (lines + years).min(DISTANCE_UNITS);
    let name = &change.name;
    let mut detail = format!("{name} goes back from {from} to {to}");
    let mut how = Vec::new();
    if years > 0 {
        how.push(format!(
            "{years} year{} older",
            if years == 1 { "" } else { "s" }
        ));
    }
    if let Some(n) = change.releases_back.filter(|n| *n > 1) {
        how.push(format!("{n} releases back"));
    }
    if lines > 0 {
        how.push(format!(
            "across {lines} {} line{}",
            if from.release().first() == Some(&0) && to.release().first() == Some(&0) {
                "minor (0.x)"
            } else {
                "major"
            },
            if lines == 1 { "" } else { "s" }
        ));
    }
    let _ = write!(
        detail,
        " ({}); offered, not recommended while a plan that moves nothing back exists",
        how.join(", ")
    );
    let points = policy.weight(FactorKind::DowngradeDistance) * units as i32;
    factors.push(FactorKind::DowngradeDistance, points, name, detail);
    true
}

/// At most this many units (lines crossed plus years) of `downgrade-distance` per dist.
const DISTANCE_UNITS: i64 = 5;

/// How many API lines a move from `from` down to `to` crosses: major lines, or below 1.0 (where
/// the minor number is the API line) minor lines.
fn lines_crossed(from: &Version, to: &Version) -> i64 {
    let segment = |v: &Version, i: usize| v.release().get(i).copied().unwrap_or(0) as i64;
    if from.epoch() != to.epoch() {
        return 1;
    }
    let (major_from, major_to) = (segment(from, 0), segment(to, 0));
    if major_from != major_to {
        return (major_from - major_to).abs();
    }
    if major_from == 0 {
        return (segment(from, 1) - segment(to, 1)).abs();
    }
    0
}

/// The dist is removed. Whether it is.
pub(super) fn removal_factor(change: &ChangeFacts, policy: &Policy, factors: &mut Factors) -> bool {
    let (Some(from), None) = (&change.from, &change.to) else {
        return false;
    };
    let name = &change.name;
    factors.weighed(
        policy,
        FactorKind::Removal,
        name,
        format!("{name} {from} is removed"),
    );
    true
}

/// Dependents with compiled extensions that use the dist's C API, built before the planned line
/// existed, and a move across a line that changed that API. Whether it does.
pub(super) fn abi_break_factor(
    change: &ChangeFacts,
    from: &Version,
    to: &Version,
    policy: &Policy,
    factors: &mut Factors,
) -> bool {
    if change.abi_dependents.is_empty() {
        return false;
    }
    let name = &change.name;
    factors.weighed(
        policy,
        FactorKind::AbiBreak,
        name,
        format!(
            "{} ship{} compiled extensions that use {}, built before {name} {}.x existed; \
             {from} -> {to} crosses a line that changed it",
            short_list(&change.abi_dependents),
            if change.abi_dependents.len() == 1 {
                "s"
            } else {
                ""
            },
            change.abi_mechanism.as_deref().unwrap_or("its C API"),
            line_floor(to)
        ) + &abi_citations(change)
            .iter()
            .map(|(_, cite)| format!("; {cite}"))
            .collect::<String>(),
    );
    true
}

/// The evidence of each ABI dependent, in the order of `abi_dependents` (by name, the dists
/// that require the dist and those that only import it alike): the extension module that
/// carries the C API's marker and, for a dist that does not require it, where it imports it.
/// duckdb 0.8.1 under numpy 2: `` duckdb's `duckdb.cpython-311-x86_64-linux-gnu.so` carries
/// `_ARRAY_API`; duckdb does not require numpy, yet imports it (duckdb.cpython-311-x86_64-
/// linux-gnu.so, a compiled extension module that names `numpy.core.multiarray`) ``. What
/// `propose`'s factor and `outdated`'s break say alike; a dependent with neither is left out.
pub(crate) fn abi_citations(change: &ChangeFacts) -> Vec<(PackageName, String)> {
    let name = &change.name;
    change
        .abi_dependents
        .iter()
        .filter_map(|dist| {
            let carrier = (change.abi_carriers.iter())
                .find(|(d, _)| d == dist)
                .map(|(_, carrier)| format!("{dist}'s {carrier}"));
            let import = (change.dependents.importing.iter())
                .filter(|_| !change.dependents.direct.contains(dist))
                .find(|(d, _)| d == dist)
                .map(|(_, cite)| {
                    format!("{dist} does not require {name}, yet imports it ({cite})")
                });
            let parts: Vec<String> = carrier.into_iter().chain(import).collect();
            (!parts.is_empty()).then(|| (dist.clone(), parts.join("; ")))
        })
        .collect()
}

/// An unforced change into a major line first released after some direct dependents were:
/// they were never tested with it. Whether it applied.
pub(super) fn predates_major_factor(
    change: &ChangeFacts,
    to: &Version,
    policy: &Policy,
    factors: &mut Factors,
) -> bool {
    if change.forced || change.predating_dependents.is_empty() {
        return false;
    }
    let name = &change.name;
    factors.weighed(
        policy,
        FactorKind::PredatesMajor,
        name,
        format!(
            "{} {} released before {name} {}.x existed: never tested with it",
            short_list(&change.predating_dependents),
            if change.predating_dependents.len() == 1 {
                "was"
            } else {
                "were"
            },
            line_floor(to)
        ),
    );
    true
}

/// Installed files import a module or a name the new release no longer has. Whether they do.
pub(super) fn missing_import_factor(
    change: &ChangeFacts,
    policy: &Policy,
    factors: &mut Factors,
) -> bool {
    if change.missing_imports.is_empty() {
        return false;
    }
    factors.weighed_cited(
        policy,
        FactorKind::ImportTargetMissing,
        &change.name,
        change.missing_imports.join("; "),
        &change.missing_citations,
    );
    true
}

/// Installed functions import or use a module or a name the new release no longer has: they
/// fail when they run, not on import. Whether they do.
pub(super) fn call_time_factor(
    change: &ChangeFacts,
    policy: &Policy,
    factors: &mut Factors,
) -> bool {
    if change.call_time_missing.is_empty() {
        return false;
    }
    factors.weighed_cited(
        policy,
        FactorKind::CallTimeTargetMissing,
        &change.name,
        change.call_time_missing.join("; "),
        &change.call_time_citations,
    );
    true
}

/// The planned release and another dist would both ship one top-level module. Whether they
/// would.
pub(super) fn module_clash_factor(
    change: &ChangeFacts,
    policy: &Policy,
    factors: &mut Factors,
) -> bool {
    if change.module_clashes.is_empty() {
        return false;
    }
    factors.weighed(
        policy,
        FactorKind::ModuleClash,
        &change.name,
        change.module_clashes.join("; "),
    );
    true
}

/// The planned release imports a module the planned environment does not install. Whether it
/// does.
pub(super) fn planned_import_factor(
    change: &ChangeFacts,
    policy: &Policy,
    factors: &mut Factors,
) -> bool {
    if change.planned_imports_missing.is_empty() {
        return false;
    }
    factors.weighed_cited(
        policy,
        FactorKind::PlannedImportMissing,
        &change.name,
        change.planned_imports_missing.join("; "),
        &change.planned_citations,
    );
    true
}

/// `N installed dists require NAME: a, b; M more import it without requiring it: c (file, line
/// N)`: the declared dependents, then the importers, each with its import.
fn direct_detail(dependents: &Dependents, name: &PackageName) -> String {
    let mut parts = Vec::new();
    let count = dependents.direct.len();
    if count > 0 {
        parts.push(format!(
            "{count} installed dist{} require{} {name}: {}",
            if count == 1 { "" } else { "s" },
            if count == 1 { "s" } else { "" },
            short_list(&dependents.direct)
        ));
    }
    let importing = &dependents.importing;
    if !importing.is_empty() {
        let cited: Vec<String> = importing
            .iter()
            .map(|(dist, cite)| format!("{dist} ({cite})"))
            .collect();
        let one = importing.len() == 1;
        let who = match (count > 0, one) {
            (true, _) => " more",
            (false, true) => " installed dist",
            (false, false) => " installed dists",
        };
        parts.push(format!(
            "{}{who} import{} {name} without requiring it: {}",
            importing.len(),
            if one { "s" } else { "" },
            short_list(&cited)
        ));
    }
    parts.join("; ")
}

/// The installed dists that depend on a risky change, directly and through others (together
/// capped at `dependents-cap`).
pub(super) fn dependents_factors(change: &ChangeFacts, policy: &Policy, factors: &mut Factors) {
    let dependents = &change.dependents;
    if dependents.direct.is_empty() && dependents.importing.is_empty() {
        return;
    }
    let name = &change.name;
    let cap = policy.dependents_cap;
    let count = dependents.direct.len() + dependents.importing.len();
    let direct = (policy.weight(FactorKind::DirectDependent) * count as i32).min(cap);
    factors.push(
        FactorKind::DirectDependent,
        direct,
        name,
        direct_detail(dependents, name),
    );
    let transitive = (policy.weight(FactorKind::TransitiveDependent)
        * dependents.transitive as i32)
        .min(cap - direct)
        .max(0);
    factors.push(
        FactorKind::TransitiveDependent,
        transitive,
        name,
        format!(
            "{} more installed dist{} reach {name} through others",
            dependents.transitive,
            if dependents.transitive == 1 { "" } else { "s" }
        ),
    );
}
