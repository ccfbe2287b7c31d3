//! `--allow-build`: the requirements of an sdist without static metadata (PKG-INFO older than
//! Metadata-Version 2.2, or `Requires-Dist` dynamic), read the way installers read them: PEP 517
//! `prepare_metadata_for_build_wheel` (else a wheel build) in an isolated build environment.
//!
//! In: the sdist's [`DistFile`], the environment's interpreter ([`BuildSettings`]) and the
//! configured indexes. Out: its [`CoreMetadata`], cached in the metadata bucket under the
//! sdist's sha256 (`built#<sha256>`), so that `--offline` reuses it.
//!
//! The frontend is pip, run by the environment's own interpreter: `python -m pip install
//! --dry-run --no-deps --ignore-installed --report <file> <sdist>`. pip prepares the metadata in
//! an isolated build environment (build requirements from the same indexes) and its report
//! carries `requires_dist` and `requires_python`; with `--dry-run` nothing is installed, and
//! with `PYTHONDONTWRITEBYTECODE` not even pip's own `.pyc` files are written into the venv.
//! The environment's interpreter is the right one: a `setup.py` may compute its requirements
//! from the Python that runs it. uv was not chosen: `uv pip install --dry-run` reports no
//! requirements, and it is not always present where pip is. A venv without pip (`uv venv`) is
//! built for by the pip of `python3` with `--python`.
//!
//! The index URLs go to pip in `PIP_INDEX_URL` / `PIP_EXTRA_INDEX_URL` (never on the command
//! line, where other users see them); pip reads netrc and keyring as it does for the user.
//! Whatever pip prints is redacted before it is shown.
//!
//! Bounded: only the releases the solver asks for (never prefetch), one build at a time, each
//! stopped after [`BuildSettings::timeout`] (`PLANNER_BUILD_TIMEOUT`, 120 s); after
//! [`FAILURES_PER_PROJECT`] failed builds of one project, its other releases are not built in
//! that run; a failed or refused build is remembered for a day (`http::building`). A build
//! whose `pyproject.toml` build requirements need wheels larger than
//! [`BuildSettings::max_requires_bytes`] in all (`PLANNER_BUILD_REQUIRES_MB`, 500) is refused
//! before it starts (torch as a build requirement is a multi-GB download).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pep440_rs::Version;
use pep508_rs::{PackageName, Requirement};

use super::{DistFile, DistFilename, IndexError, IndexLocation};
use crate::metadata::CoreMetadata;

/// After this many failed builds of one project in a run, its other releases are not built.
pub(crate) const FAILURES_PER_PROJECT: usize = 2;

/// How a failed build's reason starts (such a failure is remembered: `http::building`).
pub(crate) const BUILD_FAILED: &str = "pip's metadata build failed";

/// How a refused build's reason starts (build requirements too large).
pub(crate) const TOO_LARGE: &str = "its build requires";

/// The default of `PLANNER_BUILD_TIMEOUT` (seconds).
pub(crate) const DEFAULT_TIMEOUT: u64 = 120;

/// The default of `PLANNER_BUILD_REQUIRES_MB`.
pub(crate) const DEFAULT_REQUIRES_MB: u64 = 500;

/// How `--allow-build` reads an sdist's requirements.
#[derive(Debug, Clone)]
pub struct BuildSettings {
    /// The environment's interpreter (`None`: nothing is built; `--allow-build` not given, or
    /// no interpreter, as for a snapshot).
    pub python: Option<PathBuf>,
    /// The most one metadata build may take.
    pub timeout: Duration,
    /// The most the wheels of an sdist's build requirements may weigh in all.
    pub max_requires_bytes: u64,
}

impl Default for BuildSettings {
    fn default() -> Self {
        BuildSettings {
            python: None,
            timeout: Duration::from_secs(DEFAULT_TIMEOUT),
            max_requires_bytes: DEFAULT_REQUIRES_MB * 1024 * 1024,
        }
    }
}

/// An sdist whose requirements came from a metadata build (this run's, or a cached one).
#[derive(Debug, Clone, PartialEq)]
pub struct BuiltSdist {
    /// The project.
    pub name: PackageName,
    /// The release.
    pub version: Version,
    /// The sdist's file name.
    pub file: String,
    /// How long the build took (`None`: read from the cache).
    pub seconds: Option<f64>,
}

