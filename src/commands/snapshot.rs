//! `planner snapshot`: write a portable snapshot of an environment (`--out FILE`), or print
//! the standalone Python script that writes the same snapshot elsewhere (`--script`).
//! Schema: `docs/snapshot-json.md`; the document is written by `render::json`.

use crate::ExitStatus;
use crate::atomic;
use crate::env_vars::EnvVars;
use crate::inventory::{self, InventoryError, runtime, snapshot};
use crate::printer::Printer;
use crate::render::json;
use crate::settings::{SnapshotOutput, SnapshotSettings};

/// Run `planner snapshot`.
pub(crate) fn run(settings: &SnapshotSettings, printer: &Printer) -> miette::Result<ExitStatus> {
    if settings.output == SnapshotOutput::Script {
        printer.out(snapshot::script());
        return Ok(ExitStatus::Success);
    }
    if let SnapshotOutput::File(path) = &settings.output
        && path.is_dir()
    {
        return Err(miette::miette!(
            code = "planner::snapshot::out_is_folder",
            help = format!(
                "--out takes the snapshot file's name: `--out {}`",
                path.join("snapshot.json").display()
            ),
            "cannot write the snapshot to `{}`: it is a folder",
            path.display()
        ));
    }
    if let SnapshotOutput::File(path) = &settings.output
        && let Some(folder) = path.parent().filter(|f| !f.as_os_str().is_empty())
        && !folder.is_dir()
    {
        return Err(miette::miette!(
            code = "planner::snapshot::no_folder",
            help = "make the folder first (`mkdir -p`), or name a file in one that exists",
            "cannot write the snapshot to `{}`: the folder `{}` does not exist",
            path.display(),
            folder.display()
        ));
    }
    let inventory = inventory::load(&settings.environment)?;
    inventory.report(printer);
    let mut built = snapshot::build(&inventory)?;
    built.runtime = Some(runtime::collect(EnvVars::process()));
    let text = json::to_json(&built)?;
    match &settings.output {
        SnapshotOutput::File(path) => {
            atomic::write(path, text.as_bytes(), atomic::Mode::File).map_err(|source| {
                InventoryError::Write {
                    path: path.clone(),
                    source,
                }
            })?;
            printer.note(&format!(
                "wrote a snapshot of {} distributions to {}",
                inventory.dists.len(),
                path.display()
            ));
        }
        SnapshotOutput::Stdout | SnapshotOutput::Script => printer.out(&text),
    }
    Ok(ExitStatus::Success)
}
