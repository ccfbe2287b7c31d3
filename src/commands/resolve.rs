//! `planner resolve`.

use crate::ExitStatus;
use crate::cli::ResolveArgs;
use crate::printer::Printer;

/// Run `planner resolve`.
pub fn run(args: &ResolveArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    let _ = (args, printer);
    miette::bail!("`planner resolve` is not built yet")
}
