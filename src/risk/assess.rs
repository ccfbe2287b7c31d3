//! [`assess`]: typed facts about a plan in, an itemized [`RiskScore`] out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use jiff::Timestamp;
use pep440_rs::{Operator, Version, VersionSpecifier};
use pep508_rs::{PackageName, Requirement, VersionOrUrl};
use serde::{Deserialize, Serialize};

use super::policy::Policy;
use super::risk_score::{FactorKind, RiskFactor, RiskScore};

/// Everything the model needs to know about one plan.
#[derive(Debug, Clone, Default)]
pub(crate) struct PlanFacts {
    /// Each dist that changes (upgrade, downgrade, addition, removal, reinstall).
    pub changes: Vec<ChangeFacts>,
    /// Each installed `Requires-Dist` a forced override breaks.
    pub broken_edges: Vec<BrokenEdgeFacts>,
    /// When the plan is made (for release age); `None` skips the age factor.
    pub now: Option<Timestamp>,
    /// Accelerator lines the plan leaves for another (CUDA 13 -> CUDA 12).
    pub accelerator_switches: Vec<AcceleratorSwitch>,
    /// Coupled members whose own metadata, not the policy's rule, decided their version next
    /// to the planned anchor.
    pub declared_couplings: Vec<DeclaredCoupling>,
}

/// A plan that takes the environment from one accelerator line to another: `nvidia-*-cu13`
/// to `-cu12`, `+cu130` to `+cu121`, `jax-cuda13-*` to `jax-cuda12-*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AcceleratorSwitch {
    /// The line installed (`CUDA 13`).
    pub from: String,
    /// The line the plan brings (`CUDA 12`).
    pub to: String,
    /// What the plan installs of the new line (`nvidia-cublas-cu12 12.1.3.1`, `torch 2.3.1+cu121`).
    pub brings: Vec<String>,
    /// Installed libraries of the old line that nothing requires after the plan (left behind,
    /// orphaned).
    pub orphaned: Vec<PackageName>,
}

/// A coupled member whose planned release declares its own range on the anchor, so the
/// coupled-group rule was not applied (torchaudio 2.11.1, a `py3-none` build that declares
/// `torch>=2.11`, next to torch 2.12.0, where the rule would want torchaudio 2.12.*).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredCoupling {
    /// The member (torchaudio).
    pub member: PackageName,
    /// Its planned version (2.11.1).
    pub version: Version,
    /// The anchor and its planned version (torch 2.12.0).
    pub anchor: PackageName,
    /// The anchor's planned version.
    pub anchor_version: Version,
    /// What the member declares on the anchor (`torch>=2.11`).
    pub declared: String,
    /// What the rule would pair with the anchor (`==2.12.*`).
    pub rule_wants: String,
    /// Whether the index has any release of the member the rule pairs with the anchor.
    pub rule_release_exists: bool,
}

/// One changed dist.
#[derive(Debug, Clone)]
pub(crate) struct ChangeFacts {
    /// The dist.
    pub name: PackageName,
    /// Installed version (`None`: an addition).
    pub from: Option<Version>,
    /// Planned version (`None`: a removal).
    pub to: Option<Version>,
    /// The new version is forced by an override.
    pub forced: bool,
    /// The request names this dist (a target, or every dist under `--all`): what the user asked
    /// for, not what the resolution brought along.
    pub requested: bool,
    /// How the installed dist was installed when not from an index (`vcs`, `directory`,
    /// `archive`); `None` for index installs.
    pub unmanaged_source: Option<String>,
    /// Upload time of the new release.
    pub released: Option<Timestamp>,
    /// PEP 592 yank reason of the new release (`Some("")` when yanked without a reason).
    pub yanked: Option<String>,
    /// Installed dists that depend on this one.
    pub dependents: Dependents,
    /// Installed dependents whose compiled extensions link against this dist and were released
    /// before the major line of the planned version began (empty unless the change crosses
    /// into a newer major line).
    pub abi_dependents: Vec<PackageName>,
    /// Direct dependents released before the major line of the planned version began (empty
    /// unless an unforced change crosses into a newer major line).
    pub predating_dependents: Vec<PackageName>,
    /// Import statements of installed files that the new release breaks: a module or a name
    /// it no longer has (one sentence each, naming the file).
    pub missing_imports: Vec<String>,
    /// The plan leaves this dist's planned release and another dist shipping the same
    /// top-level module (one sentence each, naming both dists and the module).
    pub module_clashes: Vec<String>,
    /// Module-level imports of the planned release itself (moved back or added) of modules no
    /// dist of the planned environment installs (one sentence each, naming the file and line).
    pub planned_imports_missing: Vec<String>,
}

