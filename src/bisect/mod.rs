//! Stage 5 (beside `trial`): from "it worked with the good state" to the changes that broke it
//! (`planner bisect`).
//!
//! In: the venv as it is now (failing), its [`Change`]s since a good state and the
//! [`Universe`] of both states' releases ([`state`]), and a [`BisectInput`]: the check (shell
//! command lines; `--verify` is one of them), the installer and index, `--retries`,
//! `--timeout`, `--keep`. Out: an [`Outcome`]: the verdict, the culprits (each `name`, `from`,
//! `to`) and every step (what was reverted, the result, seconds).
//!
//! Each step asks the solver for the consistent state with a set of changes applied and the
//! rest reverted (a change and what its version needs move as one unit; a set with no
//! consistent state is skipped, and said), copies the venv ([`crate::trial::VenvCopy`]: the original is only
//! read), installs the good versions there, reinstalls each release edited in place since
//! (its wheel's files) and removes what was added (`--no-deps`: the solver chose the whole
//! state; a forced override stays as it was installed), runs the check with the copy activated
//! ([`crate::trial::exec`]), and removes the copy. [`search`] decides which sets to try.

pub(crate) mod search;
pub(crate) mod since;
pub(crate) mod state;
pub(crate) mod states;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::diff::ChangeKind;
use crate::interrupt::Critical;
use crate::trial::{Installer, VenvCopy, exec};

pub(crate) use search::Found;
pub(crate) use state::{Change, Universe};

/// `schema` of `planner bisect --format json`.
pub(crate) const BISECT_SCHEMA: &str = "planner-bisect/1";

/// What every step runs, and how.
#[derive(Debug)]
pub(crate) struct BisectInput<'a> {
    /// The venv as it is now.
    pub original: &'a Path,
    /// The check: shell command lines, all of which must pass.
    pub tests: &'a [String],
    /// Who installs the good versions in a copy.
    pub installer: Installer,
    /// `--index-url` for the installer (else its own configuration).
    pub index_url: Option<&'a str>,
    /// `--retries N`: a failing check is run up to N more times; one pass makes it a pass.
    pub retries: u32,
    /// `--timeout`: a check that runs longer is killed and counts as failing.
    pub timeout: Option<Duration>,
    /// `--keep DIR`: each step's copy is kept in `DIR/step-N`.
    pub keep: Option<&'a Path>,
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum StepResult {
    /// The check passed.
    Pass,
    /// The check failed.
    Fail,
    /// The check ran past `--timeout` (counted as failing).
    Timeout,
    /// The state could not be made (no consistent state, or the install failed): not run.
    Skipped,
}

/// One step.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Step {
    /// 1, 2, ...
    pub step: usize,
    /// The changes reverted in this state (names): at their good versions (absent when added
    /// since).
    pub reverted: Vec<String>,
    /// Changes the step meant to revert but kept as they are now, because a change it applies
    /// needs them (the solver's unit).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<String>,
    /// How it ended.
    pub result: StepResult,
    /// Wall seconds: copy, install, check (every attempt), removal.
    pub seconds: f64,
    /// Runs of the check (1 + retries used; 0 when skipped).
    pub attempts: u32,
    /// Why it was skipped, or the failing check's last line of output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Where the copy is kept (`--keep`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy: Option<PathBuf>,
}

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    /// The culprits were found.
    Found,
    /// The check fails in the good state too: the changes are not what broke it.
    GoodFails,
    /// The good state could not be built (see its step).
    GoodUnknown,
    /// The check passes with every change applied: nothing is broken to bisect.
    CurrentPasses,
    /// No failing set was isolated (skipped states, a flaky check).
    Inconclusive,
    /// Nothing changed since the good state (that can be reverted).
    NoChanges,
}