impl BuiltSdist {
    /// The line a plan that installs it carries.
    pub fn line(&self) -> String {
        let how = match self.seconds {
            Some(s) => format!("a metadata build by pip, {s:.1} s"),
            None => "a metadata build by pip, cached".to_string(),
        };
        format!(
            "{} {} is built from source ({}): its requirements were read from {how}; the \
             commands build it at install",
            self.name, self.version, self.file
        )
    }
}

/// What the index remembers about builds in this run.
#[derive(Debug, Default)]
pub(crate) struct Builds {
    /// One build at a time; each file's answer, once.
    done: Mutex<HashMap<String, Result<Arc<CoreMetadata>, IndexError>>>,
    /// Failed builds per project.
    failures: Mutex<HashMap<PackageName, usize>>,
    /// The sdists whose built metadata was used.
    pub(crate) used: Mutex<Vec<BuiltSdist>>,
}

impl Builds {
    /// The answer for `key` (one build at a time: the lock is held through `work`).
    pub(crate) fn once(
        &self,
        key: &str,
        work: impl FnOnce() -> Result<Arc<CoreMetadata>, IndexError>,
    ) -> Result<Arc<CoreMetadata>, IndexError> {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(answer) = done.get(key) {
            return answer.clone();
        }
        let answer = work();
        done.insert(key.to_string(), answer.clone());
        answer
    }

    /// Whether `name` failed to build too often in this run already.
    pub(crate) fn given_up(&self, name: &PackageName) -> bool {
        let failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        failures.get(name).copied().unwrap_or(0) >= FAILURES_PER_PROJECT
    }

    pub(crate) fn failed(&self, name: &PackageName) {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        *failures.entry(name.clone()).or_default() += 1;
    }

    pub(crate) fn record(&self, built: BuiltSdist) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        if !used.contains(&built) {
            used.push(built);
        }
    }
}

/// The cache key of a file's built metadata.
pub(crate) fn cache_key(file: &DistFile) -> String {
    match file.hashes.get("sha256") {
        Some(sha) => format!("built#{sha}"),
        None => format!("built#{}", super::auth::redact(&file.url)),
    }
}

/// An sdist whose requirements cannot be had: the error that says why.
pub(crate) fn unavailable(file: &DistFile, reason: impl Into<String>) -> IndexError {
    IndexError::MetadataUnavailable {
        file: file.filename_str(),
        reason: reason.into(),
    }
}

/// The build requirements `pyproject.toml` declares (`None`: no `[build-system]` table, the
/// setuptools default).
pub(crate) fn build_requires(sdist_name: &str, sdist: &[u8]) -> Option<Vec<Requirement>> {
    let bytes = super::sdist::top_member(sdist_name, sdist, None, "pyproject.toml")
        .ok()
        .flatten()?;
    let text = String::from_utf8(bytes).ok()?;
    let table: toml::Table = toml::from_str(&text).ok()?;
    let requires = table.get("build-system")?.get("requires")?.as_array()?;
    Some(
        requires
            .iter()
            .filter_map(|r| r.as_str())
            .filter_map(|r| Requirement::from_str(r).ok())
            .collect(),
    )
}

/// The configured indexes as pip's variables (the first is pip's index, the rest extra).
fn index_variables(indexes: &[IndexLocation]) -> Vec<(&'static str, String)> {
    let urls: Vec<String> = indexes
        .iter()
        .map(|index| match index {
            IndexLocation::Http(url) => url.expose().to_string(),
            IndexLocation::Local(path) => url::Url::from_directory_path(path)
                .map(|u| u.to_string())
                .unwrap_or_else(|()| path.display().to_string()),
        })
        .collect();
    let mut vars = Vec::new();
    if let Some((first, rest)) = urls.split_first() {
        vars.push(("PIP_INDEX_URL", first.clone()));
        if !rest.is_empty() {
            vars.push(("PIP_EXTRA_INDEX_URL", rest.join(" ")));
        }
    }
    vars
}

