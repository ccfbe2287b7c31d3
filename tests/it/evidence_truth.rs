//! The truth corpus (`testdata/evidence-truth/cases.jsonl`): cases applied for real, each with
//! what planner must and must not claim about it, run offline against recorded index data or a
//! loopback index of tiny wheels shaped after the real files (see the corpus's README).
//!
//! A `propose` case reads the named plan's risk factors and warnings: every `must` text is in
//! them, no `must_not` text is, and the score is at least `risk_at_least`. A `try` case proposes,
//! tries the named plan, and reads its regressions: the `verdict` matches, every `must` text is
//! among them, no `must_not` text is.
//!
//! A case may hold what the other commands must answer under `also` (`propose`, `try`,
//! `outdated`, `verify`), each with its own `must`/`must_not` (and `verdict`, `risk_at_least`):
//! `outdated --format json` is read as one line per package (`NAME can move to V`, then `V breaks
//! DIST (EVIDENCE): IMPORT` per break); `verify` applies the plan for real in the case's venv with
//! the plan's `install-pip.sh --verify` (verify.py's baseline, pip, verify.py's compare) and reads
//! its verdict (`passed`, `regressed`) and its regressions.

use std::path::{Path, PathBuf};

use crate::common::index_server::{IndexServer, tiny_wheels};
use crate::common::venv::RealVenv;
use crate::common::{TestContext, h200_fixtures, repo_root};
use crate::try_::{path_without_uv, pip_ok};