/// One culprit.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Culprit {
    /// The dist.
    pub name: String,
    /// Its good version (`None`: it was not installed).
    pub from: Option<String>,
    /// Its version now (`None`: it was removed).
    pub to: Option<String>,
    /// How it changed.
    pub kind: ChangeKind,
    /// The requirements it was installed against (a forced override; [`Change::overrides`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
    /// Edited in place: its files that differ from `RECORD` now ([`Change::files`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// The result of a bisect.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// The culprits (empty unless found).
    pub culprits: Vec<Culprit>,
    /// Changes the culprits need (applied with them in every state that has them).
    pub needed: Vec<Culprit>,
    /// Every smaller set of them is known to pass (run, or implied by a run).
    pub minimal: bool,
    /// Every step, in order.
    pub steps: Vec<Step>,
    /// Steps that ran the check.
    pub runs: usize,
}

/// Why a bisect stopped before an outcome.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum BisectError {
    /// Ctrl-C or SIGTERM.
    #[error("interrupted; the copy is removed and the environment was not touched")]
    Interrupted,
    /// The copy could not be made or removed.
    #[error(transparent)]
    Copy(#[from] crate::trial::copy::CopyError),
    /// A child could not be started, or a copy not removed.
    #[error("{0}")]
    Io(String),
    /// A file hard-linked into a copy was changed through the link.
    #[error("the environment's files changed during step {step}: {}", files.join(", "))]
    #[diagnostic(help(
        "an installer or the check wrote through a hard link; the bisect stopped at once"
    ))]
    OriginalChanged {
        /// The step.
        step: usize,
        /// The files.
        files: Vec<String>,
    },
}

/// Bisect: narrow `changes` down to the culprits, one copy per step. `on_step` hears each
/// step as it ends (for progress on stderr).
pub(crate) fn bisect(
    changes: &[Change],
    universe: &Universe,
    input: &BisectInput<'_>,
    critical: &Critical,
    on_step: &mut dyn FnMut(&Step),
) -> Result<Outcome, BisectError> {
    let searchable: Vec<usize> = (0..changes.len())
        .filter(|&i| changes[i].fixed.is_none())
        .collect();
    let mut steps: Vec<Step> = Vec::new();
    if searchable.is_empty() {
        return Ok(outcome(Verdict::NoChanges, Vec::new(), false, steps));
    }
    let to_changes =
        |set: &search::Set| -> BTreeSet<usize> { set.iter().map(|&k| searchable[k]).collect() };
    let to_search = |set: &BTreeSet<usize>| -> search::Set {
        (0..searchable.len())
            .filter(|&k| set.contains(&searchable[k]))
            .collect()
    };
    let mut answered: Vec<(search::Set, Option<bool>)> = Vec::new();
    let found = search::Search::new(|asked: &search::Set| {
        let asked_changes = to_changes(asked);
        let target = universe.target(changes, &asked_changes);
        let actual = match &target {
            Ok(target) => to_search(&target.applied),
            Err(_) => asked.clone(),
        };
        // The solver may land on a state already run (what the asked changes need).
        if let Some((_, fails)) = answered.iter().find(|(set, _)| *set == actual) {
            return Ok(search::Answer {
                applied: actual,
                fails: *fails,
            });
        }
        let number = steps.len() + 1;
        let step = match target {
            Ok(target) => run_step(changes, &asked_changes, &target, input, critical, number)?,
            Err(why) => skipped(changes, &asked_changes, number, why),
        };
        let fails = match step.result {
            StepResult::Pass => Some(false),
            StepResult::Fail | StepResult::Timeout => Some(true),
            StepResult::Skipped => None,
        };
        answered.push((actual.clone(), fails));
        on_step(&step);
        steps.push(step);
        Ok::<_, BisectError>(search::Answer {
            applied: actual,
            fails,
        })
    })
    .run(searchable.len())?;
    Ok(match found {
        Found::Culprits { set, minimal } => {
            let culprits = to_changes(&set.iter().copied().collect());
            let needed = universe
                .target(changes, &culprits)
                .map(|t| {
                    t.applied
                        .difference(&culprits)
                        .filter(|&&i| changes[i].fixed.is_none())
                        .map(|&i| culprit(&changes[i]))
                        .collect()
                })
                .unwrap_or_default();
            let culprits = culprits.iter().map(|&i| culprit(&changes[i])).collect();
            Outcome {
                needed,
                ..outcome(Verdict::Found, culprits, minimal, steps)
            }
        }
        Found::GoodFails => outcome(Verdict::GoodFails, Vec::new(), false, steps),
        Found::GoodUnknown => outcome(Verdict::GoodUnknown, Vec::new(), false, steps),
        Found::CurrentPasses => outcome(Verdict::CurrentPasses, Vec::new(), false, steps),
        Found::Inconclusive { .. } => outcome(Verdict::Inconclusive, Vec::new(), false, steps),
    })
}

