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
//!
//! Around it: [`environment`] chooses the environment a plan is tried in, and [`attempt`]
//! tries one plan from start to end (copy, checks, install steps, [`measure`], removal) for
//! `try`, `propose --try` and `review --try`; the render stage writes its commands for it
//! ([`attempt::TrialText`]).

pub(crate) mod attempt;
pub(crate) mod copy;
pub(crate) mod environment;
pub(crate) mod exec;
pub(crate) mod fresh;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use crate::interrupt::Critical;
use crate::verify::caches::CacheMode;
use crate::verify::report::{Failed, Summary, VerifyReport};
use crate::verify::run::{self, RunOptions, VerifyError};

pub(crate) use copy::{CopyMethod, CopyStats, FreshStats, VenvCopy};
pub(crate) use exec::Ran;
pub(crate) use fresh::{Carried, FreshSpec};

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

/// The flags that keep `installer` to wheels: no build backend from the index runs in a copy
/// (an sdist's would run with this user's rights).
pub(crate) fn binary_only(installer: Installer) -> Vec<String> {
    match installer {
        Installer::Pip => vec!["--only-binary".to_string(), ":all:".to_string()],
        Installer::Uv => vec!["--no-build".to_string()],
    }
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
    /// The top-level import names the plan's changed dists shipped before it (with
    /// [`BaselineMode::Needed`], a skip for one of them now missing needs the baseline).
    pub changed_tops: &'a BTreeSet<String>,
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
    /// Before the plan, in the copy (absent when it passed after the plan and the baseline took
    /// only what did not: [`BaselineMode::Needed`]).
    pub before: Option<Ran>,
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
    /// How the installer ran when not as the copy's own (the copy has no pip: the pip of an
    /// outer interpreter, named, ran against it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installer_note: Option<String>,
    /// Each step's argv and how it ended.
    pub steps: Vec<Step>,
    /// Where the baseline ran, and of what.
    pub baseline_mode: BaselineMode,
    /// The verification counts before the plan (absent when none was needed: everything passed
    /// after it).
    pub baseline: Option<Summary>,
    /// The verification counts after it (`regressions`, `pre_existing` set).
    pub verify: Option<Summary>,
    /// Every check that failed after the plan, with `regression`.
    pub failed: Vec<Failed>,
    /// Modules the plan removed: the changed dist's new release does not ship them and nothing
    /// left in the environment imports them (`import:x (dist): why`), not regressions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// The whole `planner-verify/2` comparison report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<serde_json::Value>,
    /// The `--test` commands.
    pub tests: Vec<TestRun>,
    /// Every regression, named: `import:x (dist): error`, `test `cmd`: exit 1`.
    pub regressions: Vec<String>,
    /// The compile caches the baseline, the comparison and the tests ran with: `private` (each
    /// run its own fresh empty folders) unless `--warm-caches`.
    pub compile_caches: CacheMode,
    /// Wall seconds of the trial (copy excluded).
    pub seconds: f64,
    /// The baseline's own copy, when it ran beside the plan's install (several cores).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_copy: Option<CopyStats>,
    /// That copy's hard-linked originals afterwards (folded into [`Tried::original`]).
    #[serde(skip)]
    pub baseline_original: Option<OriginalCheck>,
}

/// Where a trial takes its baseline, and of what (`PLANNER_TRY_BASELINE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum BaselineMode {
    /// The default from 4 cores: the plan installed and checked first; then, in a second copy of
    /// the original, a baseline of only the checks and tests that did not pass after it (one that
    /// passes cannot have regressed), or none when everything passed.
    Needed,
    /// Every check and test, in the one copy, before the plan (the default on fewer cores).
    First,
    /// Every check and test, in a second copy, while the plan is installed and checked in the
    /// first.
    Beside,
}

/// Cores from which a trial checks the plan first and takes the baseline of only what did not
/// pass ([`BaselineMode::Needed`]): where that is anything (an optional module skipped, which
/// real venvs have), it costs a second copy of the venv; on 2 cores the disk was still writing
/// the first (0.7-14 s for the 60-dist venv's 274 MB), more than the whole run it saves there
/// (7 s), so the baseline runs first.
const NEEDED_FROM_CORES: usize = 4;