/// Run pip's metadata build of the sdist at `path`; its report's metadata as METADATA bytes.
/// An environment without pip (a venv made by `uv venv`) is built for by the pip of `python3`
/// on `PATH` with `--python` (pip 22.3+), as planner's own pip commands do there.
pub(crate) fn run_pip(
    python: &Path,
    path: &Path,
    indexes: &[IndexLocation],
    timeout: Duration,
) -> Result<(Vec<u8>, f64), String> {
    match pip_once(python, None, path, indexes, timeout) {
        Err(Failure::NoPip) => {
            match pip_once(Path::new("python3"), Some(python), path, indexes, timeout) {
                Err(Failure::NoPip) => Err(format!(
                    "neither the environment's interpreter `{}` nor `python3` has pip, which \
                     planner builds with (`uv venv --seed` makes a venv with pip)",
                    python.display()
                )),
                Err(Failure::Other(why)) => Err(why),
                Ok(done) => Ok(done),
            }
        }
        Err(Failure::Other(why)) => Err(why),
        Ok(done) => Ok(done),
    }
}

/// Why a pip run gave no metadata.
enum Failure {
    /// The interpreter that ran it has no pip.
    NoPip,
    /// Anything else, in words.
    Other(String),
}

/// One pip run: `runner -m pip [--python target] install --dry-run ... SDIST`.
fn pip_once(
    runner: &Path,
    target: Option<&Path>,
    path: &Path,
    indexes: &[IndexLocation],
    timeout: Duration,
) -> Result<(Vec<u8>, f64), Failure> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let report = dir.join("report.json");
    let mut command = Command::new(runner);
    command.args(["-m", "pip"]);
    if let Some(target) = target {
        command.arg("--python").arg(target);
    }
    command
        .args(["install", "--dry-run", "--no-deps"])
        .args(["--ignore-installed", "--quiet", "--no-input"])
        .args(["--disable-pip-version-check", "--report"])
        .arg(&report)
        .arg(path)
        .current_dir(dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PIP_NO_INPUT", "1")
        .env_remove("PIP_REQUIRE_VIRTUALENV")
        .env_remove("PIP_TARGET")
        .env_remove("PIP_PREFIX");
    for (var, value) in index_variables(indexes) {
        command.env(var, value);
    }
    let started = Instant::now();
    let finished = crate::child::run(&mut command, timeout, 64 * 1024)
        .map_err(|e| Failure::Other(format!("`{}` did not start: {e}", runner.display())))?;
    let seconds = started.elapsed().as_secs_f64();
    match finished.status {
        None => {
            return Err(Failure::Other(format!(
                "the metadata build did not finish in {} s (PLANNER_BUILD_TIMEOUT)",
                timeout.as_secs()
            )));
        }
        Some(status) if !status.success() => {
            let stderr = redact_urls(&String::from_utf8_lossy(&finished.stderr), indexes);
            if stderr.contains("No module named pip") {
                return Err(Failure::NoPip);
            }
            return Err(Failure::Other(format!(
                "{BUILD_FAILED}: {}",
                last_lines(&stderr)
            )));
        }
        Some(_) => {}
    }
    let text = crate::bounded::read_to_string(&report, crate::bounded::USER_FILE_LIMIT)
        .map_err(|e| Failure::Other(format!("pip wrote no report ({e})")))?;
    metadata_from_report(&text)
        .map(|bytes| (bytes, seconds))
        .map_err(Failure::Other)
}

/// What a failed build's output says: the last Python exception line the build printed
/// (`ModuleNotFoundError: No module named 'torch'`), else its last few lines that say
/// something (not pip's frame of `│`, `╰─>` and notes), on one line.
fn last_lines(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(['│', '╰', '─', '>', ' '])
                .trim()
        })
        .filter(|l| {
            !l.is_empty()
                && !l.starts_with("note:")
                && !l.starts_with("hint:")
                && !l.starts_with("See above")
                && !l.starts_with("[end of output]")
        })
        .collect();
    let exception = lines.iter().rev().find(|l| {
        l.split_once(": ")
            .is_some_and(|(kind, _)| kind.ends_with("Error") && !kind.contains(' '))
    });
    if let Some(exception) = exception {
        return (*exception).to_string();
    }
    let start = lines.len().saturating_sub(4);
    let text = lines[start..].join(" | ");
    if text.is_empty() {
        "no output".to_string()
    } else {
        text
    }
}

