//! `planner outdated`.

use crate::ExitStatus;
use crate::cli::OutdatedArgs;
use crate::printer::Printer;

/// Run `planner outdated`.
pub fn run(args: &OutdatedArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    let _ = (args, printer);
    miette::bail!("`planner outdated` is not built yet")
}
