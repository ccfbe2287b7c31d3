//! The review corpus of real repositories (testdata/review-real/): every case, a pull request
//! made against the dependency files of one of six public repositories (`cases.json`, each
//! with its truth and how uv established it), reviewed with the documented gate (`--fail-on
//! medium --fail-on-unjudged`) on the index data the corpus reads, recorded from the live index
//! (testdata/review-real/index, made by scripts/record-review-corpus) and served on loopback.
//! A breaking case must fail the gate naming what it breaks, a harmless one must pass; any false
//! pass or false alarm fails the test, which names every wrong case with its output. A case
//! planner still gets wrong carries `open` (what it gets wrong, and why): it must stay wrong
//! until fixed, and the test fails when it turns right so the mark is removed. Each case's JSON
//! document is checked against docs/schemas/review.json too.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::index_server::IndexServer;
use crate::common::{TestContext, copy_dir, repo_root};
use crate::review::git;

fn corpus() -> PathBuf {
    repo_root().join("testdata/review-real")
}

/// The case's repository: the base files committed on `main`, its edits on `pr`.
fn case_repo(root: &Path, case: &Value) -> PathBuf {
    let id = case["id"].as_str().unwrap();
    let repo = root.join(id);
    copy_dir(
        &corpus().join("repos").join(case["repo"].as_str().unwrap()),
        &repo,
    );
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "base"]);
    git(&repo, &["checkout", "-q", "-b", "pr"]);
    for edit in case["edits"].as_array().unwrap() {
        let path = repo.join(edit["file"].as_str().unwrap());
        let mut text = std::fs::read_to_string(&path).unwrap();
        if let Some(append) = edit["append"].as_str() {
            text.push_str(append);
        } else {
            let from = edit["from"].as_str().unwrap();
            assert!(text.contains(from), "{id}: `{from}` is not in {path:?}");
            text = text.replacen(from, edit["to"].as_str().unwrap(), 1);
        }
        std::fs::write(&path, text).unwrap();
    }
    git(&repo, &["commit", "-q", "-am", "pr"]);
    repo
}

/// The ids of the cases the recording holds the index data of (`index/CASES`, written by the
/// recorder): a case added since is run live only until the corpus is recorded again.
fn recorded_cases() -> std::collections::BTreeSet<String> {
    let list = std::fs::read_to_string(corpus().join("index/CASES")).unwrap();
    list.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

/// What is wrong with the case's review, if anything.
fn wrong(case: &Value, out: &crate::common::Output) -> Option<String> {
    let text = format!("{}{}", out.stdout, out.stderr);
    let verdict = match (case["truth"].as_str().unwrap(), out.code) {
        (_, Some(code)) if code != 0 && code != 1 => format!("error (exit {code})"),
        ("breaking", Some(0)) => "FALSE PASS".to_string(),
        ("breaking", _) => {
            let names = case["names"].as_str().unwrap();
            if text.contains(names) {
                return None;
            }
            format!("fails the gate, but does not name `{names}`")
        }
        (_, Some(0)) => return None,
        _ => "FALSE ALARM".to_string(),
    };
    Some(format!(
        "{} ({}): {verdict}\n{text}",
        case["id"].as_str().unwrap(),
        case["how"].as_str().unwrap_or_default()
    ))
}

/// Every case of the corpus gets its truth's verdict from the documented gate, offline.
#[test]
fn every_real_repository_case_gets_its_verdict_from_the_gate() {
    let all: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(corpus().join("cases.json")).unwrap())
            .unwrap();
    let recorded = recorded_cases();
    let (cases, later): (Vec<Value>, Vec<Value>) = all
        .into_iter()
        .partition(|c| recorded.contains(c["id"].as_str().unwrap()));
    if !later.is_empty() {
        let ids: Vec<&str> = later.iter().map(|c| c["id"].as_str().unwrap()).collect();
        crate::common::skip(
            "review_real (some cases)",
            &format!(
                "{} of {} cases are not in the recording yet (run scripts/record-review-corpus; \
                 scripts/review-corpus.py runs them live): {}",
                ids.len(),
                ids.len() + cases.len(),
                ids.join(" ")
            ),
        );
    }
    let breaking = cases.iter().filter(|c| c["truth"] == "breaking").count();
    assert!(
        breaking > 0 && breaking < cases.len(),
        "the corpus has breaking and harmless cases"
    );
    let server = IndexServer::start(&corpus().join("index"));
    let url = server.url();
    let ctx = TestContext::new();
    let mut wrongs = Vec::new();
    let mut fixed = Vec::new();
    for case in &cases {
        let repo = case_repo(ctx.path(), case);
        let repo = repo.display().to_string();
        let args = [
            "review",
            &repo,
            "--base",
            "main",
            "--head",
            "pr",
            "--fail-on",
            "medium",
            "--fail-on-unjudged",
            "--python-version",
            case["python"].as_str().unwrap(),
            "--python-platform",
            "x86_64-manylinux_2_28",
            "--index-url",
            &url,
        ];
        let out = ctx.run(&args);
        match (wrong(case, &out), case["open"].as_str()) {
            (Some(wrong), None) => wrongs.push(wrong),
            (None, Some(open)) => fixed.push(format!(
                "{}: right now, but marked open ({open}): remove the mark",
                case["id"]
            )),
            _ => {}
        }
        // The JSON document of the same review: valid against its schema (`ctx.run` checks
        // every review document), with the same verdict.
        let json = ctx.run(&[&args[..], &["--format", "json"]].concat());
        assert_eq!(json.code, out.code, "{}: {}", case["id"], json.stderr);
    }
    assert!(
        wrongs.is_empty(),
        "{} of {} cases wrong:\n\n{}",
        wrongs.len(),
        cases.len(),
        wrongs.join("\n\n")
    );
    assert!(fixed.is_empty(), "{}", fixed.join("\n"));
}
