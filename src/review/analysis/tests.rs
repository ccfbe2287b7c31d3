use super::*;
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
