//! The truth corpus (`testdata/evidence-truth/cases.jsonl`): cases applied for real, each with
//! what planner must and must not claim about it, run offline against recorded index data or a
//! loopback index of tiny wheels shaped after the real files (see the corpus's README).
//!
//! A `propose` case reads the named plan's risk factors and warnings: every `must` text is in
//! them, no `must_not` text is, and the score is at least `risk_at_least`. A `try` case proposes,
//! tries the named plan, and reads its regressions: the `verdict` matches, every `must` text is
//! among them, no `must_not` text is.

use std::path::{Path, PathBuf};

use crate::common::index_server::{IndexServer, tiny_wheels};
use crate::common::venv::RealVenv;
use crate::common::{TestContext, h200_fixtures, repo_root};
use crate::try_::{path_without_uv, pip_ok};

fn cases() -> Vec<serde_json::Value> {
    let path = repo_root().join("testdata/evidence-truth/cases.jsonl");
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The tiny wheels of a case, each file text given inline or as `@path` (a file of the
/// repository, copied unchanged).
fn wheels_of(case: &serde_json::Value) -> serde_json::Value {
    let mut wheels = case["venv"]["wheels"].clone();
    for wheel in wheels.as_array_mut().unwrap() {
        for (_, text) in wheel["files"].as_object_mut().unwrap() {
            if let Some(path) = text.as_str().and_then(|t| t.strip_prefix('@')) {
                let read = std::fs::read_to_string(repo_root().join(path)).unwrap();
                *text = serde_json::Value::String(read);
            }
        }
    }
    wheels
}

/// Where a case runs: its venv and the index it reads.
struct Setup {
    venv: PathBuf,
    server: IndexServer,
}

fn setup(ctx: &TestContext, case: &serde_json::Value) -> Setup {
    if let Some(fixture) = case["venv"]["fixture"].as_str() {
        let index = repo_root().join(case["index"].as_str().unwrap());
        return Setup {
            venv: h200_fixtures().join(fixture),
            server: IndexServer::start(&index),
        };
    }
    let server = tiny_wheels(&ctx.path().join("index"), &wheels_of(case));
    let venv = ctx.path().join("venv");
    RealVenv::create(&venv);
    let install: Vec<&str> = case["venv"]["install"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    pip_ok(
        &venv,
        &[
            &["install", "--index-url", &server.url()],
            install.as_slice(),
        ]
        .concat(),
    );
    Setup { venv, server }
}

fn strings(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default()
}

/// Every wrong claim of a case's answer `text`, as lines.
fn wrong_claims(case: &serde_json::Value, text: &str) -> Vec<String> {
    let id = case["id"].as_str().unwrap();
    let mut wrong = Vec::new();
    for must in strings(&case["must"]) {
        if !text.contains(must) {
            wrong.push(format!("{id}: does not say {must:?}"));
        }
    }
    for must_not in strings(&case["must_not"]) {
        if text.contains(must_not) {
            wrong.push(format!("{id}: says {must_not:?}"));
        }
    }
    wrong
}

/// The plan of `kind` in `propose --out-dir`'s folder.
fn plan_folder(out: &Path, kind: &str) -> Option<PathBuf> {
    std::fs::read_dir(out.join("plans"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(kind))
}

/// A case's wrong claims, after running it.
fn run_case(case: &serde_json::Value) -> Vec<String> {
    let ctx = TestContext::new();
    let setup = setup(&ctx, case);
    let id = case["id"].as_str().unwrap();
    let kind = case["plan"].as_str().unwrap();
    let out = ctx.path().join("out");
    let mut args = strings(&case["request"]);
    args.extend(["--out-dir", out.to_str().unwrap()]);
    let proposed = ctx.propose(&setup.venv, &setup.server.url(), &args);
    let Some(folder) = plan_folder(&out, kind) else {
        return vec![format!("{id}: no {kind} plan\n{}", proposed.stderr)];
    };
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("plan.json")).unwrap()).unwrap();
    if case["command"] == "try" {
        return try_claims(&ctx, case, &setup, &folder);
    }
    let mut text: Vec<String> = strings(&plan["warnings"])
        .iter()
        .map(|s| s.to_string())
        .collect();
    for factor in plan["risk"]["factors"].as_array().unwrap() {
        text.push(format!("{}: {}", factor["kind"], factor["detail"]));
    }
    let mut wrong = wrong_claims(case, &text.join("\n"));
    let score = plan["risk"]["score"].as_i64().unwrap();
    if let Some(least) = case["risk_at_least"].as_i64()
        && score < least
    {
        wrong.push(format!("{id}: risk {score}, below {least}"));
    }
    wrong
}

/// `try` the plan in `folder`: the wrong claims among its regressions and its verdict.
fn try_claims(
    ctx: &TestContext,
    case: &serde_json::Value,
    setup: &Setup,
    folder: &Path,
) -> Vec<String> {
    let tmp = ctx.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let output = ctx
        .command()
        .env("PATH", path_without_uv())
        .env("TMPDIR", &tmp)
        .args([
            "try",
            folder.to_str().unwrap(),
            "--format",
            "json",
            "--venv",
        ])
        .arg(&setup.venv)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let regressions = strings(&report["regressions"]).join("\n");
    let mut wrong = wrong_claims(case, &regressions);
    if let Some(verdict) = case["verdict"].as_str()
        && report["verdict"] != verdict
    {
        let id = case["id"].as_str().unwrap();
        wrong.push(format!(
            "{id}: {} ({regressions}), not {verdict}",
            report["verdict"]
        ));
    }
    wrong
}

/// Every case of the corpus is answered right: no wrong claim, no missed one.
#[test]
fn every_truth_corpus_case_is_answered_right() {
    let cases = cases();
    assert!(cases.len() >= 4, "the corpus lost cases");
    for case in &cases {
        for field in ["id", "command", "truth", "established"] {
            assert!(case[field].is_string(), "{case}: no {field}");
        }
    }
    // `EVIDENCE_TRUTH_ONLY=ID-PART` runs the cases whose id holds it (while working on one).
    let only = std::env::var("EVIDENCE_TRUTH_ONLY").unwrap_or_default();
    let wrong: Vec<String> = cases
        .iter()
        .filter(|c| c["id"].as_str().unwrap().contains(&only))
        .flat_map(run_case)
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
