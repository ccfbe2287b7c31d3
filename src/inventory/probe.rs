//! The probe: the one Python script the planner runs in an environment (and prints for
//! `planner snapshot --script`), and the subprocess that runs it.
//!
//! In: an interpreter path. Out: [`ProbeOutput`] (version, prefix, site-packages, markers and
//! wheel tags), or why the interpreter did not answer. [`PROBE_SCRIPT`] is also the standalone
//! snapshot script, so the facts a remote snapshot records are the ones a local read learns.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use pep508_rs::MarkerEnvironment;
use serde::Deserialize;

/// The probe (and snapshot) script, run by the environment's own interpreter.
pub(super) const PROBE_SCRIPT: &str = include_str!("probe.py");

/// How long the interpreter may take to answer the probe.
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// What the probe prints.
#[derive(Debug, Deserialize)]
pub(super) struct ProbeOutput {
    /// `platform.python_version()`.
    pub python_version: String,
    /// `sys.prefix`.
    pub prefix: PathBuf,
    /// The site-packages folders on `sys.path`.
    pub site_packages: Vec<PathBuf>,
    /// Folders inside a site-packages folder on `sys.path` (put there by `.pth` files).
    #[serde(default)]
    pub pth_paths: Vec<PathBuf>,
    /// The PEP 508 marker environment.
    pub markers: MarkerEnvironment,
    /// Supported wheel tags, best first.
    pub tags: Vec<String>,
    /// `fallback` when neither pip nor packaging could be imported.
    #[serde(default)]
    pub tags_source: Option<String>,
    /// The PEP 668 `EXTERNALLY-MANAGED` file that applies (never for a venv).
    #[serde(default)]
    pub externally_managed: Option<PathBuf>,
}

/// Why the interpreter could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// It could not be started or waited for.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// It did not finish within [`PROBE_TIMEOUT`].
    #[error("no answer within {}s", PROBE_TIMEOUT.as_secs())]
    Timeout,
    /// It failed; the last line of its stderr.
    #[error("{status}: {last}")]
    Failed {
        /// How it ended.
        status: std::process::ExitStatus,
        /// The last line of its stderr.
        last: String,
    },
    /// It exited 0 and printed nothing: not a Python interpreter (`/bin/true`).
    #[error("it exited without printing anything: it does not look like a Python interpreter")]
    Silent,
    /// It printed something else than the probe's JSON.
    #[error("unexpected probe output (is it a Python 3 interpreter?): {0}")]
    Output(serde_json::Error),
}

/// Run the probe: one subprocess, `python -I -c SCRIPT --probe`.
pub(super) fn probe(python: &Path) -> Result<ProbeOutput, ProbeError> {
    let mut command = Command::new(python);
    command.args(["-I", "-B", "-c", PROBE_SCRIPT, "--probe"]);
    // Its own process group, ended whole at the deadline: a `.pth` that starts a child holding
    // the pipes cannot hold planner past it.
    let finished = crate::child::run(&mut command, PROBE_TIMEOUT, 64 * 1024 * 1024)?;
    let Some(status) = finished.status else {
        return Err(ProbeError::Timeout);
    };
    let (stdout, stderr) = (finished.stdout, finished.stderr);
    if !status.success() {
        let last = String::from_utf8_lossy(&stderr)
            .lines()
            .last()
            .unwrap_or("")
            .to_string();
        return Err(ProbeError::Failed { status, last });
    }
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Err(ProbeError::Silent);
    }
    serde_json::from_slice(&stdout).map_err(ProbeError::Output)
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;

    use super::ProbeError;

    /// The status speaks for itself (`exit status: 3`); the message once said "exit status"
    /// twice.
    #[test]
    fn a_failed_probe_names_its_exit_status_once() {
        let failed = ProbeError::Failed {
            status: std::process::ExitStatus::from_raw(3 << 8),
            last: "SystemError: boom".to_string(),
        };
        assert_eq!(failed.to_string(), "exit status: 3: SystemError: boom");
    }
}