/// Installed dists that depend on a changed one (reverse edges of the installed graph).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Dependents {
    /// Dists whose `Requires-Dist` names it (sorted).
    pub direct: Vec<PackageName>,
    /// How many more reach it only through others.
    pub transitive: usize,
}

/// One broken `Requires-Dist` edge of a forced override.
#[derive(Debug, Clone)]
pub(crate) struct BrokenEdgeFacts {
    /// The dist whose requirement is overridden (torch).
    pub dependent: PackageName,
    /// Its version (2.11.0+cu130).
    pub dependent_version: Version,
    /// The requirement as the dependent declares it (`triton==3.6.0; platform_system == "Linux"`).
    pub requirement: Requirement,
    /// The version the override installs instead (3.7.0).
    pub forced_version: Version,
    /// The dependent ships platform-specific wheels.
    pub dependent_platform_specific: bool,
    /// The forced dist ships platform-specific wheels.
    pub forced_platform_specific: bool,
    /// Whether any release of the dependent accepts the forced version.
    pub upstream: Upstream,
    /// The violated clause is an upper bound the dependent declared before any release it
    /// excludes existed (a guess, not a known incompatibility).
    pub defensive_bound: bool,
    /// The edge was broken before the plan (both sides stay as installed): the plan keeps a
    /// break, it does not make one.
    pub kept: bool,
}

/// Whether any release of the dependent accepts the forced version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Upstream {
    /// These releases of the dependent accept it (newest first, a few).
    Accepts {
        /// The accepting releases.
        versions: Vec<Version>,
    },
    /// No release on the index accepts it.
    Never,
    /// Not known (the index could not be asked).
    Unknown,
}

/// How far a version is from a bound: which release segment differs first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Distance {
    /// Only the third (or a later) segment, or pre/post/dev/local parts.
    Patch,
    /// The second segment.
    Minor,
    /// The first segment or the epoch.
    Major,
}

impl Distance {
    fn kind(self) -> FactorKind {
        match self {
            Distance::Patch => FactorKind::DistancePatch,
            Distance::Minor => FactorKind::DistanceMinor,
            Distance::Major => FactorKind::DistanceMajor,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Distance::Patch => "patch",
            Distance::Minor => "minor",
            Distance::Major => "major",
        }
    }
}

/// The first release segment at which two versions differ (epoch counts as major).
pub(crate) fn version_distance(a: &Version, b: &Version) -> Distance {
    if a.epoch() != b.epoch() {
        return Distance::Major;
    }
    let (ra, rb) = (a.release(), b.release());
    let len = ra.len().max(rb.len());
    for i in 0..len {
        let (x, y) = (
            ra.get(i).copied().unwrap_or(0),
            rb.get(i).copied().unwrap_or(0),
        );
        if x != y {
            return level(i);
        }
    }
    Distance::Patch
}

fn level(index: usize) -> Distance {
    match index {
        0 => Distance::Major,
        1 => Distance::Minor,
        _ => Distance::Patch,
    }
}

/// The factor for a violated specifier clause, and how far outside it `version` is.
pub(crate) fn pin_strictness(
    clause: &VersionSpecifier,
    version: &Version,
) -> (FactorKind, Option<Distance>) {
    let bound = clause.version();
    match clause.operator() {
        Operator::Equal | Operator::ExactEqual => {
            (FactorKind::PinExact, Some(version_distance(bound, version)))
        }
        Operator::EqualStar => (
            FactorKind::PinWildcard,
            Some(version_distance(bound, version)),
        ),
        Operator::TildeEqual => (
            FactorKind::PinCompatible,
            Some(version_distance(bound, version)),
        ),
        Operator::LessThan | Operator::LessThanEqual => {
            // Crossing `<2` leaves the 2.x line: the bound's last non-zero segment says which
            // line was excluded, unless the version differs even earlier.
            let release = bound.release();
            let last_nonzero = release.iter().rposition(|&n| n != 0).unwrap_or(0);
            let crossing = level(last_nonzero);
            (
                FactorKind::PinUpperBound,
                Some(crossing.max(version_distance(bound, version))),
            )
        }
        Operator::GreaterThan | Operator::GreaterThanEqual => (
            FactorKind::PinLowerBound,
            Some(version_distance(bound, version)),
        ),
        Operator::NotEqual | Operator::NotEqualStar => (FactorKind::PinExclusion, None),
    }
}

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
        }
        risky |= removal_factor(change, policy, &mut factors);
        if let (Some(from), Some(to)) = (&change.from, &change.to) {
            risky |= abi_break_factor(change, from, to, policy, &mut factors);
            risky |= predates_major_factor(change, to, policy, &mut factors);
        }
        risky |= missing_import_factor(change, policy, &mut factors);
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