/// The baseline mode `PLANNER_TRY_BASELINE` names (`needed`, `first`, `beside`); unset, `needed`
/// from [`NEEDED_FROM_CORES`] cores, else `first`.
pub(crate) fn baseline_mode() -> Result<BaselineMode, TrialError> {
    let value = crate::env_vars::EnvVars::process().get("PLANNER_TRY_BASELINE");
    match value.as_deref().map(str::trim) {
        None | Some("") => {
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            Ok(if cores >= NEEDED_FROM_CORES {
                BaselineMode::Needed
            } else {
                BaselineMode::First
            })
        }
        Some("needed") => Ok(BaselineMode::Needed),
        Some("first") => Ok(BaselineMode::First),
        Some("beside") => Ok(BaselineMode::Beside),
        Some(other) => Err(TrialError::BaselineSetting {
            value: crate::terminal::field(other).into_owned(),
        }),
    }
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
    /// `PLANNER_TRY_BASELINE` is not a known value.
    #[error("PLANNER_TRY_BASELINE `{value}` is none of `needed`, `first`, `beside`")]
    #[diagnostic(help(
        "`needed` (the default from 4 cores) checks the plan first and takes a baseline, in a \
         second copy, only of what did not pass after it; `first` takes a whole baseline in the one copy \
         before the plan; `beside` takes it in a second copy while the plan is installed and \
         checked in the first; unset, `needed` from 4 cores, else `first`"
    ))]
    BaselineSetting {
        /// The value found.
        value: String,
    },
    /// A child could not be started.
    #[error("cannot run `{what}`: {source}")]
    Spawn {
        /// What.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

impl TrialOutcome {
    /// Nothing run yet with `installer`: not tried, no reason given.
    pub(crate) fn empty(installer: Installer) -> TrialOutcome {
        TrialOutcome {
            verdict: Verdict::NotTried,
            reason: None,
            installer,
            installer_note: None,
            steps: Vec::new(),
            baseline_mode: BaselineMode::First,
            baseline: None,
            verify: None,
            failed: Vec::new(),
            removed: Vec::new(),
            report: None,
            tests: Vec::new(),
            regressions: Vec::new(),
            compile_caches: CacheMode::Private,
            seconds: 0.0,
            baseline_copy: None,
            baseline_original: None,
        }
    }

    /// Not tried, and why.
    pub(crate) fn not_tried(installer: Installer, reason: &str) -> TrialOutcome {
        TrialOutcome {
            reason: Some(reason.to_string()),
            ..TrialOutcome::empty(installer)
        }
    }
}

/// Makes a second copy of the original, for a baseline taken beside the plan's install.
pub(crate) type MakeCopy<'a> = &'a (dyn Fn() -> Result<VenvCopy, copy::CopyError> + Sync);

/// Measure the plan in `copy`: baseline, tests, steps, comparison, tests again, the baseline where
/// `mode` says. `second` makes a second copy of the original for [`BaselineMode::Needed`] and
/// [`BaselineMode::Beside`]; without one (a fresh venv stands in) the baseline runs first.
pub(crate) fn measure(
    copy: &VenvCopy,
    input: &TrialInput<'_>,
    mode: BaselineMode,
    second: Option<MakeCopy<'_>>,
    critical: &Critical,
) -> Result<TrialOutcome, TrialError> {
    let started = Instant::now();
    let mut outcome = TrialOutcome::empty(input.installer);
    outcome.compile_caches = CacheMode::new(input.verify.warm_caches);
    let trial = Trial {
        copy,
        input,
        critical,
    };
    outcome.baseline_mode = if second.is_some() {
        mode
    } else {
        BaselineMode::First
    };
    outcome.reason = match (outcome.baseline_mode, second) {
        (BaselineMode::Needed, Some(make)) => trial.phases_needed(make, &mut outcome)?,
        (BaselineMode::Beside, Some(make)) => trial.phases_beside(make, &mut outcome)?,
        _ => trial.phases(&mut outcome)?,
    };
    if outcome.reason.is_none() {
        outcome.verdict = if outcome.regressions.is_empty() {
            Verdict::Clean
        } else {
            Verdict::Regressed
        };
    }
    outcome.seconds = started.elapsed().as_secs_f64();
    Ok(outcome)
}

/// One trial's parts, for its phases.
struct Trial<'a> {
    copy: &'a VenvCopy,
    input: &'a TrialInput<'a>,
    critical: &'a Critical,
}

