//! Plans built by hand for the renderers' tests: the canonical incident's alternatives.

use std::collections::BTreeMap;
use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::proposal::*;
use crate::risk::{FactorKind, RiskFactor, RiskLevel, RiskScore};

pub(crate) fn n(s: &str) -> PackageName {
    PackageName::from_str(s).unwrap()
}
pub(crate) fn v(s: &str) -> Version {
    Version::from_str(s).unwrap()
}
pub(crate) fn r(s: &str) -> Requirement {
    Requirement::from_str(s).unwrap()
}

fn pins(extra: &[(&str, &str)]) -> BTreeMap<PackageName, Version> {
    let mut pins: BTreeMap<PackageName, Version> = [
        ("filelock", "3.20.0"),
        ("numpy", "2.3.4"),
        ("torch", "2.11.0+cu130"),
        ("triton", "3.6.0"),
    ]
    .into_iter()
    .map(|(a, b)| (n(a), v(b)))
    .collect();
    for (a, b) in extra {
        pins.insert(n(a), v(b));
    }
    pins
}

/// torch 2.11.0+cu130 pins triton==3.6.0; triton forced to 3.7.0.
pub(crate) fn forced() -> Plan {
    Plan {
        schema: PLAN_SCHEMA.into(),
        kind: PlanKind::ForcedOverride,
        title: "Force triton 3.7.0 over torch's pin".into(),
        targets: vec![r("triton==3.7.0")],
        changes: vec![Change {
            name: n("triton"),
            from: Some(v("3.6.0")),
            to: Some(v("3.7.0")),
            action: Action::Upgrade,
            reasons: vec![
                Reason::Requested {
                    requirement: r("triton==3.7.0"),
                },
                Reason::Override {
                    replacement: r("triton==3.7.0"),
                },
            ],
            forced: true,
            yanked: None,
            upload_time: None,
            top_level: vec!["triton".into()],
            repair: false,
            from_source_only: false,
        }],
        overrides: vec![Override {
            dependent: n("torch"),
            dependent_version: v("2.11.0+cu130"),
            requirement: r("triton==3.6.0; platform_system == \"Linux\""),
            package: n("triton"),
            version: v("3.7.0"),
            replacement: r("triton==3.7.0"),
            reason: "forced by `planner propose --allow-override` for triton==3.7.0".into(),
        }],
        held_back: vec![],
        pins: pins(&[("triton", "3.7.0")]),
        warnings: vec![],
        risk: RiskScore {
            score: 57,
            level: RiskLevel::High,
            policy: "default".into(),
            factors: vec![
                RiskFactor {
                    kind: FactorKind::PinExact,
                    points: 30,
                    package: "triton".into(),
                    detail: "torch 2.11.0+cu130 requires triton==3.6.0, forced to 3.7.0: breaks `==3.6.0`".into(),
                    citations: Vec::new(),
                },
                RiskFactor {
                    kind: FactorKind::DistanceMinor,
                    points: 12,
                    package: "triton".into(),
                    detail: "3.7.0 is a minor step outside `==3.6.0`".into(),
                    citations: Vec::new(),
                },
                RiskFactor {
                    kind: FactorKind::CoupledPolicy,
                    points: 20,
                    package: "triton".into(),
                    detail: "torch and triton are coupled".into(),
                    citations: Vec::new(),
                },
                RiskFactor {
                    kind: FactorKind::UpstreamAccepts,
                    points: -10,
                    package: "triton".into(),
                    detail: "upstream moved: torch 2.12.0 accepts triton 3.7.0".into(),
                    citations: Vec::new(),
                },
                RiskFactor {
                    kind: FactorKind::DirectDependent,
                    points: 5,
                    package: "triton".into(),
                    detail: "1 installed dist requires triton: torch".into(),
                    citations: Vec::new(),
                },
            ],
        },
        layer: None,
        install: None,
        commands: None,
        breaks: vec![],
        unchecked: vec![],
    }
}

/// torch 2.11.0+cu130 -> 2.12.0, which pins triton==3.7.0; a local-build switch too.
pub(crate) fn move_blockers() -> Plan {
    Plan {
        schema: PLAN_SCHEMA.into(),
        kind: PlanKind::MoveBlockers,
        title: "Move the blocker: torch 2.11.0+cu130 -> 2.12.0".into(),
        targets: vec![r("triton==3.7.0")],
        changes: vec![
            Change {
                name: n("torch"),
                from: Some(v("2.11.0+cu130")),
                to: Some(v("2.12.0")),
                action: Action::Upgrade,
                reasons: vec![Reason::Unblocks {
                    target: r("triton==3.7.0"),
                    blocking: r("triton==3.6.0; platform_system == \"Linux\""),
                }],
                forced: false,
                yanked: None,
                upload_time: None,
                top_level: vec!["torch".into(), "functorch".into()],
                repair: false,
                from_source_only: false,
            },
            Change {
                name: n("triton"),
                from: Some(v("3.6.0")),
                to: Some(v("3.7.0")),
                action: Action::Upgrade,
                reasons: vec![Reason::Requested {
                    requirement: r("triton==3.7.0"),
                }],
                forced: false,
                yanked: None,
                upload_time: None,
                top_level: vec!["triton".into()],
                repair: false,
                from_source_only: false,
            },
        ],
        overrides: vec![],
        held_back: vec![],
        pins: pins(&[("torch", "2.12.0"), ("triton", "3.7.0")]),
        warnings: vec![
            "torch 2.11.0+cu130 is a local build: this plan REPLACES it with the index build 2.12.0".into(),
        ],
        risk: RiskScore {
            score: 33,
            level: RiskLevel::Medium,
            policy: "default".into(),
            factors: vec![RiskFactor {
                kind: FactorKind::LocalVariantSwitch,
                points: 25,
                package: "torch".into(),
                detail: "torch 2.11.0+cu130 is a local build; 2.12.0 is a different build".into(),
                citations: Vec::new(),
            }],
        },
        layer: None,
        install: None,
        commands: None,
        breaks: vec![],
        unchecked: vec![],
    }
}

/// A proposal holding both, with the conflict.
pub(crate) fn proposal() -> Proposal {
    Proposal {
        schema: PROPOSAL_SCHEMA.into(),
        planner_version: "0.1.0".into(),
        environment: EnvironmentSummary {
            source: "testdata/venvs/canonical".into(),
            python_version: "3.12.3".into(),
            platform: "linux x86_64".into(),
            dists: 4,
        },
        request: Request {
            targets: vec![r("triton==3.7.0")],
            all: false,
            allow_override: true,
            allow_build: false,
            policy: "default".into(),
            layer: None,
        },
        already_broken: vec![],
        conflict: Some(Conflict {
            explanation: "Because torch==2.11.0+cu130 depends on triton==3.6.0 and you require triton==3.7.0, we can conclude that your requirements are unsatisfiable.".into(),
            blockers: vec![Blocker {
                dependent: n("torch"),
                dependent_version: v("2.11.0+cu130"),
                requirement: r("triton==3.6.0; platform_system == \"Linux\""),
            }],
            hints: vec![],
        }),
        plans: vec![move_blockers(), forced()],
        warnings: vec![],
    }
}
