//! `planner propose`.

use crate::ExitStatus;
use crate::cli::ProposeArgs;
use crate::printer::Printer;

/// Run `planner propose`.
pub fn run(args: &ProposeArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    let _ = (args, printer);
    miette::bail!("`planner propose` is not built yet")
}
