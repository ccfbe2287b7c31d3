//! `planner snapshot`: write a portable snapshot of an environment (`--out FILE`), or print
//! the standalone Python script that writes the same snapshot elsewhere (`--script`).
//! Schema: `docs/snapshot-json.md`.

use crate::ExitStatus;
use crate::cli::SnapshotArgs;
use crate::inventory::{self, snapshot};
use crate::printer::Printer;

/// Run `planner snapshot`.
pub fn run(args: &SnapshotArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    if args.script {
        printer.out(snapshot::script());
        return Ok(ExitStatus::Success);
    }
    let inventory = inventory::load(&args.env)?;
    inventory.report(printer);
    let text = snapshot::to_json(&snapshot::build(&inventory)?);
    match args.out.as_deref() {
        Some(path) if path.as_os_str() != "-" => {
            snapshot::write_atomic(path, &text)?;
            printer.note(&format!(
                "wrote a snapshot of {} distributions to {}",
                inventory.dists.len(),
                path.display()
            ));
        }
        _ => printer.out(&text),
    }
    Ok(ExitStatus::Success)
}
