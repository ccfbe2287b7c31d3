//! `planner inventory`: read the environment, print its installed set (`render::inventory`).

use crate::ExitStatus;
use crate::env_vars::EnvVars;
use crate::inventory::{self, EnvironmentOrigin, runtime};
use crate::printer::Printer;
use crate::render::{inventory as render, json};
use crate::settings::{InventorySettings, OutputFormat};

/// Run `planner inventory`.
pub(crate) fn run(settings: &InventorySettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let inventory = inventory::load(&settings.environment)?;
    inventory.report(printer);
    match settings.format {
        OutputFormat::Json => {
            let mut doc = render::to_json(&inventory);
            if !matches!(
                inventory.environment.origin,
                EnvironmentOrigin::Snapshot { .. }
            ) {
                doc.runtime = Some(runtime::collect(EnvVars::process()));
            }
            printer.out(&json::to_json(&doc)?)
        }
        OutputFormat::Text | OutputFormat::Markdown => {
            printer.text(&render::render_text(&inventory, printer.color()))
        }
    }
    Ok(ExitStatus::Success)
}
