//! `planner verify`: does the environment still work after a plan (or any change)?
//!
//! Reads the environment (`--venv`, `--python`, or the usual discovery), the plan file
//! (`--plan`), and the policy's smoke tests; selects what to check ([`crate::verify::select`]),
//! writes `verify.py` to a temp file, runs it with the environment's own interpreter and renders
//! its report: text, or JSON (`docs/verify.md`). Exit codes: 0 every check passed or was skipped
//! (with `--compare`: nothing regressed; with `--baseline`: recorded), 1 a check failed, 2 the
//! tool or the script failed.

use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use miette::miette;

use crate::ExitStatus;
use crate::inventory::{self, EnvironmentOrigin};
use crate::printer::Printer;
use crate::settings::{OutputFormat, VerifySettings};
use crate::verify::script as render;
use crate::verify::{VerifyMode, run};

/// Run `planner verify`.
pub(crate) fn run(args: &VerifySettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let started = Instant::now();
    // The plan and policy first: bad files fail before the environment is read.
    let plan = args
        .plan
        .as_deref()
        .map(crate::plan::read_plan)
        .transpose()?;
    let inventory = match &args.python {
        Some(python) => inventory::load_python(python)?,
        None => inventory::load(&args.environment)?,
    };
    inventory.report(printer);
    let python: PathBuf = match &inventory.environment.origin {
        EnvironmentOrigin::Interpreter { python, .. } => python.clone(),
        _ => {
            return Err(miette!(
                help = "verify runs the environment's own interpreter: pass --venv DIR with a \
                        working bin/python, or --python PATH",
                "the environment has no interpreter that answers"
            ));
        }
    };
    let spec = crate::verify::select(plan.as_ref(), &inventory, &args.policy, args.all);
    let script = render::script(&spec);
    let mut options = args.run.clone();
    options.budget_from = budget_from(args.all, started);
    // The baseline a run before the change records by itself sits next to the plan, where
    // `install-*.sh --verify` writes it too.
    options.baseline_file = args.plan.as_deref().map(|plan| {
        plan.parent()
            .unwrap_or(std::path::Path::new("."))
            .join("verify-baseline.json")
    });
    let (report, document) = run::run(&python, &script, &options)?;
    match args.format {
        OutputFormat::Json => {
            printer.out(&crate::render::json::to_json(&document)?);
        }
        OutputFormat::Text | OutputFormat::Markdown => {
            printer.text(&render::report_text(&report));
        }
    }
    Ok(if report.ok || report.mode == VerifyMode::Baseline {
        ExitStatus::Success
    } else {
        ExitStatus::UserActionRequired
    })
}

/// With `--all`, the budget is the whole command's: it counts from the command's start, as seconds
/// since the Unix epoch (verify.py reads its clock against it, so the seconds spent here before it
/// starts, and its interpreter's own start, count too). Without `--all` there is no budget.
fn budget_from(all: bool, started: Instant) -> Option<f64> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
    all.then(|| now.as_secs_f64() - started.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

    use super::budget_from;

    #[test]
    fn the_budget_of_all_counts_from_the_commands_start() {
        let now = Instant::now();
        assert_eq!(budget_from(false, now), None);
        let three_ago = now.checked_sub(Duration::from_secs(3)).unwrap();
        let from = budget_from(true, three_ago).unwrap();
        let epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!(
            (3.0..4.0).contains(&(epoch - from)),
            "{from} against {epoch}"
        );
    }
}
