use std::str::FromStr;

use pep508_rs::PackageName;

use super::*;
use crate::inventory::graph::tests::inventory;
use crate::plan::test_plans::{self, n, v};
use crate::plan::{Action, Change, Reason};

fn change(name: &str, from: &str, to: &str) -> Change {
    Change {
        name: n(name),
        from: Some(v(from)),
        to: Some(v(to)),
        action: Action::Upgrade,
        reasons: vec![Reason::Resolution],
        forced: false,
        yanked: None,
        upload_time: None,
        top_level: Vec::new(),
        repair: false,
        from_source_only: false,
    }
}

fn plan_changing(changes: Vec<Change>) -> Plan {
    let mut plan = test_plans::forced();
    plan.changes = changes;
    plan.overrides.clear();
    plan
}

fn world() -> Inventory {
    inventory(&[
        ("typing-extensions", "4.14.1", &[], &[]),
        (
            "typing-inspection",
            "0.4.1",
            &["typing-extensions>=4.12.0"],
            &[],
        ),
        ("pydantic", "2.11.0", &["typing-inspection>=0.4.0"], &[]),
        ("app", "1.0", &["pydantic"], &[]),
        ("bystander", "1.0", &[], &[]),
        ("numpy", "2.3.4", &[], &[]),
        ("pandas", "2.3.3", &["numpy>=1.26"], &[]),
        ("sympy", "1.14.0", &[], &[]),
        (
            "torch",
            "2.11.0+cu130",
            &["sympy>=1.13.3", "triton==3.6.0"],
            &[],
        ),
        ("triton", "3.6.0", &[], &[]),
    ])
}

fn whys(spec: &VerifySpec) -> Vec<(String, Why, Option<String>, bool)> {
    spec.dists
        .iter()
        .map(|d| {
            (
                d.name.to_string(),
                d.why,
                d.via.as_ref().map(PackageName::to_string),
                d.subpackages,
            )
        })
        .collect()
}

fn smoke_names(spec: &VerifySpec) -> Vec<&str> {
    spec.smoke.iter().map(|s| s.name.as_str()).collect()
}

#[test]
fn a_forced_downgrade_imports_the_changed_dist_the_overridden_dependent_and_every_dependent() {
    let inv = world();
    let mut plan = plan_changing(vec![change("typing-extensions", "4.14.1", "4.6.0")]);
    plan.overrides = vec![crate::plan::Override {
        dependent: n("typing-inspection"),
        dependent_version: v("0.4.1"),
        requirement: pep508_rs::Requirement::from_str("typing-extensions>=4.12.0").unwrap(),
        package: n("typing-extensions"),
        version: v("4.6.0"),
        replacement: pep508_rs::Requirement::from_str("typing-extensions==4.6.0").unwrap(),
        reason: "test".into(),
    }];
    let spec = select(Some(&plan), &inv, &Policy::builtin(), false);
    let te = Some("typing-extensions".to_string());
    assert_eq!(
        whys(&spec),
        [
            ("app".into(), Why::Dependent, te.clone(), false),
            ("pydantic".into(), Why::Dependent, te.clone(), false),
            ("typing-extensions".into(), Why::Changed, None, true),
            (
                "typing-inspection".into(),
                Why::OverriddenDependent,
                te,
                true
            ),
        ]
    );
    assert_eq!(spec.expect[0].version, Some(v("4.6.0")));
    assert_eq!(spec.overrides.len(), 1);
    assert!(spec.smoke.is_empty(), "{:?}", smoke_names(&spec));
}

