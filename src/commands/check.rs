//! `planner check`.

use crate::ExitStatus;
use crate::cli::CheckArgs;
use crate::printer::Printer;

/// Run `planner check`.
pub fn run(args: &CheckArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    let _ = (args, printer);
    miette::bail!("`planner check` is not built yet")
}
