//! Stage 5 (beside `verify`): a plan tried in a throw-away copy of the environment, measured
//! before anyone touches the real one (`planner try`).
//!
//! In: the original venv ([`copy::VenvCopy::make`] copies it), then a [`TrialInput`]: the
//! verification script selected for the plan, the install steps rendered for the copy's
//! interpreter, the `--test` command lines. Out: a [`TrialOutcome`]: the copy made, the
//! baseline and the comparison (run with the copy activated), each test before and after, each
//! regression named, and whether the original's hard-linked files are as they were. The copy
//! is removed when the [`copy::VenvCopy`] is dropped, unless `--keep` named it.
//!
//! The order matters: the baseline is recorded IN THE COPY (running imports in the original
//! would write `__pycache__` there), then the tests run once as they are, then the steps, then
//! the comparison and the tests again. An install that fails, a baseline that cannot be taken,
//! or an interrupt makes the plan "not tried" (exit 2), never "clean".

pub(crate) mod copy;
pub(crate) mod exec;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::interrupt::Critical;
use crate::verify::report::{Failed, Summary};
use crate::verify::run::{self, RunOptions, VerifyError};

pub(crate) use copy::{CopyMethod, CopyStats, VenvCopy};
pub(crate) use exec::Ran;

/// `schema` of a try report.
pub(crate) const TRY_SCHEMA: &str = "planner-try/1";

/// Which installer applies the plan in the copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Installer {
    /// `uv pip --python COPY/bin/python` (uv on PATH).
    Uv,
    /// `COPY/bin/python -m pip`.
    Pip,
}

/// What one trial runs.
#[derive(Debug)]
pub(crate) struct TrialInput<'a> {
    /// The `verify.py` text for the plan (selected against the copy's inventory).
    pub script: &'a str,
    /// The installer.
    pub installer: Installer,
    /// Its steps, each an argv naming the copy's interpreter.
    pub steps: &'a [Vec<String>],
    /// `--test` command lines, run with `sh -c`.
    pub tests: &'a [String],
    /// Passed through to `verify.py` (`--timeout`, `--jobs`, `--no-smoke`).
    pub verify: RunOptions,
    /// A folder for the baseline and the report (not inside the copy).
    pub work: &'a Path,
}

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    /// Applied; nothing regressed.
    Clean,
    /// Applied; something that passed before fails now.
    Regressed,
    /// It could not be tried (see `reason`).
    NotTried,
}

/// One `--test`, before and after the plan.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TestRun {
    /// The command line.
    pub command: String,
    /// Before the plan, in the copy.
    pub before: Ran,
    /// After it (absent when the plan was not applied).
    pub after: Option<Ran>,
    /// It passed before and fails after.
    pub regression: bool,
}

/// What became of the original's hard-linked files.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OriginalCheck {
    /// Hard-linked files checked.
    pub checked: usize,
    /// Those whose size, mode or mtime changed (written through a link).
    pub changed: Vec<PathBuf>,
}

/// The outcome of one trial.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TrialOutcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Why it could not be tried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The installer used.
    pub installer: Installer,
    /// Each step's argv and how it ended.
    pub steps: Vec<Step>,
    /// The verification counts before the plan.
    pub baseline: Option<Summary>,
    /// The verification counts after it (`regressions`, `pre_existing` set).
    pub verify: Option<Summary>,
    /// Every check that failed after the plan, with `regression`.
    pub failed: Vec<Failed>,
    /// The whole `planner-verify/2` comparison report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<serde_json::Value>,
    /// The `--test` commands.
    pub tests: Vec<TestRun>,
    /// Every regression, named: `import:x (dist): error`, `test `cmd`: exit 1`.
    pub regressions: Vec<String>,
    /// Wall seconds of the trial (copy excluded).
    pub seconds: f64,
}

/// A trial with its copy: what `planner try` and `propose --try` report.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Tried {
    /// The trial.
    #[serde(flatten)]
    pub outcome: TrialOutcome,
    /// Where the copy is kept (`--keep`), else null: it was removed.
    pub copy_path: Option<PathBuf>,
    /// How the copy was made.
    pub copy: CopyStats,
    /// The original's hard-linked files afterwards.
    pub original: OriginalCheck,
}

impl Tried {
    /// "0 regression(s) in 41 checks and 2 test(s), 12.3s" (or why it was not tried).
    pub(crate) fn summary(&self) -> String {
        let o = &self.outcome;
        match o.verdict {
            Verdict::NotTried => format!(
                "not tried: {}",
                o.reason.as_deref().unwrap_or("(no reason given)")
            ),
            _ => format!(
                "{} regression(s) in {} checks and {} test(s), {:.1}s",
                o.regressions.len(),
                o.verify.map_or(0, |s| s.checks),
                o.tests.len(),
                o.seconds
            ),
        }
    }

    /// Applied and nothing regressed, and the original is as it was.
    pub(crate) fn clean(&self) -> bool {
        self.outcome.verdict == Verdict::Clean && self.original.changed.is_empty()
    }
}

/// One install step.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Step {
    /// The argv.
    pub argv: Vec<String>,
    /// How it ended.
    pub ran: Ran,
}