/// A broken edge: how strict the violated clause is (the strictest one decides), and how far
/// outside it the forced version lands.
fn pin_factors(edge: &BrokenEdgeFacts, policy: &Policy, factors: &mut Factors) {
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
fn coupling_factor(edge: &BrokenEdgeFacts, policy: &Policy, factors: &mut Factors) {
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
fn upstream_factor(edge: &BrokenEdgeFacts, policy: &Policy, factors: &mut Factors) {
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
fn defensive_bound_factor(edge: &BrokenEdgeFacts, policy: &Policy, factors: &mut Factors) {
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

/// The new release is yanked.
fn yanked_factor(change: &ChangeFacts, to: &Version, policy: &Policy, factors: &mut Factors) {
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
fn young_requested<'c>(
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
fn young_release_factor(
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

/// An edge broken before the plan that the plan keeps: the dependent runs against a release it
/// declares it does not support, now and after the plan. Scored as the break it is, not as an
/// override the plan makes (no discount for a defensive bound, no credit for upstream).
fn kept_edge_factor(edge: &BrokenEdgeFacts, policy: &Policy, factors: &mut Factors) {
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

/// An unmanaged install or a local build replaced by another build. Whether it applied.
fn provenance_factor(
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
fn direction_factor(
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
        });
        true
    } else {
        false
    }
}

/// The dist is removed. Whether it is.
fn removal_factor(change: &ChangeFacts, policy: &Policy, factors: &mut Factors) -> bool {
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

/// Dependents with compiled extensions built before the planned major line existed: the change
/// crosses their ABI boundary. Whether it does.
fn abi_break_factor(
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
            "{} ship{} compiled extensions built against {name} before its {} line \
             existed; {from} -> {to} crosses that ABI boundary",
            list(&change.abi_dependents),
            if change.abi_dependents.len() == 1 {
                "s"
            } else {
                ""
            },
            to.release().first().copied().unwrap_or(0)
        ),
    );
    true
}

/// An unforced change into a major line first released after some direct dependents were:
/// they were never tested with it. Whether it applied.
fn predates_major_factor(
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
            list(&change.predating_dependents),
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
fn missing_import_factor(change: &ChangeFacts, policy: &Policy, factors: &mut Factors) -> bool {
    if change.missing_imports.is_empty() {
        return false;
    }
    factors.weighed(
        policy,
        FactorKind::ImportTargetMissing,
        &change.name,
        change.missing_imports.join("; "),
    );
    true
}

/// The changes with each lockstep group's dependents counted once (jax 0.11.2 -> 0.12.0.1 moves
/// jaxlib with it: chex, numpyro and optax depend on both, and jax itself on jaxlib). A lockstep
/// group is a coupled group with version correspondences (`versions`): its members move as one.
/// The anchor (else the first moving member by name) keeps its dependents; every other moving
/// member drops those already counted and the group's own members.
fn lockstep_dedup(changes: &[ChangeFacts], policy: &Policy) -> Vec<ChangeFacts> {
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
                change.predating_dependents.retain(|d| keep(d));
                change.abi_dependents.retain(|d| keep(d));
            }
            counted.extend(change.dependents.direct.iter().cloned());
            counted.extend(change.predating_dependents.iter().cloned());
        }
    }
    out
}

/// The planned release and another dist would both ship one top-level module. Whether they
/// would.
fn module_clash_factor(change: &ChangeFacts, policy: &Policy, factors: &mut Factors) -> bool {
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
fn planned_import_factor(change: &ChangeFacts, policy: &Policy, factors: &mut Factors) -> bool {
    if change.planned_imports_missing.is_empty() {
        return false;
    }
    factors.weighed(
        policy,
        FactorKind::PlannedImportMissing,
        &change.name,
        change.planned_imports_missing.join("; "),
    );
    true
}

/// The installed dists that depend on a risky change, directly and through others (together
/// capped at `dependents-cap`).
fn dependents_factors(change: &ChangeFacts, policy: &Policy, factors: &mut Factors) {
    let dependents = &change.dependents;
    if dependents.direct.is_empty() {
        return;
    }
    let name = &change.name;
    let cap = policy.dependents_cap;
    let count = dependents.direct.len();
    let direct = (policy.weight(FactorKind::DirectDependent) * count as i32).min(cap);
    let names = dependents
        .direct
        .iter()
        .take(5)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let more = count.saturating_sub(5);
    let detail = format!(
        "{count} installed dist{} require{} {name}: {names}{}",
        if count == 1 { "" } else { "s" },
        if count == 1 { "s" } else { "" },
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    );
    factors.push(FactorKind::DirectDependent, direct, name, detail);
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

/// One factor per distinct set of moved members of a coupled group (unforced changes only); a
/// set inside another one is the same stack moving (torch in [torch, torchvision] when [torch,
/// triton] both move).
/// A plan that leaves the installed accelerator line for another: the libraries it brings and
/// the ones it leaves behind with nothing requiring them.
fn accelerator_factor(switch: &AcceleratorSwitch, policy: &Policy, factors: &mut Factors) {
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
fn declared_coupling_factor(coupling: &DeclaredCoupling, policy: &Policy, factors: &mut Factors) {
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

/// At most five items, then how many more.
fn short_list(items: &[String]) -> String {
    let shown: Vec<&str> = items.iter().take(5).map(String::as_str).collect();
    match items.len().saturating_sub(5) {
        0 => shown.join(", "),
        more => format!("{} and {more} more", shown.join(", ")),
    }
}

fn coupled_stack_factors(changes: &[&ChangeFacts], policy: &Policy, factors: &mut Factors) {
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
fn cite_evidence(policy: &Policy, factors: &mut Factors) {
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

/// Names for a factor detail: the first five, then how many more.
fn list(names: &[PackageName]) -> String {
    let mut text = names
        .iter()
        .take(5)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 5 {
        text.push_str(&format!(" and {} more", names.len() - 5));
    }
    text
}

/// A requirement without its marker or extras (`triton==3.6.0`), for details and titles.
pub(crate) fn requirement_text(requirement: &Requirement) -> String {
    let mut text = requirement.name.to_string();
    if let Some(VersionOrUrl::VersionSpecifier(specifiers)) = &requirement.version_or_url {
        text.push_str(&specifiers.to_string());
    }
    text
}

/// Index-supplied text (a yank reason) for a one-line detail: at most 200 characters, its lines
/// joined by spaces, escaped for the terminal by the one sanitizer ([`crate::terminal::escape`]).
fn sanitize(text: &str) -> String {
    let short: String = text.chars().take(200).collect();
    let line = short.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::terminal::escape(&line).into_owned()
}

/// The first version of `version`'s major line: its release up to the first non-zero segment
/// (`2.1.3` -> `2`, `0.38.6` -> `0.38`).
pub fn line_floor(version: &Version) -> Version {
    let release = version.release();
    let cut = release
        .iter()
        .position(|&n| n != 0)
        .unwrap_or(release.len().saturating_sub(1));
    Version::new(
        release[..=cut.min(release.len().saturating_sub(1))]
            .iter()
            .copied(),
    )
    .with_epoch(version.epoch())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::risk::RiskLevel;
    use std::str::FromStr;

    fn v(s: &str) -> Version {
        Version::from_str(s).unwrap()
    }
    fn n(s: &str) -> PackageName {
        PackageName::from_str(s).unwrap()
    }
    fn req(s: &str) -> Requirement {
        Requirement::from_str(s).unwrap()
    }

    fn change(name: &str, from: Option<&str>, to: Option<&str>) -> ChangeFacts {
        ChangeFacts {
            name: n(name),
            from: from.map(v),
            to: to.map(v),
            forced: false,
            requested: true,
            unmanaged_source: None,
            released: None,
            yanked: None,
            dependents: Dependents::default(),
            abi_dependents: Vec::new(),
            predating_dependents: Vec::new(),
            missing_imports: Vec::new(),
            module_clashes: Vec::new(),
            planned_imports_missing: Vec::new(),
        }
    }

    /// The canonical incident: torch 2.11.0+cu130 pins triton==3.6.0; forcing 3.7.0.
    fn canonical_forced(upstream: Upstream) -> PlanFacts {
        let mut triton = change("triton", Some("3.6.0"), Some("3.7.0"));
        triton.forced = true;
        triton.dependents = Dependents {
            direct: vec![n("torch")],
            transitive: 3,
        };
        PlanFacts {
            changes: vec![triton],
            broken_edges: vec![BrokenEdgeFacts {
                dependent: n("torch"),
                dependent_version: v("2.11.0+cu130"),
                requirement: req("triton==3.6.0; platform_system == 'Linux'"),
                forced_version: v("3.7.0"),
                dependent_platform_specific: true,
                forced_platform_specific: true,
                upstream,
                defensive_bound: false,
                kept: false,
            }],
            now: None,
            ..Default::default()
        }
    }

    #[test]
    fn distances() {
        assert_eq!(version_distance(&v("3.6.0"), &v("3.7.0")), Distance::Minor);
        assert_eq!(version_distance(&v("3.6.0"), &v("3.6.1")), Distance::Patch);
        assert_eq!(version_distance(&v("3.6"), &v("4.0")), Distance::Major);
        assert_eq!(version_distance(&v("3.6"), &v("3.6.0.1")), Distance::Patch);
        assert_eq!(version_distance(&v("1!1.0"), &v("1.0")), Distance::Major);
        let clause = |s: &str| VersionSpecifier::from_str(s).unwrap();
        assert_eq!(
            pin_strictness(&clause("<2"), &v("2.1")),
            (FactorKind::PinUpperBound, Some(Distance::Major))
        );
        assert_eq!(
            pin_strictness(&clause("<2.3"), &v("2.3.1")),
            (FactorKind::PinUpperBound, Some(Distance::Minor))
        );
        assert_eq!(
            pin_strictness(&clause("<=2.3.1"), &v("2.3.2")),
            (FactorKind::PinUpperBound, Some(Distance::Patch))
        );
        assert_eq!(
            pin_strictness(&clause("~=2.2"), &v("3.0")),
            (FactorKind::PinCompatible, Some(Distance::Major))
        );
        assert_eq!(
            pin_strictness(&clause("==2.3.*"), &v("2.4")),
            (FactorKind::PinWildcard, Some(Distance::Minor))
        );
        assert_eq!(
            pin_strictness(&clause("!=2.3"), &v("2.3")),
            (FactorKind::PinExclusion, None)
        );
    }

    #[test]
    fn canonical_forced_override_is_high_and_itemized() {
        let policy = Policy::builtin();
        let score = assess(
            &canonical_forced(Upstream::Accepts {
                versions: vec![v("2.12.0")],
            }),
            &policy,
        );
        let kinds: Vec<FactorKind> = score.factors.iter().map(|f| f.kind).collect();
        assert_eq!(
            kinds,
            [
                FactorKind::PinExact,
                FactorKind::DistanceMinor,
                FactorKind::CoupledPolicy,
                FactorKind::DirectDependent,
                FactorKind::TransitiveDependent,
            ]
        );
        // 25 + 15 + 20 + 3 + 2 * 3; upstream-accepts weighs 0 in the default (the corpus found
        // no signal in it), so it is not itemized.
        assert_eq!(score.score, 69);
        assert_eq!(score.level, RiskLevel::High);
        assert!(
            score.factors[0].detail.starts_with(
                "torch 2.11.0+cu130 requires triton==3.6.0, forced to 3.7.0: breaks `==3.6.0`; \
                 in the corpus, plans with this factor broke "
            ),
            "{}",
            score.factors[0].detail
        );
        let total: i32 = score.factors.iter().map(|f| f.points).sum();
        assert_eq!(total, i32::from(score.score));
    }

    /// An upper bound forced past, with or without the bound being defensive.
    fn upper_bound_forced(defensive: bool) -> PlanFacts {
        let mut urllib3 = change("urllib3", Some("1.26.20"), Some("2.2.3"));
        urllib3.forced = true;
        PlanFacts {
            changes: vec![urllib3],
            broken_edges: vec![BrokenEdgeFacts {
                dependent: n("requests"),
                dependent_version: v("2.25.1"),
                requirement: req("urllib3<1.27,>=1.21.1"),
                forced_version: v("2.2.3"),
                dependent_platform_specific: false,
                forced_platform_specific: false,
                upstream: Upstream::Unknown,
                defensive_bound: defensive,
                kept: false,
            }],
            now: None,
            ..Default::default()
        }
    }

    #[test]
    fn factors_cite_the_most_specific_corpus_shape() {
        let policy = Policy::from_toml_over(
            r#"
            [evidence]
            pin-upper-bound = { broke = 9, of = 30 }
            "pin-upper-bound+defensive-upper-bound" = { broke = 2, of = 14 }
            "pin-upper-bound+!defensive-upper-bound" = { broke = 7, of = 16 }
            distance-major = { broke = 11, of = 28 }
            "#,
            "test.toml",
            Some(Policy::builtin()),
        )
        .unwrap();
        let detail = |facts: &PlanFacts, kind: FactorKind| {
            let score = assess(facts, &policy);
            score
                .factors
                .iter()
                .find(|f| f.kind == kind)
                .map(|f| f.detail.clone())
                .unwrap()
        };
        let defensive = upper_bound_forced(true);
        assert!(
            detail(&defensive, FactorKind::PinUpperBound).ends_with(
                "; in the corpus, plans of this shape (pin-upper-bound and defensive-upper-bound \
                 on one package) broke 2 of 14 times"
            ),
            "{}",
            detail(&defensive, FactorKind::PinUpperBound)
        );
        // The defensive factor itself is named by the shape too, so it cites the same count.
        assert!(detail(&defensive, FactorKind::DefensiveBound).ends_with("broke 2 of 14 times"));
        let declared = upper_bound_forced(false);
        assert!(
            detail(&declared, FactorKind::PinUpperBound).ends_with(
                "plans of this shape (pin-upper-bound without defensive-upper-bound on one \
                 package) broke 7 of 16 times"
            ),
            "{}",
            detail(&declared, FactorKind::PinUpperBound)
        );
        assert!(
            detail(&declared, FactorKind::DistanceMajor)
                .ends_with("; in the corpus, plans with this factor broke 11 of 28 times")
        );
    }

    #[test]
    fn an_evidence_shape_must_name_a_present_factor() {
        let err = Policy::from_toml_over(
            "[evidence]\n\"!pin-exact\" = { broke = 1, of = 2 }\n",
            "test.toml",
            None,
        )
        .unwrap_err();
        assert!(
            matches!(err, crate::risk::policy::PolicyError::Parse { .. }),
            "{err:?}"
        );
        let err = Policy::from_toml_over(
            "[evidence]\n\"pin-exact+!no-such\" = { broke = 1, of = 2 }\n",
            "test.toml",
            None,
        )
        .unwrap_err();
        assert!(
            matches!(err, crate::risk::policy::PolicyError::UnknownFactor { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn never_accepted_is_riskier_than_upstream_moved() {
        // The default weighs upstream-accepts 0: moved and unknown score the same there.
        let builtin = Policy::builtin();
        let score = |upstream, policy: &Policy| assess(&canonical_forced(upstream), policy).score;
        let moved = || Upstream::Accepts {
            versions: vec![v("2.12.0")],
        };
        assert_eq!(score(moved(), &builtin), score(Upstream::Unknown, &builtin));
        let policy = Policy::from_toml_over(
            "[weights]\nupstream-accepts = -5\n",
            "test.toml",
            Some(builtin),
        )
        .unwrap();
        let moved = assess(
            &canonical_forced(Upstream::Accepts {
                versions: vec![v("2.12.0")],
            }),
            &policy,
        );
        let never = assess(&canonical_forced(Upstream::Never), &policy);
        let unknown = assess(&canonical_forced(Upstream::Unknown), &policy);
        assert!(never.score > unknown.score && unknown.score > moved.score);
        assert_eq!(never.score, 74);
        assert_eq!(never.level, RiskLevel::High);
    }

    #[test]
    fn binary_coupling_without_policy_pair() {
        let mut policy = Policy::builtin();
        policy.coupled.clear();
        let score = assess(&canonical_forced(Upstream::Unknown), &policy);
        assert!(
            score
                .factors
                .iter()
                .any(|f| f.kind == FactorKind::CoupledBinary)
        );
        assert!(
            !score
                .factors
                .iter()
                .any(|f| f.kind == FactorKind::CoupledPolicy)
        );
    }

    #[test]
    /// Issue 23 item 7: jax and jaxlib move in lockstep (a coupled group with `versions`): the
    /// dependents both have (and jax, a member, as jaxlib's dependent) count once, on jax.
    fn lockstep_members_count_dependents_once() {
        let policy = Policy::builtin();
        let mut jax = change("jax", Some("0.11.2"), Some("0.12.0.1"));
        jax.dependents = Dependents {
            direct: vec![n("chex"), n("flax"), n("optax")],
            transitive: 2,
        };
        jax.predating_dependents = vec![n("chex"), n("flax"), n("optax")];
        let mut jaxlib = change("jaxlib", Some("0.11.2"), Some("0.12.0.1"));
        jaxlib.dependents = Dependents {
            direct: vec![n("chex"), n("jax"), n("optax")],
            transitive: 6,
        };
        jaxlib.predating_dependents = vec![n("chex"), n("optax")];
        let facts = PlanFacts {
            changes: vec![jaxlib, jax],
            broken_edges: vec![],
            now: None,
            ..Default::default()
        };
        let score = assess(&facts, &policy);
        let on_jaxlib: Vec<FactorKind> = score
            .factors
            .iter()
            .filter(|f| f.package == "jaxlib")
            .map(|f| f.kind)
            .collect();
        assert!(on_jaxlib.is_empty(), "{:#?}", score.factors);
        let on_jax: Vec<(FactorKind, i32)> = score
            .factors
            .iter()
            .filter(|f| f.package == "jax")
            .map(|f| (f.kind, f.points))
            .collect();
        assert_eq!(
            on_jax,
            [
                (FactorKind::PredatesMajor, 30),
                (FactorKind::DirectDependent, 9),
                (FactorKind::TransitiveDependent, 4),
                (FactorKind::CoupledStackChange, 8),
            ]
        );
        // A member with dependents of its own keeps those.
        let mut jaxlib = change("jaxlib", Some("0.11.2"), Some("0.12.0.1"));
        jaxlib.predating_dependents = vec![n("chex"), n("numpyro")];
        jaxlib.dependents.direct = vec![n("chex"), n("numpyro")];
        let mut jax = change("jax", Some("0.11.2"), Some("0.12.0.1"));
        jax.predating_dependents = vec![n("chex")];
        jax.dependents.direct = vec![n("chex")];
        let facts = PlanFacts {
            changes: vec![jax, jaxlib],
            broken_edges: vec![],
            now: None,
            ..Default::default()
        };
        let score = assess(&facts, &policy);
        let predates = score
            .factors
            .iter()
            .find(|f| f.package == "jaxlib" && f.kind == FactorKind::PredatesMajor)
            .expect("numpyro still counts on jaxlib");
        assert!(
            predates.detail.starts_with("numpyro was released"),
            "{}",
            predates.detail
        );
    }

    #[test]
    fn ordinary_changes() {
        let policy = Policy::builtin();
        let mut torch = change("torch", Some("2.11.0+cu130"), Some("2.12.0"));
        torch.dependents = Dependents {
            direct: vec![n("accelerate"), n("flash-linear-attention")],
            transitive: 1,
        };
        let facts = PlanFacts {
            changes: vec![
                change("triton", Some("3.6.0"), Some("3.7.0")),
                torch,
                change("numpy", Some("1.26.4"), Some("2.1.0")),
                change("six", Some("1.17.0"), None),
                change("idna", Some("3.10"), Some("3.9")),
                change("new-dep", None, Some("1.0")),
            ],
            broken_edges: vec![],
            now: None,
            ..Default::default()
        };
        let score = assess(&facts, &policy);
        let summary: Vec<(FactorKind, i32, &str)> = score
            .factors
            .iter()
            .map(|f| (f.kind, f.points, f.package.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                (FactorKind::Downgrade, 6, "idna"),
                (FactorKind::MajorUpgrade, 10, "numpy"),
                (FactorKind::Removal, 4, "six"),
                (FactorKind::LocalVariantSwitch, 25, "torch"),
                (FactorKind::DirectDependent, 6, "torch"),
                (FactorKind::TransitiveDependent, 2, "torch"),
                (FactorKind::CoupledStackChange, 8, "torch"),
            ]
        );
        assert_eq!(score.score, 61);
    }

    /// Issue 9 item 7: the cap limits the points of major upgrades, never which are listed.
    #[test]
    fn capped_major_upgrades_are_all_listed() {
        let policy = Policy::builtin();
        let facts = PlanFacts {
            changes: vec![
                change("numpy", Some("1.26.4"), Some("2.1.0")),
                change("redis", Some("4.6.0"), Some("8.0.0")),
                change("setuptools", Some("65.5.0"), Some("84.0.0")),
                change("urllib3", Some("1.26.20"), Some("2.8.0")),
            ],
            broken_edges: vec![],
            now: None,
            ..Default::default()
        };
        let score = assess(&facts, &policy);
        let summary: Vec<(i32, &str)> = score
            .factors
            .iter()
            .filter(|f| f.kind == FactorKind::MajorUpgrade)
            .map(|f| (f.points, f.package.as_str()))
            .collect();
        assert_eq!(
            summary,
            [
                (10, "numpy"),
                (10, "redis"),
                (10, "setuptools"),
                (0, "urllib3")
            ]
        );
        assert_eq!(i32::from(score.score), policy.major_upgrade_cap);
        assert!(
            score.factors[3]
                .detail
                .contains("(0 points: the major upgrades together count at most 30)"),
            "{}",
            score.factors[3].detail
        );
    }

    #[test]
    fn yanked_young_and_unmanaged() {
        let policy = Policy::builtin();
        let now = Timestamp::from_second(1_800_000_000).unwrap();
        let mut a = change("a", Some("1.0"), Some("1.1"));
        a.yanked = Some("broken\u{202e} build\n".into());
        a.released = Some(Timestamp::from_second(1_800_000_000 - 3 * 86_400).unwrap());
        let mut b = change("b", Some("0.5.1"), Some("0.5.2"));
        b.unmanaged_source = Some("vcs".into());
        b.released = Some(Timestamp::from_second(1_800_000_000 - 300 * 86_400).unwrap());
        let score = assess(
            &PlanFacts {
                changes: vec![a, b],
                broken_edges: vec![],
                now: Some(now),
                ..Default::default()
            },
            &policy,
        );
        let details: Vec<&str> = score.factors.iter().map(|f| f.detail.as_str()).collect();
        assert_eq!(
            details,
            [
                "a 1.1 is yanked (broken\\u{202e} build)",
                "a 1.1 was released 3 days before this plan",
                "b 0.5.1 was installed from a vcs, not the index; 0.5.2 comes from the index",
            ]
        );
        assert_eq!(score.score, 80);
        assert_eq!(score.level, RiskLevel::Critical);
    }

    /// Issue 31 item 4: `young-release` counts once per plan, for what the request asked for
    /// (the pydantic>=2 move-blockers plan had four: annotated-doc, fastapi, pydantic and
    /// pydantic-core, 40 points for a plan that works).
    #[test]
    fn young_release_counts_once_for_the_requested() {
        let policy = Policy::builtin();
        let day = 86_400;
        let now = Timestamp::from_second(1_800_000_000).unwrap();
        let young = |name: &str, to: &str, days: i64, requested: bool| {
            let mut c = change(name, Some("0.0.1"), Some(to));
            c.released = Some(Timestamp::from_second(1_800_000_000 - days * day).unwrap());
            c.requested = requested;
            c
        };
        let score = |changes: Vec<ChangeFacts>| {
            assess(
                &PlanFacts {
                    changes,
                    now: Some(now),
                    ..Default::default()
                },
                &policy,
            )
        };
        let plan = score(vec![
            young("annotated-doc", "0.0.7", 13, false),
            young("fastapi", "0.165.0", 13, false),
            young("pydantic", "0.14.4", 12, true),
            young("pydantic-core", "0.50.5", 12, false),
        ]);
        let details: Vec<(&str, i32)> = plan
            .factors
            .iter()
            .map(|f| (f.detail.as_str(), f.points))
            .collect();
        assert_eq!(
            details,
            [("pydantic 0.14.4 was released 12 days before this plan", 10)]
        );
        let both = score(vec![young("a", "0.2", 1, true), young("b", "0.3", 3, true)]);
        let details: Vec<(&str, i32)> = both
            .factors
            .iter()
            .map(|f| (f.detail.as_str(), f.points))
            .collect();
        assert_eq!(
            details,
            [(
                "a 0.2 (1 day), b 0.3 (3 days) were released fewer than 14 days before this plan",
                10
            )]
        );
        assert!(score(vec![young("c", "0.2", 1, false)]).factors.is_empty());
    }

    /// Issue 31 item 4: an edge broken before the plan and kept by it (fastapi 0.95.2's
    /// `pydantic<2.0.0` over pydantic 2.5.3) scores as a break, at `high`, with no discount for
    /// the bound having been declared before pydantic 2 existed.
    #[test]
    fn a_kept_broken_edge_scores_as_a_break() {
        let policy = Policy::builtin();
        let edge = |kept: bool| BrokenEdgeFacts {
            dependent: n("fastapi"),
            dependent_version: v("0.95.2"),
            requirement: req("pydantic>=1.6.2,!=1.7,!=1.7.1,!=1.7.2,!=1.7.3,!=1.8,!=1.8.1,<2.0.0"),
            forced_version: v("2.5.3"),
            dependent_platform_specific: false,
            forced_platform_specific: true,
            upstream: Upstream::Never,
            defensive_bound: true,
            kept,
        };
        let score = |kept| {
            assess(
                &PlanFacts {
                    broken_edges: vec![edge(kept)],
                    ..Default::default()
                },
                &policy,
            )
        };
        let forced = score(false);
        assert_eq!(forced.score, 40, "{:?}", forced.factors);
        let kept = score(true);
        assert_eq!(
            kept.factors
                .iter()
                .map(|f| (f.kind, f.points))
                .collect::<Vec<_>>(),
            [(FactorKind::KeptBrokenEdge, 50)]
        );
        assert_eq!(
            kept.factors[0].detail,
            "fastapi 0.95.2 requires pydantic>=1.6.2, !=1.7, !=1.7.1, !=1.7.2, !=1.7.3, !=1.8, \
             !=1.8.1, <2.0.0, but pydantic 2.5.3 is installed and the plan keeps it: broken \
             before the plan, still broken after it"
        );
        assert_eq!(kept.level, RiskLevel::High);
    }

    #[test]
    fn score_is_clamped() {
        let policy = Policy::builtin();
        let mut changes = Vec::new();
        for i in 0..20 {
            let mut c = change(&format!("p{i}"), Some("1.0"), Some("1.1"));
            c.yanked = Some(String::new());
            changes.push(c);
        }
        let score = assess(
            &PlanFacts {
                changes,
                broken_edges: vec![],
                now: None,
                ..Default::default()
            },
            &policy,
        );
        assert_eq!(score.score, 100);
        let empty = assess(&PlanFacts::default(), &policy);
        assert_eq!((empty.score, empty.level), (0, RiskLevel::Low));
    }
}
