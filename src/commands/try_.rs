//! `planner try PLAN`: apply a plan in a throw-away copy of the environment and measure it.
//!
//! Reads the plan (a plan.json or a plan folder), chooses the environment
//! ([`crate::trial::environment`]: `--venv`, `--python`, the venv the plan's commands name,
//! `$VIRTUAL_ENV`, `./.venv`), tries the plan in a copy of it
//! ([`crate::trial::attempt::try_plan`]) and renders the report. The whole run is one interrupt critical section: Ctrl-C kills the
//! running child, removes the copy and exits 130.
//!
//! Exit codes: 0 applied, nothing regressed; 1 a regression (each named); 2 it could not be
//! tried (why), or the tool failed.

use std::path::{Path, PathBuf};

use crate::ExitStatus;
use crate::interrupt::Critical;
use crate::printer::Printer;
use crate::render::trial::{self as render, TrialWriter};
use crate::settings::{OutputFormat, TrialEnvironment, TrySettings};
use crate::trial::Verdict;
use crate::trial::attempt::{TrialSettings, try_plan};
use crate::trial::environment::{Choice, Original, choose_environment, planned_python};

/// Run `planner try`.
pub(crate) fn run(args: &TrySettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let plan_file = plan_file(&args.plan);
    let plan = crate::plan::read_plan(&plan_file)?;
    let original = Original::of(choose_environment(&Choice::of(
        "try",
        &args.environment,
        planned_python(&plan),
    ))?);
    let critical = Critical::enter();
    let tried = try_plan(
        &plan,
        &original,
        &TrialSettings {
            tests: &args.environment.tests,
            keep: args.keep.as_deref(),
            index_url: args.index_url.as_deref(),
            policy: &args.policy,
            run: &args.run,
            text: &TrialWriter,
        },
        &critical,
        printer,
    )?;
    let mut report = render::TryReport::new(&plan, &plan_file, original.path(), tried);
    report.verbose = crate::logging::verbose();
    match args.format {
        OutputFormat::Json => printer.out(&crate::render::json::to_json(&report)?),
        OutputFormat::Markdown => printer.out(&render::markdown(&report)),
        OutputFormat::Text => printer.text(&render::text(&report)),
    }
    Ok(exit_status(&report))
}

fn exit_status(report: &render::TryReport<'_>) -> ExitStatus {
    if !report.tried.original.changed.is_empty() {
        return ExitStatus::Error;
    }
    match report.tried.outcome.verdict {
        Verdict::Clean => ExitStatus::Success,
        Verdict::Regressed => ExitStatus::UserActionRequired,
        Verdict::NotTried => ExitStatus::Error,
    }
}

/// A plan folder's `plan.json`, or the file itself.
fn plan_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("plan.json")
    } else {
        path.to_path_buf()
    }
}

impl<'a> Choice<'a> {
    /// `command`'s environment flags and `$VIRTUAL_ENV`, with the interpreter a plan names.
    pub(crate) fn of(
        command: &'a str,
        environment: &'a TrialEnvironment,
        planned: Option<&'a Path>,
    ) -> Choice<'a> {
        Choice {
            command,
            venv: environment.venv.as_deref(),
            python: environment.python.as_deref(),
            planned,
            active: environment.active_venv.as_deref(),
        }
    }
}