/// `text` with every index URL's credentials masked.
fn redact_urls(text: &str, indexes: &[IndexLocation]) -> String {
    let mut text = text.to_string();
    for index in indexes {
        if let IndexLocation::Http(url) = index {
            let exposed = url.expose();
            text = text.replace(exposed.as_str(), &super::auth::redact(exposed));
            if let Some(password) = exposed.password().filter(|p| p.len() > 3) {
                text = text.replace(password, "****");
            }
        }
    }
    text
}

/// pip's installation report (`--report`, format version 1): the one item's metadata, as
/// METADATA bytes (the fields the solver reads).
pub(crate) fn metadata_from_report(text: &str) -> Result<Vec<u8>, String> {
    let report: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("pip's report does not parse: {e}"))?;
    let metadata = report
        .get("install")
        .and_then(|i| i.as_array())
        .and_then(|items| items.first())
        .and_then(|item| item.get("metadata"))
        .ok_or("pip's report names no release")?;
    let field = |key: &str| metadata.get(key).and_then(|v| v.as_str());
    let list = |key: &str| -> Vec<&str> {
        metadata
            .get(key)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default()
    };
    let (Some(name), Some(version)) = (field("name"), field("version")) else {
        return Err("pip's report gives no name and version".to_string());
    };
    let mut out = format!(
        "Metadata-Version: {}\nName: {name}\nVersion: {version}\n",
        field("metadata_version").unwrap_or("2.1")
    );
    if let Some(python) = field("requires_python") {
        out.push_str(&format!("Requires-Python: {python}\n"));
    }
    for extra in list("provides_extra") {
        out.push_str(&format!("Provides-Extra: {extra}\n"));
    }
    for requirement in list("requires_dist") {
        out.push_str(&format!("Requires-Dist: {requirement}\n"));
    }
    Ok(out.into_bytes())
}

/// Whether `file` is an sdist (the only files built).
pub(crate) fn is_sdist(file: &DistFile) -> bool {
    matches!(file.filename, DistFilename::Sdist(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_metadata_keeps_requirements_and_python() {
        let report = r#"{"version": "1", "install": [{"metadata": {
            "metadata_version": "2.1", "name": "MarkupSafe", "version": "2.0.1",
            "requires_python": ">=3.6", "provides_extra": ["x"],
            "requires_dist": ["a>=1", "b; extra == \"x\""]}}]}"#;
        let bytes = metadata_from_report(report).unwrap();
        let text = String::from_utf8(bytes).unwrap();
        assert_eq!(
            text,
            "Metadata-Version: 2.1\nName: MarkupSafe\nVersion: 2.0.1\nRequires-Python: >=3.6\n\
             Provides-Extra: x\nRequires-Dist: a>=1\nRequires-Dist: b; extra == \"x\"\n"
        );
        let parsed = CoreMetadata::parse(text.as_bytes()).unwrap();
        assert_eq!(parsed.requires_dist.len(), 2);
        assert!(metadata_from_report(r#"{"install": []}"#).is_err());
    }

    #[test]
    fn a_failed_build_is_named_by_its_exception() {
        let stderr = "  error: subprocess-exited-with-error\n\n  × Getting requirements to build wheel did not run successfully.\n  │ exit code: 1\n  ╰─> [20 lines of output]\n      Traceback (most recent call last):\n      ModuleNotFoundError: No module named 'torch'\n      [end of output]\n\n  note: This error originates from a subprocess\nerror: subprocess-exited-with-error\n\n× Getting requirements to build wheel did not run successfully.\n│ exit code: 1\n╰─> See above for output.\n";
        assert_eq!(
            last_lines(stderr),
            "ModuleNotFoundError: No module named 'torch'"
        );
        assert_eq!(last_lines("a\nb\n"), "a | b");
    }

    #[test]
    fn pip_output_never_shows_the_index_password() {
        let url = url::Url::parse("https://user:s3cret@pkgs.example.com/simple/").unwrap();
        let indexes = [IndexLocation::Http(super::super::auth::SecretUrl::new(url))];
        let text = redact_urls(
            "Looking in indexes: https://user:s3cret@pkgs.example.com/simple/ s3cret",
            &indexes,
        );
        assert!(!text.contains("s3cret"), "{text}");
        let vars = index_variables(&indexes);
        assert_eq!(vars[0].0, "PIP_INDEX_URL");
        assert_eq!(vars.len(), 1);
    }
}
