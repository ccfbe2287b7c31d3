//! The integration-test harness: run the `planner` binary in an isolated environment
//! (`env_clear()`, PATH kept, private HOME and cache) and capture what it did.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/fixtures` next to the repository, or `None` (and a note on stderr saying the
/// test is skipped) when it is absent.
pub fn shared_fixtures(test: &str) -> Option<PathBuf> {
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

pub mod venv;
