//! `planner review`: git repositories built by the tests (a uv override of triton 3.7.0 next to
//! torch 2.11.0, a Dockerfile line that forces it, a harmless pin, a constraints file reached
//! through `-c`), judged against the recorded index served on loopback; every output format
//! snapshotted; SARIF checked against the 2.1.0 structure; bad input named with file and line.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::index_server::IndexServer;
use crate::common::{TestContext, repo_root};
use crate::planner_snapshot;

/// `git` in `dir` with a fixed identity and clock, so commits are reproducible.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
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

/// A test context whose snapshots show commits as `[COMMIT]`.
fn review_context() -> TestContext {
    let mut ctx = TestContext::new();
    ctx.filter(r"\b[0-9a-f]{40}\b", "[COMMIT]");
    ctx.filter(r"\([0-9a-f]{12}\)", "([COMMIT])");
    ctx
}

struct Reviewed {
    ctx: TestContext,
    server: IndexServer,
    repo: PathBuf,
}

fn reviewed() -> Reviewed {
    let ctx = review_context();
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
fn review_of_the_test_repository_finds_each_forced_pin() {
    let r = reviewed();
    let out = r.run(&["--format", "json"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json = out.json();
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
fn every_review_format_matches_its_snapshot() {
    let r = reviewed();
    let settings = snapshot_settings(&r.repo);
    for format in ["text", "json", "markdown", "github", "sarif"] {
        let out = r.run(&["--format", format]);
        assert_eq!(out.code, Some(0), "{format}: {}", out.stderr);
        settings.bind(|| insta::assert_snapshot!(format!("review_{format}"), out.stdout));
    }
}

/// The text report at 80 columns (`COLUMNS`): every line fits (or is one word that cannot be
/// broken), wrapped at words, none lost; the finding's rows go on under their last column.
/// Snapshotted, so a change of its layout is seen.
#[test]
fn text_fits_80_columns() {
    let r = reviewed();
    let plain = r.run(&[]);
    assert!(
        plain.stdout.lines().any(|l| l.chars().count() > 80),
        "{}",
        plain.stdout
    );
    let url = r.server.url();
    let repo = r.repo.display().to_string();
    let mut cmd = r.ctx.command();
    cmd.args([
        "review",
        &repo,
        "--base",
        "main",
        "--head",
        "pr",
        "--index-url",
        &url,
        "--python-version",
        "3.12",
        "--python-platform",
        "x86_64-manylinux_2_28",
    ])
    .env("COLUMNS", "80");
    let fitted = crate::common::run(&mut cmd);
    assert_eq!(fitted.code, plain.code, "{}", fitted.stderr);
    for line in fitted.stdout.lines() {
        assert!(
            line.chars().count() <= 80 || line.split_whitespace().count() <= 1,
            "over 80 columns: {line}\n\n{}",
            fitted.stdout
        );
    }
    let words = |text: &str| {
        text.split_whitespace()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(words(&fitted.stdout), words(&plain.stdout));
    let settings = snapshot_settings(&r.repo);
    settings.bind(|| insta::assert_snapshot!("review_text_80", fitted.stdout));
}

#[test]
fn fail_on_sets_the_exit_code() {
    let r = reviewed();
    let high = r.run(&["--fail-on", "medium", "--format", "github", "-q"]);
    planner_snapshot!(r.ctx, high, @r#"
        exit_code: 1
        ----- stdout -----
        ::error file=requirements.txt,title=planner%3A does not resolve::DOES NOT RESOLVE requirements.txt on Python 3.12 x86_64-manylinux_2_28 (the base did): no solution: Because torch==2.11.0 depends on triton in a range the constraints on triton exclude entirely (constraint triton==3.7.0) and you require torch==2.11.0, your requirements are unsatisfiable.
        ::error file=constraints/gpu.txt,line=2,title=planner%3A triton==3.7.0 (high 63/100)::constraint triton==3.7.0 (high 63/100). On Python 3.12 x86_64-manylinux_2_28: breaks torch 2.11.0 requires triton==3.6.0; safer: Move the blocker: torch 2.11.0 -> 2.12.0: nvidia-cudnn-cu13 9.19.0.56 -> 9.20.0.48, nvidia-cusparselt-cu13 0.8.0 -> 0.8.1, nvidia-nccl-cu13 2.28.9 -> 2.29.7, torch 2.11.0 -> 2.12.0, triton 3.6.0 -> 3.7.0; judged without the files of triton 3.7.0 (could not be read). triton 3.7.0 was uploaded 2026-05-07 (207 days ago).
        ::error file=docker/Dockerfile,line=4,title=planner%3A triton==3.7.0 (high 63/100)::forced pip install triton==3.7.0 (high 63/100). On Python 3.12 x86_64-manylinux_2_28: breaks torch 2.11.0 requires triton==3.6.0; safer: Move the blocker: torch 2.11.0 -> 2.12.0: nvidia-cudnn-cu13 9.19.0.56 -> 9.20.0.48, nvidia-cusparselt-cu13 0.8.0 -> 0.8.1, nvidia-nccl-cu13 2.28.9 -> 2.29.7, torch 2.11.0 -> 2.12.0, triton 3.6.0 -> 3.7.0; judged without the files of triton 3.7.0 (could not be read). triton 3.7.0 was uploaded 2026-05-07 (207 days ago).
        ::error file=pyproject.toml,line=10,title=planner%3A triton==3.7.0 (high 63/100)::uv override triton==3.7.0 (high 63/100). On Python 3.12 x86_64-manylinux_2_28: breaks torch 2.11.0 requires triton==3.6.0; safer: Move the blocker: torch 2.11.0 -> 2.12.0: nvidia-cudnn-cu13 9.19.0.56 -> 9.20.0.48, nvidia-cusparselt-cu13 0.8.0 -> 0.8.1, nvidia-nccl-cu13 2.28.9 -> 2.29.7, torch 2.11.0 -> 2.12.0, triton 3.6.0 -> 3.7.0; judged without the files of triton 3.7.0 (could not be read). triton 3.7.0 was uploaded 2026-05-07 (207 days ago).
        ::notice file=pyproject.toml,line=13,title=planner%3A filelock==3.32.5 (low 9/100)::dependency-group pin filelock==3.32.5 (low 9/100). On Python 3.12 x86_64-manylinux_2_28: judged without the files of filelock 3.32.5, triton 3.6.0 (could not be read). filelock 3.32.5 was uploaded 2026-08-31 (91 days ago).

        ----- stderr -----
        "#);
    let bad = r.run(&["--fail-on", "severe"]);
    planner_snapshot!(r.ctx, bad, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        error: invalid value 'severe' for '--fail-on <LEVEL>'
          [possible values: low, medium, high, critical]

        For more information, try '--help'.
        "#);
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
fn sarif_is_valid() {
    let r = reviewed();
    let out = r.run(&["--format", "sarif"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_valid_sarif(&doc);
    let results = doc["runs"][0]["results"].as_array().unwrap();
    // Four findings, and requirements.txt no longer resolving with the constraint.
    assert_eq!(results.len(), 5);
    assert_eq!(
        results
            .iter()
            .filter(|r| r["ruleId"] == "planner/unresolvable")
            .count(),
        1
    );
    assert_eq!(
        results
            .iter()
            .filter(|r| r["ruleId"] == "planner/breaks-requirement")
            .count(),
        3
    );
}

#[test]
fn bad_input_names_file_and_line_and_the_rest_is_reviewed() {
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
    let json = out.json();
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
    // Each problem said on stderr, with its file and line.
    r.ctx
        .insta_settings()
        .bind(|| insta::assert_snapshot!("bad_input_stderr", out.stderr));
    // The other findings still stand, and the bad line does not hide the file's other pins.
    assert_eq!(json["findings"].as_array().unwrap().len(), 5);

    let not_repo = r
        .ctx
        .run(&["review", r.ctx.dir.path().join("home").to_str().unwrap()]);
    planner_snapshot!(r.ctx, not_repo, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::review::not_a_repo

          × `[TMP]/home` is not inside a git repository
          help: run review in a git checkout, or pass its path: `planner review PATH`
        "#);
    let unknown = r.run_base("no-such-branch", &[]);
    planner_snapshot!(r.ctx, unknown, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
        planner::review::unknown_ref

          × unknown revision `no-such-branch` in `[TMP]/repo`
          help: name a branch, tag or commit that exists locally (`git fetch` it first
                in CI)
        "#);
}

#[test]
fn default_base_is_the_merge_base_with_main() {
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
    let json = out.json();
    assert_eq!(
        json["base"]["commit"].as_str().unwrap(),
        git(&r.repo, &["rev-parse", "main"]).trim()
    );
    assert_eq!(json["findings"].as_array().unwrap().len(), 4);
}

/// The workflow in docs/review.md runs exactly this command line; run it on the test repo.
#[test]
fn docs_workflow_command_runs() {
    // The workflow uses the repository's composite action; its review step is
    // scripts/action-review.sh, run here with the documented `with:` values as action.yml
    // passes them (PLANNER_*), on the planner binary under test.
    let doc = std::fs::read_to_string(repo_root().join("docs/review.md")).unwrap();
    let action = std::fs::read_to_string(repo_root().join("action.yml")).unwrap();
    for used in [
        "actions/checkout@v5",
        "upload-sarif@v4",
        "steps.planner.outputs.sarif-file",
    ] {
        assert!(doc.contains(used), "docs/review.md uses {used}");
    }
    for used in [
        "actions/cache@v5",
        "scripts/action-review.sh",
        "PLANNER_FAIL_ON: ${{ inputs.fail-on }}",
        "path: ${{ runner.temp }}/planner-index-cache",
        "format('{0}/planner-index-cache', runner.temp)",
        "GITHUB_TOKEN: ${{ inputs.token }}",
    ] {
        assert!(action.contains(used), "action.yml uses {used}");
    }
    let with = |key: &str| {
        doc.lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(&format!("{key}: ")))
            .unwrap_or_else(|| panic!("docs/review.md passes `{key}:`"))
            .to_string()
    };
    let r = reviewed();
    let outputs = r.ctx.path().join("github-output");
    let bin = Path::new(env!("CARGO_BIN_EXE_planner")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The binary's isolated environment (tests/it/common), the script run by bash.
    let mut bash = Command::new("bash");
    bash.arg(repo_root().join("scripts/action-review.sh"))
        .current_dir(&r.repo)
        .env_clear()
        .env("PATH", path)
        .env("HOME", r.ctx.home())
        .env("PLANNER_CACHE_DIR", r.ctx.cache())
        .env("PLANNER_NOW", crate::common::NOW)
        .env("NO_COLOR", "1")
        .env("GITHUB_OUTPUT", &outputs)
        // The workflow's values, as GitHub would set them for this pull request.
        .env("PLANNER_BASE", "main")
        .env("PLANNER_HEAD", "pr")
        .env("PLANNER_FORMATS", with("formats"))
        .env("PLANNER_FAIL_ON", with("fail-on"))
        .env(
            "PLANNER_ARGS",
            format!("{} --index-url {}", with("args"), r.server.url()),
        );
    let out = crate::common::run(&mut bash);
    assert_eq!(
        out.code,
        Some(1),
        "the documented fail-on stops this PR: {}",
        out.stderr
    );
    assert_eq!(
        out.stdout
            .lines()
            .filter(|l| l.starts_with("::error "))
            .count(),
        4,
        "{}",
        out.stdout
    );
    // The same step wrote the SARIF the upload step reads, and said where.
    let said = std::fs::read_to_string(&outputs).unwrap();
    snapshot_settings(&r.repo).bind(|| insta::assert_snapshot!("workflow_step_outputs", said));
    let sarif_file = r.repo.join("planner-review.sarif");
    let sarif = std::fs::read_to_string(&sarif_file).expect("planner-review.sarif");
    let doc: serde_json::Value = serde_json::from_str(&sarif).unwrap();
    assert_valid_sarif(&doc);
    assert_eq!(doc["runs"][0]["results"].as_array().unwrap().len(), 5);
    let markdown = std::fs::read_to_string(r.repo.join("planner-review.md")).unwrap();
    snapshot_settings(&r.repo).bind(|| insta::assert_snapshot!("workflow_step_markdown", markdown));
}

// Every layout a team gates on, as a real repository; the requests/idna cases run on
// the small recorded corpus under testdata/review/index (requests 2.34 requires idna>=2.5,<4;
// idna 2.4 is recorded), the torch cases on testdata/index.

/// A repository whose `main` has `base` and whose `pr` branch rewrites `head` on top.
pub(crate) fn layout(root: &Path, base: &[(&str, &str)], head: &[(&str, &str)]) -> PathBuf {
    let dir = root.join("layout");
    std::fs::create_dir_all(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    for (path, text) in base {
        write(&dir, path, text);
    }
    commit(&dir, "base");
    git(&dir, &["checkout", "-q", "-b", "pr"]);
    for (path, text) in head {
        write(&dir, path, text);
    }
    commit(&dir, "pr");
    dir
}

/// `planner review` of `main..pr` in `repo` against the index at `index` (a testdata folder).
fn review_layout(
    ctx: &TestContext,
    repo: &Path,
    server: &IndexServer,
    extra: &[&str],
) -> crate::common::Output {
    let url = server.url();
    let repo = repo.display().to_string();
    let mut args = vec![
        "review",
        &repo,
        "--base",
        "main",
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
    ctx.run(&args)
}

fn review_index() -> IndexServer {
    IndexServer::start(&repo_root().join("testdata/review/index"))
}

fn uv_file(name: &str) -> String {
    std::fs::read_to_string(repo_root().join("testdata/review/uv").join(name)).unwrap()
}

/// The finding on `requirement` in the review's JSON.
fn finding<'a>(
    json: &'a serde_json::Value,
    file: &str,
    requirement: &str,
) -> &'a serde_json::Value {
    json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["pin"]["file"] == file && f["pin"]["requirement"] == requirement)
        .unwrap_or_else(|| panic!("no finding on {requirement} in {file}: {json:#}"))
}

fn broken_dependents(finding: &serde_json::Value) -> Vec<String> {
    finding["targets"][0]["breaks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["dependent"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn constraints_pin_breaks_what_reaches_it_and_trips_the_gate() {
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[
            ("requirements.txt", "requests==2.34.2\n-c constraints.txt\n"),
            ("constraints.txt", "# pins\n"),
        ],
        &[(
            "constraints.txt",
            "# pins\nidna==2.4\ncertifi==2026.10.18\n",
        )],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--format", "json", "--fail-on", "medium"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let idna = finding(&json, "constraints.txt", "idna==2.4");
    assert_eq!(broken_dependents(idna), ["requests"], "{idna:#}");
    assert!(
        matches!(idna["level"].as_str(), Some("medium" | "high")),
        "{idna:#}"
    );
    // The harmless constraint is judged too (against the base's pins with it applied).
    let certifi = finding(&json, "constraints.txt", "certifi==2026.10.18");
    assert_eq!(certifi["level"], "low", "{certifi:#}");
    assert!(broken_dependents(certifi).is_empty());
    insta::assert_snapshot!(
        "harmless_constraint_remark",
        certifi["targets"][0]["remark"].as_str().unwrap()
    );
    // The head no longer resolves requirements.txt: said, with the reason, and it fails the gate.
    let unresolved = json["unresolved"].as_array().unwrap();
    assert_eq!(unresolved.len(), 1, "{json:#}");
    assert_eq!(unresolved[0]["file"], "requirements.txt");
    assert_eq!(unresolved[0]["at_base"], false);
    insta::assert_snapshot!(
        "constraint_unresolved_reason",
        unresolved[0]["reason"].as_str().unwrap()
    );
    // ... and on stderr, where a reader of the JSON on stdout still sees it.
    ctx.insta_settings()
        .bind(|| insta::assert_snapshot!(out.stderr, @r#"
            warning: `requirements.txt` does not resolve on Python 3.12 x86_64-manylinux_2_28: no solution: Because requests==2.34.2 depends on idna in a range the constraints on idna exclude entirely (constraint idna==2.4) and you require requests==2.34.2, your requirements are unsatisfiable.
            warning: a finding's risk is at or above --fail-on medium
            warning: 1 file(s) no longer resolve with the head's pins
            "#));

    // Only the harmless pin: judged low, the gate passes.
    let ctx = review_context();
    let repo = layout(
        ctx.dir.path(),
        &[
            ("requirements.txt", "requests==2.34.2\n-c constraints.txt\n"),
            ("constraints.txt", "# pins\n"),
        ],
        &[("constraints.txt", "# pins\ncertifi==2026.10.18\n")],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--fail-on", "medium", "--fail-on-unjudged"],
    );
    planner_snapshot!(ctx, out, @r#"
        exit_code: 0
        ----- stdout -----
        1 forced or pinned version(s) added or changed: base main ([COMMIT]) -> head pr ([COMMIT]); judged for Python 3.12 x86_64-manylinux_2_28

        LOW 9/100        constraints.txt:2  constraint  certifi==2026.10.18
          release: certifi 2026.10.18 was uploaded 2026-10-18 (43 days ago)
          on Python 3.12 x86_64-manylinux_2_28:
            judged without: what certifi 2026.10.18 imports, whether it ships a module another dist ships, and whether it raises on import over another dist's version (a test in its own sources) (its wheel's files could not be read: the index serves no wheel file for it (not found))
            narrows: requests 2.34.2 requires certifi>=2023.5.7
            risk: low 9/100 (default policy)
                +6  certifi goes back from 2026.10.19.post1 to 2026.10.18; in the corpus, plans with this factor broke 21 of 33 times
                +3  1 installed dist requires certifi: requests; in the corpus, plans with this factor broke 49 of 100 times


        ----- stderr -----
        "#);
}

#[test]
fn compiled_requirements_with_hashes_are_reviewed() {
    // Real `uv pip compile --generate-hashes` output (testdata/review/uv/compiled.txt).
    let compiled = uv_file("compiled.txt");
    let bumped = compiled.replace("idna==3.20 \\", "idna==2.4 \\");
    assert_ne!(compiled, bumped);
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[("requirements.txt", &compiled)],
        &[("requirements.txt", &bumped)],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--format", "json", "--fail-on", "medium"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    assert_eq!(json["problems"].as_array().unwrap().len(), 0, "{json:#}");
    let idna = finding(&json, "requirements.txt", "idna==2.4");
    assert_eq!(broken_dependents(idna), ["requests"], "{idna:#}");
    assert_eq!(idna["was"], "idna==3.20");
}

#[test]
fn uv_export_with_editable_and_two_new_pins_both_judged() {
    // Real `uv export` output: `-e .`, hashes, `# via` comments.
    let exported = uv_file("exported.txt");
    assert!(exported.contains("\n-e .\n"));
    let bumped = exported
        .replace("idna==3.20 \\", "idna==2.4 \\")
        .replace("certifi==2026.10.19.post1 \\", "certifi==2026.10.18 \\");
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[("requirements.txt", &exported)],
        &[("requirements.txt", &bumped)],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--format", "json", "--fail-on-unjudged"],
    );
    // No --fail-on: only --fail-on-unjudged, and both pins were judged.
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json = out.json();
    assert_eq!(json["problems"].as_array().unwrap().len(), 0, "{json:#}");
    let idna = finding(&json, "requirements.txt", "idna==2.4");
    assert_eq!(broken_dependents(idna), ["requests"]);
    // The breaking pin does not make the other new pin "not judged".
    let certifi = finding(&json, "requirements.txt", "certifi==2026.10.18");
    assert!(certifi["level"].is_string(), "{certifi:#}");
    assert!(certifi["targets"][0]["note"].is_null(), "{certifi:#}");
}

#[test]
fn uv_lock_with_manifest_override_is_judged() {
    let pyproject = uv_file("pyproject.toml");
    let lock = uv_file("uv.lock");
    let head_pyproject =
        format!("{pyproject}\n[tool.uv]\noverride-dependencies = [\"idna==2.4\"]\n");
    // What `uv lock` writes for that override: the manifest, and idna at 2.4.
    let head_lock = lock
        .replacen(
            "requires-python = \">=3.12\"\n",
            "requires-python = \">=3.12\"\n\n[manifest]\noverrides = [{ name = \"idna\", specifier = \"==2.4\" }]\n",
            1,
        )
        .replace("name = \"idna\"\nversion = \"3.20\"", "name = \"idna\"\nversion = \"2.4\"");
    assert!(head_lock.contains("version = \"2.4\""));
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[("pyproject.toml", &pyproject), ("uv.lock", &lock)],
        &[("pyproject.toml", &head_pyproject), ("uv.lock", &head_lock)],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--format", "json", "--fail-on", "medium"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    // The lock entry repeats the override: one finding, both places.
    let override_pin = finding(&json, "pyproject.toml", "idna==2.4");
    assert_eq!(
        broken_dependents(override_pin),
        ["requests"],
        "{override_pin:#}"
    );
    assert_eq!(
        override_pin["also"][0]["file"], "uv.lock",
        "{override_pin:#}"
    );
    assert_eq!(override_pin["also"][0]["kind"], "uv-lock");
    assert_eq!(json["findings"].as_array().unwrap().len(), 1, "{json:#}");
    // Under its override the lock resolves: nothing is reported unresolvable.
    assert_eq!(json["unresolved"].as_array().unwrap().len(), 0, "{json:#}");
}

#[test]
fn base_equal_to_head_is_an_error_and_unjudged_pins_can_fail_the_gate() {
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[("requirements.txt", "requests==2.34.2\n")],
        &[("requirements.txt", "requests==2.34.2\nidna==9.9.9\n")],
    );
    let url = server.url();
    let same = ctx.run(&[
        "review",
        repo.to_str().unwrap(),
        "--base",
        "pr",
        "--head",
        "pr",
        "--index-url",
        &url,
    ]);
    planner_snapshot!(ctx, same, @r#"
        exit_code: 2
        ----- stdout -----

        ----- stderr -----
          × the base `pr` and the head `pr` are the same commit
          │ ([COMMIT]): there is nothing to review
          help: fetch the base branch (`git fetch origin main`; in CI check out with
                fetch-depth: 0) or pass --base with the pull request's base commit
        "#);
    // idna 9.9.9 is on no index: not judged; exit 1 only with --fail-on-unjudged.
    let plain = review_layout(&ctx, &repo, &server, &[]);
    planner_snapshot!(ctx, plain, @r#"
        exit_code: 0
        ----- stdout -----
        1 forced or pinned version(s) added or changed: base main ([COMMIT]) -> head pr ([COMMIT]); judged for Python 3.12 x86_64-manylinux_2_28

        DOES NOT RESOLVE requirements.txt on Python 3.12 x86_64-manylinux_2_28 (the base did): no solution: Because requests==2.34.2 depends on idna>=2.5, <4 and you require requests==2.34.2, idna>=2.5, <4 is required. And because you require idna==9.9.9, your requirements are unsatisfiable.

        NOT JUDGED       requirements.txt:2  requirements pin  idna==9.9.9
          on Python 3.12 x86_64-manylinux_2_28:
            not judged: idna==9.9.9 cannot be installed here even forced: Because only idna==2.4 and idna==3.19 and idna==3.20 are available and you require idna==9.9.9, your requirements are unsatisfiable.


        ----- stderr -----
        warning: `requirements.txt` does not resolve on Python 3.12 x86_64-manylinux_2_28: no solution: Because requests==2.34.2 depends on idna>=2.5, <4 and you require requests==2.34.2, idna>=2.5, <4 is required. And because you require idna==9.9.9, your requirements are unsatisfiable.
        "#);
    let gated = review_layout(&ctx, &repo, &server, &["--fail-on-unjudged"]);
    planner_snapshot!(ctx, gated, @r#"
        exit_code: 1
        ----- stdout -----
        1 forced or pinned version(s) added or changed: base main ([COMMIT]) -> head pr ([COMMIT]); judged for Python 3.12 x86_64-manylinux_2_28

        DOES NOT RESOLVE requirements.txt on Python 3.12 x86_64-manylinux_2_28 (the base did): no solution: Because requests==2.34.2 depends on idna>=2.5, <4 and you require requests==2.34.2, idna>=2.5, <4 is required. And because you require idna==9.9.9, your requirements are unsatisfiable.

        NOT JUDGED       requirements.txt:2  requirements pin  idna==9.9.9
          on Python 3.12 x86_64-manylinux_2_28:
            not judged: idna==9.9.9 cannot be installed here even forced: Because only idna==2.4 and idna==3.19 and idna==3.20 are available and you require idna==9.9.9, your requirements are unsatisfiable.


        ----- stderr -----
        warning: `requirements.txt` does not resolve on Python 3.12 x86_64-manylinux_2_28: no solution: Because requests==2.34.2 depends on idna>=2.5, <4 and you require requests==2.34.2, idna>=2.5, <4 is required. And because you require idna==9.9.9, your requirements are unsatisfiable.
        warning: 1 changed pin(s) could not be judged (--fail-on-unjudged)
        "#);
    // The unjudged pin has no risk: `null` in the JSON, which the schema allows (`json()`
    // validates every planner document against docs/schemas/).
    let json = review_layout(&ctx, &repo, &server, &["--format", "json"]).json();
    let target = &json["findings"][0]["targets"][0];
    assert!(target["risk"].is_null(), "{target}");
    insta::assert_snapshot!("unjudged_pin_note", target["note"].as_str().unwrap());
}

/// A pin no release of which installs on the target (lib 1.0 requires `dep>=5`, which no index
/// has: there is no forced plan to score) but which breaks a requirement the environment holds
/// (app 1.0 requires `lib>=2`) is judged from that break, not "not judged": one factor for the
/// broken clause at the policy's weight, labelled `from its breaks` in the text and
/// `judged_from_breaks` in the JSON; the gate fails on its level alone. The requirement's
/// marker, which holds on the target, is not in the words (`app 1.0 requires lib>=2`); the
/// JSON's break keeps it.
#[test]
fn a_pin_that_cannot_be_installed_but_breaks_a_requirement_is_judged_from_the_break() {
    let ctx = review_context();
    let wheels = serde_json::json!([
        {"name": "app", "version": "1.0", "requires": ["lib>=2 ; python_version >= '3.8'"]},
        {"name": "lib", "version": "2.0"},
        {"name": "lib", "version": "1.0", "requires": ["dep>=5"]},
        {"name": "dep", "version": "1.0"},
    ]);
    let server = crate::common::index_server::tiny_wheels(&ctx.path().join("index"), &wheels);
    let repo = layout(
        ctx.dir.path(),
        &[("requirements.txt", "app==1.0\n")],
        &[("requirements.txt", "app==1.0\nlib==1.0\n")],
    );
    let out = review_layout(&ctx, &repo, &server, &["--fail-on", "medium"]);
    // `MEDIUM 25/100 FROM ITS BREAKS`, never `NOT JUDGED`; the gate's line on stderr.
    planner_snapshot!(ctx, "judged_from_the_break", out);
    let json = review_layout(&ctx, &repo, &server, &["--format", "json"]).json();
    let found = finding(&json, "requirements.txt", "lib==1.0");
    assert_eq!(found["level"], "medium");
    let target = &found["targets"][0];
    assert_eq!(target["judged_from_breaks"], true, "{target:#}");
    assert_eq!(
        target["breaks"][0]["requirement"], "lib>=2 ; python_full_version >= '3.8'",
        "{target:#}"
    );
    assert!(target.get("note").is_none(), "{target:#}");
    let remark = target["remark"].as_str().unwrap();
    insta::assert_snapshot!("judged_from_the_break_remark", remark);
    let factors = target["risk"]["factors"].as_array().unwrap();
    assert_eq!(factors.len(), 1, "{factors:?}");
    assert_eq!(factors[0]["kind"], "pin-lower-bound");
    assert_eq!(
        factors[0]["detail"],
        "app 1.0 requires lib>=2, and lib==1.0 allows none of it: breaks `>=2`"
    );
}

#[test]
fn uv_lock_entry_alone_is_judged_and_removed_pins_are_listed() {
    let lock = uv_file("uv.lock");
    // A lock-only downgrade (no pyproject change), and a dropped requirements pin.
    let head_lock = lock.replace(
        "name = \"idna\"\nversion = \"3.20\"",
        "name = \"idna\"\nversion = \"2.4\"",
    );
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[
            ("pyproject.toml", &uv_file("pyproject.toml")),
            ("uv.lock", &lock),
            (
                "tools/requirements.txt",
                "requests==2.34.2\nurllib3==2.7.0\n",
            ),
        ],
        &[
            ("uv.lock", &head_lock),
            ("tools/requirements.txt", "requests==2.34.2\n"),
        ],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--format", "json", "--fail-on", "medium"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let lock_pin = finding(&json, "uv.lock", "idna==2.4");
    assert_eq!(broken_dependents(lock_pin), ["requests"], "{lock_pin:#}");
    assert_eq!(lock_pin["was"], "idna==3.20");
    let removed = json["removed"].as_array().unwrap();
    assert_eq!(removed.len(), 1, "{json:#}");
    assert_eq!(removed[0]["requirement"], "urllib3==2.7.0");
    let text = review_layout(&ctx, &repo, &server, &[]);
    planner_snapshot!(ctx, text, @r#"
        exit_code: 0
        ----- stdout -----
        1 forced or pinned version(s) added or changed: base main ([COMMIT]) -> head pr ([COMMIT]); judged for Python 3.12 x86_64-manylinux_2_28

        DOES NOT RESOLVE uv.lock on Python 3.12 x86_64-manylinux_2_28 (the base did): no solution: Because requests==2.34.2 depends on idna in a range the constraints on idna exclude entirely (constraint idna==2.4) and you require requests==2.34.2 (constraint requests==2.34.2), your requirements are unsatisfiable.

        HIGH 54/100      uv.lock:157  uv.lock  idna==2.4 (was idna==3.20)
          release: idna 2.4 was uploaded 2017-03-01 (3561 days ago)
          on Python 3.12 x86_64-manylinux_2_28:
            judged without: what idna 2.4 imports, whether it ships a module another dist ships, and whether it raises on import over another dist's version (a test in its own sources) (its wheel's files could not be read: the index serves no wheel file for it (not found))
            breaks: requests 2.34.2 requires idna>=2.5,<4
            risk: high 54/100 (default policy)
               +25  requests 2.34.2 requires idna>=2.5, <4, forced to 2.4: breaks `>=2.5`; in the corpus, plans with this factor broke 16 of 26 times
               +15  2.4 is a minor step outside `>=2.5`; in the corpus, plans with this factor broke 13 of 28 times
                +5  no release of requests on the index accepts idna 2.4; in the corpus, plans with this factor broke 1 of 3 times
                +6  idna goes back from 3.20 to 2.4; in the corpus, plans with this factor broke 21 of 33 times
                +3  1 installed dist requires idna: requests; in the corpus, plans with this factor broke 49 of 100 times

        removed: tools/requirements.txt:2  requirements pin  urllib3==2.7.0

        ----- stderr -----
        warning: `uv.lock` does not resolve on Python 3.12 x86_64-manylinux_2_28: no solution: Because requests==2.34.2 depends on idna in a range the constraints on idna exclude entirely (constraint idna==2.4) and you require requests==2.34.2 (constraint requests==2.34.2), your requirements are unsatisfiable.
        "#);
}

#[test]
fn arg_defaults_shebang_scripts_ci_files_and_makefiles_are_scanned() {
    let ctx = review_context();
    let server = IndexServer::recorded();
    let repo = layout(
        ctx.dir.path(),
        &[(
            "Dockerfile",
            "FROM python:3.12-slim\nRUN pip install torch==2.11.0\n",
        )],
        &[
            (
                "Dockerfile",
                "FROM python:3.12-slim\nARG TRITON_VERSION=3.7.0\nARG NCCL\nRUN pip install torch==2.11.0\nRUN pip install --force-reinstall --no-deps \"triton==${TRITON_VERSION}\"\nRUN pip install --no-deps \"nvidia-nccl-cu13==${NCCL}\"\n",
            ),
            (
                "bin/setup-gpu",
                "#!/usr/bin/env bash\nset -e\npip install --no-deps triton==3.7.0\n",
            ),
            (
                ".github/workflows/gpu.yml",
                "on: push\njobs:\n  gpu:\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          pip install --no-deps triton==3.7.0\n",
            ),
            ("Makefile", "gpu:\n\tpip install --no-deps triton==3.7.0\n"),
        ],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--format", "json", "--fail-on", "medium"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let arg = finding(&json, "Dockerfile", "triton==3.7.0");
    assert_eq!(arg["pin"]["line"], 5);
    assert_eq!(broken_dependents(arg), ["torch"], "{arg:#}");
    for (file, line) in [
        ("bin/setup-gpu", 3),
        (".github/workflows/gpu.yml", 7),
        ("Makefile", 2),
    ] {
        let f = finding(&json, file, "triton==3.7.0");
        assert_eq!(f["pin"]["line"], line, "{f:#}");
        assert_eq!(f["pin"]["kind"], "pip-force");
    }
    // A version left as a variable is a problem with its line, never silently skipped.
    let problems = json["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{json:#}");
    assert_eq!(problems[0]["file"], "Dockerfile");
    assert_eq!(problems[0]["line"], 6);
    insta::assert_snapshot!(
        "version_left_as_a_variable",
        problems[0]["message"].as_str().unwrap()
    );
}

#[test]
fn safer_plan_of_a_uv_override_is_in_the_projects_terms() {
    let r = reviewed();
    let out = r.run(&["-q"]);
    // `pyproject.toml:10  uv override`: drop the override, require the torch that accepts it,
    // then `uv lock` and `uv sync`. `docker/Dockerfile:4`'s forced install keeps its pip
    // commands, no uv steps.
    planner_snapshot!(r.ctx, "uv_override_and_dockerfile_findings", out);
}

/// The comment a reviewer wants. Two bumps in a requirements file, judged on
/// the recorded corpus: each finding names the release's age (its upload time on the index),
/// its changelog (a `Project-URL` labelled so: charset-normalizer's), a compare link between
/// the base's and the head's versions only where the project's URLs show how it names tags
/// (neither project's do: no compare link, as a guessed `vX` pointed at tags that do not exist)
/// and a permalink to the
/// flagged line at the head commit: on the repository `origin` names, or, in GitHub Actions,
/// on `GITHUB_SERVER_URL`/`GITHUB_REPOSITORY`.
#[test]
fn release_notes_compare_links_age_and_permalinks() {
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[(
            "requirements.txt",
            "requests==2.34.2\nidna==3.19\ncharset-normalizer==3.5.2\n",
        )],
        &[(
            "requirements.txt",
            "requests==2.34.2\nidna==3.20\ncharset-normalizer==3.5.3\n",
        )],
    );
    git(
        &repo,
        &["remote", "add", "origin", "git@github.com:acme/app.git"],
    );
    let settings = snapshot_settings(&repo);
    for format in ["markdown", "github"] {
        let out = review_layout(&ctx, &repo, &server, &["--format", format]);
        assert_eq!(out.code, Some(0), "{format}: {}", out.stderr);
        settings.bind(|| insta::assert_snapshot!(format!("review_links_{format}"), out.stdout));
    }
    let out = review_layout(&ctx, &repo, &server, &["--format", "json"]);
    let json = out.json();
    let head = git(&repo, &["rev-parse", "pr"]).trim().to_string();
    let idna = finding(&json, "requirements.txt", "idna==3.20");
    assert_eq!(
        idna["permalink"],
        format!("https://github.com/acme/app/blob/{head}/requirements.txt#L2")
    );
    let release = &idna["release"];
    assert_eq!(release["version"], "3.20");
    assert_eq!(release["was"], "3.19");
    assert_eq!(release["uploaded"], "2026-09-17T14:11:03.168153Z");
    assert_eq!(release["repository"], "https://github.com/kjd/idna");
    // idna's URLs show no tag, and its tags are not `vX`: no compare link is guessed.
    assert!(release.get("compare").is_none(), "{release:#}");
    let charset = finding(&json, "requirements.txt", "charset-normalizer==3.5.3");
    assert_eq!(
        charset["release"]["notes"],
        serde_json::json!([{
            "label": "Changelog",
            "url": "https://github.com/jawah/charset_normalizer/blob/master/CHANGELOG.md"
        }])
    );
    // In GitHub Actions the workflow's own repository wins over `origin`.
    let out = ctx
        .command()
        .args(["review"])
        .arg(&repo)
        .args([
            "--base",
            "main",
            "--head",
            "pr",
            "--index-url",
            &server.url(),
        ])
        .args(["--python-version", "3.12", "--format", "json"])
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_REPOSITORY", "acme/app-fork")
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let idna = finding(&json, "requirements.txt", "idna==3.20");
    assert_eq!(
        idna["permalink"],
        format!("https://github.com/acme/app-fork/blob/{head}/requirements.txt#L2")
    );
}

/// A loopback stand-in for the GitHub API: `GET PATH` answered from `answers` (404 otherwise),
/// each request's path and `Authorization` header logged.
struct ApiStandIn {
    url: String,
    log: std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>,
}

impl ApiStandIn {
    fn start(answers: Vec<(&'static str, &'static str)>) -> ApiStandIn {
        use std::io::{BufRead, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = log.clone();
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                let _ = reader.read_line(&mut line);
                let path = line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or_default()
                    .to_string();
                let mut auth = String::new();
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                        break;
                    }
                    if let Some((name, value)) = header.split_once(':')
                        && name.eq_ignore_ascii_case("authorization")
                    {
                        auth = value.trim().to_string();
                    }
                }
                seen.lock().unwrap().push((path.clone(), auth));
                let (status, body) = answers
                    .iter()
                    .find(|(p, _)| *p == path)
                    .map_or(("404 Not Found", "{}"), |(_, body)| ("200 OK", *body));
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        ApiStandIn { url, log }
    }

    /// How many requests asked for `path`.
    fn asked(&self, path: &str) -> usize {
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|(p, _)| p == path)
            .count()
    }
}

/// In GitHub Actions (`GITHUB_TOKEN` and `GITHUB_API_URL` set) a compare link names only tags
/// the repository has: its tag list is asked of the API (a loopback stand-in here) once per
/// repository with the token, and cached in planner's cache for the next run. idna's URLs show
/// no tag spelling, but its tag list has `v3.19` and `v3.20`: a compare link, `checked`.
/// charset-normalizer has no tag for 3.5.3: no compare link. The token is never printed.
#[test]
fn compare_links_name_only_tags_the_github_api_lists() {
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[(
            "requirements.txt",
            "requests==2.34.2\nidna==3.19\ncharset-normalizer==3.5.2\n",
        )],
        &[(
            "requirements.txt",
            "requests==2.34.2\nidna==3.20\ncharset-normalizer==3.5.3\n",
        )],
    );
    let idna_tags = "/repos/kjd/idna/git/matching-refs/tags";
    let charset_tags = "/repos/jawah/charset_normalizer/git/matching-refs/tags";
    let api = ApiStandIn::start(vec![
        (
            idna_tags,
            r#"[{"ref": "refs/tags/v3.19"}, {"ref": "refs/tags/v3.20"}, {"ref": "refs/tags/3.1"}]"#,
        ),
        (charset_tags, r#"[{"ref": "refs/tags/3.5.2"}]"#),
    ]);
    let review = || {
        crate::common::run(
            ctx.command()
                .args(["review"])
                .arg(&repo)
                .args([
                    "--base",
                    "main",
                    "--head",
                    "pr",
                    "--index-url",
                    &server.url(),
                ])
                .args(["--python-version", "3.12", "--format", "json"])
                .env("GITHUB_TOKEN", "t0ken-s3cret")
                .env("GITHUB_API_URL", &api.url),
        )
    };
    for run in 1..=2 {
        let out = review();
        assert_eq!(out.code, Some(0), "{}", out.stderr);
        let json = out.json();
        let idna = &finding(&json, "requirements.txt", "idna==3.20")["release"];
        assert_eq!(
            idna["compare"],
            serde_json::json!({
                "url": "https://github.com/kjd/idna/compare/v3.19...v3.20",
                "from": "v3.19",
                "to": "v3.20",
                "guessed": false,
                "checked": true
            }),
            "run {run}"
        );
        let charset = &finding(&json, "requirements.txt", "charset-normalizer==3.5.3")["release"];
        assert!(charset.get("compare").is_none(), "run {run}: {charset:#}");
        assert!(!format!("{}{}", out.stdout, out.stderr).contains("s3cret"));
        // Asked once per repository: the second run reads planner's cache.
        assert_eq!(
            (api.asked(idna_tags), api.asked(charset_tags)),
            (1, 1),
            "run {run}"
        );
    }
    let log = api.log.lock().unwrap().clone();
    assert!(
        log.iter().all(|(_, auth)| auth == "Bearer t0ken-s3cret"),
        "{log:?}"
    );
    let cached = ctx.cache().join("forge-tags/github.com/kjd/idna.json");
    let cached = std::fs::read_to_string(&cached).unwrap();
    assert!(
        cached.contains("v3.20") && !cached.contains("s3cret"),
        "{cached}"
    );
}

/// A pin that resolves but breaks what the venv's own code imports (werkzeug 2.3.8
/// no longer defines `safe_str_cmp`, which the installed Flask-Login 0.5.0 imports), judged
/// against the venv with `--venv`: the safer plan is the one that moves Flask-Login to its
/// fixing release, and it predicts no break.
#[test]
fn a_pin_that_breaks_an_importer_gets_move_dependents_as_its_safer_plan() {
    let out = review_flask_login_world(
        &[("requirements.txt", "werkzeug==2.0.3\nflask-login==0.5.0\n")],
        &[("requirements.txt", "werkzeug==2.3.8\nflask-login==0.5.0\n")],
        &["--format", "json"],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let target = &finding(&json, "requirements.txt", "werkzeug==2.3.8")["targets"][0];
    let kinds = |risk: &serde_json::Value| -> Vec<String> {
        risk["factors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap().to_string())
            .collect()
    };
    let safer = &target["safer"];
    assert_eq!(safer["kind"], "move-dependents", "{target:#}");
    assert_eq!(safer["pins"]["flask-login"], "0.6.3", "{safer:#}");
    assert_eq!(safer["pins"]["werkzeug"], "2.3.8", "{safer:#}");
    // The pin's risk counts the missing import target; the safer plan's does not.
    let factors = format!(
        "pin: {}\nsafer: {}",
        kinds(&target["risk"]).join(" "),
        kinds(&safer["risk"]).join(" ")
    );
    insta::assert_snapshot!("importer_break_factors", factors);
}

/// A uv project whose override breaks an importer: the safer plan moves the dependent along,
/// and the uv steps require it, since `uv lock` keeps a locked version nothing tells it to move.
#[test]
fn a_uv_projects_safer_plan_requires_the_dependents_that_move_along() {
    let pyproject = |werkzeug: &str| {
        format!(
            "[project]\nname = \"app\"\nversion = \"0\"\ndependencies = [\"flask-login\"]\n\n\
             [tool.uv]\noverride-dependencies = [\"werkzeug=={werkzeug}\"]\n"
        )
    };
    let out = review_flask_login_world(
        &[("pyproject.toml", &pyproject("2.0.3"))],
        &[("pyproject.toml", &pyproject("2.3.8"))],
        &[],
    );
    let steps = uv_project_steps(&out.stdout);
    insta::assert_debug_snapshot!(steps, @r#"
    [
        "- in pyproject.toml, require `flask-login>=0.6.3` (now 0.5.0; it breaks under werkzeug 2.3.8, and `uv lock` keeps a locked version it is not told to move)",
        "- run `uv lock`, then `uv sync` (it moves werkzeug 2.0.3 -> 2.3.8)",
    ]
    "#);
}

/// `planner review` of `main..pr` (files `base`, then `head`) with `--venv` on the Flask-Login
/// 0.5.0 / werkzeug 2.0.3 venv of `propose_must_move` and its recorded index, plus `extra`.
fn review_flask_login_world(
    base: &[(&str, &str)],
    head: &[(&str, &str)],
    extra: &[&str],
) -> crate::common::Output {
    let root = tempfile::tempdir().unwrap();
    let (venv, index) = crate::propose_must_move::world(root.path());
    review_with_venv(root.path(), (base, head), &venv, &index, extra)
}

/// The lines of review's text that tell a uv project what to change and run.
fn uv_project_steps(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("- in pyproject.toml") || l.starts_with("- run `uv lock`"))
        .collect()
}

/// A branch's files: (path, text).
type Files<'a> = &'a [(&'a str, &'a str)];

/// `planner review` of `main..pr` of a repository laid out under `root` (`files`: the base's,
/// then the head's) with `--venv venv` and the index folder `index`, plus `extra`.
fn review_with_venv(
    root: &Path,
    files: (Files<'_>, Files<'_>),
    venv: &crate::common::venv::RealVenv,
    index: &Path,
    extra: &[&str],
) -> crate::common::Output {
    let repo = layout(root, files.0, files.1);
    let (repo, venv, index) = (
        repo.display().to_string(),
        venv.path.display().to_string(),
        index.join("simple").display().to_string(),
    );
    let mut args = vec![
        "review",
        &repo,
        "--base",
        "main",
        "--head",
        "pr",
        "--venv",
        &venv,
        "--index-url",
        &index,
    ];
    args.extend_from_slice(extra);
    TestContext::new().run(&args)
}

/// app 2.0 requires `lib>=2`; app 1.0 (an older release) accepts lib 1.0.
fn downgrade_releases() -> Vec<crate::propose_must_move::Release<'static>> {
    let lib: &[(&str, &str)] = &[("lib/__init__.py", "")];
    let app: &[(&str, &str)] = &[("app/__init__.py", "import lib\n")];
    vec![
        ("lib", "1.0", "2021-01-04T10:00:00Z", &[], lib),
        ("lib", "2.0", "2023-01-02T10:00:00Z", &[], lib),
        ("lib", "2.1", "2024-01-03T10:00:00Z", &[], lib),
        ("app", "1.0", "2021-02-01T10:00:00Z", &["lib>=1"], app),
        ("app", "2.0", "2023-02-01T10:00:00Z", &["lib>=2"], app),
    ]
}

/// `planner review` of `main..pr` (files `base`, then `head`) with `--venv` on a venv of app 2.0
/// and lib 2.1, against an index of [`downgrade_releases`], in `format`.
fn review_downgrade_world(
    base: &[(&str, &str)],
    head: &[(&str, &str)],
    format: &str,
) -> crate::common::Output {
    use crate::propose_must_move::{index_of, venv_with};
    let root = tempfile::tempdir().unwrap();
    let (wheels, index) = index_of(root.path(), &downgrade_releases());
    let venv = venv_with(root.path(), &wheels, &["app==2.0", "lib==2.1"]);
    let out = review_with_venv(
        root.path(),
        (base, head),
        &venv,
        &index,
        &["--format", format],
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    out
}

/// A pin that takes a dependency back below what its installed dependent requires (`lib==1.0`
/// under app 2.0, which requires `lib>=2`): no forward move of app fits, so the safer plan is the
/// one that moves app back to 1.0, named as a downgrade in every format.
#[test]
fn a_pin_back_gets_the_downgrade_of_its_blocker_as_its_safer_plan() {
    let base = [("requirements.txt", "app==2.0\nlib==2.1\n")];
    let head = [("requirements.txt", "app==2.0\nlib==1.0\n")];
    let json = review_downgrade_world(&base, &head, "json").json();
    let pin = finding(&json, "requirements.txt", "lib==1.0");
    assert_eq!(broken_dependents(pin), ["app"]);
    let safer = &pin["targets"][0]["safer"];
    assert_eq!(safer["kind"], "downgrade-blockers", "{pin:#}");
    assert_eq!(safer["pins"]["app"], "1.0", "{safer:#}");
    assert_eq!(safer["pins"]["lib"], "1.0", "{safer:#}");
    let text = review_downgrade_world(&base, &head, "text").stdout;
    let safer_line = text.lines().find(|l| l.trim_start().starts_with("safer:"));
    insta::assert_snapshot!(
        safer_line.unwrap_or("(none)").trim(),
        @"safer: Downgrade the blocker: app 2.0 -> 1.0 (risk low 12/100): app 2.0 -> 1.0, lib 2.1 -> 1.0"
    );
    // The file's own pin of app would keep it at 2.0: the step says where to take it back.
    review_context()
        .insta_settings()
        .bind(|| insta::assert_snapshot!("pin_back_text", text));
    let markdown = review_downgrade_world(&base, &head, "markdown").stdout;
    let safer = markdown.split("\nSafer: ").nth(1).unwrap_or("(none)");
    let safer = safer.split("```\n").next().unwrap_or_default();
    insta::assert_snapshot!(safer, @r"
    **Downgrade the blocker: app 2.0 -> 1.0** (risk low 12/100): app 2.0 -> 1.0, lib 2.1 -> 1.0

    1. in requirements.txt, require `app==1.0` where it declares `app==2.0`

    ```sh
    python3 -m pip install --only-binary :all: -- 'app==1.0' 'lib==1.0'
    ");
    let row = markdown
        .lines()
        .find(|l| l.contains("`lib==1.0`"))
        .unwrap_or("(none)");
    insta::assert_snapshot!(row, @"| **medium 49/100** | `requirements.txt:2` | `lib==1.0` | requirements pin | app 2.0 requires lib>=2 | Downgrade the blocker: app 2.0 -> 1.0 (low 12/100) |");
    let github = review_downgrade_world(&base, &head, "github").stdout;
    let message = github.split("; safer: ").nth(1).unwrap_or("(none)");
    insta::assert_snapshot!(
        message.split(". ").next().unwrap_or_default(),
        @"Downgrade the blocker: app 2.0 -> 1.0: app 2.0 -> 1.0, lib 2.1 -> 1.0"
    );
}

/// The same pin back as a uv project's override: the steps drop the override and require the
/// blocker at the older release it goes back to (`==`, never a `>=` the locked release meets).
#[test]
fn a_uv_projects_pin_back_requires_the_blocker_at_its_older_release() {
    let pyproject = |lib: &str| {
        format!("[project]\nname = \"svc\"\nversion = \"0\"\ndependencies = [\"app>=2\"]\n{lib}")
    };
    let out = review_downgrade_world(
        &[("pyproject.toml", &pyproject(""))],
        &[(
            "pyproject.toml",
            &pyproject("\n[tool.uv]\noverride-dependencies = [\"lib==1.0\"]\n"),
        )],
        "text",
    );
    let steps = uv_project_steps(&out.stdout);
    insta::assert_debug_snapshot!(steps, @r#"
    [
        "- in pyproject.toml, keep `lib==1.0` in [tool.uv] override-dependencies (once the blockers go back it breaks nothing, and they do not require it)",
        "- in pyproject.toml, require `app==1.0` where it names app (now 2.0)",
        "- run `uv lock`, then `uv sync` (it moves lib 2.1 -> 1.0)",
    ]
    "#);
}

/// The review's recorded index copied under the test's folder, with `oldsdist 1.0` added as a
/// source distribution only, whose PKG-INFO is Metadata-Version 2.1 (its dependencies cannot be
/// read without a build).
fn index_with_an_old_sdist(ctx: &TestContext) -> IndexServer {
    let root = ctx.dir.path().join("index");
    let copied = Command::new("cp")
        .args(["-r"])
        .arg(repo_root().join("testdata/review/index"))
        .arg(&root)
        .status()
        .unwrap();
    assert!(copied.success());
    // Whole files are served from `wheels/`, whatever their kind.
    std::fs::create_dir_all(root.join("wheels")).unwrap();
    let sdist = root.join("wheels/oldsdist-1.0.tar.gz");
    let script = "import hashlib, io, sys, tarfile\n\
        data = b'Metadata-Version: 2.1\\nName: oldsdist\\nVersion: 1.0\\nRequires-Dist: idna>=3\\n'\n\
        with tarfile.open(sys.argv[1], 'w:gz') as tar:\n\
        \x20   info = tarfile.TarInfo('oldsdist-1.0/PKG-INFO')\n\
        \x20   info.size = len(data)\n\
        \x20   tar.addfile(info, io.BytesIO(data))\n\
        print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())\n";
    let made = Command::new("python3")
        .args(["-c", script])
        .arg(&sdist)
        .output()
        .unwrap();
    assert!(made.status.success());
    let sha = String::from_utf8(made.stdout).unwrap();
    let simple = root.join("simple/oldsdist");
    std::fs::create_dir_all(&simple).unwrap();
    std::fs::write(
        simple.join("index.html"),
        format!(
            "<!DOCTYPE html><html><body>\n<a href=\"../../files/oldsdist-1.0.tar.gz#sha256={}\">oldsdist-1.0.tar.gz</a><br />\n</body></html>\n",
            sha.trim()
        ),
    )
    .unwrap();
    IndexServer::start(&root)
}

/// A requirement whose release cannot be read without a build is taken as it is, without
/// requirements of its own, and named; the rest of the file is still judged: the break in the same file is found and
/// fails the gate, and a harmless file is not called unresolved.
#[test]
fn an_sdist_whose_metadata_needs_a_build_is_named_and_the_rest_judged() {
    let ctx = review_context();
    let server = index_with_an_old_sdist(&ctx);
    let repo = layout(
        ctx.dir.path(),
        &[(
            "requirements.txt",
            "requests==2.34.2\noldsdist==1.0\nidna==3.20\n",
        )],
        &[(
            "requirements.txt",
            "requests==2.34.2\noldsdist==1.0\nidna==2.4\n",
        )],
    );
    let gate = ["--fail-on", "medium", "--fail-on-unjudged"];
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &[&gate[..], &["--format", "json"]].concat(),
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let idna = finding(&json, "requirements.txt", "idna==2.4");
    assert_eq!(broken_dependents(idna), ["requests"], "{idna:#}");
    let remark = idna["targets"][0]["remark"].as_str().unwrap();
    insta::assert_snapshot!("judged_with_an_sdist_remark", remark);
    // The base's file is not "unresolved" for want of oldsdist's metadata.
    let text = review_layout(&ctx, &repo, &server, &gate);
    planner_snapshot!(ctx, "judged_with_an_sdist_text", text);
}

/// A uv workspace: the root declares no dependency, its member `backend/` requires requests.
const WORKSPACE_ROOT: &str = "[tool.uv.workspace]\nmembers = [\"backend\"]\n";
const WORKSPACE_MEMBER: &str = "[project]\nname = \"app\"\nversion = \"0.1.0\"\n\
    requires-python = \">=3.12\"\ndependencies = [\"requests==2.34.2\"]\n";

/// The root's `constraint-dependencies` apply to what the members require: a constraint the
/// member's requests cannot take breaks it (uv reads constraints from the root only).
#[test]
fn a_workspace_roots_constraint_is_judged_with_its_members_requirements() {
    let ctx = review_context();
    let server = review_index();
    let head_root =
        format!("{WORKSPACE_ROOT}\n[tool.uv]\nconstraint-dependencies = [\"idna==2.4\"]\n");
    let repo = layout(
        ctx.dir.path(),
        &[
            ("pyproject.toml", WORKSPACE_ROOT),
            ("backend/pyproject.toml", WORKSPACE_MEMBER),
        ],
        &[("pyproject.toml", &head_root)],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--format", "json", "--fail-on", "medium"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let constraint = finding(&json, "pyproject.toml", "idna==2.4");
    assert_eq!(
        broken_dependents(constraint),
        ["requests"],
        "{constraint:#}"
    );
    // The workspace as a whole no longer resolves, and the root is named for it.
    let unresolved = json["unresolved"].as_array().unwrap();
    assert_eq!(unresolved.len(), 1, "{json:#}");
    assert_eq!(unresolved[0]["file"], "pyproject.toml");
}

/// A workspace's `uv.lock` holds every member: a locked version is judged with what the member
/// (not only the first local project in the lock) requires.
#[test]
fn a_workspace_lock_entry_is_judged_with_every_members_requirements() {
    let member_lock = uv_file("uv.lock").replace(
        "source = { editable = \".\" }",
        "source = { editable = \"backend\" }",
    );
    // The virtual root sorts first; it requires the member, which is no index project.
    let lock = member_lock.replacen(
        "[[package]]\nname = \"app\"",
        "[[package]]\nname = \"aaa-root\"\nversion = \"0.1.0\"\nsource = { virtual = \".\" }\n\n\
         [package.metadata]\nrequires-dist = [{ name = \"app\", editable = \"backend\" }]\n\n\
         [[package]]\nname = \"app\"",
        1,
    );
    let head_lock = lock.replace(
        "name = \"idna\"\nversion = \"3.20\"",
        "name = \"idna\"\nversion = \"2.4\"",
    );
    let root = "[project]\nname = \"aaa-root\"\nversion = \"0.1.0\"\ndependencies = [\"app\"]\n\n\
                [tool.uv.sources]\napp = { workspace = true }\n\n\
                [tool.uv.workspace]\nmembers = [\"backend\"]\n";
    let member = uv_file("pyproject.toml");
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[
            ("pyproject.toml", root),
            ("backend/pyproject.toml", &member),
            ("uv.lock", &lock),
        ],
        &[("uv.lock", &head_lock)],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--format", "json", "--fail-on", "medium"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let lock_pin = finding(&json, "uv.lock", "idna==2.4");
    assert_eq!(broken_dependents(lock_pin), ["requests"], "{lock_pin:#}");
    // The root's requirement on its member is not looked up on the index.
    assert!(!out.stdout.contains("app<none>"), "{}", out.stdout);
}

/// In a workspace the safer plan's steps name the member's `pyproject.toml` that declares the
/// dependent, not the root's.
#[test]
fn a_workspaces_safer_plan_names_the_member_that_declares_the_dependent() {
    let root = |werkzeug: &str| {
        format!(
            "[tool.uv.workspace]\nmembers = [\"services/*\"]\n\n\
             [tool.uv]\noverride-dependencies = [\"werkzeug=={werkzeug}\"]\n"
        )
    };
    let member = "[project]\nname = \"web\"\nversion = \"0\"\ndependencies = [\"flask-login\"]\n";
    let out = review_flask_login_world(
        &[
            ("pyproject.toml", &root("2.0.3")),
            ("services/web/pyproject.toml", member),
        ],
        &[("pyproject.toml", &root("2.3.8"))],
        &[],
    );
    let steps: Vec<&str> = (out.stdout.lines().map(str::trim))
        .filter(|l| l.starts_with("- in ") || l.starts_with("- run `uv lock`"))
        .collect();
    insta::assert_debug_snapshot!(steps, @r#"
    [
        "- in services/web/pyproject.toml, require `flask-login>=0.6.3` (now 0.5.0; it breaks under werkzeug 2.3.8, and `uv lock` keeps a locked version it is not told to move)",
        "- run `uv lock`, then `uv sync` (it moves werkzeug 2.0.3 -> 2.3.8)",
    ]
    "#);
}

/// A `poetry.lock` (or `pdm.lock` in PDM's layout) of the requests world, idna at `idna`.
fn project_lock(pdm: bool, idna: &str, urllib3: &str) -> String {
    let mut out = String::new();
    for (name, version) in [
        ("certifi", "2026.10.19.post1"),
        ("charset-normalizer", "3.5.3"),
        ("idna", idna),
        ("requests", "2.34.2"),
        ("urllib3", urllib3),
    ] {
        out.push_str(&format!(
            "[[package]]\nname = \"{name}\"\nversion = \"{version}\"\n{}\n",
            if pdm {
                "requires_python = \">=3.8\"\n"
            } else {
                "description = \"\"\noptional = false\npython-versions = \">=3.8\"\nfiles = []\n"
            }
        ));
    }
    out.push_str(if pdm {
        "[metadata]\ngroups = [\"default\"]\nlock_version = \"4.5.0\"\n"
    } else {
        "[metadata]\nlock-version = \"2.0\"\npython-versions = \"^3.12\"\ncontent-hash = \"0\"\n"
    });
    out
}

/// A Poetry project: `[tool.poetry.dependencies]` (caret ranges, an exact pin) and `poetry.lock`
/// are read; a lock-only downgrade that breaks requests fails the gate, with requests named; a
/// harmless lock bump passes.
#[test]
fn poetry_dependencies_and_lock_are_judged() {
    let pyproject = |extra: &str| {
        format!(
            "[tool.poetry]\nname = \"app\"\nversion = \"0\"\n\n[tool.poetry.dependencies]\n\
             python = \"^3.12\"\nrequests = {{ version = \"^2.34\", extras = [] }}\n{extra}\n\
             [tool.poetry.group.test.dependencies]\ncertifi = \"*\"\n"
        )
    };
    let base = [
        ("pyproject.toml", pyproject("")),
        ("poetry.lock", project_lock(false, "3.20", "2.7.0")),
    ];
    let base: Vec<(&str, &str)> = base.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let server = review_index();
    let gate = [
        "--format",
        "json",
        "--fail-on",
        "medium",
        "--fail-on-unjudged",
    ];
    // The lock alone takes idna back.
    let ctx = review_context();
    let head_lock = project_lock(false, "2.4", "2.7.0");
    let repo = layout(ctx.dir.path(), &base, &[("poetry.lock", &head_lock)]);
    let out = review_layout(&ctx, &repo, &server, &gate);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let lock_pin = finding(&json, "poetry.lock", "idna==2.4");
    assert_eq!(lock_pin["pin"]["kind"], "poetry-lock");
    assert_eq!(broken_dependents(lock_pin), ["requests"], "{lock_pin:#}");
    // An exact pin in the dependencies table.
    let ctx = review_context();
    let head = pyproject("idna = \"2.4\"");
    let repo = layout(ctx.dir.path(), &base, &[("pyproject.toml", &head)]);
    let out = review_layout(&ctx, &repo, &server, &gate);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let pin = finding(&json, "pyproject.toml", "idna==2.4");
    assert_eq!(pin["pin"]["kind"], "poetry-dependency");
    assert_eq!(pin["pin"]["line"], 8, "{pin:#}");
    assert_eq!(broken_dependents(pin), ["requests"], "{pin:#}");
    // A harmless lock bump passes the gate, judged.
    let ctx = review_context();
    let head_lock = project_lock(false, "3.20", "2.8.0");
    let repo = layout(ctx.dir.path(), &base, &[("poetry.lock", &head_lock)]);
    let out = review_layout(&ctx, &repo, &server, &gate);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let json = out.json();
    let bump = finding(&json, "poetry.lock", "urllib3==2.8.0");
    assert!(broken_dependents(bump).is_empty(), "{bump:#}");
}

/// A PDM project: `pdm.lock` is read with the `[project]` dependencies beside it.
#[test]
fn pdm_lock_is_judged_with_the_projects_dependencies() {
    let pyproject = "[project]\nname = \"app\"\nversion = \"0\"\ndependencies = [\"requests>=2.34\"]\n\n\
                     [tool.pdm.dev-dependencies]\ntest = [\"certifi\"]\n";
    let ctx = review_context();
    let server = review_index();
    let repo = layout(
        ctx.dir.path(),
        &[
            ("pyproject.toml", pyproject),
            ("pdm.lock", &project_lock(true, "3.20", "2.7.0")),
        ],
        &[("pdm.lock", &project_lock(true, "2.4", "2.7.0"))],
    );
    let out = review_layout(
        &ctx,
        &repo,
        &server,
        &["--format", "json", "--fail-on", "medium"],
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let lock_pin = finding(&json, "pdm.lock", "idna==2.4");
    assert_eq!(lock_pin["pin"]["kind"], "pdm-lock");
    assert_eq!(broken_dependents(lock_pin), ["requests"], "{lock_pin:#}");
}

/// The requirement texts a finding's first target says it leaves no version for, each with the
/// place it is written.
fn excluded(finding: &serde_json::Value) -> Vec<String> {
    (finding["targets"][0]["excludes"]
        .as_array()
        .into_iter()
        .flatten())
    .map(|h| format!("{} {}:{}", h["requirement"], h["file"], h["line"]))
    .collect()
}

#[test]
fn a_constraint_reached_from_an_in_file_is_judged_with_its_r_pins_held() {
    let ctx = review_context();
    let server = review_index();
    // pip-tools: base.in resolves requests freely; test.in holds base.txt's requests==2.34.2.
    let base = [
        ("requirements/base.in", "-c constraints.txt\nrequests\n"),
        ("requirements/base.txt", "requests==2.34.2\n"),
        (
            "requirements/test.in",
            "-c constraints.txt\n-r base.txt\ncertifi\n",
        ),
        ("requirements/constraints.txt", "# pins\n"),
    ];
    let head = [("requirements/constraints.txt", "# pins\nrequests<2.34.2\n")];
    let repo = layout(ctx.dir.path(), &base, &head);
    let args = ["--format", "json", "--fail-on", "medium"];
    let out = review_layout(&ctx, &repo, &server, &args);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let requests = finding(&json, "requirements/constraints.txt", "requests<2.34.2");
    // Judged in test.in's environment, naming the pin it excludes where it is written.
    assert_eq!(
        excluded(requests),
        [r#""requests==2.34.2" "requirements/base.txt":1"#],
        "{requests:#}"
    );
    let held = &requests["targets"][0]["excludes"][0];
    assert_eq!(held["environment"], "requirements/test.in", "{requests:#}");
    insta::assert_snapshot!(
        "constraint_judged_in_the_in_files_environment",
        requests["targets"][0]["remark"].as_str().unwrap()
    );
    let unresolved = json["unresolved"].as_array().unwrap();
    assert!(
        unresolved
            .iter()
            .any(|u| u["file"] == "requirements/test.in"),
        "{json:#}"
    );
    ctx.insta_settings().bind(|| {
        insta::assert_snapshot!(
            "constraint_judged_in_the_in_files_environment_stderr",
            out.stderr
        )
    });
}

#[test]
fn a_narrowed_range_is_judged_and_a_widened_one_is_silent() {
    let server = review_index();
    // A range added to a requirements file that leaves requests no idna: breaks requests.
    let ctx = review_context();
    let base = [("requirements.txt", "requests\nurllib3<2.8\n")];
    let head = [(
        "requirements.txt",
        "requests\nurllib3<3\nidna<3\ncertifi>=2026.1\n",
    )];
    let repo = layout(ctx.dir.path(), &base, &head);
    let args = ["--format", "json", "--fail-on", "medium"];
    let out = review_layout(&ctx, &repo, &server, &args);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let idna = finding(&json, "requirements.txt", "idna<3");
    assert_eq!(idna["pin"]["kind"], "range", "{idna:#}");
    assert_eq!(broken_dependents(idna), ["requests"], "{idna:#}");
    // The widened urllib3 range and the added certifi range move nothing: no finding.
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{json:#}");

    // A range in `[project]` dependencies of a uv project, narrowed the same way.
    let ctx = review_context();
    let project = |idna: &str| {
        format!(
            "[project]\nname = \"app\"\nversion = \"0.1.0\"\nrequires-python = \">=3.12\"\ndependencies = [\n    \"requests\",\n    \"{idna}\",\n]\n"
        )
    };
    let (before, after) = (project("idna>=2"), project("idna>=2,<3"));
    let repo = layout(
        ctx.dir.path(),
        &[("pyproject.toml", &before)],
        &[("pyproject.toml", &after)],
    );
    let out = review_layout(&ctx, &repo, &server, &args);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let idna = finding(&json, "pyproject.toml", "idna>=2,<3");
    assert_eq!(broken_dependents(idna), ["requests"], "{idna:#}");

    // A range on a Dockerfile install line beside `-r requirements.txt`: one command resolves
    // both, so the file's urllib3>=2.8 has no version left.
    let ctx = review_context();
    let docker = |extra: &str| {
        format!("FROM python:3.12\nRUN pip install -r requirements.txt certifi{extra}\n")
    };
    let base = [
        ("requirements.txt", "requests\nurllib3>=2.8\n"),
        ("Dockerfile", &docker("") as &str),
    ];
    let head = [("Dockerfile", &docker(" 'urllib3<2.8'") as &str)];
    let repo = layout(ctx.dir.path(), &base, &head);
    let out = review_layout(&ctx, &repo, &server, &args);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json = out.json();
    let urllib3 = finding(&json, "Dockerfile", "urllib3<2.8");
    assert_eq!(
        excluded(urllib3),
        [r#""urllib3>=2.8" "requirements.txt":2"#],
        "{urllib3:#}"
    );

    // A harmless PR that only widens a range: silent, the gate passes.
    let ctx = review_context();
    let repo = layout(
        ctx.dir.path(),
        &[("requirements.txt", "requests\nidna>=3.20\n")],
        &[("requirements.txt", "requests\nidna>=3.19\n")],
    );
    let gate = ["--fail-on", "medium", "--fail-on-unjudged"];
    let out = review_layout(&ctx, &repo, &server, &gate);
    planner_snapshot!(ctx, "widened_range_is_silent", out);
}

/// Under `--offline`, a project whose page the cache lacks leaves whether a file resolves
/// unknown: never "does not resolve (nor at the base)", which would let the change pass. A
/// conflict the head makes among the data that is there is still found and gates (leaving a
/// project out only takes requirements away), and where there is none the file is not judged
/// (`--fail-on-unjudged` fails, naming the project whose data is missing).
#[test]
fn missing_index_data_under_offline_never_hides_a_break_behind_the_base() {
    let ctx = review_context();
    let wheels = serde_json::json!([
        {"name": "web", "version": "1.0", "requires": ["model>=2.9"]},
        {"name": "model", "version": "2.6"},
        {"name": "model", "version": "2.9"},
        {"name": "extra", "version": "1.0"},
    ]);
    let server = crate::common::index_server::tiny_wheels(&ctx.path().join("index"), &wheels);
    let project = |deps: &str| {
        format!("[project]\nname = \"app\"\nversion = \"0\"\ndependencies = [{deps}]\n")
    };
    // One online run fills the cache with web's and model's data, never extra's.
    let warm = layout(
        &ctx.dir.path().join("warm"),
        &[("pyproject.toml", &project("\"web\", \"model>2.0\""))],
        &[("pyproject.toml", &project("\"web\", \"model>2.1\""))],
    );
    let out = review_layout(&ctx, &warm, &server, &["--fail-on", "medium"]);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    let base = project("\"web\", \"model>2.0\", \"extra\"");
    // The head's range leaves web no model: a break among the data the cache has.
    let breaking = layout(
        &ctx.dir.path().join("breaking"),
        &[("pyproject.toml", &base)],
        &[(
            "pyproject.toml",
            &project("\"web\", \"model>2.0,<2.7\", \"extra\""),
        )],
    );
    let args = ["--offline", "--fail-on", "medium"];
    let out = review_layout(&ctx, &breaking, &server, &args);
    // `DOES NOT RESOLVE pyproject.toml` with pubgrub's reason, never "nor at the base"; exit 1.
    planner_snapshot!(ctx, "offline_break_among_cached_data", out);
    // A harmless range beside the missing data: not judged, not passed.
    let harmless = layout(
        &ctx.dir.path().join("harmless"),
        &[("pyproject.toml", &base)],
        &[(
            "pyproject.toml",
            &project("\"web\", \"model>2.1\", \"extra\""),
        )],
    );
    let args = ["--offline", "--fail-on", "medium", "--fail-on-unjudged"];
    let out = review_layout(&ctx, &harmless, &server, &args);
    // `NOT JUDGED pyproject.toml`, naming extra's missing data; exit 1 under --fail-on-unjudged.
    planner_snapshot!(ctx, "offline_missing_data_not_judged", out);
    let github = review_layout(
        &ctx,
        &harmless,
        &server,
        &["--offline", "--format", "github"],
    );
    assert!(
        (github.stdout.lines()).any(|l| l
            .starts_with("::warning file=pyproject.toml,title=planner%3A not judged::NOT JUDGED")),
        "{}",
        github.stdout
    );
    let json = review_layout(&ctx, &harmless, &server, &["--offline", "--format", "json"]).json();
    let unresolved = &json["unresolved"][0];
    assert!(
        (unresolved["missing"].as_str()).is_some_and(|m| m.starts_with("extra (offline:")),
        "{json:#}"
    );
}

/// torch 2.11.0 -> 2.15.0 moves 18 releases whose wheel files the recorded index does not serve:
/// the text and the markdown show the first 5 by name (one line each) and how many more, the
/// annotation names those 5 and how many more; JSON and SARIF list every release.
#[test]
fn judged_without_is_capped_in_the_text_and_complete_in_json_and_sarif() {
    let ctx = review_context();
    let repo = layout(
        ctx.dir.path(),
        &[("requirements.txt", "torch==2.11.0\n")],
        &[("requirements.txt", "torch==2.15.0\n")],
    );
    let server = IndexServer::recorded();
    let json = review_layout(&ctx, &repo, &server, &["--format", "json"]).json();
    let unchecked = json["findings"][0]["targets"][0]["unchecked"]
        .as_array()
        .unwrap();
    let mut named: Vec<(&str, &str)> = unchecked
        .iter()
        .map(|u| (u["name"].as_str().unwrap(), u["version"].as_str().unwrap()))
        .collect();
    assert_eq!(named.len(), 18, "{named:?}");
    named.sort();
    let releases: Vec<String> = named.iter().map(|(n, v)| format!("{n} {v}")).collect();
    let more = "and 13 more (--format json lists each)";

    let text = review_layout(&ctx, &repo, &server, &[]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    let judged: Vec<&str> = (text.stdout.lines())
        .filter_map(|l| l.strip_prefix("    judged without: "))
        .collect();
    assert_eq!(judged.len(), 5, "{}", text.stdout);
    for (line, release) in judged.iter().zip(&releases) {
        assert!(
            line.contains(&format!(" {release} ")),
            "{line} names {release}"
        );
    }
    assert!(
        text.stdout.contains(&format!("\n    {more}\n")),
        "{}",
        text.stdout
    );

    let markdown = review_layout(&ctx, &repo, &server, &["--format", "markdown"]).stdout;
    assert_eq!(
        markdown.matches("- judged without: ").count(),
        5,
        "{markdown}"
    );
    assert!(markdown.contains(&format!("\n- {more}\n")), "{markdown}");

    let github = review_layout(&ctx, &repo, &server, &["--format", "github"]).stdout;
    let shown = releases[..5].join(", ");
    assert!(
        github.contains(&format!(
            "judged without the files of {shown} (could not be read) {more}"
        )),
        "{github}"
    );

    let sarif = review_layout(&ctx, &repo, &server, &["--format", "sarif"]).json();
    let message = sarif["runs"][0]["results"][0]["message"]["text"]
        .as_str()
        .unwrap();
    for release in &releases {
        assert!(message.contains(release.as_str()), "{release} in {message}");
    }
    assert!(!message.contains("more (--format json"), "{message}");
}