fn outcome(verdict: Verdict, culprits: Vec<Culprit>, minimal: bool, steps: Vec<Step>) -> Outcome {
    let runs = steps.iter().filter(|s| s.attempts > 0).count();
    Outcome {
        verdict,
        culprits,
        needed: Vec::new(),
        minimal,
        steps,
        runs,
    }
}

fn culprit(change: &Change) -> Culprit {
    Culprit {
        name: change.name.to_string(),
        from: change.from.clone(),
        to: change.to.clone(),
        kind: change.kind,
        overrides: change.overrides.clone(),
        files: change.files.clone(),
    }
}

/// A step whose asked set has no consistent state: skipped, and why.
fn skipped(
    changes: &[Change],
    asked: &BTreeSet<usize>,
    number: usize,
    why: state::NoState,
) -> Step {
    Step {
        step: number,
        reverted: names(changes, |i| !asked.contains(&i)),
        kept: Vec::new(),
        result: StepResult::Skipped,
        seconds: 0.0,
        attempts: 0,
        detail: Some(format!("no consistent state: {why}")),
        copy: None,
    }
}

/// The names of the revertable changes that `pick` picks.
fn names(changes: &[Change], pick: impl Fn(usize) -> bool) -> Vec<String> {
    (0..changes.len())
        .filter(|&i| changes[i].fixed.is_none() && pick(i))
        .map(|i| changes[i].name.to_string())
        .collect()
}

/// One step: the `target` state (for the `asked` changes applied) built in a copy, checked.
fn run_step(
    changes: &[Change],
    asked: &BTreeSet<usize>,
    target: &state::Target,
    input: &BisectInput<'_>,
    critical: &Critical,
    number: usize,
) -> Result<Step, BisectError> {
    let started = Instant::now();
    let reverted: Vec<usize> = (0..changes.len())
        .filter(|i| !target.applied.contains(i))
        .collect();
    let mut step = Step {
        step: number,
        reverted: names(changes, |i| !target.applied.contains(&i)),
        kept: names(changes, |i| {
            !asked.contains(&i) && target.applied.contains(&i)
        }),
        result: StepResult::Skipped,
        seconds: 0.0,
        attempts: 0,
        detail: None,
        copy: None,
    };
    let keep = input.keep.map(|dir| dir.join(format!("step-{number}")));
    let touched: Vec<_> = reverted.iter().map(|&i| changes[i].name.clone()).collect();
    let copy = VenvCopy::make(input.original, &touched, keep.as_deref())?;
    let reverted: Vec<&Change> = reverted.iter().map(|&i| &changes[i]).collect();
    let built = install(&copy, &reverted, input, critical)?;
    if let Err(why) = built {
        step.detail = Some(why.to_string());
    } else {
        check(&copy, input, critical, &mut step)?;
    }
    let changed = copy.linked_changed();
    if !changed.is_empty() {
        return Err(BisectError::OriginalChanged {
            step: number,
            files: changed.iter().map(|p| p.display().to_string()).collect(),
        });
    }
    if copy.kept() {
        step.copy = Some(copy.root.clone());
    } else {
        copy.discard()
            .map_err(|err| BisectError::Io(format!("cannot remove the copy: {err}")))?;
    }
    step.seconds = started.elapsed().as_secs_f64();
    Ok(step)
}

/// The installer failed in a step's copy (the step says so; the bisect goes on).
#[derive(Debug, thiserror::Error)]
#[error("the installer failed ({status}): {last}")]
struct InstallFailed {
    /// How it ended.
    status: String,
    /// The last line of its output.
    last: String,
}

