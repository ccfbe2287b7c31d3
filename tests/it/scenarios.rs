//! Scenarios: each folder under `tests/scenarios/` is one case, described in its `world.toml`
//! (the wheels on a loopback index, or a recorded index under testdata/, what pip installs into a real venv from it, a git
//! repository's base and head, the planner command) and recorded as one insta snapshot (exit
//! code, stdout, stderr). A new case is a new
//! folder and a `cargo insta review`; CONTRIBUTING.md shows the format.
//! `PLANNER_TEST_SCENARIOS=a,b cargo test --test it scenarios` runs cases `a` and `b` only.
//!
//! In: `tests/scenarios/*/world.toml`. Out: one snapshot per folder under `tests/it/snapshots/`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::common::index_server::{IndexServer, tiny_wheels};
use crate::common::venv::RealVenv;
use crate::common::{TestContext, repo_root};
use crate::review::git;

/// One scenario's `world.toml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct World {
    /// What the scenario shows, one sentence (the snapshot's description).
    about: String,
    /// planner's arguments; `{venv}`, `{index}`, `{dir}`, `{snapshot}` and `{repo}` are filled in.
    args: Vec<String>,
    /// The wheels on the index, each built as a real wheel.
    #[serde(default)]
    wheel: Vec<Wheel>,
    /// A recorded index under the repository (`testdata/review/index`) served instead of the
    /// wheels: its real project pages and metadata.
    index: Option<String>,
    /// The venv, when the command reads one.
    venv: Option<Venv>,
    /// A git repository, when the command reviews one.
    repo: Option<Repo>,
}

/// A repository at `{repo}`: branch `main` holds `base`'s files, branch `pr` (checked out)
/// adds `head`'s over them; a file whose `head` text is empty is deleted there.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Repo {
    #[serde(default)]
    base: BTreeMap<String, String>,
    #[serde(default)]
    head: BTreeMap<String, String>,
}

/// A wheel on the index (the fields `tests/it/verify_world.py` reads).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Wheel {
    name: String,
    version: String,
    #[serde(default)]
    requires: Vec<String>,
    /// Files in the wheel, path to text.
    #[serde(default)]
    files: BTreeMap<String, String>,
    /// Its upload time on the index (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    upload_time: Option<String>,
}

/// How the venv is made, in order: `install`, then a `planner snapshot` to `{snapshot}` when
/// `snapshot` is true, then `then` (pip's resolution), then `force` (`--no-deps`), then the
/// text in `append` added to those files under site-packages.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Venv {
    #[serde(default)]
    install: Vec<String>,
    #[serde(default)]
    snapshot: bool,
    #[serde(default)]
    then: Vec<String>,
    #[serde(default)]
    force: Vec<String>,
    #[serde(default)]
    append: BTreeMap<String, String>,
}

