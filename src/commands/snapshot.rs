//! `planner snapshot`.

use crate::ExitStatus;
use crate::cli::SnapshotArgs;
use crate::printer::Printer;

/// Run `planner snapshot`.
pub fn run(args: &SnapshotArgs, printer: &Printer) -> miette::Result<ExitStatus> {
    let _ = (args, printer);
    miette::bail!("`planner snapshot` is not built yet")
}
