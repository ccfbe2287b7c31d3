//! The `planner` binary: parse the command line, run, render errors, exit.
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = planner::cli::Cli::parse();
    match planner::run(cli) {
        Ok(status) => status.into(),
        Err(report) => planner::report_error(&report),
    }
}
