//! planner: plans upgrades of Python environments before anyone touches them.
//!
//! The pipeline, one module per stage; each stage passes plain data to the next and never
//! reaches upstream:
//!
//! 1. [`inventory`]: the installed set and the target interpreter ([`inventory::Inventory`]).
//! 2. [`index`]: what the package index offers ([`index::IndexSource`]).
//! 3. [`solve`]: pubgrub over the index and the installed set.
//! 4. [`risk`] and [`plan`]: upgrade plans, forced overrides and their risk.
//! 5. [`verify`]: what to check after a plan (imports of changed dists and their dependents,
//!    the policy's smoke tests), and running the check.
//! 6. [`render`]: text, JSON, markdown, pip/uv commands and the verification script.
//!
//! [`commands`] wires the stages into the subcommands; [`run`] dispatches.

#![warn(missing_docs)]

pub mod cli;
pub mod commands;
pub mod exit_status;
pub mod index;
pub mod inventory;
pub mod metadata;
pub mod plan;
pub mod printer;
pub mod render;
pub mod risk;
pub mod solve;
pub mod tags;
pub mod verify;

use std::process::ExitCode;

pub use exit_status::ExitStatus;

use crate::cli::{Cli, Command};
use crate::printer::Printer;

/// Run one parsed command line. Errors are returned for [`report_error`] to render.
pub fn run(cli: Cli) -> miette::Result<ExitStatus> {
    let printer = Printer::new(cli.quiet);
    match cli.command {
        Command::Propose(args) => commands::propose::run(&args, &printer),
        Command::Inventory(args) => commands::inventory::run(&args, &printer),
        Command::Check(args) => commands::check::run(&args, &printer),
        Command::Snapshot(args) => commands::snapshot::run(&args, &printer),
        Command::Outdated(args) => commands::outdated::run(&args, &printer),
        Command::Resolve(args) => commands::resolve::run(&args, &printer),
        Command::Verify(args) => commands::verify::run(&args, &printer),
    }
}

/// Render an error with miette on stderr and return exit code 2.
#[allow(clippy::print_stderr)]
pub fn report_error(report: &miette::Report) -> ExitCode {
    eprintln!("{report:?}");
    ExitStatus::Error.into()
}
