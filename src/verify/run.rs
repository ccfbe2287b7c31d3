//! Running a verification script with an environment's interpreter.
//!
//! In: the interpreter, the script's text and [`RunOptions`]. Out: the parsed report. The script
//! is written to a scratch folder that is also its `TMPDIR` (removed afterwards, and on Ctrl-C)
//! and run with `--quiet`; its exit status 0 or 1 both carry a report, anything else is the
//! script failing.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::report::VerifyReport;
use crate::env_vars::EnvVars;

/// Options passed through to `verify.py`.
#[derive(Debug, Clone, Default)]
pub(crate) struct RunOptions {
    /// `--baseline FILE`: record the checks before a plan is applied.
    pub baseline: Option<PathBuf>,
    /// `--compare FILE`: compare with a recorded baseline.
    pub compare: Option<PathBuf>,
    /// `--report FILE`: also write the report there.
    pub report: Option<PathBuf>,
    /// `--checks-from FILE` (with `compare`): run nothing, compare that `--plain` run's checks.
    pub checks_from: Option<PathBuf>,
    /// `--only FILE` (with `baseline`): run only the checks that JSON list names.
    pub only: Option<PathBuf>,
    /// `--timeout S`: seconds per import.
    pub timeout: Option<u32>,
    /// `--jobs N`: imports at once.
    pub jobs: Option<usize>,
    /// `--no-smoke`.
    pub no_smoke: bool,
    /// `--budget S`: with `--all`, seconds after which no import below the top level starts.
    pub budget: Option<u32>,
    /// `--budget-from T`: when the budget started (the command's start, seconds since the Unix
    /// epoch): the command's own work and the interpreter's start count against it.
    pub budget_from: Option<f64>,
    /// `--no-fork`: every import in a fresh interpreter.
    pub no_fork: bool,
    /// `--plain`: no automatic baseline.
    pub plain: bool,
    /// `--test CMD`, each: the user's own checks.
    pub tests: Vec<String>,
    /// `--baseline-file FILE`: where a run before the change records the baseline by itself and
    /// a run after it finds it (next to the plan file).
    pub baseline_file: Option<PathBuf>,
    /// Run with this venv activated ([`activate`]): `planner try` verifies its copy so.
    pub activate: Option<PathBuf>,
    /// `--warm-caches`: keep the user's compile caches (by default each run gets private,
    /// empty ones).
    pub warm_caches: bool,
}

/// Run `command` as if `venv` were activated: `VIRTUAL_ENV` names it and its `bin/` heads
/// `PATH`, so `python` and the tools a check or a test starts are the venv's own.
pub(crate) fn activate(command: &mut Command, venv: &Path) {
    let bin = venv.join("bin");
    let path = EnvVars::process()
        .get_os("PATH")
        .cloned()
        .unwrap_or_default();
    let joined = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&path)))
        .unwrap_or(path);
    command
        .env("VIRTUAL_ENV", venv)
        .env("PATH", joined)
        .env_remove("PYTHONHOME")
        .env_remove("CONDA_PREFIX");
}

/// Why a verification could not run.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum VerifyError {
    /// `PLANNER_VERIFY_TIMEOUT` is not a number of seconds.
    #[error("PLANNER_VERIFY_TIMEOUT `{0}` is not a number of seconds above 0 (`600`, `2.5`)")]
    #[diagnostic(
        code(planner::verify::timeout_setting),
        help(
            "set PLANNER_VERIFY_TIMEOUT to the seconds a verification may run, or unset it for an hour"
        )
    )]
    Timeout(String),
    /// The temp script could not be written.
    #[error("cannot write the verification script to a temp file")]
    Write(#[source] std::io::Error),
    /// The interpreter could not be started.
    #[error("cannot run `{}`", python.display())]
    #[diagnostic(help("pass --venv DIR or --python PATH naming a working interpreter"))]
    Spawn {
        /// The interpreter.
        python: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The script itself failed (exit 2, a crash, or output that is not a report).
    #[error("the verification script failed under `{}`: {message}", python.display())]
    #[diagnostic(help("{stderr}"))]
    Script {
        /// The interpreter.
        python: PathBuf,
        /// What went wrong.
        message: String,
        /// The end of its stderr.
        stderr: String,
    },
}

/// The longest a verification runs, every check and test included: `PLANNER_VERIFY_TIMEOUT`
/// seconds, else an hour (an error when it is set to something else). It runs in a process
/// group of its own, killed whole at the deadline.
fn deadline() -> Result<std::time::Duration, VerifyError> {
    let Some(text) = EnvVars::process()
        .get("PLANNER_VERIFY_TIMEOUT")
        .filter(|v| !v.trim().is_empty())
    else {
        return Ok(std::time::Duration::from_secs(3600));
    };
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|s| *s > 0.0)
        .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
        .ok_or_else(|| VerifyError::Timeout(crate::terminal::field(&text).into_owned()))
}

