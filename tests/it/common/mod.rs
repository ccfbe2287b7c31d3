//! The shared test harness: run the `planner` binary in isolation (cleared environment,
//! private HOME and cache) and a loopback index server ([`index_server`]).

#![allow(dead_code)]

pub mod index_server;
pub mod venv;

use std::path::{Path, PathBuf};
use std::process::Command;

/// What a run of the binary produced.
#[derive(Debug)]
pub struct Output {
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// An isolated place to run the binary: a temp dir with `home/` and `cache/`.
pub struct TestContext {
    /// The temp dir (removed on drop).
    pub dir: tempfile::TempDir,
}

impl Default for TestContext {
    fn default() -> Self {
        Self::new()
    }
}

impl TestContext {
    /// A fresh context.
    pub fn new() -> TestContext {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        TestContext { dir }
    }

    /// The private HOME.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The private cache folder (passed as `PLANNER_CACHE_DIR`).
    pub fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// The binary with a cleared environment: PATH, HOME and PLANNER_CACHE_DIR only.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_planner"));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("PLANNER_CACHE_DIR", self.cache())
            .env("NO_COLOR", "1")
            .current_dir(self.dir.path());
        cmd
    }

    /// Run the binary with these arguments.
    pub fn run(&self, args: &[&str]) -> Output {
        run(self.command().args(args))
    }
}

/// Run a prepared command and collect its output.
pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("run planner");
    Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The shared fixtures folder (`../shared/fixtures` next to the repository).
pub fn shared_fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures")
}

/// Every file under `dir`, recursively.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

// ---- helpers of the inventory/check/snapshot tests ----

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/fixtures` next to the repository, or `None` (and a note on stderr saying the
/// test is skipped) when it is absent.
pub fn shared_fixtures_or_skip(test: &str) -> Option<PathBuf> {
    let path = repo_root().join("../shared/fixtures");
    if path.join("h200-venv").is_dir() {
        Some(path)
    } else {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "skipping {test}: ../shared/fixtures is absent (shared fixtures not checked out)"
            );
        }
        None
    }
}

/// What one run of the binary did.
#[derive(Debug)]
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// stdout as text.
    pub stdout: String,
    /// stderr as text.
    pub stderr: String,
}

impl Run {
    /// Parse stdout as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|err| {
            panic!(
                "stdout is not JSON ({err}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// A `planner` command with a clean environment: only PATH survives; HOME and the cache are
/// private temp folders (kept alive by the returned guard).
pub fn planner_command() -> (Command, tempfile::TempDir) {
    let home = tempfile::tempdir().expect("temp home");
    let mut command = Command::new(env!("CARGO_BIN_EXE_planner"));
    command
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home.path())
        .env("PLANNER_CACHE_DIR", home.path().join("cache"))
        .env("NO_COLOR", "1")
        .current_dir(repo_root());
    (command, home)
}

/// Run `planner ARGS` from the repository root.
pub fn planner(args: &[&str]) -> Run {
    planner_in(&repo_root(), args)
}

/// Run `planner ARGS` from `cwd`.
pub fn planner_in(cwd: &Path, args: &[&str]) -> Run {
    let (mut command, _home) = planner_command();
    let output = command
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("run planner");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// insta filters for temp paths.
pub fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]"),
        (r"/var/folders/[^ \n]+/T/\.tmp[A-Za-z0-9]+", "[TMP]"),
    ]
}
