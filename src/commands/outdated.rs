//! `planner outdated`: for each installed dist, how far it is behind the index and what holds
//! it back.
//!
//! Reads the environment and the index pages of its dists, compares them ([`crate::outdated`])
//! and renders the report (`render::outdated`) as a table or JSON (`docs/outdated-json.md`).
//! Exit 0, or 2 when some projects could not be read from the index, or a row's check could
//! not read what it needed (the rest is still printed).

use std::collections::BTreeMap;
use std::sync::Arc;

use pep508_rs::PackageName;

use crate::ExitStatus;
use crate::index::{Index, IndexError, Project};
use crate::inventory;
use crate::outdated::{build_report, check_line_moves, check_own_requirements};
use crate::plan::InstalledImports;
use crate::printer::Printer;
use crate::render::json;
use crate::render::outdated::render_text;
use crate::settings::{OutdatedSettings, OutputFormat};

/// Run `planner outdated`.
pub(crate) fn run(args: &OutdatedSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    let inventory = inventory::load(&args.environment)?;
    inventory.report(printer);
    let mut settings = args.index.resolve(args.environment.source.venv_flag())?;
    // Only the files that can change an answer for this environment are read (`FileFilter`).
    settings.target_tags = Some(inventory.environment.tags.clone());
    let index = Index::new(settings, printer)?;
    let names: Vec<PackageName> = inventory
        .dists
        .iter()
        .filter(|d| !d.is_unmanaged())
        .map(|d| d.name().clone())
        .collect();
    let projects: BTreeMap<PackageName, Result<Option<Arc<Project>>, IndexError>> =
        names.iter().cloned().zip(index.projects(&names)).collect();
    index.finish_progress();
    let indexes: Vec<String> = index.indexes().iter().map(ToString::to_string).collect();
    let mut report = build_report(&inventory, &projects, index.binary_policy(), indexes);
    // The installed files' imports are read once for the alone scan and every line move's
    // proposal.
    let imports = Arc::new(InstalledImports::default());
    check_own_requirements(
        &mut report,
        &inventory,
        &projects,
        &index,
        index.binary_policy(),
        &imports,
    );
    check_line_moves(
        &mut report,
        &inventory,
        &index,
        index.binary_policy(),
        &imports,
    );
    let suspect = super::suspect_lines(&index);
    match args.format {
        OutputFormat::Json => printer.out(&json::to_json(&report)?),
        OutputFormat::Text | OutputFormat::Markdown => {
            printer.out(&render_text(&report, printer.color(), printer.width()))
        }
    }
    // Freeing a hundred thousand parsed files costs a tenth of a warm run; the process is about
    // to exit, so leave that to the OS (as uv and ripgrep do with their big structures).
    let projects = std::mem::ManuallyDrop::new(projects);
    let _index = std::mem::ManuallyDrop::new(index);
    for line in &suspect {
        printer.warn(line);
    }
    // A row whose check could not read what it needed is the tool failing, as a page is.
    let unchecked: Vec<&str> = (report.packages.iter())
        .filter_map(|p| p.not_checked.as_deref())
        .collect();
    if report.errors.is_empty() && unchecked.is_empty() {
        return Ok(super::at_least_user_action(ExitStatus::Success, &suspect));
    }
    if report.errors.is_empty() {
        printer.warn(&format!(
            "{} of {} packages could not be checked (\"Can move to\" shows \"?\"); the first error: {}",
            unchecked.len(),
            names.len(),
            unchecked[0]
        ));
        return Ok(ExitStatus::Error);
    }
    // The first error, rendered with its help, says what to do; the rest are in the report.
    let Some(first) = projects.values().find_map(|r| r.as_ref().err().cloned()) else {
        return Ok(ExitStatus::Error);
    };
    printer.warn(&format!(
        "{} of {} packages could not be checked; the first error:",
        report.errors.len(),
        names.len()
    ));
    if matches!(args.format, OutputFormat::Json) {
        // stdout holds one document, the report, whose `errors` list them all: the first goes to
        // stderr as `main` renders an error, with no error document after the report.
        let clean = miette::Report::new(crate::terminal::clean(&first));
        crate::printer::err_line(&format!("{clean:?}"));
        return Ok(ExitStatus::Error);
    }
    Err(miette::Report::new(first))
}
