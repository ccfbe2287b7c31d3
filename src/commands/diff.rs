//! `planner diff A B` and `planner diff --since WHEN [A]`: what changed between two
//! environments, or in one since a time (from its install records' file times).
//!
//! Output: text, JSON (`docs/diff-json.md`) or markdown (`render::diff`). Exit codes: 0 done
//! and no requirement became broken, 1 a requirement became broken (B against A, or by a dist
//! installed since WHEN), 2 the tool failed. Environments are only read.

use std::path::{Path, PathBuf};

use miette::miette;

use crate::ExitStatus;
use crate::diff::{self, since};
use crate::env_vars::EnvVars;
use crate::inventory::runtime::{self, Runtime};
use crate::inventory::{self, EnvironmentOrigin, EnvironmentSelection, Inventory};
use crate::printer::Printer;
use crate::render::diff as render;
use crate::settings::{DiffEnv, DiffSettings, OutputFormat};

/// Run `planner diff`.
pub(crate) fn run(args: &DiffSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    if let Some(when) = &args.since {
        return run_since(args, when, printer);
    }
    let [a, b] = args.envs.as_slice() else {
        return Err(miette!(
            help = "`planner diff A B` (each a venv, a snapshot or pip inspect output), or `planner diff --since 3d [A]`",
            "diff needs two environments (got {})",
            args.envs.len()
        ));
    };
    let ((a, old), (b, new)) = (read(a, printer)?, read(b, printer)?);
    let mut report = diff::diff(&a, &old, &b, &new);
    report.runtime = diff::runtime::compare(runtime_of(&old).as_ref(), runtime_of(&new).as_ref());
    match args.format {
        OutputFormat::Text => printer.text(&render::text(&report)),
        OutputFormat::Json => printer.out(&render::json(&report)?),
        OutputFormat::Markdown => printer.out(&render::markdown(&report)),
    }
    Ok(if report.broken.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::UserActionRequired
    })
}

fn run_since(args: &DiffSettings, when: &str, printer: &Printer) -> miette::Result<ExitStatus> {
    // The wall clock, not `clock::now()`: the cutoff is compared with real file times.
    let (cutoff, how) =
        since::parse_when_in(when, jiff::Timestamp::now(), &jiff::tz::TimeZone::system())?;
    if let Some(how) = how {
        printer.note(&format!("note: {how}"));
    }
    let (label, inventory) = match args.envs.as_slice() {
        [] => {
            let mut inventory = inventory::load(&args.environment)?;
            inventory::integrity::attach(&mut inventory, inventory::integrity::Scope::Sources);
            report(&inventory, printer);
            let label = inventory.environment.prefix.as_ref().map_or_else(
                || "(this interpreter)".to_string(),
                |p| p.display().to_string(),
            );
            (label, inventory)
        }
        [one] => read(one, printer)?,
        _ => {
            return Err(miette!(
                help = "`planner diff --since 3d VENV`",
                "--since reads one environment (got {})",
                args.envs.len()
            ));
        }
    };
    let report = since::since(&label, &inventory, cutoff)?;
    match args.format {
        OutputFormat::Text => printer.text(&render::since_text(&report)),
        OutputFormat::Json => printer.out(&render::json(&report)?),
        OutputFormat::Markdown => printer.out(&render::since_markdown(&report)),
    }
    Ok(if report.installed.iter().all(|i| i.broken.is_empty()) {
        ExitStatus::Success
    } else {
        ExitStatus::UserActionRequired
    })
}

/// One side, with its label: a positional ENV (a venv folder, or a snapshot / `pip inspect`
/// file), or the environment `--venv`, `--from-snapshot` or `--python` names.
fn read(side: &DiffEnv, printer: &Printer) -> miette::Result<(String, Inventory)> {
    let (label, mut inventory) = match side {
        DiffEnv::Path(path) => (path.display().to_string(), read_path(path)?),
        DiffEnv::Source(source) => {
            let selection = EnvironmentSelection {
                source: source.clone(),
                ..EnvironmentSelection::default()
            };
            let label = source.named().map(|p| p.display().to_string());
            (label.unwrap_or_default(), inventory::load(&selection)?)
        }
    };
    report(&inventory, printer);
    // A venv read here is checked against its RECORDs as a snapshot of it would be.
    inventory::integrity::attach(&mut inventory, inventory::integrity::Scope::Sources);
    Ok((label, inventory))
}

/// A side's runtime context: as its planner snapshot recorded it, or this machine's now for a
/// venv read live (`None`: `pip inspect` output or a snapshot that recorded none).
fn runtime_of(inventory: &Inventory) -> Option<Runtime> {
    match &inventory.environment.origin {
        EnvironmentOrigin::Snapshot { path } => inventory::snapshot::load_runtime(path),
        _ => Some(runtime::collect(EnvVars::process())),
    }
}

/// A venv (a folder) or a snapshot / `pip inspect` file.
fn read_path(path: &Path) -> miette::Result<Inventory> {
    let inventory = if path.is_dir() {
        inventory::load_venv(path)?
    } else if path.is_file() {
        inventory::snapshot::load(path)?
    } else {
        return Err(miette!(
            help = "pass a venv folder, a `planner snapshot` file or `pip inspect` output",
            "`{}` does not exist",
            PathBuf::from(path).display()
        ));
    };
    Ok(inventory)
}

/// The inventory's notes and skipped dists, without advice to pass flags `diff` does not take
/// (a `pip inspect` file's note asks for `--python-platform`; diff compares metadata, which the
/// wheel tags do not change).
fn report(inventory: &Inventory, printer: &Printer) {
    for note in &inventory.environment.notes {
        printer.note(&format!("note: {}", without_flag_advice(&note.text)));
    }
    for bad in &inventory.unreadable {
        printer.warn(&format!("skipping {}: {}", bad.path.display(), bad.reason));
    }
}

/// `text (pass --flag ...)` -> `text`.
fn without_flag_advice(note: &str) -> String {
    let mut out = note.to_string();
    while let Some(start) = out.find(" (pass --") {
        let Some(len) = out[start..].find(')') else {
            break;
        };
        out.replace_range(start..start + len + 1, "");
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn flag_advice_is_dropped() {
        assert_eq!(
            super::without_flag_advice(
                "`x.json` is `pip inspect` output: tags generated for CPython 3.12 on linux (pass --python-platform to be exact)"
            ),
            "`x.json` is `pip inspect` output: tags generated for CPython 3.12 on linux"
        );
    }
}
