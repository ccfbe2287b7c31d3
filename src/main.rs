//! The `planner` binary: parse the command line, run, render errors, exit.
use std::io::Write;

use planner::ExitStatus;

fn main() {
    planner::interrupt::install();
    planner::install_error_hook();
    planner::end_process_after_run();
    let cli = planner::cli::Cli::parse_args();
    let json = cli.wants_json();
    let status = match planner::run(cli) {
        Ok(status) => status,
        Err(report) => {
            planner::report_error(&report);
            if json {
                planner::report_error_json(&report);
            }
            planner::error_status(&report)
        }
    };
    exit(status)
}

/// End the process once `run` is done: everything it wrote is written (files renamed into
/// place, output flushed here), so the exit-time teardown of the allocator, which walked and
/// returned every heap page to the system (7% of a warm `resolve`), is skipped: the system
/// reclaims the whole process anyway.
#[allow(unsafe_code)] // the unsafe call is explained by its SAFETY comment
fn exit(status: ExitStatus) -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process at once; nothing of it is used after.
    unsafe {
        libc::_exit(i32::from(status.code()))
    }
    #[cfg(not(unix))]
    std::process::exit(i32::from(status.code()))
}

// Reading an index materializes ~100k file entries for a 200-dist environment; mimalloc halves
// the CPU of a warm `planner outdated` against the system allocator (scripts/bench-outdated).
// Built without transparent huge pages (`no_thp`): with them the kernel zeroed whole 2 MiB
// pages on first touch and a warm resolve's peak memory more than doubled (docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