/// A scenario set up: the context, the index (kept alive for the run) and the placeholders.
struct Built {
    ctx: TestContext,
    _server: IndexServer,
    places: Vec<(&'static str, String)>,
}

/// Every folder under `tests/scenarios/` that holds a `world.toml`, in name order (only those
/// named in `PLANNER_TEST_SCENARIOS`, comma-separated, when it is set). Each case runs on its
/// own: a failure is caught, named and counted, and the test fails at the end listing them.
///
/// Not `insta::glob!`: it counts snapshot failures in one process-wide list while it runs, so
/// another test's failing snapshot in a parallel thread was counted here, and that test passed.
#[test]
fn scenarios() {
    let root = repo_root().join("tests/scenarios");
    let only = std::env::var("PLANNER_TEST_SCENARIOS").ok();
    let mut ran = 0;
    let mut failed = Vec::new();
    for name in scenario_names(&root) {
        if only
            .as_deref()
            .is_some_and(|only| !only.split(',').any(|o| o.trim() == name))
        {
            continue;
        }
        ran += 1;
        let path = root.join(&name).join("world.toml");
        if std::panic::catch_unwind(|| run_scenario(&name, &path)).is_err() {
            failed.push(name);
        }
    }
    assert!(ran > 0, "no scenario under {} was run", root.display());
    assert!(
        failed.is_empty(),
        "{} of {ran} scenarios failed: {}",
        failed.len(),
        failed.join(", ")
    );
}

/// The names of the folders under `root` with a `world.toml`, sorted.
fn scenario_names(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|dir| dir.join("world.toml").is_file())
        .map(|dir| dir.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// One case: its world built, the command run, the output against
/// `it__scenarios__scenarios@<name>__world.toml.snap`.
fn run_scenario(name: &str, path: &Path) {
    let world = read_world(path);
    let built = build(&world);
    let args = fill(&world.args, &built.places);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = built.ctx.run(&args);
    let mut settings = built.ctx.insta_settings();
    settings.set_input_file(path);
    settings.set_snapshot_suffix(format!("{name}/world.toml"));
    settings.set_description(world.about.clone());
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!("scenarios", output.snapshot()));
}

fn read_world(path: &Path) -> World {
    let text = std::fs::read_to_string(path).unwrap();
    toml::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The index from the world's wheels, then the venv from that index.
fn build(world: &World) -> Built {
    let mut ctx = TestContext::new();
    ctx.filter_host_python();
    // Times of files the case wrote, and the host venv's own pip and setuptools.
    ctx.filter(
        r"modified \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
        "modified [MTIME]",
    );
    ctx.filter(r"\n  (pip|setuptools) \d+(\.\d+)*\b", "");
    // The dist count in JSON, which counts those two as well (setuptools only before 3.12).
    ctx.filter(r#""dists": \d+"#, r#""dists": [N]"#);
    // The wheels are built for each run, their zip entries dated then: their hashes change.
    ctx.filter(
        r#""sha256": "[0-9a-f]{64}""#,
        r#""sha256": "[WHEEL_SHA256]""#,
    );
    let root = ctx.path().join("index");
    let server = match &world.index {
        Some(recorded) => {
            assert!(
                world.wheel.is_empty(),
                "a recorded index or wheels, not both"
            );
            IndexServer::start(&repo_root().join(recorded))
        }
        None => tiny_wheels(&root, &serde_json::to_value(&world.wheel).unwrap()),
    };
    let mut places = vec![
        ("{index}", server.url()),
        ("{dir}", ctx.path().display().to_string()),
    ];
    if let Some(venv) = &world.venv {
        let path = ctx.path().join("venv");
        let snapshot = ctx.path().join("good.json");
        make_venv(&ctx, venv, &path, &root.join("wheels"), &snapshot);
        places.push(("{venv}", path.display().to_string()));
        places.push(("{snapshot}", snapshot.display().to_string()));
    }
    if let Some(repo) = &world.repo {
        let path = ctx.path().join("repo");
        make_repo(repo, &path);
        places.push(("{repo}", path.display().to_string()));
    }
    Built {
        ctx,
        _server: server,
        places,
    }
}

fn make_venv(ctx: &TestContext, spec: &Venv, path: &Path, wheels: &Path, snapshot: &Path) {
    let venv = RealVenv::create(path);
    let links = wheels.display().to_string();
    let install = |flags: &[&str], reqs: &[String]| {
        if !reqs.is_empty() {
            let reqs: Vec<&str> = reqs.iter().map(String::as_str).collect();
            venv.pip_ok(&[&["install", "--find-links", &links], flags, &reqs].concat());
        }
    };
    install(&[], &spec.install);
    if spec.snapshot {
        let out = snapshot.display().to_string();
        let done = ctx.run(&[
            "snapshot",
            "--venv",
            &path.display().to_string(),
            "--out",
            &out,
        ]);
        assert_eq!(done.code, Some(0), "snapshot: {}", done.stderr);
    }
    install(&[], &spec.then);
    install(&["--no-deps"], &spec.force);
    for (file, text) in &spec.append {
        append(&venv.site_packages().join(file), text);
    }
}

fn make_repo(spec: &Repo, path: &Path) {
    std::fs::create_dir_all(path).unwrap();
    git(path, &["init", "-q", "-b", "main"]);
    write_files(path, &spec.base);
    git(path, &["add", "-A"]);
    git(path, &["commit", "-q", "--allow-empty", "-m", "base"]);
    git(path, &["checkout", "-q", "-b", "pr"]);
    write_files(path, &spec.head);
    git(path, &["add", "-A"]);
    git(path, &["commit", "-q", "--allow-empty", "-m", "head"]);
}

fn write_files(root: &Path, files: &BTreeMap<String, String>) {
    for (name, text) in files {
        let file = root.join(name);
        if text.is_empty() {
            let _ = std::fs::remove_file(&file);
            continue;
        }
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
    }
}

fn append(file: &Path, text: &str) {
    let mut content = std::fs::read_to_string(file)
        .unwrap_or_else(|err| panic!("{}: {err} (append)", file.display()));
    content.push_str(text);
    std::fs::write(file, content).unwrap();
}

fn fill(args: &[String], places: &[(&'static str, String)]) -> Vec<String> {
    args.iter()
        .map(|arg| {
            places
                .iter()
                .fold(arg.clone(), |arg, (key, value)| arg.replace(key, value))
        })
        .collect()
}
