//! The `planner` binary: parse the command line, run, render errors, exit.
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    planner::interrupt::install();
    planner::install_error_hook();
    let cli = planner::cli::Cli::parse();
    match planner::run(cli) {
        Ok(status) => status.into(),
        Err(report) => planner::report_error(&report),
    }
}

// Reading an index materializes ~100k file entries for a 200-dist environment; mimalloc halves
// the CPU of a warm `planner outdated` against the system allocator (scripts/bench-outdated).
// Built without transparent huge pages (`no_thp`): with them the kernel zeroed whole 2 MiB
// pages on first touch and a warm resolve's peak memory more than doubled (docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
