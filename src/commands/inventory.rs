//! `planner inventory`.

use crate::ExitStatus;
use crate::cli::InventoryArgs;
use crate::printer::Printer;

/// Run `planner inventory`.
pub fn run(args: &InventoryArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    let _ = (args, printer);
    miette::bail!("`planner inventory` is not built yet")
}