/// What the baseline's own copy gave: the counts (or why none), the tests before the plan, the
/// copy made and its hard-linked originals afterwards.
struct Second {
    baseline: Result<Summary, String>,
    tests: Vec<TestRun>,
    copy: Option<CopyStats>,
    original: Option<OriginalCheck>,
}

impl TrialOutcome {
    /// The second copy's figures and baseline taken in; why, when that baseline failed.
    fn take_second(&mut self, second: Second) -> Option<String> {
        self.baseline_copy = second.copy;
        self.baseline_original = second.original;
        match second.baseline {
            Ok(summary) => {
                self.baseline = Some(summary);
                None
            }
            Err(why) => Some(format!("the baseline failed: {why}")),
        }
    }
}

impl Trial<'_> {
    /// Each phase in order into `outcome`; `Ok(Some(why))` when one stopped the trial (not
    /// tried), `Ok(None)` when the comparison and the tests after it ran.
    fn phases(&self, outcome: &mut TrialOutcome) -> Result<Option<String>, TrialError> {
        let baseline_file = self.input.work.join("verify-baseline.json");
        match self.verify(self.copy, baseline_options(&baseline_file, None))? {
            Ok((report, _)) => outcome.baseline = Some(report.summary),
            Err(err) => return Ok(Some(format!("the baseline failed: {}", verify_error(&err)))),
        }
        outcome.tests = self.tests_before(self.copy, self.input.tests)?;
        if let Some(why) = self.install(outcome)? {
            return Ok(Some(why));
        }
        let compared = self.verify(
            self.copy,
            RunOptions {
                compare: Some(baseline_file),
                report: Some(self.input.work.join("verify-report.json")),
                ..RunOptions::default()
            },
        )?;
        if let Some(why) = record(compared, outcome) {
            return Ok(Some(why));
        }
        self.tests_after(outcome)?;
        judge_tests(outcome);
        Ok(None)
    }

    /// The baseline and the tests before the plan in a second copy, while the plan is installed
    /// and checked in this one (`--plain`); then the two reports compared, nothing run again.
    fn phases_beside(
        &self,
        make: MakeCopy<'_>,
        outcome: &mut TrialOutcome,
    ) -> Result<Option<String>, TrialError> {
        let baseline_file = self.input.work.join("verify-baseline.json");
        let after_file = self.input.work.join("verify-after.json");
        let (beside, after) = std::thread::scope(|scope| {
            let beside = scope.spawn(|| {
                let options = baseline_options(&baseline_file, None);
                self.baseline_in_second(make, options, self.input.tests)
            });
            let after = self.install_and_check(outcome, &after_file);
            let beside = beside
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (beside, after)
        });
        let beside = beside?;
        outcome.tests = beside.tests.clone();
        if let Some(why) = after?.err() {
            outcome.take_second(beside);
            return Ok(Some(why));
        }
        if let Some(why) = outcome.take_second(beside) {
            return Ok(Some(why));
        }
        if let Some(why) = self.compare(&baseline_file, &after_file, outcome)? {
            return Ok(Some(why));
        }
        self.tests_after(outcome)?;
        judge_tests(outcome);
        Ok(None)
    }

    /// The plan installed and checked in this copy first, each test after it; then a baseline,
    /// in a second copy of the original, of only the checks and tests that did not pass (one
    /// that passes after the plan cannot have regressed), and the two reports compared. When
    /// everything passed, no baseline: nothing regressed.
    fn phases_needed(
        &self,
        make: MakeCopy<'_>,
        outcome: &mut TrialOutcome,
    ) -> Result<Option<String>, TrialError> {
        let after_file = self.input.work.join("verify-after.json");
        let (report, document) = match self.install_and_check(outcome, &after_file)? {
            Ok(after) => after,
            Err(why) => return Ok(Some(why)),
        };
        outcome.tests = self
            .input
            .tests
            .iter()
            .map(|command| TestRun {
                command: command.clone(),
                before: None,
                after: None,
                regression: false,
            })
            .collect();
        self.tests_after(outcome)?;
        let needed = needs_baseline(&document, self.input.changed_tops);
        let failing: Vec<String> = outcome
            .tests
            .iter()
            .filter(|t| !t.after.as_ref().is_some_and(Ran::ok))
            .map(|t| t.command.clone())
            .collect();
        if needed.is_empty() && failing.is_empty() {
            record_comparison(outcome, report, document);
            if let Some(summary) = &mut outcome.verify {
                summary.regressions = Some(0);
                summary.pre_existing = Some(0);
            }
            return Ok(None);
        }
        let baseline_file = self.input.work.join("verify-baseline.json");
        let only_file = self.input.work.join("verify-only.json");
        let only = serde_json::to_vec(&needed).expect("a list of strings serializes");
        if let Err(err) = std::fs::write(&only_file, only) {
            return Ok(Some(format!("cannot write {}: {err}", only_file.display())));
        }
        let options = baseline_options(&baseline_file, Some(only_file));
        let beside = self.baseline_in_second(make, options, &failing)?;
        let mut before = beside.tests.iter();
        for test in outcome
            .tests
            .iter_mut()
            .filter(|t| failing.contains(&t.command))
        {
            test.before = before.next().and_then(|t| t.before.clone());
        }
        if let Some(why) = outcome.take_second(beside) {
            return Ok(Some(why));
        }
        let why = self.compare(&baseline_file, &after_file, outcome)?;
        judge_tests(outcome);
        Ok(why)
    }

    /// A second copy made, the baseline (`options`) and `tests` run in it, the copy removed.
    fn baseline_in_second(
        &self,
        make: MakeCopy<'_>,
        options: RunOptions,
        tests: &[String],
    ) -> Result<Second, TrialError> {
        let copy = match make() {
            Ok(copy) => copy,
            Err(err) => {
                return Ok(Second {
                    baseline: Err(format!("cannot make its copy: {err}")),
                    tests: Vec::new(),
                    copy: None,
                    original: None,
                });
            }
        };
        let baseline = self
            .verify(&copy, options)?
            .map(|(report, _)| report.summary)
            .map_err(|err| verify_error(&err));
        let tests = self.tests_before(&copy, tests)?;
        let original = OriginalCheck {
            checked: copy.linked_count(),
            changed: copy.linked_changed(),
        };
        let stats = copy.stats.clone();
        let root = copy.root.clone();
        let baseline = match copy.discard() {
            Ok(()) => baseline,
            Err(err) => Err(format!("cannot remove its copy {}: {err}", root.display())),
        };
        Ok(Second {
            baseline,
            tests,
            copy: Some(stats),
            original: Some(original),
        })
    }

    /// The plan's steps, then the checks after it in a plain run written to `file`: its report,
    /// or why either stopped the trial.
    fn install_and_check(
        &self,
        outcome: &mut TrialOutcome,
        file: &Path,
    ) -> Result<Result<(VerifyReport, serde_json::Value), String>, TrialError> {
        if let Some(why) = self.install(outcome)? {
            return Ok(Err(why));
        }
        let plain = RunOptions {
            plain: true,
            report: Some(file.to_path_buf()),
            ..RunOptions::default()
        };
        Ok(self
            .verify(self.copy, plain)?
            .map_err(|err| after_failed(&err)))
    }

    /// The plain run after the plan (`after`) compared with the baseline, nothing run again, into
    /// `outcome`; why, when the comparison failed.
    fn compare(
        &self,
        baseline: &Path,
        after: &Path,
        outcome: &mut TrialOutcome,
    ) -> Result<Option<String>, TrialError> {
        let compared = self.verify(
            self.copy,
            RunOptions {
                compare: Some(baseline.to_path_buf()),
                checks_from: Some(after.to_path_buf()),
                report: Some(self.input.work.join("verify-report.json")),
                ..RunOptions::default()
            },
        )?;
        Ok(record(compared, outcome))
    }

    /// Each of `tests` once in `copy`, before the plan.
    fn tests_before(&self, copy: &VenvCopy, tests: &[String]) -> Result<Vec<TestRun>, TrialError> {
        let mut runs = Vec::new();
        for test in tests {
            runs.push(TestRun {
                command: test.clone(),
                before: Some(self.shell(copy, test)?),
                after: None,
                regression: false,
            });
        }
        Ok(runs)
    }

    /// Each `--test` again in the copy, after the plan.
    fn tests_after(&self, outcome: &mut TrialOutcome) -> Result<(), TrialError> {
        for test in &mut outcome.tests {
            test.after = Some(self.shell(self.copy, &test.command)?);
        }
        Ok(())
    }

    /// `verify.py` in the copy, activated, with the trial's `--timeout`, `--jobs`, `--no-smoke`.
    fn verify(
        &self,
        copy: &VenvCopy,
        mode: RunOptions,
    ) -> Result<Result<(VerifyReport, serde_json::Value), VerifyError>, TrialError> {
        let verify = &self.input.verify;
        let ran = run::run(
            &copy.python(),
            self.input.script,
            &RunOptions {
                timeout: verify.timeout,
                jobs: verify.jobs,
                no_smoke: verify.no_smoke,
                warm_caches: verify.warm_caches,
                activate: Some(copy.root.clone()),
                ..mode
            },
        );
        check_interrupt(self.critical)?;
        Ok(ran)
    }

    /// A `--test` command in `copy`.
    fn shell(&self, copy: &VenvCopy, command: &str) -> Result<Ran, TrialError> {
        let caches = CacheMode::new(self.input.verify.warm_caches);
        let ran =
            exec::run_shell(command, &copy.root, self.critical, caches).map_err(spawn(command))?;
        check_interrupt(self.critical)?;
        Ok(ran)
    }

    /// The install steps, in order, each recorded; the first that fails ends them ("the plan could
    /// not be installed: step 1 of 2 failed ...").
    fn install(&self, outcome: &mut TrialOutcome) -> Result<Option<String>, TrialError> {
        let steps = self.input.steps;
        for (i, argv) in steps.iter().enumerate() {
            let ran = exec::run_argv(argv, &self.copy.root, self.critical)
                .map_err(spawn(&argv.join(" ")))?;
            check_interrupt(self.critical)?;
            let why = (!ran.ok()).then(|| {
                format!(
                    "the plan could not be installed: step {} of {} failed ({}): {}",
                    i + 1,
                    steps.len(),
                    ran.status_text(),
                    ran.tail.lines().last().unwrap_or("")
                )
            });
            outcome.steps.push(Step {
                argv: argv.clone(),
                ran,
            });
            if why.is_some() {
                return Ok(why);
            }
        }
        Ok(None)
    }
}

