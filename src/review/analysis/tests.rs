use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::PackageName;

use super::*;
use crate::review::pins::PinKind;
use crate::risk::FactorKind;

fn factor(kind: FactorKind, points: i32) -> RiskFactor {
    RiskFactor {
        kind,
        points,
        package: "triton".to_string(),
        detail: String::new(),
        citations: Vec::new(),
    }
}

/// Factors whose evidence is installed files are not weighed on a synthesized target; the
/// score and level are recomputed and the remark says which evidence was missing.
#[test]
fn file_evidence_is_dropped_without_a_venv() {
    let policy = Policy::builtin();
    let mut verdict = empty_verdict(&Target::Synthesized {
        label: "3.12".to_string(),
        environment: Box::new(
            Environment::synthesize("3.12", Some("x86_64-manylinux_2_28")).unwrap(),
        ),
    });
    verdict.risk = Some(RiskScore {
        score: 46,
        level: policy.level(46),
        policy: policy.name.clone(),
        factors: vec![
            factor(FactorKind::PlannedImportMissing, 30),
            factor(FactorKind::Downgrade, 6),
            factor(FactorKind::ImportTargetMissing, 10),
        ],
    });
    let verdict = without_file_evidence(verdict, &policy);
    let risk = verdict.risk.unwrap();
    assert_eq!(risk.score, 6);
    assert_eq!(risk.level, policy.level(6));
    assert_eq!(risk.factors.len(), 1);
    assert_eq!(
        verdict.remark.as_deref(),
        Some(
            "not weighed: planned-import-missing, import-target-missing (that evidence is read from an environment's installed files, not available without --venv)"
        )
    );
}

/// A pin judged from what it breaks alone: a requirement the dependent declares through two
/// extras (`nvidia-cublas==13.4.1.3.*` under cuda-toolkit's `cublas` and `all`) is one break,
/// said once naming both extras and weighed once; another requirement is a second factor.
#[test]
fn a_requirement_reached_through_two_extras_is_weighed_once() {
    let policy = Policy::builtin();
    let mut verdict = empty_verdict(&Target::Synthesized {
        label: "3.12".to_string(),
        environment: Box::new(
            Environment::synthesize("3.12", Some("x86_64-manylinux_2_28")).unwrap(),
        ),
    });
    let blocker = |dependent: &str, requirement: &str| Blocker {
        dependent: PackageName::from_str(dependent).unwrap(),
        dependent_version: Version::from_str("13.0.2").unwrap(),
        requirement: crate::metadata::parse_requirement(requirement).unwrap(),
    };
    verdict.breaks = vec![
        blocker(
            "cuda-toolkit",
            "nvidia-cublas==13.4.1.3.* ; extra == 'cublas'",
        ),
        blocker("cuda-toolkit", "nvidia-cublas==13.4.1.3.* ; extra == 'all'"),
        blocker("other", "nvidia-cublas>=13.5"),
    ];
    let pin = Pin {
        file: "requirements.txt".to_string(),
        line: 1,
        kind: PinKind::RequirementsPin,
        requirement: crate::metadata::parse_requirement("nvidia-cublas==13.1.0").unwrap(),
        flags: Vec::new(),
        context: Default::default(),
    };
    let risk = judged_from_breaks(verdict, &pin, &policy).risk.unwrap();
    let details: Vec<&str> = risk.factors.iter().map(|f| f.detail.as_str()).collect();
    assert_eq!(details.len(), 2, "{details:#?}");
    assert!(
        details[0].starts_with(
            "cuda-toolkit 13.0.2 requires nvidia-cublas==13.4.1.3.*, through its extras cublas, \
             all, and nvidia-cublas==13.1.0 allows none of it"
        ),
        "{details:#?}"
    );
    assert!(details[1].starts_with("other 13.0.2 requires nvidia-cublas>=13.5, and"));
    let total: i32 = risk.factors.iter().map(|f| f.points).sum();
    assert_eq!(u8::try_from(total.clamp(0, 100)).unwrap(), risk.score);
}