/// Put the good versions of `reverted` into the copy (and take out what was added since).
/// `Ok(Err(why))`: the installer failed.
fn install(
    copy: &VenvCopy,
    reverted: &[&Change],
    input: &BisectInput<'_>,
    critical: &Critical,
) -> Result<Result<(), InstallFailed>, BisectError> {
    for argv in install_steps(&copy.python(), reverted, input.installer, input.index_url) {
        let ran = exec::run_argv(&argv, &copy.root, critical)
            .map_err(|err| BisectError::Io(format!("cannot run `{}`: {err}", argv.join(" "))))?;
        if critical.interrupted() {
            return Err(BisectError::Interrupted);
        }
        if !ran.ok() {
            return Ok(Err(InstallFailed {
                status: ran.status_text(),
                last: ran.tail.lines().last().unwrap_or("").to_string(),
            }));
        }
    }
    Ok(Ok(()))
}

/// The installer's argv: one install of every good version (`--no-deps`, wheels only: no build
/// backend from the index runs), one reinstall of each release edited in place since (the same
/// flags and `--force-reinstall`, uv's `--reinstall`), one uninstall of what the good state did
/// not have; `--` before the names.
pub(crate) fn install_steps(
    python: &Path,
    reverted: &[&Change],
    installer: Installer,
    index_url: Option<&str>,
) -> Vec<Vec<String>> {
    let python = python.display().to_string();
    let edited = |c: &&&Change| c.kind == ChangeKind::EditedInPlace;
    let specs: Vec<String> = reverted
        .iter()
        .filter(|c| !edited(c))
        .filter_map(|c| c.revert_spec())
        .collect();
    // An edit in place is undone by reinstalling the same release: the files its wheel ships.
    let reinstalls: Vec<String> = reverted
        .iter()
        .filter(edited)
        .filter_map(|c| c.revert_spec())
        .collect();
    let absent: Vec<String> = reverted
        .iter()
        .filter(|c| c.from.is_none())
        .map(|c| c.name.to_string())
        .collect();
    let head = |verb: &str| -> Vec<String> {
        match installer {
            Installer::Uv => ["uv", "pip", verb, "--python", &python]
                .map(String::from)
                .to_vec(),
            Installer::Pip => [
                python.as_str(),
                "-m",
                "pip",
                verb,
                "--disable-pip-version-check",
            ]
            .map(String::from)
            .to_vec(),
        }
    };
    let mut steps = Vec::new();
    for (reinstall, specs) in [(false, specs), (true, reinstalls)] {
        if specs.is_empty() {
            continue;
        }
        let mut argv = head("install");
        argv.push("--no-deps".to_string());
        if reinstall {
            argv.push(match installer {
                Installer::Uv => "--reinstall".to_string(),
                Installer::Pip => "--force-reinstall".to_string(),
            });
        }
        argv.extend(crate::trial::binary_only(installer));
        if let Some(url) = index_url {
            argv.extend(["--index-url".to_string(), url.to_string()]);
        }
        argv.push("--".to_string());
        argv.extend(specs);
        steps.push(argv);
    }
    if !absent.is_empty() {
        let mut argv = head("uninstall");
        if installer == Installer::Pip {
            argv.push("-y".to_string());
        }
        argv.push("--".to_string());
        argv.extend(absent);
        steps.push(argv);
    }
    steps
}

/// Run the check in the copy, with retries; fills the step's result, attempts and detail.
fn check(
    copy: &VenvCopy,
    input: &BisectInput<'_>,
    critical: &Critical,
    step: &mut Step,
) -> Result<(), BisectError> {
    for _ in 0..=input.retries {
        step.attempts += 1;
        match run_tests(copy, input, critical)? {
            None => {
                step.result = StepResult::Pass;
                step.detail = (step.attempts > 1).then(|| {
                    format!(
                        "passed on attempt {} (failed before: a flaky check)",
                        step.attempts
                    )
                });
                return Ok(());
            }
            Some((timed_out, why)) => {
                step.result = if timed_out {
                    StepResult::Timeout
                } else {
                    StepResult::Fail
                };
                step.detail = Some(why);
            }
        }
    }
    Ok(())
}