#[test]
fn smoke_tests_follow_their_triggers() {
    let inv = world();
    let policy = Policy::builtin();
    let select_for = |name: &str| {
        let plan = plan_changing(vec![change(name, "1.0", "2.0")]);
        let spec = select(Some(&plan), &inv, &policy, false);
        (
            smoke_names(&spec).join(","),
            spec.smoke.first().map(|s| s.why.clone()),
        )
    };
    // numpy changes: its C-API check (package), and pandas' duckdb scan (a dependency of
    // pandas); pandas changes: it requires numpy (dependents), and its own scan.
    assert_eq!(select_for("numpy").0, "numpy-c-api,pandas-duckdb-scan");
    let (names, why) = select_for("pandas");
    assert_eq!(names, "numpy-c-api,pandas-duckdb-scan");
    assert_eq!(why.unwrap(), "pandas changes (it requires numpy)");
    // sympy is a dependency of torch: every torch test; not triton's.
    let (names, why) = select_for("sympy");
    assert_eq!(
        names,
        "torch-cuda,torch-cuda-label,torch-compile,flex-attention"
    );
    assert_eq!(why.unwrap(), "sympy changes (a dependency of torch)");
    // triton: its own tests, and torch's (coupled).
    let (names, _) = select_for("triton");
    assert_eq!(
        names,
        "torch-cuda,torch-cuda-label,torch-compile,flex-attention,triton-kernel,triton-autotune"
    );
    // torch: its own, and triton's (torch is triton's dependent).
    assert!(select_for("torch").0.contains("triton-kernel"));
    assert_eq!(select_for("bystander").0, "");
    // jax and cupy are not installed: never selected, even by --all.
    let spec = select(None, &inv, &policy, true);
    assert_eq!(
        smoke_names(&spec),
        [
            "torch-cuda",
            "torch-cuda-label",
            "torch-compile",
            "flex-attention",
            "triton-kernel",
            "triton-autotune",
            "numpy-c-api",
            "pandas-duckdb-scan"
        ]
    );
    assert_eq!(spec.dists.len(), inv.dists.len());
    assert!(
        spec.dists
            .iter()
            .all(|d| d.why == Why::Installed && !d.subpackages)
    );
}

/// The stacks users build on: a change on either side of a pair neither declares (duckdb and
/// pandas, langchain and openai) selects the pair's workload; one of the other's dependencies
/// (urllib3 under requests, twisted under scrapy, kombu under celery, docutils under sphinx)
/// selects the dependent's.
#[test]
fn the_stacks_smoke_tests_follow_either_side_of_their_pair() {
    let inv = inventory(&[
        ("numpy", "1.26.4", &[], &[]),
        ("pandas", "2.0.3", &["numpy>=1.22"], &[]),
        ("pyarrow", "14.0.2", &["numpy>=1.16"], &[]),
        ("duckdb", "0.8.1", &[], &[]),
        ("openai", "0.28.1", &[], &[]),
        ("langchain", "0.0.300", &[], &[]),
        ("urllib3", "2.2.3", &[], &[]),
        ("requests", "2.32.3", &["urllib3<3,>=1.21.1"], &[]),
        ("twisted", "22.10.0", &[], &[]),
        ("scrapy", "2.8.0", &["twisted>=18.9.0"], &[]),
        ("kombu", "5.3.4", &[], &[]),
        ("celery", "5.3.6", &["kombu<6.0,>=5.3.4"], &[]),
        ("docutils", "0.19", &[], &[]),
        ("sphinx", "7.2.6", &["docutils<0.21,>=0.18.1"], &[]),
        ("sqlalchemy", "2.0.30", &[], &[]),
    ]);
    let policy = Policy::builtin();
    let select_for = |name: &str| {
        let plan = plan_changing(vec![change(name, "1.0", "2.0")]);
        let spec = select(Some(&plan), &inv, &policy, false);
        // numpy's C-API check follows every dist that requires numpy: not what this is about.
        smoke_names(&spec)
            .into_iter()
            .filter(|s| *s != "numpy-c-api")
            .collect::<Vec<_>>()
            .join(",")
    };
    assert_eq!(select_for("duckdb"), "duckdb-pandas-scan");
    assert_eq!(select_for("pandas"), "pandas-duckdb-scan");
    assert_eq!(select_for("pyarrow"), "pyarrow-duckdb-scan");
    assert_eq!(select_for("openai"), "openai-langchain-call");
    assert_eq!(select_for("langchain"), "langchain-openai-call");
    assert_eq!(select_for("urllib3"), "requests-get");
    assert_eq!(select_for("twisted"), "scrapy-crawl");
    assert_eq!(select_for("kombu"), "celery-kombu");
    assert_eq!(select_for("docutils"), "sphinx-build");
    assert_eq!(select_for("sqlalchemy"), "sqlalchemy-orm");
}

