//! The one test harness: [`TestContext`] runs the `planner` binary in isolation (cleared
//! environment, private HOME and cache, a pinned clock) and [`planner_snapshot!`] records a
//! run (exit code, stdout, stderr) with insta, through the context's filters for temp paths,
//! the repository, loopback ports, versions and times. Plus the fixtures every module uses:
//! [`index_server`] (a loopback index) and [`venv`] (real venvs made by `python3 -m venv`).
//!
//! A test never passes silently when what it needs is missing: [`venv::clean_venv`] panics
//! saying what is absent; a test whose tool is optional says on
//! stderr that it was skipped ([`skip`]).

#![allow(dead_code)]

pub mod index_server;
pub mod schema;
pub mod venv;
pub mod worlds;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The instant every run of the binary sees as "now" (`PLANNER_NOW`, read by src/clock.rs):
/// after the newest upload in `testdata/index`, so release ages and cache freshness do not
/// depend on the day the tests run.
pub const NOW: &str = "2026-12-01T00:00:00Z";

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

impl Output {
    /// Parse stdout as JSON (panics with both streams when it is not), and validate a planner
    /// document against its schema in docs/schemas.
    pub fn json(&self) -> serde_json::Value {
        let doc: serde_json::Value = serde_json::from_str(&self.stdout).unwrap_or_else(|err| {
            panic!(
                "stdout is not JSON ({err}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        });
        // Every planner document a test reads is checked against its schema.
        if schema::schema_name(&doc).is_some() {
            schema::assert_valid(&doc);
        }
        doc
    }

    /// The run as [`planner_snapshot!`] records it (before filtering).
    pub fn snapshot(&self) -> String {
        let code = self
            .code
            .map_or_else(|| "(killed by a signal)".to_string(), |c| c.to_string());
        format!(
            "exit_code: {code}\n----- stdout -----\n{}\n----- stderr -----\n{}",
            self.stdout, self.stderr
        )
    }
}

/// An isolated place to run the binary: a temp dir holding `home/` (HOME) and `cache/`
/// (`PLANNER_CACHE_DIR`), removed on drop; the environment is cleared but for PATH.
pub struct TestContext {
    /// The temp dir.
    pub dir: tempfile::TempDir,
    /// Where the binary runs: the temp dir, or the repository root for tests that name
    /// `testdata/...` relatively (as their snapshots show it).
    cwd: PathBuf,
    /// Extra insta filters of this test, applied before the common ones.
    filters: Vec<(String, String)>,
}

impl Default for TestContext {
    fn default() -> Self {
        Self::new()
    }
}

impl TestContext {
    /// A fresh context; the binary runs in its temp dir.
    pub fn new() -> TestContext {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let cwd = dir.path().to_path_buf();
        TestContext {
            dir,
            cwd,
            filters: Vec::new(),
        }
    }

    /// A fresh context in `/tmp/planner-XXXXXXXX`, a folder whose path has the same length on
    /// every machine: output wrapped to a width wraps the same wherever the tests run.
    pub fn in_fixed_length_folder() -> TestContext {
        let dir = tempfile::Builder::new()
            .prefix("planner-")
            .rand_bytes(8)
            .tempdir_in("/tmp")
            .expect("temp dir in /tmp");
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        let cwd = dir.path().to_path_buf();
        TestContext {
            dir,
            cwd,
            filters: Vec::new(),
        }
    }

    /// A fresh context whose binary runs from the repository root.
    pub fn in_repo() -> TestContext {
        TestContext {
            cwd: repo_root(),
            ..TestContext::new()
        }
    }

    /// The temp dir.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The private HOME.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The private cache folder (passed as `PLANNER_CACHE_DIR`).
    pub fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    /// Redact `regex` as `replacement` in this test's snapshots (before the common filters).
    pub fn filter(&mut self, regex: &str, replacement: &str) {
        self.filters
            .push((regex.to_string(), replacement.to_string()));
    }

    /// Redact the host interpreter's version (`Python [HOST_PYTHON]`, `python[HOST_PY]/` in
    /// site-packages paths) and the venv's dist count beside it: a venv made by `python3 -m
    /// venv` has the machine's Python and its pip.
    pub fn filter_host_python(&mut self) {
        let (full, short) = venv::host_python_version();
        self.filter(
            &format!(r"\bPython {}\b", regex_escape(full)),
            "Python [HOST_PYTHON]",
        );
        self.filter(
            &format!(r"\bpython{}/", regex_escape(short)),
            "python[HOST_PY]/",
        );
        // The venv's own pip (and setuptools, before Python 3.12) count among its dists.
        self.filter(
            r"(\(Python \[HOST_PYTHON\], [^,()]+, )\d+ dists\)",
            "${1}[N] dists)",
        );
    }

    /// The binary with a cleared environment: PATH, HOME, PLANNER_CACHE_DIR, PLANNER_NOW,
    /// NO_COLOR and PLANNER_TRY_BASELINE=first (a trial's report the same on every machine,
    /// whatever its cores: the baseline beside the install has a test of its own) only.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_planner"));
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("PLANNER_CACHE_DIR", self.cache())
            .env("PLANNER_NOW", NOW)
            .env("NO_COLOR", "1")
            .env("PLANNER_TRY_BASELINE", "first")
            .current_dir(&self.cwd);
        cmd
    }

    /// Run the binary with these arguments.
    pub fn run(&self, args: &[&str]) -> Output {
        run(self.command().args(args))
    }

    /// `planner propose ARGS... --venv VENV --index-url INDEX`: the scaffolding of every
    /// proposal a test asks for (targets and flags in `args`).
    pub fn propose(&self, venv: &Path, index: &str, args: &[&str]) -> Output {
        run(self
            .command()
            .arg("propose")
            .args(args)
            .arg("--venv")
            .arg(venv)
            .args(["--index-url", index]))
    }

    /// The insta settings of [`planner_snapshot!`]: this test's filters, then the h200
    /// fixtures (`[FIXTURES]`), temp paths (`[TMP]`, `[TARGET_TMP]`), the repository
    /// (`[REPO]`), the host's glibc (`[GLIBC]`), loopback ports (`[PORT]`), the planner's
    /// version (`[VERSION]`) and durations (`[TIME]`).
    pub fn insta_settings(&self) -> insta::Settings {
        let mut settings = insta::Settings::clone_current();
        for (regex, replacement) in &self.filters {
            settings.add_filter(regex, replacement.clone());
        }
        for (path, label) in [
            (h200_fixtures(), "[FIXTURES]"),
            (self.dir.path().to_path_buf(), "[TMP]"),
            (PathBuf::from(env!("CARGO_TARGET_TMPDIR")), "[TARGET_TMP]"),
            (repo_root(), "[REPO]"),
        ] {
            let real = path.canonicalize().unwrap_or_else(|_| path.clone());
            for path in [real, path] {
                settings.add_filter(&regex_escape(&path.to_string_lossy()), label);
            }
        }
        settings.add_filter(r"/tmp/\.tmp[A-Za-z0-9]+", "[TMP]");
        // The host's glibc, where the planner reports the host's own platform.
        settings.add_filter(
            r"(wheel platform `manylinux_|best tag \w+-\w+-manylinux_)\d+_\d+",
            "${1}[GLIBC]",
        );
        settings.add_filter(
            r"glibc \d+\.\d+ \(this host's\)",
            "glibc [GLIBC] (this host's)",
        );

        settings.add_filter(r"(127\.0\.0\.1|localhost):\d+", "$1:[PORT]");
        settings.add_filter(
            &format!(
                r#"(planner_version": "|planner[/ ]){}\b"#,
                regex_escape(env!("CARGO_PKG_VERSION"))
            ),
            "$1[VERSION]",
        );
        settings.add_filter(r"\b\d+(\.\d+)?(ms|s)\b", "[TIME]");
        settings
    }
}

/// Snapshot a run of the binary (exit code, stdout, stderr) through the context's filters:
/// `planner_snapshot!(ctx, output)` (named after the test), `planner_snapshot!(ctx, "name",
/// output)`, or `planner_snapshot!(ctx, output, @"inline")`.
#[macro_export]
macro_rules! planner_snapshot {
    ($ctx:expr, $name:literal, $output:expr) => {{
        let text = $output.snapshot();
        $ctx.insta_settings()
            .bind(|| insta::assert_snapshot!($name, text));
    }};
    ($ctx:expr, $output:expr $(, @$inline:literal)?) => {{
        let text = $output.snapshot();
        $ctx.insta_settings()
            .bind(|| insta::assert_snapshot!(text $(, @$inline)?));
    }};
}

/// Run a prepared command and collect its output. A review document on stdout is checked
/// against docs/schemas/review.json whether or not the test reads it (snapshots, exit codes
/// only): every review JSON document the tests produce is validated.
pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("run planner");
    let output = Output {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    if let Ok(doc) = serde_json::from_str::<serde_json::Value>(&output.stdout)
        && schema::schema_name(&doc).as_deref() == Some("review")
    {
        schema::assert_valid(&doc);
    }
    output
}

/// The repository root (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The real-machine fixtures in `testdata/fixtures` (see its README): the h200 venv's
/// metadata and the same venv after a forced triton 3.7.0.
pub fn h200_fixtures() -> PathBuf {
    repo_root().join("testdata/fixtures")
}

/// Say on the test binary's stderr that the running test is skipped and why. It bypasses the
/// test harness's capture (a captured `eprintln!` of a passing test is never shown), so the
/// line appears in `cargo test`'s output.
pub fn skip(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "{test}: skipped: {why}");
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

/// A project name normalized as the planner prints it (PEP 503: lower case, runs of `-_.` as
/// one `-`), by the same type the planner uses.
pub fn normalized(name: &str) -> String {
    name.parse::<pep508_rs::PackageName>()
        .unwrap_or_else(|e| panic!("`{name}` is not a project name: {e}"))
        .to_string()
}

/// Copy a folder recursively (fixtures are never modified in place).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `text` as a regex matching itself.
pub fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
