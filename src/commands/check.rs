//! `planner check`: broken requirements (what `pip check` says) and more; exit 1 when
//! something is broken. Output: `render::check`.

use crate::ExitStatus;
use crate::env_vars::EnvVars;
use crate::inventory::{self, check, runtime};
use crate::printer::Printer;
use crate::render::{check as render, json};
use crate::settings::{CheckSettings, OutputFormat};

/// Run `planner check`.
pub(crate) fn run(settings: &CheckSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    // Plan files first: a bad --accept fails before the environment is read.
    let accepted = crate::plan::AcceptedOverrides::load(&settings.accept)?;
    let mut inventory = inventory::load(&settings.environment)?;
    inventory::integrity::attach(&mut inventory, settings.files);
    // The unreadable dists are findings in the report (stdout): not said again on stderr.
    inventory.report_notes(printer);
    let mut report = check::check(&inventory);
    report.add_file_checks(&inventory);
    if !matches!(
        inventory.environment.origin,
        inventory::EnvironmentOrigin::Snapshot { .. }
    ) {
        report.add_stale_caches(&inventory, &runtime::caches(EnvVars::process()));
    }
    report.accept(&accepted.edges());
    match settings.format {
        OutputFormat::Json => printer.out(&json::to_json(&render::to_json(&inventory, &report))?),
        OutputFormat::Text | OutputFormat::Markdown => {
            printer.text(&render::render_text(&report, printer.color()))
        }
    }
    Ok(if report.broken() {
        ExitStatus::UserActionRequired
    } else {
        ExitStatus::Success
    })
}