#[test]
fn removed_dists_are_not_imported_but_their_dependents_are() {
    let inv = world();
    let mut removal = change("pydantic", "2.11.0", "2.11.0");
    removal.to = None;
    removal.action = Action::Remove;
    let spec = select(
        Some(&plan_changing(vec![removal])),
        &inv,
        &Policy::builtin(),
        false,
    );
    assert_eq!(
        whys(&spec),
        [("app".into(), Why::Dependent, Some("pydantic".into()), false)]
    );
    assert_eq!(spec.expect[0].version, None);
}

/// langchain 0.0.300's `_create_retry_decorator` uses `openai.error` (jinachat.py lines 71-72),
/// which openai 2.54.0 does not ship: the plan's `call-time-target-missing` citations become one
/// `call-time` claim for langchain (the first use, one more counted); a cited dist that is not
/// installed, or that the plan removes, gets none, and an import-time factor's citations are
/// not call-time claims. A plan without call-time factors has none, and its spec has no key.
#[test]
fn a_plans_call_time_citations_become_one_claim_per_dist_and_needed_module() {
    use crate::risk::{Citation, FactorKind, RiskFactor};
    let inv = inventory(&[
        ("openai", "0.28.1", &[], &[]),
        ("langchain", "0.0.300", &[], &[]),
        ("kept", "1.0", &[], &[]),
    ]);
    let cite = |dist: &str, line: usize, function: Option<&str>| Citation {
        dist: dist.to_string(),
        version: "0.0.300".to_string(),
        file: format!("{dist}/chat_models/jinachat.py"),
        line,
        module: "openai.error".to_string(),
        name: None,
        attribute: true,
        function: function.map(String::from),
    };
    let factor = |kind: FactorKind, citations: Vec<Citation>| RiskFactor {
        kind,
        points: 30,
        package: "openai".to_string(),
        detail: String::new(),
        citations,
    };
    let mut plan = plan_changing(vec![change("openai", "0.28.1", "2.54.0")]);
    let plain = select(Some(&plan), &inv, &Policy::builtin(), false);
    assert_eq!(plain.call_time, []);
    assert!(!serde_json::to_string(&plain).unwrap().contains("call_time"));
    plan.risk.factors = vec![
        factor(
            FactorKind::CallTimeTargetMissing,
            vec![
                cite("langchain", 71, Some("_create_retry_decorator")),
                cite("langchain", 72, Some("_create_retry_decorator")),
                cite("ghost", 5, None),
            ],
        ),
        factor(FactorKind::ImportTargetMissing, vec![cite("kept", 3, None)]),
    ];
    let spec = select(Some(&plan), &inv, &Policy::builtin(), false);
    let claims: Vec<_> = (spec.call_time.iter())
        .map(|c| {
            let at = (c.file.as_str(), c.line, c.function.as_deref());
            (
                c.dist.to_string(),
                at,
                c.module.as_str(),
                c.attribute,
                c.more,
            )
        })
        .collect();
    let at = (
        "langchain/chat_models/jinachat.py",
        71,
        Some("_create_retry_decorator"),
    );
    assert_eq!(
        claims,
        [("langchain".to_string(), at, "openai.error", true, 1)]
    );
    assert_eq!(spec.call_time[0].imports, n("openai"));
    let mut removal = change("langchain", "0.0.300", "0.0.300");
    removal.to = None;
    removal.action = Action::Remove;
    plan.changes.push(removal);
    let spec = select(Some(&plan), &inv, &Policy::builtin(), false);
    assert_eq!(spec.call_time, []);
}
