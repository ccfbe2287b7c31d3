//! The model's unit tests: hand-built [`PlanFacts`] in, the itemized score checked.

use std::str::FromStr;

use jiff::Timestamp;
use pep440_rs::{Version, VersionSpecifier};
use pep508_rs::Requirement;

use super::distance::{Distance, pin_strictness, version_distance};
use super::*;
use crate::risk::RiskLevel;

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
        installed_released: None,
        releases_back: None,
        yanked: None,
        dependents: Dependents::default(),
        abi_dependents: Vec::new(),
        abi_mechanism: None,
        abi_carriers: Vec::new(),
        predating_dependents: Vec::new(),
        missing_imports: Vec::new(),
        missing_citations: Vec::new(),
        module_clashes: Vec::new(),
        planned_imports_missing: Vec::new(),
        planned_citations: Vec::new(),
        call_time_missing: Vec::new(),
        call_time_citations: Vec::new(),
    }
}

/// The canonical incident: torch 2.11.0+cu130 pins triton==3.6.0; forcing 3.7.0.
fn canonical_forced(upstream: Upstream) -> PlanFacts {
    let mut triton = change("triton", Some("3.6.0"), Some("3.7.0"));
    triton.forced = true;
    triton.dependents = Dependents {
        direct: vec![n("torch")],
        transitive: 3,
        importing: Vec::new(),
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
/// Jax and jaxlib move in lockstep (a coupled group with `versions`): the
/// dependents both have (and jax, a member, as jaxlib's dependent) count once, on jax.
fn lockstep_members_count_dependents_once() {
    let policy = Policy::builtin();
    let mut jax = change("jax", Some("0.11.2"), Some("0.12.0.1"));
    jax.dependents = Dependents {
        direct: vec![n("chex"), n("flax"), n("optax")],
        transitive: 2,
        importing: Vec::new(),
    };
    jax.predating_dependents = vec![n("chex"), n("flax"), n("optax")];
    let mut jaxlib = change("jaxlib", Some("0.11.2"), Some("0.12.0.1"));
    jaxlib.dependents = Dependents {
        direct: vec![n("chex"), n("jax"), n("optax")],
        transitive: 6,
        importing: Vec::new(),
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
        importing: Vec::new(),
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

/// The cap limits the points of major upgrades, never which are listed.
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

/// `young-release` counts once per plan, for what the request asked for
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

/// An edge broken before the plan and kept by it (fastapi 0.95.2's
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

/// A dist not asked about going back by years or across a major line carries that distance
/// (botocore 1.34.19 of 2024-01-16 back to 1.10.84 of 2018-08-24, the upload times the index
/// gives); a near downgrade does not; nor does what a requested downgrade takes back with it.
#[test]
fn a_far_downgrade_carries_its_distance() {
    let policy = Policy::builtin();
    let at = |s: &str| Some(s.parse::<Timestamp>().unwrap());
    let far = || {
        let mut botocore = change("botocore", Some("1.34.19"), Some("1.10.84"));
        botocore.requested = false;
        botocore.installed_released = at("2024-01-16T20:08:32Z");
        botocore.released = at("2018-08-24T22:42:03Z");
        botocore.releases_back = Some(1275);
        botocore
    };
    let mut near = change("s3transfer", Some("0.10.4"), Some("0.10.2"));
    near.requested = false;
    near.installed_released = at("2024-11-20T21:06:00Z");
    near.released = at("2024-06-24T20:24:00Z");
    let mut jmespath = change("jmespath", Some("1.1.0"), Some("0.10.0"));
    jmespath.requested = false;
    let facts = |changes| PlanFacts {
        changes,
        ..Default::default()
    };
    let distance = |facts: &PlanFacts| -> Vec<(i32, String)> {
        assess(facts, &policy)
            .factors
            .into_iter()
            .filter(|f| f.kind == FactorKind::DowngradeDistance)
            .map(|f| (f.points, f.detail))
            .collect()
    };
    let urllib3 = change("urllib3", Some("1.26.20"), Some("2.8.0"));
    assert_eq!(
        distance(&facts(vec![far(), near.clone(), jmespath.clone(), urllib3])),
        [
            (
                25,
                "botocore goes back from 1.34.19 to 1.10.84 (5 years older, 1275 releases back); \
                 offered, not recommended while a plan that moves nothing back exists"
                    .to_string()
            ),
            (
                5,
                "jmespath goes back from 1.1.0 to 0.10.0 (across 1 major line); offered, not \
                 recommended while a plan that moves nothing back exists"
                    .to_string()
            ),
        ]
    );
    // The request itself goes back (urllib3 1.26.20 -> 1.25.11): what it takes along is its cost.
    let asked_back = change("urllib3", Some("1.26.20"), Some("1.25.11"));
    assert!(distance(&facts(vec![far(), asked_back])).is_empty());
}

/// The dependents' detail lists five of each kind, then how many more; an importer with its
/// import.
#[test]
fn a_dependents_detail_lists_five_then_how_many_more() {
    let policy = Policy::builtin();
    let mut numpy = change("numpy", Some("1.26.4"), Some("2.1.0"));
    let names = |prefix: &str, count: usize| -> Vec<PackageName> {
        (1..=count).map(|i| n(&format!("{prefix}{i}"))).collect()
    };
    numpy.dependents = Dependents {
        direct: names("lib", 7),
        transitive: 0,
        importing: names("user", 6)
            .into_iter()
            .map(|d| (d.clone(), format!("{d}/__init__.py, line 3")))
            .collect(),
    };
    let detail = |facts: PlanFacts| -> String {
        assess(&facts, &policy)
            .factors
            .into_iter()
            .find(|f| f.kind == FactorKind::DirectDependent)
            .map(|f| {
                f.detail
                    .split("; in the corpus")
                    .next()
                    .unwrap()
                    .to_string()
            })
            .unwrap()
    };
    let facts = |numpy: ChangeFacts| PlanFacts {
        changes: vec![numpy],
        ..Default::default()
    };
    assert_eq!(
        detail(facts(numpy.clone())),
        "7 installed dists require numpy: lib1, lib2, lib3, lib4, lib5 and 2 more; 6 more import \
         numpy without requiring it: user1 (user1/__init__.py, line 3), user2 \
         (user2/__init__.py, line 3), user3 (user3/__init__.py, line 3), user4 \
         (user4/__init__.py, line 3), user5 (user5/__init__.py, line 3) and 1 more"
    );
    numpy.dependents.direct.truncate(1);
    numpy.dependents.importing.truncate(1);
    assert_eq!(
        detail(facts(numpy.clone())),
        "1 installed dist requires numpy: lib1; 1 more imports numpy without requiring it: user1 \
         (user1/__init__.py, line 3)"
    );
    numpy.dependents.direct.clear();
    assert_eq!(
        detail(facts(numpy)),
        "1 installed dist imports numpy without requiring it: user1 (user1/__init__.py, line 3)"
    );
}

/// An import a change breaks carries the lines that show it, on its own factor only.
#[test]
fn a_broken_import_factor_cites_its_lines() {
    let policy = Policy::builtin();
    let cite = |dist: &str, file: &str, name: &str| crate::risk::Citation {
        dist: dist.to_string(),
        version: "1.0".to_string(),
        file: file.to_string(),
        line: 3,
        module: "werkzeug".to_string(),
        name: Some(name.to_string()),
        attribute: false,
        function: None,
    };
    let mut werkzeug = change("werkzeug", Some("2.0.3"), Some("3.1.9"));
    werkzeug.missing_imports = vec!["flask imports url_quote".to_string()];
    werkzeug.missing_citations = vec![cite("flask", "flask/helpers.py", "url_quote")];
    werkzeug.planned_imports_missing = vec!["werkzeug imports gone".to_string()];
    werkzeug.planned_citations = vec![cite("werkzeug", "werkzeug/x.py", "gone")];
    let facts = PlanFacts {
        changes: vec![werkzeug],
        ..Default::default()
    };
    let cited: Vec<(FactorKind, Vec<String>)> = assess(&facts, &policy)
        .factors
        .into_iter()
        .map(|f| (f.kind, f.citations.into_iter().map(|c| c.file).collect()))
        .filter(|(_, files): &(FactorKind, Vec<String>)| !files.is_empty())
        .collect();
    assert_eq!(
        cited,
        [
            (
                FactorKind::ImportTargetMissing,
                vec!["flask/helpers.py".to_string()]
            ),
            (
                FactorKind::PlannedImportMissing,
                vec!["werkzeug/x.py".to_string()]
            ),
        ]
    );
}