/// The comparison's counts, failures, regressions (each named) and modules the plan removed.
fn record_comparison(
    outcome: &mut TrialOutcome,
    report: VerifyReport,
    document: serde_json::Value,
) {
    for failed in report.failed.iter().filter(|f| f.regression != Some(false)) {
        outcome.regressions.push(check_line(
            &failed.check,
            failed.package.as_deref(),
            &failed.error,
        ));
    }
    outcome.removed = report
        .checks
        .iter()
        .filter(|c| c.removed)
        .map(|c| {
            let detail = c.detail.as_deref().unwrap_or("");
            let why = detail
                .strip_prefix("removed by the plan: ")
                .unwrap_or(detail);
            check_line(&c.name, c.package.as_deref(), why)
        })
        .collect();
    outcome.verify = Some(report.summary);
    outcome.failed = report.failed;
    outcome.report = Some(document);
}

/// `verify.py --baseline FILE`, `--only ONLY` when given.
fn baseline_options(file: &Path, only: Option<PathBuf>) -> RunOptions {
    RunOptions {
        baseline: Some(file.to_path_buf()),
        only,
        ..RunOptions::default()
    }
}

/// The comparison recorded into `outcome`, or why it failed.
fn record(
    compared: Result<(VerifyReport, serde_json::Value), VerifyError>,
    outcome: &mut TrialOutcome,
) -> Option<String> {
    match compared {
        Ok((report, document)) => {
            record_comparison(outcome, report, document);
            None
        }
        Err(err) => Some(after_failed(&err)),
    }
}

