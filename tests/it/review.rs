//! `planner review`: git repositories built by the tests (a uv override of triton 3.7.0 next to
//! torch 2.11.0, a Dockerfile line that forces it, a harmless pin, a constraints file reached
//! through `-c`), judged against the recorded index served on loopback; every output format
//! snapshotted; SARIF checked against the 2.1.0 structure; bad input named with file and line.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::index_server::IndexServer;
use crate::common::{TestContext, repo_root};

/// `git` in `dir` with a fixed identity and clock, so commits are reproducible.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .args(args)
        .output()
        .expect("git must be installed for the review tests");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn commit(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

const PYPROJECT: &str = r#"[project]
name = "trainer"
version = "0.1.0"
requires-python = ">=3.12"
dependencies = [
    "torch==2.11.0",
]
"#;

/// The test repository: `main` holds torch 2.11.0 in pyproject.toml, requirements.txt and the
/// Dockerfile; the `pr` branch adds, one commit each: the uv override of triton 3.7.0, the
/// Dockerfile line that forces it, a harmless pin of filelock, and triton 3.7.0 in the
/// constraints file that requirements.txt reaches through `-c`.
fn pr_repo(root: &Path) -> PathBuf {
    let dir = root.join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    write(&dir, "pyproject.toml", PYPROJECT);
    write(
        &dir,
        "requirements.txt",
        "torch==2.11.0\n-c constraints/gpu.txt\n",
    );
    write(&dir, "constraints/gpu.txt", "# GPU stack pins\n");
    write(
        &dir,
        "docker/Dockerfile",
        "FROM python:3.12-slim\nRUN pip install torch==2.11.0\n",
    );
    commit(&dir, "base");
    git(&dir, &["checkout", "-q", "-b", "pr"]);
    let with_override =
        format!("{PYPROJECT}\n[tool.uv]\noverride-dependencies = [\"triton==3.7.0\"]\n");
    write(&dir, "pyproject.toml", &with_override);
    commit(&dir, "uv override of triton");
    write(
        &dir,
        "docker/Dockerfile",
        "FROM python:3.12-slim\nRUN pip install torch==2.11.0\nRUN pip install --no-cache-dir \\\n    --force-reinstall --no-deps triton==3.7.0\n",
    );
    commit(&dir, "force triton in the image");
    let with_group =
        format!("{with_override}\n[dependency-groups]\ndev = [\"filelock==3.32.5\"]\n");
    write(&dir, "pyproject.toml", &with_group);
    commit(&dir, "harmless pin");
    write(
        &dir,
        "constraints/gpu.txt",
        "# GPU stack pins\ntriton==3.7.0\n",
    );
    commit(&dir, "constrain triton");
    dir
}

struct Reviewed {
    ctx: TestContext,
    server: IndexServer,
    repo: PathBuf,
}

fn reviewed() -> Reviewed {
    let ctx = TestContext::new();
    let repo = pr_repo(ctx.dir.path());
    let server = IndexServer::recorded();
    Reviewed { ctx, server, repo }
}

impl Reviewed {
    fn run(&self, extra: &[&str]) -> crate::common::Output {
        self.run_base("main", extra)
    }

    fn run_base(&self, base: &str, extra: &[&str]) -> crate::common::Output {
        let url = self.server.url();
        let repo = self.repo.display().to_string();
        let mut args = vec![
            "review",
            &repo,
            "--base",
            base,
            "--head",
            "pr",
            "--index-url",
            &url,
            "--python-version",
            "3.12",
            "--python-platform",
            "x86_64-manylinux_2_28",
        ];
        args.extend_from_slice(extra);
        self.ctx.run(&args)
    }
}

fn snapshot_settings(repo: &Path) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&repo.display().to_string()), "[REPO]");
    settings.add_filter(r"\b[0-9a-f]{40}\b", "[COMMIT]");
    settings.add_filter(r"\([0-9a-f]{12}\)", "([COMMIT])");
    settings.add_filter(r#""version": "\d+\.\d+\.\d+""#, r#""version": "[VERSION]""#);
    settings.add_filter(r"http://127\.0\.0\.1:\d+", "[INDEX]");
    settings
}