pub(crate) fn cases() -> Vec<serde_json::Value> {
    let path = repo_root().join("testdata/evidence-truth/cases.jsonl");
    std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The tiny wheels of a case, each file text given inline or as `@path` (a file of the
/// repository, copied unchanged: one that is not UTF-8 text, a compiled stand-in, goes to
/// `verify_world.py` as `{"base64": ...}`).
pub(crate) fn wheels_of(case: &serde_json::Value) -> serde_json::Value {
    use base64::Engine as _;
    let mut wheels = case["venv"]["wheels"].clone();
    for wheel in wheels.as_array_mut().unwrap() {
        for (_, text) in wheel["files"].as_object_mut().unwrap() {
            if let Some(path) = text.as_str().and_then(|t| t.strip_prefix('@')) {
                let read = std::fs::read(repo_root().join(path)).unwrap();
                *text = match String::from_utf8(read) {
                    Ok(read) => serde_json::Value::String(read),
                    Err(bytes) => serde_json::json!({
                        "base64": base64::engine::general_purpose::STANDARD.encode(bytes.as_bytes())
                    }),
                };
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
    for egg in case["venv"]["egg_info"].as_array().into_iter().flatten() {
        install_egg_info(&venv, egg);
    }
    for project in case["venv"]["editable"].as_array().into_iter().flatten() {
        install_editable(ctx, &venv, project);
    }
    Setup { venv, server }
}

/// One `editable` entry of a case's venv (`name`, `version`, `requires`, `files` under its
/// project's `src`), installed as `uv pip install -e` of a hatchling project leaves it (a `.pth`
/// naming that `src`); the project folder under the test's own.
fn install_editable(ctx: &TestContext, venv: &Path, project: &serde_json::Value) {
    let name = project["name"].as_str().unwrap();
    let texts = file_texts(project);
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let venv = RealVenv::at(venv);
    crate::common::venv::install_editable(
        &venv.site_packages(),
        &ctx.path().join("projects").join(name),
        (name, project["version"].as_str().unwrap()),
        &strings(&project["requires"]),
        &files,
        crate::common::venv::Editable::Pth,
    );
}

/// A case's `files` (path -> text, a text as `@path` read from this repository), in order.
fn file_texts(entry: &serde_json::Value) -> Vec<(String, String)> {
    (entry["files"].as_object().unwrap().iter())
        .map(|(path, text)| {
            let text = text.as_str().unwrap();
            let text = match text.strip_prefix('@') {
                Some(file) => std::fs::read_to_string(repo_root().join(file)).unwrap(),
                None => text.to_string(),
            };
            (path.clone(), text)
        })
        .collect()
}

/// One `egg_info` entry of a case's venv (`name`, `version`, `requires`, `files`, a text as
/// `@path` read from this repository), installed as pip's legacy `setup.py install` left it.
fn install_egg_info(venv: &Path, egg: &serde_json::Value) {
    let texts = file_texts(egg);
    let files: Vec<(&str, &str)> = texts
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let venv = RealVenv::at(venv);
    crate::common::venv::install_egg_info(
        &venv.site_packages(),
        egg["name"].as_str().unwrap(),
        egg["version"].as_str().unwrap(),
        &strings(&egg["requires"]),
        &files,
    );
}

fn strings(value: &serde_json::Value) -> Vec<&str> {
    value
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default()
}

/// Every wrong claim in the answer `text` to case `id` against `expected`'s `must` and
/// `must_not`, as lines.
fn wrong_claims(id: &str, expected: &serde_json::Value, text: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    for must in strings(&expected["must"]) {
        if !text.contains(must) {
            wrong.push(format!("{id}: does not say {must:?}"));
        }
    }
    for must_not in strings(&expected["must_not"]) {
        if text.contains(must_not) {
            wrong.push(format!("{id}: says {must_not:?}"));
        }
    }
    wrong
}

/// The plan of `kind` in `propose --out-dir`'s folder.
pub(crate) fn plan_folder(out: &Path, kind: &str) -> Option<PathBuf> {
    std::fs::read_dir(out.join("plans"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(kind))
}

/// A case's wrong claims, after running it: its `command`, then each of `also` (`verify`,
/// which changes the venv, last).
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
    let mut asked = vec![(case["command"].as_str().unwrap(), case)];
    if let Some(also) = case["also"].as_object() {
        asked.extend(
            also.iter()
                .map(|(command, expected)| (command.as_str(), expected)),
        );
    }
    asked.sort_by_key(|(command, _)| *command == "verify");
    let mut wrong = Vec::new();
    for (command, expected) in asked {
        let id = format!("{id} ({command})");
        wrong.extend(match command {
            "propose" => propose_claims(&id, expected, &folder),
            "try" => try_claims(&ctx, &id, expected, &setup, &folder),
            "outdated" => outdated_claims(&ctx, &id, expected, &setup),
            "verify" => verify_claims(&id, expected, &setup, &folder),
            other => vec![format!("{id}: no command {other}")],
        });
    }
    wrong
}

/// The wrong claims among the risk factors and warnings of the plan in `folder`.
fn propose_claims(id: &str, expected: &serde_json::Value, folder: &Path) -> Vec<String> {
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("plan.json")).unwrap()).unwrap();
    let mut text: Vec<String> = strings(&plan["warnings"])
        .iter()
        .map(|s| s.to_string())
        .collect();
    for factor in plan["risk"]["factors"].as_array().unwrap() {
        text.push(format!("{}: {}", factor["kind"], factor["detail"]));
    }
    text.push(format!(
        "title: {}",
        plan["title"].as_str().unwrap_or_default()
    ));
    let mut wrong = wrong_claims(id, expected, &text.join("\n"));
    let score = plan["risk"]["score"].as_i64().unwrap();
    if let Some(least) = expected["risk_at_least"].as_i64()
        && score < least
    {
        wrong.push(format!("{id}: risk {score}, below {least}"));
    }
    wrong
}

/// `try` the plan in `folder`: the wrong claims among its regressions and its verdict.
fn try_claims(
    ctx: &TestContext,
    id: &str,
    expected: &serde_json::Value,
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
    let mut wrong = wrong_claims(id, expected, &regressions);
    if let Some(verdict) = expected["verdict"].as_str()
        && report["verdict"] != verdict
    {
        wrong.push(format!(
            "{id}: {} ({regressions}), not {verdict}",
            report["verdict"]
        ));
    }
    wrong
}

/// `outdated --format json` on the case's venv, one line per package and per break: the wrong
/// claims among them.
fn outdated_claims(
    ctx: &TestContext,
    id: &str,
    expected: &serde_json::Value,
    setup: &Setup,
) -> Vec<String> {
    let url = setup.server.url();
    let venv = setup.venv.to_str().unwrap();
    let args = [
        "outdated",
        "--format",
        "json",
        "--venv",
        venv,
        "--index-url",
        &url,
    ];
    let output = ctx.run(&args);
    let report: serde_json::Value = serde_json::from_str(&output.stdout)
        .unwrap_or_else(|e| panic!("{id}: not JSON ({e}): {}", output.stderr));
    let mut lines = Vec::new();
    for package in report["packages"].as_array().unwrap() {
        let allowed = package["newest_allowed"].as_str().unwrap_or("nothing");
        lines.push(format!(
            "{} can move to {allowed}",
            package["name"].as_str().unwrap()
        ));
        for broken in package["breaks"].as_array().into_iter().flatten() {
            lines.push(format!(
                "{} breaks {} ({}): {}",
                broken["release"].as_str().unwrap_or_default(),
                broken["name"].as_str().unwrap_or_default(),
                broken["evidence"].as_str().unwrap_or_default(),
                strings(&broken["imports"]).join("; ")
            ));
        }
    }
    wrong_claims(id, expected, &lines.join("\n"))
}

/// Apply the plan in `folder` for real in the case's venv with its `install-pip.sh --verify`:
/// the wrong claims among verify.py's regressions, and its verdict.
fn verify_claims(
    id: &str,
    expected: &serde_json::Value,
    setup: &Setup,
    folder: &Path,
) -> Vec<String> {
    let mut cmd = std::process::Command::new("bash");
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("PIP_") {
            cmd.env_remove(&key);
        }
    }
    let output = cmd
        .arg(folder.join("install-pip.sh"))
        .arg("--verify")
        .env("PIP_CONFIG_FILE", "/dev/null")
        .env("PIP_NO_CACHE_DIR", "1")
        .env("PLANNER_PYTHON", setup.venv.join("bin/python"))
        .output()
        .unwrap();
    let Ok(text) = std::fs::read_to_string(folder.join("verify-report.json")) else {
        return vec![format!(
            "{id}: no verify report: {}",
            String::from_utf8_lossy(&output.stderr)
        )];
    };
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let regressions: Vec<String> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["regression"] == true)
        .map(|c| {
            let field = |key: &str| c[key].as_str().unwrap_or_default().to_string();
            format!(
                "{} ({}): {}",
                field("name"),
                field("package"),
                field("error")
            )
        })
        .collect();
    let regressions = regressions.join("\n");
    let mut wrong = wrong_claims(id, expected, &regressions);
    let verdict = match output.status.code() {
        Some(0) => "passed",
        Some(1) => "regressed",
        _ => "failed to run",
    };
    if let Some(want) = expected["verdict"].as_str()
        && verdict != want
    {
        wrong.push(format!(
            "{id}: verify.py {verdict} ({regressions}), not {want}"
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
    let chosen: Vec<&serde_json::Value> = cases
        .iter()
        .filter(|c| c["id"].as_str().unwrap().contains(&only))
        .collect();
    let wrong = run_cases(&chosen);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Run `cases` on [`WORKERS`] threads (each case has its own venv, index and folders; most of
/// a case's time is spent waiting on pip and Python): their wrong claims, in the cases' order.
fn run_cases(cases: &[&serde_json::Value]) -> Vec<String> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut found: Vec<(usize, Vec<String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        let Some(case) = cases.get(at) else {
                            return done;
                        };
                        done.push((at, run_case(case)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().flat_map(|(_, wrong)| wrong).collect()
}

/// How many cases run at once.
const WORKERS: usize = 3;