/// The checks of a plain run after the plan (`after`, its JSON) whose verdict a baseline can
/// change (verify.py's `compare`): each failure (pre-existing or a regression), and each skip
/// for a missing module that may have imported before: one an extra in use needs, or one of
/// the top-level names the plan's changed dists shipped before it (`changed_tops`). Any other
/// check passed, or was skipped for what no plan here could have taken away.
fn needs_baseline<'d>(
    after: &'d serde_json::Value,
    changed_tops: &BTreeSet<String>,
) -> Vec<&'d str> {
    let checks = after["checks"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    checks
        .iter()
        .filter(|c| match c["status"].as_str() {
            Some("fail") => true,
            Some("skip") => c["missing"].as_str().is_some_and(|missing| {
                c["extra_in_use"].as_bool() == Some(true)
                    || changed_tops.contains(missing.split('.').next().unwrap_or(missing))
            }),
            _ => false,
        })
        .filter_map(|c| c["name"].as_str())
        .collect()
}

/// Each test that passed before the plan and fails after it: a regression, named.
fn judge_tests(outcome: &mut TrialOutcome) {
    for test in &mut outcome.tests {
        let (Some(before), Some(after)) = (&test.before, &test.after) else {
            continue;
        };
        test.regression = before.ok() && !after.ok();
        if test.regression {
            outcome.regressions.push(format!(
                "test `{}`: {} (passed before): {}",
                test.command,
                after.status_text(),
                after.tail.lines().last().unwrap_or("")
            ));
        }
    }
}