/// The largest report read (and the end of stderr kept).
const REPORT_CAP: u64 = 256 * 1024 * 1024;

/// Run `script` with `python`; returns the report and its JSON document.
pub(crate) fn run(
    python: &Path,
    script: &str,
    options: &RunOptions,
) -> Result<(VerifyReport, serde_json::Value), VerifyError> {
    // The script and everything it puts in its `TMPDIR` (its private compile caches) live in
    // one folder, removed even when an interrupt kills the script halfway.
    let scratch = crate::interrupt::Scratch::new("planner-verify-").map_err(VerifyError::Write)?;
    let file = scratch.path().join("verify.py");
    let tmp = scratch.path().join("tmp");
    std::fs::write(&file, script)
        .and_then(|()| std::fs::create_dir(&tmp))
        .map_err(VerifyError::Write)?;
    let mut command = Command::new(python);
    command.arg(&file).arg("--quiet").env("TMPDIR", &tmp);
    for (flag, path) in [
        ("--baseline", &options.baseline),
        ("--compare", &options.compare),
        ("--report", &options.report),
        ("--checks-from", &options.checks_from),
        ("--only", &options.only),
        ("--baseline-file", &options.baseline_file),
    ] {
        if let Some(path) = path {
            command.arg(flag).arg(path);
        }
    }
    if let Some(timeout) = options.timeout {
        command.arg("--timeout").arg(timeout.to_string());
    }
    if let Some(jobs) = options.jobs {
        command.arg("--jobs").arg(jobs.to_string());
    }
    if options.no_smoke {
        command.arg("--no-smoke");
    }
    if let Some(budget) = options.budget {
        command.arg("--budget").arg(budget.to_string());
    }
    if let Some(from) = options.budget_from {
        command.arg("--budget-from").arg(format!("{from:.3}"));
    }
    if options.no_fork {
        command.arg("--no-fork");
    }
    if options.plain {
        command.arg("--plain");
    }
    if options.warm_caches {
        command.arg("--warm-caches");
    }
    for test in &options.tests {
        command.arg(format!("--test={test}"));
    }
    if let Some(venv) = &options.activate {
        activate(&mut command, venv);
    }
    let deadline = deadline()?;
    let output = crate::child::run(&mut command, deadline, REPORT_CAP).map_err(|source| {
        VerifyError::Spawn {
            python: python.to_path_buf(),
            source,
        }
    })?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
    let fail = |message: String| VerifyError::Script {
        python: python.to_path_buf(),
        message,
        stderr: tail.iter().rev().copied().collect::<Vec<_>>().join("\n"),
    };
    let Some(status) = output.status else {
        return Err(fail(format!(
            "it ran past its deadline of {}s (PLANNER_VERIFY_TIMEOUT) and was killed with \
             everything it started",
            deadline.as_secs()
        )));
    };
    if output.stdout_cut {
        return Err(fail(format!("its report is over {REPORT_CAP} bytes")));
    }
    match status.code() {
        Some(0 | 1) => {}
        Some(code) => return Err(fail(format!("exit {code}"))),
        None => return Err(fail("killed by a signal".to_string())),
    }
    VerifyReport::parse(&String::from_utf8_lossy(&output.stdout))
        .map_err(|message| fail(format!("its output is not a report: {message}")))
}