/// Why a trial stopped before an outcome.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum TrialError {
    /// Ctrl-C or SIGTERM.
    #[error("interrupted; the copy is removed and the original was not touched")]
    Interrupted,
    /// A child could not be started.
    #[error("cannot run `{what}`: {source}")]
    Spawn {
        /// What.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

/// Measure the plan in `copy`: baseline, tests, steps, comparison, tests again.
pub(crate) fn measure(
    copy: &VenvCopy,
    input: &TrialInput<'_>,
    critical: &Critical,
) -> Result<TrialOutcome, TrialError> {
    let started = Instant::now();
    let python = copy.python();
    let mut outcome = TrialOutcome {
        verdict: Verdict::NotTried,
        reason: None,
        installer: input.installer,
        steps: Vec::new(),
        baseline: None,
        verify: None,
        failed: Vec::new(),
        report: None,
        tests: Vec::new(),
        regressions: Vec::new(),
        seconds: 0.0,
    };
    let finish = |mut outcome: TrialOutcome, reason: Option<String>| {
        outcome.reason = reason;
        outcome.seconds = started.elapsed().as_secs_f64();
        Ok(outcome)
    };
    let baseline_file = input.work.join("verify-baseline.json");
    let options = |mode: RunOptions| RunOptions {
        timeout: input.verify.timeout,
        jobs: input.verify.jobs,
        no_smoke: input.verify.no_smoke,
        activate: Some(copy.root.clone()),
        ..mode
    };
    let baseline = run::run(
        &python,
        input.script,
        &options(RunOptions {
            baseline: Some(baseline_file.clone()),
            ..RunOptions::default()
        }),
    );
    check_interrupt(critical)?;
    match baseline {
        Ok((report, _)) => outcome.baseline = Some(report.summary),
        Err(err) => {
            return finish(
                outcome,
                Some(format!("the baseline failed: {}", verify_error(&err))),
            );
        }
    }
    for test in input.tests {
        let before = exec::run_shell(test, &copy.root, critical).map_err(spawn(test))?;
        check_interrupt(critical)?;
        outcome.tests.push(TestRun {
            command: test.clone(),
            before,
            after: None,
            regression: false,
        });
    }
    for (i, argv) in input.steps.iter().enumerate() {
        let ran = exec::run_argv(argv, &copy.root, critical).map_err(spawn(&argv.join(" ")))?;
        check_interrupt(critical)?;
        let ok = ran.ok();
        let why = (!ok).then(|| {
            format!(
                "step {} of {} failed ({}): {}",
                i + 1,
                input.steps.len(),
                ran.status_text(),
                ran.tail.lines().last().unwrap_or("")
            )
        });
        outcome.steps.push(Step {
            argv: argv.clone(),
            ran,
        });
        if let Some(why) = why {
            return finish(
                outcome,
                Some(format!("the plan could not be installed: {why}")),
            );
        }
    }
    let compare = run::run(
        &python,
        input.script,
        &options(RunOptions {
            compare: Some(baseline_file),
            report: Some(input.work.join("verify-report.json")),
            ..RunOptions::default()
        }),
    );
    check_interrupt(critical)?;
    let (report, document) = match compare {
        Ok(pair) => pair,
        Err(err) => {
            return finish(
                outcome,
                Some(format!(
                    "the verification after the plan failed: {}",
                    verify_error(&err)
                )),
            );
        }
    };
    for failed in report.failed.iter().filter(|f| f.regression != Some(false)) {
        let package = failed
            .package
            .as_deref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default();
        outcome
            .regressions
            .push(format!("{}{package}: {}", failed.check, failed.error));
    }
    outcome.verify = Some(report.summary);
    outcome.failed = report.failed;
    outcome.report = Some(document);
    for test in &mut outcome.tests {
        let after =
            exec::run_shell(&test.command, &copy.root, critical).map_err(spawn(&test.command))?;
        check_interrupt(critical)?;
        test.regression = test.before.ok() && !after.ok();
        if test.regression {
            outcome.regressions.push(format!(
                "test `{}`: {} (passed before): {}",
                test.command,
                after.status_text(),
                after.tail.lines().last().unwrap_or("")
            ));
        }
        test.after = Some(after);
    }
    outcome.verdict = if outcome.regressions.is_empty() {
        Verdict::Clean
    } else {
        Verdict::Regressed
    };
    finish(outcome, None)
}

fn check_interrupt(critical: &Critical) -> Result<(), TrialError> {
    if critical.interrupted() {
        Err(TrialError::Interrupted)
    } else {
        Ok(())
    }
}

fn spawn(what: &str) -> impl FnOnce(std::io::Error) -> TrialError + '_ {
    move |source| TrialError::Spawn {
        what: what.to_string(),
        source,
    }
}

/// A verification error with its help (the script's stderr), on one line.
fn verify_error(err: &VerifyError) -> String {
    match miette::Diagnostic::help(err) {
        Some(help) => format!("{err} ({})", help.to_string().replace('\n', " / ")),
        None => err.to_string(),
    }
}
