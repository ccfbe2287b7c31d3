//! `planner review --format sarif`: SARIF 2.1.0 for code scanning, serialized by serde.

use serde_json::json;

use super::{finding_message, unresolved_text};
use crate::render::json::JsonError;
use crate::review::Review;
use crate::risk::RiskLevel;

/// The SARIF rules: (id, name, description).
const RULES: [(&str, &str, &str); 4] = [
    (
        "planner/breaks-requirement",
        "PinBreaksRequirement",
        "A forced or pinned version violates another package's declared requirement.",
    ),
    (
        "planner/pinned-version",
        "PinnedVersion",
        "A forced or pinned version was added or changed; it breaks nothing declared.",
    ),
    (
        "planner/unparsable-file",
        "UnparsableFile",
        "A dependency file could not be parsed, so its pins were not reviewed.",
    ),
    (
        "planner/unresolvable",
        "Unresolvable",
        "The requirements a file declares do not resolve together with the head's pins.",
    ),
];

fn sarif_level(level: Option<RiskLevel>) -> &'static str {
    match level {
        Some(RiskLevel::High | RiskLevel::Critical) => "error",
        Some(RiskLevel::Medium) | None => "warning",
        Some(RiskLevel::Low) => "note",
    }
}

/// SARIF 2.1.0.
pub(crate) fn sarif(review: &Review) -> Result<String, JsonError> {
    let rules: Vec<serde_json::Value> = RULES
        .iter()
        .map(|(id, name, text)| {
            json!({
                "id": id,
                "name": name,
                "shortDescription": {"text": text},
                "fullDescription": {"text": text},
                "help": {"text": "See docs/review.md: each finding carries the requirement it breaks, its risk and the safer plan."},
                "defaultConfiguration": {"level": "warning"}
            })
        })
        .collect();
    let location = |file: &str, line: Option<usize>| {
        let mut physical = json!({"artifactLocation": {"uri": file, "uriBaseId": "%SRCROOT%"}});
        if let Some(line) = line {
            physical["region"] = json!({"startLine": line});
        }
        json!([{"physicalLocation": physical}])
    };
    let mut results = Vec::new();
    for f in &review.findings {
        let rule = usize::from(!f.breaks());
        results.push(json!({
            "ruleId": RULES[rule].0,
            "ruleIndex": rule,
            "level": sarif_level(f.level),
            "message": {"text": finding_message(f, true)},
            "locations": location(&f.pin.file, Some(f.pin.line)),
            "partialFingerprints": {"plannerPin/v1": format!("{}:{}:{}", f.pin.file, f.pin.kind.label(), f.pin.requirement)},
            "properties": {"risk-level": f.level, "risk-score": f.score, "kind": f.pin.kind}
        }));
    }
    for u in &review.unresolved {
        results.push(json!({
            "ruleId": RULES[3].0,
            "ruleIndex": 3,
            "level": if u.at_base || u.missing.is_some() { "warning" } else { "error" },
            "message": {"text": unresolved_text(u)},
            "locations": location(&u.file, None)
        }));
    }
    for p in &review.problems {
        results.push(json!({
            "ruleId": RULES[2].0,
            "ruleIndex": 2,
            "level": "warning",
            "message": {"text": p.message},
            "locations": location(&p.file, p.line)
        }));
    }
    let doc = json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "planner",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules
            }},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "the repository's top level"}}},
            "properties": {"base": review.base.commit, "head": review.head.commit},
            "results": results
        }]
    });
    crate::render::json::to_json(&doc)
}
