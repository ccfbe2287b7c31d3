//! The review corpus of real repositories (testdata/review-real/): every case, a pull request
//! made against the dependency files of one of six public repositories (`cases.json`, each
//! with its truth and how uv established it), reviewed with the documented gate (`--fail-on
//! medium --fail-on-unjudged`) on the index data the corpus reads, recorded from the live index
//! (testdata/review-real/index, made by scripts/record-review-corpus) and served on loopback.
//! A breaking case must fail the gate naming what it breaks, a harmless one must pass; any false
//! pass or false alarm fails the test, which names every wrong case with its output, and so does
//! a case the recording does not hold (record again after adding cases). Cases run a few at a
//! time on one server and one cache, as the recorder runs them. Each case's JSON document is
//! checked against docs/schemas/review.json too.

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
/// recorder).
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
    let later: Vec<&str> = later.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert!(
        later.is_empty(),
        "{} cases are not in the recording (run scripts/record-review-corpus): {}",
        later.len(),
        later.join(" ")
    );
    let breaking = cases.iter().filter(|c| c["truth"] == "breaking").count();
    assert!(
        breaking > 0 && breaking < cases.len(),
        "the corpus has breaking and harmless cases"
    );
    let server = IndexServer::start(&corpus().join("index"));
    let url = server.url();
    let ctx = TestContext::new();
    let results = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    // Cases are reviewed a few at a time, on one server and one cache (as the recorder ran them).
    std::thread::scope(|scope| {
        for _ in 0..jobs() {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let verdict = review_case(&ctx, case, &url);
                    results.lock().unwrap().push((i, verdict));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    let wrongs: Vec<String> = results.into_iter().filter_map(|(_, wrong)| wrong).collect();
    assert!(
        wrongs.is_empty(),
        "{} of {} cases wrong:\n\n{}",
        wrongs.len(),
        cases.len(),
        wrongs.join("\n\n")
    );
}

/// How many cases are reviewed at once: `PLANNER_TEST_JOBS`, else the machine's cores (at most 4).
fn jobs() -> usize {
    std::env::var("PLANNER_TEST_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
        .max(1)
}

/// Review one case with the documented gate (text, then JSON); what is wrong with it, if anything.
fn review_case(ctx: &TestContext, case: &Value, url: &str) -> Option<String> {
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
        url,
    ];
    let out = ctx.run(&args);
    // The JSON document of the same review: valid against its schema (`ctx.run` checks every
    // review document), with the same verdict.
    let json = ctx.run(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(json.code, out.code, "{}: {}", case["id"], json.stderr);
    wrong(case, &out)
}