/// Every test once, stopping at the first failure: `None` when all pass, else whether it timed
/// out and a line saying how it failed.
fn run_tests(
    copy: &VenvCopy,
    input: &BisectInput<'_>,
    critical: &Critical,
) -> Result<Option<(bool, String)>, BisectError> {
    for test in input.tests {
        let ran = exec::run_shell_within(test, &copy.root, critical, input.timeout)
            .map_err(|err| BisectError::Io(format!("cannot run `{test}`: {err}")))?;
        if critical.interrupted() {
            return Err(BisectError::Interrupted);
        }
        if !ran.ok() {
            let last = ran.tail.lines().last().unwrap_or("").to_string();
            return Ok(Some((
                ran.timed_out,
                format!("`{test}`: {}: {last}", ran.status_text()),
            )));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A good version is installed from wheels only (an sdist's build backend from the index
    /// once ran in a bisect step), and every name comes after `--`.
    #[test]
    fn installs_take_wheels_only_and_names_after_a_double_dash() {
        let change = |name: &str, from: Option<&str>| Change {
            name: name.parse().unwrap(),
            kind: crate::diff::ChangeKind::Upgraded,
            from: from.map(str::to_string),
            to: Some("2.0".to_string()),
            details: Vec::new(),
            fixed: None,
            overrides: Vec::new(),
            files: Vec::new(),
        };
        let changes = [change("demo", Some("1.0")), change("added", None)];
        let reverted: Vec<&Change> = changes.iter().collect();
        let python = Path::new("/copy/bin/python");
        for (installer, flag) in [
            (Installer::Pip, &["--only-binary", ":all:"][..]),
            (Installer::Uv, &["--no-build"][..]),
        ] {
            let steps = install_steps(python, &reverted, installer, Some("https://i/simple"));
            let install = &steps[0];
            let at = install
                .iter()
                .position(|a| a == flag[0])
                .expect("binary-only flag");
            assert_eq!(&install[at..at + flag.len()], flag);
            let dash = install
                .iter()
                .position(|a| a == "--")
                .expect("-- in install");
            assert_eq!(install[dash + 1..], ["demo==1.0".to_string()]);
            let uninstall = &steps[steps.len() - 1];
            let dash = uninstall
                .iter()
                .position(|a| a == "--")
                .expect("-- in uninstall");
            assert_eq!(uninstall[dash + 1..], ["added".to_string()]);
        }
    }

    /// A release edited in place is reinstalled at the same version, in an install of its own
    /// that forces the reinstall (`--force-reinstall`, uv's `--reinstall`); the version changes
    /// beside it are installed as before, without it.
    #[test]
    fn an_edit_in_place_is_reverted_by_a_forced_reinstall_of_the_same_release() {
        let change = |name: &str, kind: ChangeKind, from: &str, to: &str| Change {
            name: name.parse().unwrap(),
            kind,
            from: Some(from.to_string()),
            to: Some(to.to_string()),
            details: Vec::new(),
            fixed: None,
            overrides: Vec::new(),
            files: Vec::new(),
        };
        let changes = [
            change("demo", ChangeKind::Upgraded, "1.0", "2.0"),
            change("triton", ChangeKind::EditedInPlace, "3.6.0", "3.6.0"),
        ];
        let reverted: Vec<&Change> = changes.iter().collect();
        let python = Path::new("/copy/bin/python");
        for (installer, flag) in [
            (Installer::Pip, "--force-reinstall"),
            (Installer::Uv, "--reinstall"),
        ] {
            let steps = install_steps(python, &reverted, installer, None);
            assert_eq!(steps.len(), 2, "{steps:?}");
            assert!(!steps[0].contains(&flag.to_string()), "{steps:?}");
            assert_eq!(steps[0].last().unwrap(), "demo==1.0");
            assert!(steps[1].contains(&flag.to_string()), "{steps:?}");
            assert!(steps[1].contains(&"--no-deps".to_string()), "{steps:?}");
            assert_eq!(steps[1].last().unwrap(), "triton==3.6.0");
        }
    }
}