/// "the verification after the plan failed: ...".
fn after_failed(err: &VerifyError) -> String {
    format!(
        "the verification after the plan failed: {}",
        verify_error(err)
    )
}

/// `import:x (dist): what`.
fn check_line(check: &str, package: Option<&str>, what: &str) -> String {
    let package = package.map(|p| format!(" ({p})")).unwrap_or_default();
    format!("{check}{package}: {what}")
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A baseline is needed for a failure and for a skip whose missing module an extra in use
    /// needs or a changed dist shipped before; not for a pass, a removed module, or a skip for a
    /// module nothing here could have taken away.
    #[test]
    fn a_baseline_is_needed_only_where_it_can_change_the_verdict() {
        let after = serde_json::json!({"checks": [
            {"name": "import:a", "status": "pass"},
            {"name": "import:b", "status": "fail", "error": "boom"},
            {"name": "pip-check", "status": "fail"},
            {"name": "import:c", "status": "skip", "missing": "pkgv", "extra_in_use": true},
            {"name": "import:d", "status": "skip", "missing": "old.sub"},
            {"name": "import:e", "status": "skip", "missing": "numba"},
            {"name": "import:f", "status": "skip", "detail": "removed by the plan", "removed": true},
            {"name": "import:g", "status": "skip", "detail": "not installed"},
        ]});
        let tops = BTreeSet::from(["old".to_string()]);
        assert_eq!(
            needs_baseline(&after, &tops),
            ["import:b", "pip-check", "import:c", "import:d"]
        );
        assert!(needs_baseline(&serde_json::json!({}), &tops).is_empty());
    }
}