pub(crate) fn regex_escape(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '/' || c == '_' || c == '-' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

#[test]
fn issue_13_findings_of_the_test_repository() {
    let r = reviewed();
    let out = r.run(&["--format", "json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["schema"], "planner-review/1");
    let findings = json["findings"].as_array().unwrap();
    let mut found: Vec<(String, u64, String, String)> = findings
        .iter()
        .map(|f| {
            (
                f["pin"]["file"].as_str().unwrap().to_string(),
                f["pin"]["line"].as_u64().unwrap(),
                f["pin"]["kind"].as_str().unwrap().to_string(),
                f["pin"]["requirement"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            (
                "constraints/gpu.txt".into(),
                2,
                "constraint".into(),
                "triton==3.7.0".into()
            ),
            (
                "docker/Dockerfile".into(),
                4,
                "pip-force".into(),
                "triton==3.7.0".into()
            ),
            (
                "pyproject.toml".into(),
                10,
                "uv-override".into(),
                "triton==3.7.0".into()
            ),
            (
                "pyproject.toml".into(),
                13,
                "group-pin".into(),
                "filelock==3.32.5".into()
            ),
        ]
    );
    for f in findings {
        let verdict = &f["targets"][0];
        assert!(verdict["note"].is_null(), "{verdict:#}");
        if f["pin"]["requirement"] == "triton==3.7.0" {
            // Each triton pin breaks torch 2.11.0's exact pin, and moving torch is safer.
            let breaks = verdict["breaks"].as_array().unwrap();
            assert_eq!(breaks.len(), 1, "{breaks:#?}");
            assert_eq!(breaks[0]["dependent"], "torch");
            assert_eq!(breaks[0]["dependent_version"], "2.11.0");
            assert!(
                breaks[0]["requirement"]
                    .as_str()
                    .unwrap()
                    .starts_with("triton==3.6.0")
            );
            let safer = &verdict["safer"];
            assert_eq!(safer["kind"], "move-blockers", "{verdict:#}");
            let torch = safer["changes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == "torch")
                .expect("the safer plan moves torch");
            assert_eq!(torch["to"], "2.12.0");
            assert!(
                verdict["risk"]["score"].as_u64().unwrap()
                    > safer["risk"]["score"].as_u64().unwrap()
            );
        } else {
            // filelock 3.32.5 satisfies torch's requirement on filelock: it narrows, breaks nothing.
            assert!(
                verdict["breaks"].as_array().unwrap().is_empty(),
                "{verdict:#}"
            );
            assert_eq!(verdict["narrows"][0]["dependent"], "torch");
            assert!(verdict["safer"].is_null());
            assert_eq!(f["level"], "low");
        }
    }
    // Worst first: the harmless pin comes last.
    assert_eq!(findings[3]["pin"]["requirement"], "filelock==3.32.5");
    // Nothing was written into the repository.
    assert_eq!(git(&r.repo, &["status", "--porcelain"]), "");
}

#[test]
fn issue_13_every_format_snapshot() {
    let r = reviewed();
    let settings = snapshot_settings(&r.repo);
    for format in ["text", "json", "markdown", "github", "sarif"] {
        let out = r.run(&["--format", format]);
        assert_eq!(out.code, Some(0), "{format}: {}", out.stderr);
        settings.bind(|| insta::assert_snapshot!(format!("review_{format}"), out.stdout));
    }
}

#[test]
fn issue_13_fail_on_sets_the_exit_code() {
    let r = reviewed();
    let high = r.run(&["--fail-on", "medium", "--format", "github", "-q"]);
    assert_eq!(high.code, Some(1), "{}", high.stderr);
    assert!(
        high.stdout.contains("::error file=pyproject.toml,line=10,"),
        "{}",
        high.stdout
    );
    let bad = r.run(&["--fail-on", "severe"]);
    assert_eq!(bad.code, Some(2));
    assert!(bad.stderr.contains("--fail-on"), "{}", bad.stderr);
}

/// Checks a SARIF log against the required structure of the SARIF 2.1.0 schema (no published
/// package ships the schema file, so its required properties and enums are checked here).
fn assert_valid_sarif(doc: &serde_json::Value) {
    assert_eq!(doc["version"], "2.1.0");
    assert!(
        doc["$schema"]
            .as_str()
            .unwrap()
            .contains("sarif-schema-2.1.0.json")
    );
    let runs = doc["runs"].as_array().expect("runs is an array");
    assert!(!runs.is_empty());
    for run in runs {
        let driver = &run["tool"]["driver"];
        assert!(driver["name"].is_string(), "tool.driver.name is required");
        let rules = driver["rules"].as_array().unwrap();
        for rule in rules {
            assert!(rule["id"].is_string(), "reportingDescriptor.id is required");
            for key in ["shortDescription", "fullDescription", "help"] {
                if !rule[key].is_null() {
                    assert!(
                        rule[key]["text"].is_string(),
                        "multiformatMessageString.text is required"
                    );
                }
            }
        }
        for result in run["results"].as_array().unwrap() {
            assert!(
                result["message"]["text"].is_string(),
                "result.message.text is required"
            );
            let level = result["level"].as_str().unwrap();
            assert!(
                ["none", "note", "warning", "error"].contains(&level),
                "{level}"
            );
            let index = result["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], result["ruleId"]);
            for location in result["locations"].as_array().unwrap() {
                let physical = &location["physicalLocation"];
                let uri = physical["artifactLocation"]["uri"].as_str().unwrap();
                assert!(
                    !uri.starts_with('/') && !uri.contains('\\'),
                    "relative URI: {uri}"
                );
                if !physical["region"].is_null() {
                    assert!(physical["region"]["startLine"].as_u64().unwrap() >= 1);
                }
            }
            if let Some(fingerprints) = result["partialFingerprints"].as_object() {
                assert!(fingerprints.values().all(serde_json::Value::is_string));
            }
        }
    }
}

#[test]
fn issue_13_sarif_is_valid() {
    let r = reviewed();
    let out = r.run(&["--format", "sarif"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_valid_sarif(&doc);
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    assert_eq!(
        results
            .iter()
            .filter(|r| r["ruleId"] == "planner/breaks-requirement")
            .count(),
        3
    );
}

#[test]
fn issue_13_bad_input_names_file_and_line_and_the_rest_is_reviewed() {
    let r = reviewed();
    write(
        &r.repo,
        "requirements-dev.txt",
        "filelock==3.32.5\nnot a requirement!\n",
    );
    write(&r.repo, "ci/setup.sh", "pip install 'torch==2.12.0\n");
    write(&r.repo, "sub/pyproject.toml", "[project\nname = 'x'\n");
    commit(&r.repo, "broken files");
    let out = r.run(&["--format", "json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let problems: Vec<(String, u64)> = json["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["file"].as_str().unwrap().to_string(),
                p["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        problems,
        [
            ("ci/setup.sh".to_string(), 1),
            ("requirements-dev.txt".to_string(), 2),
            ("sub/pyproject.toml".to_string(), 1),
        ]
    );
    assert!(
        out.stderr
            .contains("`requirements-dev.txt` line 2 was not reviewed"),
        "{}",
        out.stderr
    );
    // The other findings still stand.
    assert_eq!(json["findings"].as_array().unwrap().len(), 4);

    let not_repo = r
        .ctx
        .run(&["review", r.ctx.dir.path().join("home").to_str().unwrap()]);
    assert_eq!(not_repo.code, Some(2));
    assert!(
        not_repo.stderr.contains("is not inside a git repository"),
        "{}",
        not_repo.stderr
    );
    let unknown = r.run_base("no-such-branch", &[]);
    assert_eq!(unknown.code, Some(2));
    assert!(
        unknown.stderr.contains("unknown revision `no-such-branch`"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn issue_13_default_base_is_the_merge_base_with_main() {
    let r = reviewed();
    let url = r.server.url();
    let repo = r.repo.display().to_string();
    // HEAD is the pr branch; no --base.
    let out = r.ctx.run(&[
        "review",
        &repo,
        "--index-url",
        &url,
        "--python-version",
        "3.12",
        "--python-platform",
        "x86_64-manylinux_2_28",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        json["base"]["commit"].as_str().unwrap(),
        git(&r.repo, &["rev-parse", "main"]).trim()
    );
    assert_eq!(json["findings"].as_array().unwrap().len(), 4);
}

/// The workflow in docs/review.md runs exactly this command line; run it on the test repo.
#[test]
fn issue_13_docs_workflow_command_runs() {
    let doc = std::fs::read_to_string(repo_root().join("docs/review.md")).unwrap();
    let line = doc
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("planner review ") && l.contains("--format github"))
        .expect("docs/review.md runs `planner review ... --format github`");
    let r = reviewed();
    // The workflow's variables, as GitHub would set them for this pull request.
    let line = line
        .replace("${{ github.event.pull_request.base.sha }}", "main")
        .replace("${{ github.event.pull_request.head.sha }}", "pr");
    let mut args = shlex::split(&line).unwrap();
    assert_eq!(args.remove(0), "planner");
    args.extend(["--index-url".to_string(), r.server.url()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = crate::common::run(r.ctx.command().current_dir(&r.repo).args(&args));
    assert_eq!(
        out.code,
        Some(1),
        "the documented --fail-on stops this PR: {}",
        out.stderr
    );
    assert_eq!(
        out.stdout
            .lines()
            .filter(|l| l.starts_with("::error "))
            .count(),
        3,
        "{}",
        out.stdout
    );
}
